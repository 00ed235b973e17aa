"""Temporal access per machine by mTLS: the coordinator and a worker reach Temporal only with a client
certificate signed by the service's CA. The dev server speaks no TLS, so a TLS-terminating proxy that
requires client certificates stands in front of it (what a production frontend or Temporal Cloud does)."""

from __future__ import annotations

import asyncio
import json
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.distributed.conftest import TemporalServer, Workers
from tests.distributed.test_executors import cli, plan, run_args, task
from tests.support import free_port, require

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA, a server certificate for 127.0.0.1, and a client certificate, all signed by the CA."""
    require("openssl", shutil.which("openssl") is not None)
    d = tmp_path_factory.mktemp("pki")
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=test-ca",
            "-keyout", str(d / "ca.key"), "-out", str(d / "ca.pem"))
    for name, ext in (("server", "subjectAltName=IP:127.0.0.1"), ("client", "extendedKeyUsage=clientAuth")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout", str(d / f"{name}.key"),
                "-out", str(d / f"{name}.csr"))
        (d / f"{name}.ext").write_text(ext + "\n")
        openssl("x509", "-req", "-in", str(d / f"{name}.csr"), "-CA", str(d / "ca.pem"), "-CAkey", str(d / "ca.key"),
                "-CAcreateserial", "-days", "1", "-extfile", str(d / f"{name}.ext"), "-out", str(d / f"{name}.pem"))
    return d


@pytest.fixture(scope="module")
def mtls_front(pki: Path, temporal: TemporalServer) -> Iterator[str]:
    """127.0.0.1:<port> speaking TLS with client certificates required, forwarding to the dev server."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(pki / "ca.pem"))
    ctx.load_cert_chain(str(pki / "server.pem"), str(pki / "server.key"))
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.set_alpn_protocols(["h2"])  # gRPC
    host, port = temporal.address.split(":")
    loop = asyncio.new_event_loop()
    front_port = free_port()

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def handle(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection(host, int(port))
        await asyncio.gather(pipe(client_r, server_w), pipe(server_r, client_w))

    server = loop.run_until_complete(asyncio.start_server(handle, "127.0.0.1", front_port, ssl=ctx))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{front_port}"
    finally:
        loop.call_soon_threadsafe(server.close)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)


def test_a_run_over_mtls_and_a_worker_without_a_certificate_is_refused(
        pki: Path, mtls_front: str, workers: Workers, gateway: str, tmp_path: Path) -> None:
    tls = ["--tls-ca", str(pki / "ca.pem"), "--tls-cert", str(pki / "client.pem"), "--tls-key", str(pki / "client.key")]
    workers.temporal = mtls_front
    workers.start("box-1", slots=2, extra=tls)
    ws = tmp_path / "ws"
    ws.mkdir()
    p = tmp_path / "plan.json"
    p.write_text(json.dumps(plan(ws, [task("a", "echo over-mtls > a.txt")])))
    config = tmp_path / "swarm.toml"
    config.write_text(f'[executor]\ntls_ca = "{pki / "ca.pem"}"\ntls_cert = "{pki / "client.pem"}"\n'
                      f'tls_key = "{pki / "client.key"}"\n')
    r = cli([*run_args("temporal", mtls_front, tmp_path / "state", p, "mtls"), "--config", str(config)], gateway)
    assert r.returncode == 0, r.stderr
    assert (ws / "a.txt").read_text() == "over-mtls\n"
    # Without its certificate a machine is not let in: neither a coordinator nor a worker.
    r = cli([*run_args("temporal", mtls_front, tmp_path / "state2", p, "no-cert")], gateway)
    assert r.returncode == 2 and f"cannot reach Temporal at {mtls_front}" in r.stderr
    (tmp_path / "worker.key").write_text(workers.keys["box-1"])
    r = cli(["worker", "--temporal", mtls_front, "--tls-ca", str(pki / "ca.pem"), "--gateway", gateway,
             "--key-file", str(tmp_path / "worker.key"), "--state-dir", str(tmp_path / "w")], gateway, timeout=120)
    assert r.returncode == 2 and f"cannot reach Temporal at {mtls_front}" in r.stderr, r.stderr
