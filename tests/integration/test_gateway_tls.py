"""The gateway over TLS (remote workers' agents send their keys to it): ``--ssl-certfile`` and
``--ssl-keyfile`` serve HTTPS, a client that checks the certificate gets answers, plain HTTP gets none,
and a half-given TLS configuration or a public bind without TLS is said out loud."""

from __future__ import annotations

import os
import ssl
import subprocess
import sys
from pathlib import Path

import httpx

from tests.support import ROOT, free_port, tls_files, wait_until


def gateway(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "HOME": str(tmp_path),
           "ACTEON_STATE_DIR": str(tmp_path / "st"), "ACTEON_ADMIN_KEY": "tls-admin-key-0123456789"}
    return subprocess.Popen([sys.executable, "-m", "gateway.cli", "--log-level", "error", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_the_gateway_serves_https_with_the_given_certificate(tmp_path: Path) -> None:
    cert, key = tls_files(tmp_path)
    port = free_port()
    proc = gateway(tmp_path, "--port", str(port), "--ssl-certfile", str(cert), "--ssl-keyfile", str(key))
    try:
        url = f"https://127.0.0.1:{port}"
        trust = ssl.create_default_context(cafile=str(cert))  # this certificate only, checked

        def up() -> bool:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                return httpx.get(f"{url}/v1/health", verify=trust, timeout=1).status_code == 200
            except httpx.TransportError:
                return False

        wait_until(up, timeout_s=30, what="the gateway over TLS")
        runs = httpx.get(f"{url}/v1/runs", verify=trust,
                         headers={"Authorization": "Bearer tls-admin-key-0123456789"})
        assert runs.status_code == 200
        try:
            plain = httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2)
            assert plain.status_code >= 400
        except httpx.TransportError:
            pass  # no HTTP answer at all: what we want
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert f"on https://127.0.0.1:{port}" in err


def test_half_a_tls_configuration_is_refused(tmp_path: Path) -> None:
    cert, _key = tls_files(tmp_path)
    proc = gateway(tmp_path, "--port", str(free_port()), "--ssl-certfile", str(cert))
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and "go together" in err
    proc = gateway(tmp_path, "--port", str(free_port()), "--ssl-certfile", str(cert), "--ssl-keyfile",
                   str(tmp_path / "missing.key"))
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and "missing.key: no such file" in err
