"""The gateway says at start-up where it listens, what it stores and whether that
survives a restart, the rule pack in force, and where the admin key is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support import ROOT, RedisServer, free_port, require


def banner(env: dict[str, str], tmp_path: Path) -> list[str]:
    port = free_port()
    full = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "HOME": str(tmp_path), **env}
    proc = subprocess.Popen([sys.executable, "-m", "gateway.cli", "--port", str(port), "--log-level", "error"],
                            env=full, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line.rstrip("\n"))
            if line.lstrip().startswith("agents:") or len(lines) > 20:
                break
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return lines


def test_an_embedded_gateway_warns_that_a_restart_loses_everything(tmp_path: Path) -> None:
    lines = banner({"ACTEON_STATE_DIR": str(tmp_path / "st")}, tmp_path)
    text = "\n".join(lines)
    assert lines[0].startswith("acteon-gateway ") and "http://127.0.0.1:" in lines[0]
    assert "store:  embedded" in text and "WARNING: the embedded store does not survive a restart" in text
    assert "rules:" in text and "version " in text
    assert f"admin:  key in {(tmp_path / 'st' / 'admin.key').resolve()}" in text


def test_a_redis_gateway_says_how_persistent_its_store_is(tmp_path: Path) -> None:
    require("redis-server", bool(RedisServer().binary))
    server = RedisServer().start()
    try:
        lines = banner({"ACTEON_REDIS_URL": server.url, "ACTEON_ADMIN_KEY": "k" * 32,
                        "ACTEON_STATE_DIR": str(tmp_path / "st")}, tmp_path)
    finally:
        server.stop()
    text = "\n".join(lines)
    assert f"Redis at 127.0.0.1:{server.port}, password required" in text
    assert "NOT persistent" in text  # the test server runs with --save "" and no AOF
    assert f"nodes:  master 127.0.0.1:{server.port}; 0 replicas;" in text
    assert "do not wait for a replica (none)" in text
    assert "admin:  key from $ACTEON_ADMIN_KEY" in text and "WARNING" not in text
    assert server.password not in text  # the banner never shows a secret


def test_a_port_in_use_is_one_line_before_any_banner(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        full = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "HOME": str(tmp_path),
                "ACTEON_STATE_DIR": str(tmp_path / "st")}
        r = subprocess.run([sys.executable, "-m", "gateway.cli", "--port", str(port)], env=full, cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and f"127.0.0.1:{port} is in use" in r.stderr and "--port" in r.stderr


def test_a_bad_store_url_is_one_line(tmp_path: Path) -> None:
    full = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "HOME": str(tmp_path),
            "ACTEON_STATE_DIR": str(tmp_path / "st"), "ACTEON_REDIS_URL": "redis+sentinel://:pw@127.0.0.1:26379"}
    r = subprocess.run([sys.executable, "-m", "gateway.cli", "--port", str(free_port())], env=full, cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1
    assert "ACTEON_REDIS_URL: redis+sentinel:// needs the master's service name" in r.stderr
    assert "pw" not in r.stderr.replace("PASSWORD", "")  # the URL's password is never echoed
