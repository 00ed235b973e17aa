"""A minimal HTTP/1.1 client on a raw socket, with one overall deadline.

Why not ``http.client`` or ``urllib``: importing them costs the hook about 20–40 ms (they pull in the
``email`` package), more than the whole gateway round trip, and the hook starts on every tool call.
This client sends one request with ``Connection: close`` and reads the reply until the server closes.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_RESPONSE = 4 * 1024 * 1024


class HttpError(Exception):
    """The gateway could not be reached or answered something that is not HTTP."""


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes


def request(method: str, url: str, path: str, body: bytes | None, headers: dict[str, str], deadline: float) -> Reply:
    """Send one request; every step (connect, send, each read) respects the monotonic ``deadline``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HttpError(f"unsupported gateway URL {url!r}")
    host = parts.hostname
    port = parts.port or (443 if parts.scheme == "https" else 80)
    target = (parts.path.rstrip("/") + path) or "/"
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}:{port}", "Connection: close",
             "User-Agent: acteon-swarm-hook", "Accept: application/json"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    payload = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")
    try:
        sock = socket.create_connection((host, port), timeout=_remaining(deadline))
    except OSError as e:
        raise HttpError(f"cannot reach the gateway at {url}: {e.strerror or e}") from None
    try:
        if parts.scheme == "https":
            import ssl  # only a remote TLS gateway pays for it

            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
        sock.settimeout(_remaining(deadline))
        sock.sendall(payload)
        chunks: list[bytes] = []
        size = 0
        while True:
            sock.settimeout(_remaining(deadline))
            data = sock.recv(65536)
            if not data:
                break
            chunks.append(data)
            size += len(data)
            if size > MAX_RESPONSE:
                raise HttpError("the gateway's answer is too large")
    except TimeoutError:
        raise HttpError("the gateway did not answer in time") from None
    except OSError as e:
        raise HttpError(f"connection to the gateway failed: {e.strerror or e}") from None
    finally:
        sock.close()
    return _parse(b"".join(chunks))


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
        size = int(size_line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            return bytes(out)
        if len(rest) < size + 2:
            raise HttpError("the gateway's answer was cut short")
        out += rest[:size]
        data = rest[size + 2 :]
