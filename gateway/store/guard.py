"""Refuse a Redis that anyone can talk to (docs/security.md: the store must require a password).

The store holds every decision's state: approvals, quotas, throttles, the audit, the rule pack. A Redis that
answers without a password can be rewritten by any local process — an agent approved its own `git push` that
way in an outside security review (docs/security.md). So before serving, the gateway connects to the
configured address *without* the URL's credentials and sends PING: an answer means the store is open and the
gateway does not start (unless the operator says ``--insecure-redis``, e.g. for a Redis only a private network
can reach).
"""

from __future__ import annotations

from redis.exceptions import AuthenticationError, ConnectionError, ResponseError, TimeoutError

from gateway.store import nodes
from gateway.store.topology import CLUSTER, SENTINEL, Topology, parse

_TIMEOUT_S = 2.0  # per node asked


class OpenStore(Exception):
    """The configured Redis accepts commands without authentication."""


def store_endpoints(redis_url: str | None) -> tuple[str, ...]:
    """What the shell analysis must keep agents away from: `tcp:HOST:PORT` of every TCP node of the store (for
    Sentinel: the sentinels, and the master and replicas they name at start-up; raw connections to any is
    `gateway_state`), or a unix socket's path (a secret path)."""
    if not redis_url:
        return ()
    t = parse(redis_url)
    if t.socket is not None:
        return (t.socket,)
    found = [f"tcp:{h}:{p}" for h, p in t.nodes]
    if t.kind in (SENTINEL, CLUSTER):
        found += [f"tcp:{a}" for a in nodes.layout(t).nodes()]
    return tuple(dict.fromkeys(found))


def check_requires_auth(url: str, *, timeout_s: float = _TIMEOUT_S) -> bool | None:
    """True when Redis at ``url`` refuses unauthenticated commands, False when it accepts them, None when
    it cannot be reached (the gateway starts and answers 503 until it can; checked again then).

    For Sentinel, a sentinel that answers without a password counts as open too: through it anyone could
    name another master (``SENTINEL SET``, ``SENTINEL FAILOVER``) and the gateway would follow."""
    t = parse(url)
    if nodes.open_sentinels(t, timeout_s=timeout_s):
        return False
    return _master_requires_auth(t, timeout_s)


def _master_requires_auth(t: Topology, timeout_s: float) -> bool | None:
    try:
        with nodes.master_client(t, timeout_s=timeout_s, authenticated=False) as client:
            client.ping()
        return False
    except AuthenticationError:
        return True
    except ResponseError as e:  # NOAUTH on older servers comes as a plain error
        return "NOAUTH" in str(e).upper() or "AUTH" in str(e).upper()
    except (ConnectionError, TimeoutError, OSError):
        return None


def refuse_open_store(url: str) -> None:
    """Raise :class:`OpenStore` with the operator's fix when Redis at ``url`` (or one of its sentinels) needs no
    password."""
    t = parse(url)
    open_ones = nodes.open_sentinels(t)
    if open_ones and t.kind == CLUSTER:
        raise OpenStore(
            f"the cluster node at {open_ones[0]} accepts commands without a password: any local process (an "
            "agent included) could rewrite approvals, quotas and the audit, or take over slots. Give every node "
            "requirepass and masterauth (or an ACL user) and put the credentials in ACTEON_REDIS_URL, or pass "
            "--insecure-redis if only trusted processes can reach them."
        )
    if open_ones:
        raise OpenStore(
            f"the sentinel at {open_ones[0]} accepts commands without a password: any local process (an agent "
            "included) could make it name another master, and the gateway would follow. Give the sentinels "
            "requirepass (or an ACL user) and put their credentials in ACTEON_REDIS_URL "
            "(sentinel_password=… when they differ from the data nodes'), or pass --insecure-redis if only "
            "trusted processes can reach them."
        )
    if _master_requires_auth(t, _TIMEOUT_S) is False:
        raise OpenStore(
            f"Redis at {t.where()} accepts commands without a password: any local process (an agent "
            "included) could rewrite approvals, quotas and the audit. Start it with --requirepass (or an "
            "ACL user) and put the credentials in ACTEON_REDIS_URL (redis://:PASSWORD@host:port/0), or "
            "pass --insecure-redis if only trusted processes can reach it."
        )
