"""What the hook, the gateway and the orchestrator share: the wire contract, the agent CLIs' dialects and
settings, file-scope globs, the vocabularies, atomic file writes (docs/architecture.md).

Standard library only, and nothing is imported here on purpose: the hook imports parts of this package on
every tool call, so importing the package itself must cost nothing.
"""
