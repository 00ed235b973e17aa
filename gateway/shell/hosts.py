"""Host names in command arguments: URLs, scp-style `user@host:path` specs, /dev/tcp paths."""

from __future__ import annotations

import ipaddress
import re

_URL_SCHEMES = frozenset(
    {"http", "https", "ftp", "ftps", "sftp", "scp", "ssh", "git", "rsync", "ws", "wss", "telnet",
     "git+ssh", "ssh+git", "git+https", "git+http", "tcp", "udp"}
)
_URL_IN_TEXT = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://([^\s/?#'\"<>]*)")
_SCP_SPEC = re.compile(r"(?:[^@/:\s]+@)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9._-]*):(?!//)")
_USER_AT_HOST = re.compile(r"[^@/:\s]+@(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9._-]*)")
_HOST_CHARS = re.compile(r"[a-z0-9._-]+|\[?[0-9a-f:.]+\]?")
_DEV_NET = re.compile(r"/dev/(?:tcp|udp)/([^/]+)/")


def normalize(raw: str) -> str | None:
    """Lower-case host without user, port or IPv6 brackets; None when it is not a plausible host."""
    host = raw.rsplit("@", 1)[-1].strip().lower()
    if host.startswith("["):
        end = host.find("]")
        host = host[1:end] if end > 0 else host[1:]
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    host = host.rstrip(".")
    if not host or not _HOST_CHARS.fullmatch(host):
        return None
    return host


def is_local(host: str) -> bool:
    if host in ("localhost", "ip6-localhost", "ip6-loopback") or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def url_hosts(value: str) -> list[str]:
    """Hosts of every URL inside ``value`` (known network schemes only)."""
    if "://" not in value:
        return []
    found: list[str] = []
    for match in _URL_IN_TEXT.finditer(value):
        if match.group(1).lower() in _URL_SCHEMES:
            host = normalize(match.group(2))
            if host:
                found.append(host)
    return found


def remote_spec_host(value: str) -> str | None:
    """Host of an scp/rsync/git remote spec (`user@host:path`, `host:path`), else None."""
    if "://" in value:
        hosts = url_hosts(value)
        return hosts[0] if hosts else None
    match = _SCP_SPEC.match(value)
    if not match:
        return None
    return normalize(match.group(1))


def user_host(value: str) -> str | None:
    """Host of `user@host` or a bare host name as given to ssh, telnet or nc."""
    if "://" in value:
        hosts = url_hosts(value)
        return hosts[0] if hosts else None
    match = _USER_AT_HOST.fullmatch(value)
    if match:
        return normalize(match.group(1))
    return normalize(value)


def bare_url_host(value: str) -> str | None:
    """Host of a scheme-less URL as curl accepts it (`example.com/path`)."""
    if "://" in value:
        hosts = url_hosts(value)
        return hosts[0] if hosts else None
    return normalize(re.split(r"[/?#]", value, maxsplit=1)[0])


def dev_net_host(path: str) -> str | None:
    match = _DEV_NET.match(path + "/")
    return normalize(match.group(1)) if match else None
