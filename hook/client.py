"""A minimal HTTP/1.1 client on a raw socket, with one overall deadline.

Why not ``http.client``, ``urllib`` or even ``socket``: on a small machine importing them costs the hook
13–40 ms (``email``, ``enum``, ``selectors``, ``ipaddress``…), several times the gateway round trip,
and the hook starts on every tool call. The C module ``_socket`` that ``socket`` wraps does all this
needs. One request with ``Connection: close``; the reply is read until the server closes.
"""

from __future__ import annotations

import _socket
import time

MAX_RESPONSE = 4 * 1024 * 1024


class HttpError(Exception):
    """The gateway could not be reached or answered something that is not HTTP."""


class Reply:
    __slots__ = ("body", "status")

    def __init__(self, status: int, body: bytes) -> None:
        self.status = status
        self.body = body


def split_url(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path prefix) of an http(s) URL; raises HttpError for anything else."""
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in ("http", "https"):
        raise HttpError(f"unsupported gateway URL {url!r}")
    authority, slash, path = rest.partition("/")
    authority = authority.rpartition("@")[2]
    if authority.startswith("["):  # [IPv6]:port
        host, _, port_text = authority[1:].partition("]")
        port_text = port_text.lstrip(":")
    else:
        host, _, port_text = authority.partition(":")
    if not host or (port_text and not port_text.isdigit()):
        raise HttpError(f"unsupported gateway URL {url!r}")
    port = int(port_text) if port_text else (443 if scheme == "https" else 80)
    return scheme, host, port, ("/" + path).rstrip("/") if slash else ""


def request(method: str, url: str, path: str, body: bytes | None, headers: dict[str, str], deadline: float) -> Reply:
    """Send one request; every step (resolve, connect, send, each read) respects ``deadline``."""
    scheme, host, port, prefix = split_url(url)
    lines = [f"{method} {prefix + path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close",
             "User-Agent: acteon-swarm-hook", "Accept: application/json"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    payload = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")
    sock = None
    try:
        if scheme == "https":
            return _exchange_tls(host, port, payload, deadline)
        # An ASCII host as bytes: a str would load the idna codec (and re, enum) on every call.
        name = host.encode("ascii") if host.isascii() else host
        family, kind, proto, _name, address = _socket.getaddrinfo(name, port, 0, _socket.SOCK_STREAM)[0]
        sock = _socket.socket(family, kind, proto)
        sock.settimeout(_remaining(deadline))
        sock.connect(address)
        return _exchange(sock, payload, deadline)
    except TimeoutError:
        raise HttpError("the gateway did not answer in time") from None
    except _socket.gaierror as e:
        raise HttpError(f"cannot resolve the gateway host {host!r}: {e}") from None
    except OSError as e:
        raise HttpError(f"cannot reach the gateway at {url}: {e.strerror or e}") from None
    finally:
        if sock is not None:
            sock.close()


def _exchange_tls(host: str, port: int, payload: bytes, deadline: float) -> Reply:
    import socket  # a remote TLS gateway pays for the full stack
    import ssl

    raw = socket.create_connection((host, port), timeout=_remaining(deadline))
    with ssl.create_default_context().wrap_socket(raw, server_hostname=host) as tls:
        return _exchange(tls, payload, deadline)


def _exchange(sock: object, payload: bytes, deadline: float) -> Reply:
    s = sock  # _socket.socket or ssl.SSLSocket: same methods
    s.settimeout(_remaining(deadline))  # type: ignore[attr-defined]
    s.sendall(payload)  # type: ignore[attr-defined]
    buf = b""
    expected = -1  # total size once the head says Content-Length: stop there, don't wait for the close
    while expected < 0 or len(buf) < expected:
        s.settimeout(_remaining(deadline))  # type: ignore[attr-defined]
        data = s.recv(65536)  # type: ignore[attr-defined]
        if not data:
            break
        buf += data
        if len(buf) > MAX_RESPONSE:
            raise HttpError("the gateway's answer is too large")
        if expected < 0:
            expected = _expected_size(buf)
    return _parse(buf)


def _expected_size(buf: bytes) -> int:
    """Head + Content-Length once the head is complete and declares a length; -1 = read to the close."""
    end = buf.find(b"\r\n\r\n")
    if end < 0:
        return -1
    for line in buf[:end].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            return end + 4 + int(value.strip())
    return -1


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def _parse(raw: bytes) -> Reply:
    head, sep, body = raw.partition(b"\r\n\r\n")
    if not sep:
        raise HttpError("the gateway's answer is not HTTP")
    lines = head.decode("latin-1").split("\r\n")
    status_line = lines[0].split(" ", 2)
    if len(status_line) < 2 or not status_line[0].startswith("HTTP/") or not status_line[1].isdigit():
        raise HttpError("the gateway's answer is not HTTP")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = _unchunk(body)
    elif "content-length" in headers:
        length = int(headers["content-length"]) if headers["content-length"].isdigit() else -1
        if length < 0 or len(body) < length:
            raise HttpError("the gateway's answer was cut short")
        body = body[:length]
    return Reply(int(status_line[1]), body)


def _unchunk(data: bytes) -> bytes:
    out = bytearray()
    while True:
        size_line, sep, rest = data.partition(b"\r\n")
        if not sep:
            raise HttpError("the gateway's answer was cut short")
        try:
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
        except ValueError:
            raise HttpError("the gateway's answer is not HTTP") from None
        if size == 0:
            return bytes(out)
        if len(rest) < size + 2:
            raise HttpError("the gateway's answer was cut short")
        out += rest[:size]
        data = rest[size + 2 :]
