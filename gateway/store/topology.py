"""What ``ACTEON_REDIS_URL`` names: one Redis, or a master found through Redis Sentinel (docs/ha.md).

The address is read here once, into a :class:`Topology` every Redis client of the gateway is built from (the
decision store, the start-up guard, the banner's persistence check, the shell analysis's list of store
addresses), so the forms are parsed and checked in one place and a mistake is one line at start-up:

    redis://[[user]:password@]host[:port][/db]      one Redis (rediss:// for TLS)
    unix://[[user]:password@]/path/to/socket[?db=N]
    redis+sentinel://[[user]:password@]host[:port][,host[:port]…]/SERVICE[/db][?options]
    rediss+sentinel://…                             the same with TLS to the sentinels and the data nodes
    redis+cluster://[[user]:password@]host[:port][,host[:port]…][?options]
    rediss+cluster://…                              a Redis Cluster: any of its nodes, the rest are discovered

Sentinel options: ``sentinel_username`` and ``sentinel_password`` when the sentinels have credentials of
their own (by default they get the data nodes'), and for TLS ``ssl_ca_certs``, ``ssl_certfile``,
``ssl_keyfile``, ``ssl_cert_reqs``. Cluster options: the TLS ones. A cluster has no databases: no ``/db``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import redis

SINGLE = "single"
SENTINEL = "sentinel"
CLUSTER = "cluster"

_SENTINEL_PORT = 26379
_REDIS_PORT = 6379
_TLS_OPTIONS = ("ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "ssl_cert_reqs")
_SENTINEL_OPTIONS = ("sentinel_username", "sentinel_password", *_TLS_OPTIONS)


class TopologyError(ValueError):
    """``ACTEON_REDIS_URL`` cannot be used; the message is one line an operator can act on."""


@dataclass(frozen=True)
class Topology:
    kind: str  # SINGLE | SENTINEL | CLUSTER
    url: str = field(repr=False)  # as given: a single Redis is opened with redis-py's own URL reader
    nodes: tuple[tuple[str, int], ...] = ()  # the server, the sentinels, or a cluster's seed nodes
    socket: str | None = None  # a unix socket's path (single only)
    service: str | None = None  # the master's name the sentinels know it by
    db: int = 0
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    sentinel_username: str | None = None
    sentinel_password: str | None = field(default=None, repr=False)
    tls: bool = False
    tls_options: tuple[tuple[str, str], ...] = ()

    def where(self) -> str:
        """The store's address for people (no credentials)."""
        if self.kind == SINGLE:
            return f"unix:{self.socket}" if self.socket else _hostports(self.nodes)
        if self.kind == SENTINEL:
            return f"Sentinel service {self.service!r} via {_hostports(self.nodes)}"
        return f"Cluster via {_hostports(self.nodes)}"

    def data_kwargs(self) -> dict[str, Any]:
        """Connection arguments for the data nodes (a sentinel's master and replicas)."""
        out: dict[str, Any] = {"db": self.db, "username": self.username, "password": self.password}
        if self.tls:
            out.update(ssl=True, **dict(self.tls_options))
        return out

    def sentinel_kwargs(self) -> dict[str, Any]:
        """Connection arguments for the sentinels themselves."""
        out: dict[str, Any] = {
            "username": self.sentinel_username if self.sentinel_password is not None else self.username,
            "password": self.sentinel_password if self.sentinel_password is not None else self.password,
        }
        if self.tls:
            out.update(ssl=True, **dict(self.tls_options))
        return out


def replica_acks(t: Topology | None, configured: int | None) -> int | None:
    """How many replicas a write that must survive a failover waits for (docs/ha.md): as configured
    (``ACTEON_REDIS_REPLICA_ACKS``); else none for the embedded store (``t`` None), one under Sentinel or a
    Cluster, and for one Redis None — one as soon as it reports a replica (``gateway.store.backend.Backend.durable``
    looks)."""
    if t is None:
        return 0
    if configured is not None:
        return configured
    return 1 if t.kind in (SENTINEL, CLUSTER) else None


def _hostports(nodes: tuple[tuple[str, int], ...]) -> str:
    return ",".join(f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in nodes)


def parse(url: str) -> Topology:
    """Read ``url`` into a :class:`Topology`, or raise :class:`TopologyError` saying what is wrong."""
    url = url.strip()
    scheme = url.partition("://")[0].lower() if "://" in url else ""
    if scheme in ("redis", "rediss", "unix"):
        return _single(url)
    if scheme in ("redis+sentinel", "rediss+sentinel"):
        return _sentinel(url, tls=scheme.startswith("rediss"))
    if scheme in ("redis+cluster", "rediss+cluster"):
        return _cluster(url, tls=scheme.startswith("rediss"))
    raise TopologyError("not a Redis URL: use redis://, rediss://, unix://, redis+sentinel://, rediss+sentinel://, "
                        "redis+cluster:// or rediss+cluster:// (docs/ha.md)")


def _single(url: str) -> Topology:
    try:
        kwargs = redis.ConnectionPool.from_url(url).connection_kwargs
    except (ValueError, TypeError) as e:
        raise TopologyError(f"not a usable Redis URL: {_one_line(e)}") from None
    if "path" in kwargs:
        if not kwargs["path"]:
            raise TopologyError("unix:// needs the socket's path, e.g. unix:///run/redis/redis.sock")
        return Topology(SINGLE, url, socket=str(kwargs["path"]), db=int(kwargs.get("db") or 0),
                        username=kwargs.get("username"), password=kwargs.get("password"))
    host = str(kwargs.get("host") or "localhost")
    port = int(kwargs.get("port") or _REDIS_PORT)
    return Topology(SINGLE, url, nodes=((host, port),), db=int(kwargs.get("db") or 0),
                    username=kwargs.get("username"), password=kwargs.get("password"),
                    tls=url.lower().startswith("rediss:"))


def _sentinel(url: str, *, tls: bool) -> Topology:
    nodes = _nodes(url, _SENTINEL_PORT)
    parts = urlsplit(url)
    path = [unquote(p) for p in parts.path.split("/") if p]
    if not path:
        raise TopologyError("redis+sentinel:// needs the master's service name: "
                            "redis+sentinel://:PASSWORD@host:26379,host:26380/SERVICE")
    if len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):
        raise TopologyError(f"redis+sentinel://: the path is /SERVICE or /SERVICE/DB, not {parts.path!r}")
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    unknown = sorted(set(options) - set(_SENTINEL_OPTIONS))
    if unknown:
        raise TopologyError(f"redis+sentinel://: unknown option {unknown[0]!r} "
                            f"(known: {', '.join(_SENTINEL_OPTIONS)})")
    tls_options = tuple((k, v) for k, v in options.items() if k in _TLS_OPTIONS)
    if tls_options and not tls:
        raise TopologyError(f"redis+sentinel://: {tls_options[0][0]} needs TLS: use rediss+sentinel://")
    username, password = _userinfo(parts.netloc)
    return Topology(SENTINEL, url, nodes=nodes, service=path[0], db=int(path[1]) if len(path) == 2 else 0,
                    username=username, password=password, sentinel_username=options.get("sentinel_username"),
                    sentinel_password=options.get("sentinel_password"), tls=tls, tls_options=tls_options)


def _cluster(url: str, *, tls: bool) -> Topology:
    nodes = _nodes(url, _REDIS_PORT)
    parts = urlsplit(url)
    scheme = parts.scheme
    if parts.path.strip("/"):
        raise TopologyError(f"{scheme}://: a cluster has only database 0, so the URL takes no path "
                            f"({parts.path!r})")
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    unknown = sorted(set(options) - set(_TLS_OPTIONS))
    if unknown:
        raise TopologyError(f"{scheme}://: unknown option {unknown[0]!r} (known: {', '.join(_TLS_OPTIONS)})")
    if options and not tls:
        raise TopologyError(f"{scheme}://: {next(iter(options))} needs TLS: use rediss+cluster://")
    username, password = _userinfo(parts.netloc)
    return Topology(CLUSTER, url, nodes=nodes, username=username, password=password, tls=tls,
                    tls_options=tuple(options.items()))


def _userinfo(netloc: str) -> tuple[str | None, str | None]:
    if "@" not in netloc:
        return None, None
    info = netloc.rpartition("@")[0]
    user, colon, password = info.partition(":")
    return (unquote(user) or None), (unquote(password) if colon else None)


def _nodes(url: str, default_port: int) -> tuple[tuple[str, int], ...]:
    """The comma-separated host[:port] list of a sentinel or cluster URL."""
    scheme = url.partition("://")[0]
    netloc = urlsplit(url).netloc.rpartition("@")[2]
    if not netloc:
        raise TopologyError(f"{scheme}:// needs at least one host:port")
    nodes = []
    for item in netloc.split(","):
        host, port = _hostport(item.strip(), default_port, scheme)
        nodes.append((host, port))
    return tuple(dict.fromkeys(nodes))


def _hostport(item: str, default_port: int, scheme: str) -> tuple[str, int]:
    if item.startswith("["):  # [IPv6]:port
        host, _, rest = item[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else rest
    else:
        host, _, port_text = item.partition(":")
    if not host:
        raise TopologyError(f"{scheme}://: an empty host in the node list")
    if not port_text:
        return host, default_port
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise TopologyError(f"{scheme}://: {item!r} has no valid port")
    return host, int(port_text)


def _one_line(e: Exception) -> str:
    return " ".join(str(e).split()) or type(e).__name__
