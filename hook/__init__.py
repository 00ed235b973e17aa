"""acteon-swarm hook: the stdlib-only executable agent CLIs run on every tool call.

Nothing is imported here on purpose: the hook starts on every tool call, so package import must cost
nothing.
"""
