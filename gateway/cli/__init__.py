"""The ``acteon-gateway`` command line: serving (``app``) and managing operators and workers (``operators``)."""

from gateway.cli.app import main

__all__ = ["main"]
