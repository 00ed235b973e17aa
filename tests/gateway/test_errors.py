"""Bad input gets a clear 4xx JSON error naming the problem — never a 500, never a stack trace."""

from __future__ import annotations

import socket

import pytest

from tests.conftest import ADMIN, call
from tests.support import free_port, wait_until


def _err(r):  # type: ignore[no-untyped-def]
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert "Traceback" not in r.text
    return body["error"]


def test_malformed_json_is_400(client) -> None:
    r = client.post("/v1/dispatch", content=b"{not json", headers={**ADMIN, "Content-Type": "application/json"})
    assert r.status_code == 400
    assert _err(r)["code"] == "malformed_json"


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"input": "rm -rf /"}, "input"),
        ({"tool": 5}, "tool"),
        ({"run_id": "has{brace}"}, "run_id"),
        ({"run_id": ""}, "run_id"),
        ({"agent_id": None}, "agent_id"),
        ({"agent_id": "x" * 300}, "agent_id"),
        ({"cwd": ["a"]}, "cwd"),
        ({"cwd": "."}, "cwd"),  # a relative working directory places no path: refused, never guessed
        ({"cwd": "work/proj"}, "cwd"),
        ({"home": "~"}, "home"),
    ],
)
def test_wrong_types_name_the_field(client, patch, field) -> None:
    body = {**call(command="ls"), **patch}
    r = client.post("/v1/dispatch", json=body, headers=ADMIN)
    assert r.status_code == 422
    assert field in _err(r)["message"]


def test_a_relative_cwd_is_named_with_the_fix(client) -> None:
    r = client.post("/v1/dispatch", json={**call(command="mkdir -p build"), "cwd": "."}, headers=ADMIN)
    assert r.status_code == 422
    message = _err(r)["message"]
    assert "cwd" in message and "absolute path" in message and "destructive" not in message


def test_missing_field_is_named(client) -> None:
    body = call(command="ls")
    del body["provider"]
    r = client.post("/v1/dispatch", json=body, headers=ADMIN)
    assert r.status_code == 422 and "provider" in _err(r)["message"]


def test_oversized_body_is_413(client) -> None:
    body = call(input={"command": "echo " + "x" * 2_000_000})
    r = client.post("/v1/dispatch", json=body, headers=ADMIN)
    assert r.status_code == 413 and _err(r)["code"] == "too_large"


def test_huge_but_allowed_command_is_decided(client) -> None:
    r = client.post("/v1/dispatch", json=call(command="echo " + "a " * 30000), headers=ADMIN)
    assert r.status_code == 200


def test_unknown_run_is_404(client) -> None:
    r = client.post("/v1/dispatch", json=call(run_id="nope", command="ls"), headers=ADMIN)
    assert r.status_code == 404 and _err(r)["code"] == "not_found"


def test_unknown_route_and_method_are_json(client) -> None:
    assert _err(client.get("/v1/nothing"))["code"] == "not_found"
    assert client.get("/v1/dispatch").status_code == 405


def test_bad_cursor_is_422(client) -> None:
    r = client.get("/v1/runs/default/audit?cursor=zzz", headers=ADMIN)
    assert r.status_code == 422 and "cursor" in _err(r)["message"]


def test_bad_approval_ids_are_404(client) -> None:
    for aid in ("x", "apr-zz-run", "apr-0123456789abcdef-{bad}"):
        assert client.get(f"/v1/approvals/{aid}", headers=ADMIN).status_code == 404


def test_bad_quota_is_422(client) -> None:
    r = client.post("/v1/runs", json={"run_id": "q", "quota": {"max_actions": 0, "window_s": 1}}, headers=ADMIN)
    assert r.status_code == 422 and "max_actions" in _err(r)["message"]


def _serve(app, port: int):  # type: ignore[no-untyped-def]
    import threading

    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical",
                                           access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started, what="uvicorn")
    return server, thread


def _answer(sock: socket.socket) -> bytes:
    """One whole HTTP/1.1 answer (headers and a Content-Length body), or what came before the peer closed."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def test_a_fault_is_a_json_500_and_the_connection_stays_usable(tmp_path) -> None:
    """An unexpected fault is answered 500 in the error shape, without a trace, and the client's pooled
    connection still answers the next request: a hook must never be left without an answer."""
    from gateway.app import create_app
    from gateway.config import Settings

    app = create_app(Settings(state_dir=tmp_path / "state", admin_key="k"))

    async def boom() -> None:
        raise RuntimeError("a fault nobody foresaw")

    app.add_api_route("/boom", boom)
    port = free_port()
    server, thread = _serve(app, port)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            for path in ("/boom", "/boom", "/v1/health"):
                sock.sendall(f"GET {path} HTTP/1.1\r\nHost: gw\r\n\r\n".encode())
                answer = _answer(sock)
                assert answer, f"no answer to {path} on the same connection"
                status = answer.split(b" ", 2)[1]
                if path == "/boom":
                    assert status == b"500"
                    assert b'{"error":{"code":"internal","message":"internal error"}}' in answer
                    assert b"nobody foresaw" not in answer and b"Traceback" not in answer
                else:
                    assert status in (b"200", b"503")
    finally:
        server.should_exit = True
        thread.join(timeout=10)
