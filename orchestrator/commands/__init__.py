"""The ``acteon-swarm`` command groups, one module each; ``orchestrator.cli`` assembles them.

``common`` holds what every command needs (the state directory, the admin key, a run's gateway, one way to
fail); the group modules (``approvals`` …) hold the commands themselves.
"""
