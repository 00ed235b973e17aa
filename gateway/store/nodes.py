"""The store's nodes as they are now, seen with short-lived synchronous clients: where the master is, its
replicas, the sentinels, and whether each answers without a password.

Used before serving (the open-store guard, the start-up banner, the list of addresses agents may not reach);
decisions never come here — they use :func:`gateway.store.backend.connect`'s client.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry
from redis.sentinel import Sentinel

from gateway.store.topology import SENTINEL, Topology


@dataclass(frozen=True)
class Layout:
    """Who the store is made of, as far as it would say (addresses as ``host:port``)."""

    master: str | None
    replicas: tuple[str, ...] = ()
    sentinels: tuple[str, ...] = ()  # the configured ones that answered


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
    """The master's (host, port), or None when no sentinel names one (or, for one Redis, its own address)."""
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


@contextmanager
def master_client(t: Topology, *, timeout_s: float = 1.0, authenticated: bool = True) -> Iterator[redis.Redis]:
    """A client of the master (``authenticated=False``: without the URL's credentials, to test them)."""
    if t.kind == SENTINEL:
        address = master_address(t, timeout_s=timeout_s)
        if address is None:
            raise redis.ConnectionError(f"no sentinel of {t.where()} names a master")
        kwargs: dict[str, Any] = {**t.data_kwargs(), "host": address[0], "port": address[1]}
        connection_class: Any = redis.SSLConnection if kwargs.pop("ssl", False) else redis.Connection
    else:  # redis-py's own reading of the URL (TLS and unix sockets included)
        configured = redis.ConnectionPool.from_url(t.url)
        kwargs, connection_class = dict(configured.connection_kwargs), configured.connection_class
    if not authenticated:
        kwargs.pop("username", None)
        kwargs.pop("password", None)
    kwargs.update(_once(timeout_s))
    pool = redis.ConnectionPool(connection_class=connection_class, **kwargs)
    client = redis.Redis(connection_pool=pool)
    try:
        yield client
    finally:
        client.close()
        pool.disconnect()


def open_sentinels(t: Topology, *, timeout_s: float = 1.0) -> list[str]:
    """The configured sentinels that answer PING without credentials (empty for one Redis)."""
    if t.kind != SENTINEL:
        return []
    with _sentinel(t, timeout_s, authenticated=False) as sentinel:
        return _answering(t, sentinel)


def layout(t: Topology, *, timeout_s: float = 1.0) -> Layout:
    """Master, replicas and answering sentinels; for one Redis, its replicas as it reports them."""
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
