"""One swarm run: ``runner.Run`` sequences it; each other module here owns one part of what a run does
(docs/architecture.md)."""
