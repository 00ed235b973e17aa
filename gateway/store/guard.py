"""Refuse a Redis that anyone can talk to (docs/security.md: the store must require a password).

The store holds every decision's state: approvals, quotas, throttles, the audit, the rule pack. A Redis that
answers without a password can be rewritten by any local process — an agent approved its own `git push` that
way in an outside security review (docs/security.md). So before serving, the gateway connects to the
configured address *without* the URL's credentials and sends PING: an answer means the store is open and the
gateway does not start (unless the operator says ``--insecure-redis``, e.g. for a Redis only a private network
can reach).
"""

from __future__ import annotations

import redis
from redis.exceptions import AuthenticationError, ConnectionError, ResponseError, TimeoutError


class OpenStore(Exception):
    """The configured Redis accepts commands without authentication."""


def _address(url: str) -> tuple[str | None, str]:
    """(unix socket path, None-or-"") or (None, "host:port") of the Redis at ``url``."""
    kwargs = redis.ConnectionPool.from_url(url).connection_kwargs
    if "path" in kwargs:
        return str(kwargs["path"]), ""
    return None, f"{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}"


def where(url: str) -> str:
    path, host_port = _address(url)
    return f"unix:{path}" if path is not None else host_port


def store_endpoints(redis_url: str | None) -> tuple[str, ...]:
    """What the shell analysis must keep agents away from: `tcp:HOST:PORT` of a TCP Redis (raw connections
    to it are `gateway_state`), or a unix socket's path (a secret path)."""
    if not redis_url:
        return ()
    path, host_port = _address(redis_url)
    return (path,) if path is not None else (f"tcp:{host_port}",)


def check_requires_auth(url: str, *, timeout_s: float = 2.0) -> bool | None:
    """True when Redis at ``url`` refuses unauthenticated commands, False when it accepts them, None when
    it cannot be reached (the gateway starts and answers 503 until it can; checked again then)."""
    configured = redis.ConnectionPool.from_url(url)
    kwargs = dict(configured.connection_kwargs)
    kwargs.pop("username", None)
    kwargs.pop("password", None)
    kwargs.update(socket_connect_timeout=timeout_s, socket_timeout=timeout_s)
    pool = redis.ConnectionPool(connection_class=configured.connection_class, **kwargs)
    client = redis.Redis(connection_pool=pool)
    try:
        client.ping()
        return False
    except AuthenticationError:
        return True
    except ResponseError as e:  # NOAUTH on older servers comes as a plain error
        return "NOAUTH" in str(e).upper() or "AUTH" in str(e).upper()
    except (ConnectionError, TimeoutError, OSError):
        return None
    finally:
        client.close()
        pool.disconnect()


def refuse_open_store(url: str) -> None:
    """Raise :class:`OpenStore` with the operator's fix when Redis at ``url`` needs no password."""
    if check_requires_auth(url) is False:
        raise OpenStore(
            f"Redis at {where(url)} accepts commands without a password: any local process (an agent "
            "included) could rewrite approvals, quotas and the audit. Start it with --requirepass (or an "
            "ACL user) and put the credentials in ACTEON_REDIS_URL (redis://:PASSWORD@host:port/0), or "
            "pass --insecure-redis if only trusted processes can reach it."
        )
