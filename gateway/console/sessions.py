"""Console sign-in sessions: a random cookie, kept in Redis as its SHA-256 with the operator's key digest.

The cookie is HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it) and Secure
under TLS; it expires with the session. Every state-changing request must also carry the session's CSRF
token (a header from the console's script, or a form field). The key itself is never stored: the session
holds the key's digest and the operator is looked up on every request, so revoking the key ends its
sessions at once.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass

from gateway.auth import hash_key
from gateway.store import keys
from gateway.store.backend import Backend

COOKIE = "acteon_session"
LOGIN_COOKIE = "acteon_login"  # the sign-in form's CSRF token, before any session exists
CSRF_HEADER = "x-csrf-token"


@dataclass(frozen=True, slots=True)
class Session:
    key_digest: str
    csrf: str


async def open_session(backend: Backend, key_digest: str, ttl_s: int) -> tuple[str, Session]:
    """A new session for a key (already authenticated); returns (cookie value, session)."""
    token = secrets.token_urlsafe(32)
    session = Session(key_digest=key_digest, csrf=secrets.token_urlsafe(24))
    key = keys.console_session(hash_key(token))
    # One transaction: a session is never stored without its expiry.
    async with backend.redis.pipeline(transaction=True) as p:
        p.hset(key, mapping={"key": key_digest, "csrf": session.csrf})
        p.expire(key, ttl_s)
        await backend.call(p.execute())
    return token, session


async def read_session(backend: Backend, token: str | None) -> Session | None:
    if not token or len(token) > 128:
        return None
    found = await backend.call(backend.redis.hmget(keys.console_session(hash_key(token)), ["key", "csrf"]))
    if not found or not found[0] or not found[1]:
        return None
    return Session(key_digest=str(found[0]), csrf=str(found[1]))


async def close_session(backend: Backend, token: str | None) -> None:
    if token and len(token) <= 128:
        await backend.call(backend.redis.delete(keys.console_session(hash_key(token))))


def same_token(expected: str, given: str | None) -> bool:
    return bool(given) and hmac.compare_digest(expected.encode(), (given or "").encode())
