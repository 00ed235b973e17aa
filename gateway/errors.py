"""The gateway's exceptions, each mapped to one HTTP status and error code.

    GatewayError                      500 internal (never for bad input)
     ├── BadRequest                   400/422 the body or a parameter is malformed
     ├── Unauthorized                 401 missing or unknown key
     ├── Forbidden                    403 the key may not do this (agent key on admin routes, other run)
     ├── NotFound                     404 unknown run or approval
     ├── Conflict                     409 approval already resolved or expired, run exists
     ├── StoreUnavailable             503 Redis unreachable; the hook turns it into a deny
     │    └── NotReplicated           503 no replica confirmed a write that must survive a failover
     └── RulesUnavailable             503 the API-uploaded pack in force was lost; an operator must act

Every error answers ``{"error": {"code", "message"}}`` and never carries a stack trace.
"""

from __future__ import annotations


class GatewayError(Exception):
    status = 500
    code = "internal"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(GatewayError):
    status = 422
    code = "invalid_request"


class Unauthorized(GatewayError):
    status = 401
    code = "unauthorized"


class Forbidden(GatewayError):
    status = 403
    code = "forbidden"


class NotFound(GatewayError):
    status = 404
    code = "not_found"


class Conflict(GatewayError):
    status = 409
    code = "conflict"


class StoreUnavailable(GatewayError):
    status = 503
    code = "store_unavailable"


class NotReplicated(StoreUnavailable):
    """The master took the write but no replica confirmed it in time: a failover could lose it, so it is not
    reported done (docs/ha.md). The message names no address, so it is shown as is."""

    code = "not_replicated"


class RulesUnavailable(GatewayError):
    status = 503
    code = "rules_unavailable"
