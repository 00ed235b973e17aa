"""What the gateway says when it starts: where it listens, what it stores and whether that survives a
restart, which rule pack is in force, and where the operator's admin key is.

Printed once to stderr by ``acteon-gateway`` before the server starts, so an operator (or a log) sees at a
glance what they are running; the embedded store gets a warning because stopping the gateway loses its
audit and approvals.
"""

from __future__ import annotations

from pathlib import Path

import redis

from acteon_core import contract as c
from gateway.auth import ADMIN_KEY_FILE
from gateway.config import Settings
from gateway.rules.loader import Pack
from gateway.store import nodes
from gateway.store.topology import CLUSTER, SENTINEL, Topology, parse, replica_acks


def banner(settings: Settings, pack: Pack, *, host: str, port: int, workers: int, tls: bool = False) -> list[str]:
    scheme = "https" if tls else "http"
    lines = [f"acteon-gateway {c.VERSION} on {scheme}://{host}:{port} ({workers} worker{'s' if workers > 1 else ''})"]
    if not tls and host not in ("127.0.0.1", "localhost", "::1"):
        lines.append(f"  WARNING: plain HTTP on {host}: keys cross the network readable. Use --ssl-certfile and "
                     "--ssl-keyfile, or a TLS proxy in front")
    if settings.redis_url:
        auth = "no password check (--insecure-redis)" if settings.insecure_redis else "password required"
        t = parse(settings.redis_url)
        lines.append(f"  store:  Redis at {t.where()}, {auth}; {persistence(t)}")
        lines.append(f"  nodes:  {describe(t, settings.replica_acks)}")
    else:
        lines.append("  store:  embedded, in this process")
        lines.append("  WARNING: the embedded store does not survive a restart: audit, approvals and quotas are lost "
                     "when this gateway stops. Use Redis (ACTEON_REDIS_URL) to keep them.")
    rules = f"{len(pack.rules)} rules from {settings.rules_dir}, version {pack.version[:12]}"
    if settings.redis_url and not settings.rules_from_file:
        rules += " (a pack uploaded through the API and kept in Redis takes precedence)"
    lines.append(f"  rules:  {rules}")
    if settings.admin_key:
        lines.append(f"  admin:  key from ${c.ENV_ADMIN_KEY}")
    else:
        lines.append(f"  admin:  key in {Path(settings.state_dir, ADMIN_KEY_FILE).resolve()} (mode 0600)")
    lines.append(f"  agents: the default run's key in {Path(settings.state_dir, c.DEFAULT_AGENT_KEY_FILE).resolve()}")
    return lines


def describe(t: Topology, configured_acks: int | None = None) -> str:
    """Master, replicas and sentinels as the store reports them, and whether critical writes wait for a
    replica (docs/ha.md)."""
    now = nodes.layout(t)
    if t.kind == CLUSTER:
        parts = [f"{len(now.masters)} master{'' if len(now.masters) == 1 else 's'} ({now.master or 'none found'})"]
    else:
        parts = [f"master {now.master or 'not found'}"]
    parts.append(f"{len(now.replicas)} replica{'' if len(now.replicas) == 1 else 's'}"
                 + (f" ({', '.join(now.replicas)})" if now.replicas else ""))
    if t.kind == SENTINEL:
        parts.append(f"{len(now.sentinels)} of {len(t.nodes)} sentinels answering")
    acks = replica_acks(t, configured_acks)
    if acks is None:  # one Redis: the backend waits as soon as it reports a replica, as it does now or not
        acks = 1 if now.replicas else 0
    parts.append(f"approvals and keys wait for {acks} replica{'s' if acks > 1 else ''}" if acks else
                 "approvals and keys do not wait for a replica"
                 + (" (ACTEON_REDIS_REPLICA_ACKS=0)" if configured_acks == 0 else " (none)"))
    return "; ".join(parts)


def persistence(t: Topology) -> str:
    """How much of the store a Redis restart keeps, as far as Redis will say."""
    try:
        with nodes.master_client(t) as client:
            aof = client.config_get("appendonly").get("appendonly")
            fsync = client.config_get("appendfsync").get("appendfsync")
            save = client.config_get("save").get("save")
    except redis.RedisError:
        return "persistence unknown (CONFIG GET not allowed)"
    if aof == "yes":
        return f"persistent (append-only file, fsync {fsync})"
    if save:
        return f"snapshots only (save {save}): a crash loses everything since the last one"
    return "NOT persistent (no AOF, no snapshots): a Redis restart loses everything"
