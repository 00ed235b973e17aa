"""The orchestrator's user errors: problems a user can fix, reported as one or two lines naming the cause
and the fix, with exit code 2 and no traceback (``--debug`` or ``ACTEON_DEBUG=1`` shows it).

    UserError
    ├── GatewayError          the gateway refused a request (bad key, bad input, …)
    │   ├── NotFound          it does not know the run or approval
    │   └── Unreachable       nothing answers at the gateway's address
    ├── PlanError             a plan that cannot be used (every problem listed)
    └── ConfigError           a swarm.toml that cannot be used

Anything else escaping a command is a bug, and shows its traceback.
"""

from __future__ import annotations


class UserError(Exception):
    """A problem the user can fix; the message says what it is and how."""
