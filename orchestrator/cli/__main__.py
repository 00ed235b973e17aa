"""``python -m orchestrator.cli``: the same as ``acteon-swarm``."""

from orchestrator.cli.app import main

main()
