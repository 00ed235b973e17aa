"""A scripted stand-in for the gateway, for the hook's unit tests: every failure mode on demand."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Handler = Callable[[str, str, dict[str, Any] | None], tuple[int, Any]]


@contextmanager
def fake_gateway(handle: Handler) -> Iterator[tuple[str, list[tuple[str, str, Any]], threading.Event]]:
    """Serve ``handle(method, path, body) -> (status, body)``; a body of bytes is sent raw.
    Yields (url, requests seen, release) — ``release`` frees handlers that wait on it (a hang)."""
    seen: list[tuple[str, str, Any]] = []
    release = threading.Event()

    class H(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            seen.append((self.command, self.path, {"body": body, "auth": self.headers.get("Authorization")}))
            status, answer = handle(self.command, self.path, body)
            if answer == "HANG":
                release.wait(30)
                return
            data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _serve

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), H)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen, release
    finally:
        release.set()
        server.shutdown()
        server.server_close()
