"""The ``acteon-swarm`` command line: ``app`` builds it from one module per group of commands."""

from orchestrator.cli.app import main

__all__ = ["main"]
