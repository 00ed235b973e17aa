"""The store's nodes as they are now, seen with short-lived synchronous clients: where the master is, its
replicas, the sentinels, and whether each answers without a password.

Used before serving (the open-store guard, the start-up banner, the list of addresses agents may not reach);
decisions never come here — they use :func:`gateway.store.backend.connect`'s client.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry
from redis.sentinel import Sentinel

from gateway.store.topology import CLUSTER, SENTINEL, Topology


@dataclass(frozen=True)
class Layout:
    """Who the store is made of, as far as it would say (addresses as ``host:port``)."""

    master: str | None  # a cluster's masters, comma-separated
    replicas: tuple[str, ...] = ()
    sentinels: tuple[str, ...] = ()  # the configured ones that answered
    masters: tuple[str, ...] = ()  # a cluster's

    def nodes(self) -> tuple[str, ...]:
        return tuple(a for a in (self.master if not self.masters else None, *self.masters, *self.replicas) if a)


def _once(timeout_s: float) -> dict[str, Any]:
    """Bounded and tried once: redis-py's default retries with backoff turn a refusal into seconds."""
    return {"socket_timeout": timeout_s, "socket_connect_timeout": timeout_s, "retry": Retry(NoBackoff(), 0)}


def _hp(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@contextmanager
def _sentinel(t: Topology, timeout_s: float, *, authenticated: bool = True) -> Iterator[Sentinel]:
    """Clients of the configured sentinels (``authenticated=False``: without credentials, to test them)."""
    kwargs = t.sentinel_kwargs() if authenticated else {k: v for k, v in t.sentinel_kwargs().items()
                                                        if k not in ("username", "password")}
    kwargs.update(_once(timeout_s))
    sentinel = Sentinel(list(t.nodes), sentinel_kwargs=kwargs)  # type: ignore[no-untyped-call]
    try:
        yield sentinel
    finally:
        for client in sentinel.sentinels:
            client.close()


def master_address(t: Topology, *, timeout_s: float = 1.0) -> tuple[str, int] | None:
    """The master's (host, port), or None when no sentinel names one (or, for one Redis, its own address; for a
    cluster, the first seed node's)."""
    if t.kind != SENTINEL:
        return t.nodes[0] if t.nodes else None
    with _sentinel(t, timeout_s) as sentinel:
        return _discovered_master(t, sentinel)


def _discovered_master(t: Topology, sentinel: Sentinel) -> tuple[str, int] | None:
    try:
        host, port = sentinel.discover_master(str(t.service))  # type: ignore[no-untyped-call]
    except redis.RedisError:
        return None
    return str(host), int(port)


def _answering(t: Topology, sentinel: Sentinel) -> list[str]:
    """The configured sentinels that answer PING with the clients ``sentinel`` holds (in the URL's order)."""
    found = []
    for node, client in zip(t.nodes, sentinel.sentinels, strict=True):
        try:
            client.ping()
            found.append(_hp(*node))
        except redis.RedisError:
            pass
    return found


def _node_kwargs(t: Topology, node: tuple[str, int]) -> tuple[dict[str, Any], Any]:
    kwargs: dict[str, Any] = {**t.data_kwargs(), "host": node[0], "port": node[1]}
    return kwargs, (redis.SSLConnection if kwargs.pop("ssl", False) else redis.Connection)


def node_client(t: Topology, node: tuple[str, int], *, timeout_s: float = 1.0,
                authenticated: bool = True) -> AbstractContextManager[redis.Redis]:
    """A client of one data node of a cluster (``authenticated=False``: without credentials, to test them)."""
    return _client(*_node_kwargs(t, node), timeout_s=timeout_s, authenticated=authenticated)


@contextmanager
def _client(kwargs: dict[str, Any], connection_class: Any, *, timeout_s: float,
            authenticated: bool) -> Iterator[redis.Redis]:
    if not authenticated:
        kwargs = {k: v for k, v in kwargs.items() if k not in ("username", "password")}
    pool = redis.ConnectionPool(connection_class=connection_class, **{**kwargs, **_once(timeout_s)})
    client = redis.Redis(connection_pool=pool)
    try:
        yield client
    finally:
        client.close()
        pool.disconnect()


def cluster_nodes(t: Topology, *, timeout_s: float = 1.0) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(masters, replicas) of a cluster as the first seed node that answers reports them (``CLUSTER NODES``);
    nodes marked failed are left out. ([], []) when no seed node answers."""
    for seed in t.nodes:
        try:
            with node_client(t, seed, timeout_s=timeout_s) as client:
                text = client.execute_command("CLUSTER NODES")  # type: ignore[no-untyped-call]
        except redis.RedisError:
            continue
        masters: list[tuple[str, int]] = []
        replicas: list[tuple[str, int]] = []
        for address, node in dict(text).items():  # redis-py reads the reply into {"host:port": {"flags": …}}
            flags = str(node.get("flags", "")).split(",")
            host, _, port = str(address).split("@")[0].rpartition(":")
            if "fail" in flags or "noaddr" in flags or not port.isdigit():
                continue
            (masters if "master" in flags else replicas).append((host.strip("[]") or seed[0], int(port)))
        return sorted(masters), sorted(replicas)
    return [], []


def master_client(t: Topology, *, timeout_s: float = 1.0,
                  authenticated: bool = True) -> AbstractContextManager[redis.Redis]:
    """A client of the master (``authenticated=False``: without the URL's credentials, to test them)."""
    if t.kind == SENTINEL:
        address = master_address(t, timeout_s=timeout_s)
        if address is None:
            raise redis.ConnectionError(f"no sentinel of {t.where()} names a master")
        kwargs, connection_class = _node_kwargs(t, address)
    elif t.kind == CLUSTER:
        kwargs, connection_class = _node_kwargs(t, t.nodes[0])
    else:  # redis-py's own reading of the URL (TLS and unix sockets included)
        configured = redis.ConnectionPool.from_url(t.url)
        kwargs, connection_class = dict(configured.connection_kwargs), configured.connection_class
    return _client(kwargs, connection_class, timeout_s=timeout_s, authenticated=authenticated)


def open_sentinels(t: Topology, *, timeout_s: float = 1.0) -> list[str]:
    """The configured sentinels that answer PING without credentials (empty for one Redis); for a cluster, its
    nodes that do (any of them could be told to take over the others' slots)."""
    if t.kind == CLUSTER:
        return _open_cluster_nodes(t, timeout_s)
    if t.kind != SENTINEL:
        return []
    with _sentinel(t, timeout_s, authenticated=False) as sentinel:
        return _answering(t, sentinel)


def layout(t: Topology, *, timeout_s: float = 1.0) -> Layout:
    """Master, replicas and answering sentinels; for one Redis, its replicas as it reports them; for a cluster,
    its masters and replicas."""
    if t.kind == CLUSTER:
        in_cluster = cluster_nodes(t, timeout_s=timeout_s)
        found = tuple(_hp(*m) for m in in_cluster[0])
        return Layout(", ".join(found) or None, tuple(_hp(*r) for r in in_cluster[1]), masters=found)
    if t.kind == SENTINEL:
        with _sentinel(t, timeout_s) as sentinel:
            answering = _answering(t, sentinel)  # before discovery, which reorders the sentinels it asks
            address = _discovered_master(t, sentinel)
            try:
                replicas = tuple(_hp(str(h), int(p)) for h, p in sentinel.discover_slaves(str(t.service)))  # type: ignore[no-untyped-call]
            except redis.RedisError:
                replicas = ()
        return Layout(_hp(*address) if address else None, replicas, tuple(answering))
    try:
        with master_client(t, timeout_s=timeout_s) as client:
            info = client.info("replication")
    except redis.RedisError:
        return Layout(t.where())
    replicas = tuple(_hp(str(v["ip"]), int(v["port"])) for k, v in info.items()
                     if k.startswith("slave") and isinstance(v, dict))
    return Layout(t.where(), replicas)


def _open_cluster_nodes(t: Topology, timeout_s: float) -> list[str]:
    masters, replicas = cluster_nodes(t, timeout_s=timeout_s)
    found = []
    for node in dict.fromkeys([*t.nodes, *masters, *replicas]):
        try:
            with node_client(t, node, timeout_s=timeout_s, authenticated=False) as client:
                client.ping()
            found.append(_hp(*node))
        except redis.RedisError:
            pass
    return found
