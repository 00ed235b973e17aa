"""Run a gateway inside this process, on a loopback port, through the gateway's public app factory.

This is the one place the orchestrator touches the gateway package (docs/gateway.md: embedded mode goes through
``gateway.app.create_app`` only); everything else talks to the gateway over HTTP.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class EmbeddedGateway:
    url: str
    admin_key: str
    _server: Any
    _thread: threading.Thread

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


def start(state_dir: Path, rules_dir: Path | None = None, port: int | None = None) -> EmbeddedGateway:
    """Start the gateway on the embedded store in a background thread; returns once it answers."""
    import uvicorn

    from gateway.app import create_app
    from gateway.config import Settings

    settings = Settings(state_dir=state_dir)
    if rules_dir is not None:
        settings.rules_dir = rules_dir
    app = create_app(settings)
    port = port or _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="acteon-embedded-gateway", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the embedded gateway did not start")
        time.sleep(0.02)
    # The admin key as any operator finds it: $ACTEON_ADMIN_KEY, else the gateway's documented key file in its
    # state dir (written at start-up, mode 0600) — not the app's internals.
    key_file = state_dir / "admin.key"
    admin_key = settings.admin_key or (key_file.read_text().strip() if key_file.exists() else "")
    return EmbeddedGateway(f"http://127.0.0.1:{port}", admin_key, server, thread)
