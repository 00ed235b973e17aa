"""acteon-swarm gateway: the policy engine every agent tool call passes through.

The public entry point is :func:`gateway.app.create_app`. Importing this package is cheap on purpose.
"""
