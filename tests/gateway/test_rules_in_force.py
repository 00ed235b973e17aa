"""One rule pack in force, kept in the store: every process decides with it from the very next
call, and a store that loses an API-uploaded pack never silently falls back to a looser file pack."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from tests.conftest import ADMIN, call
from tests.gateway.test_dispatch import dispatch
from tests.gateway.test_rules_api import ALLOW_ALL_BUT_LS


def flush_store(client: TestClient) -> None:
    """What a Redis restarted without persistence looks like to the gateway: an empty store."""
    client.portal.call(client.app.state.gateway.backend.redis.flushall)  # type: ignore[union-attr]


def test_processes_never_disagree_on_the_pack(make_client: Callable[..., TestClient]) -> None:
    gateways = [make_client() for _ in range(3)]
    for turn in range(4):
        writer = gateways[turn % 3]
        pack = ALLOW_ALL_BUT_LS if turn % 2 == 0 else ALLOW_ALL_BUT_LS.replace("executable: ls", "executable: cat")
        assert writer.put("/v1/rules", json={"yaml": pack}, headers=ADMIN).status_code == 200
        blocked, allowed = ("ls", "cat") if turn % 2 == 0 else ("cat", "ls")
        for gw in gateways:  # every process, right away, with no wait for pub/sub
            assert dispatch(gw, call(command=f"{blocked} x"))["outcome"] == "suppressed"
            assert dispatch(gw, call(command=f"{allowed} x"))["outcome"] == "executed"


def test_a_lost_api_pack_stops_dispatches_instead_of_loosening(make_client: Callable[..., TestClient]) -> None:
    gw = make_client()
    assert gw.put("/v1/rules", json={"yaml": ALLOW_ALL_BUT_LS}, headers=ADMIN).status_code == 200
    assert dispatch(gw, call(command="ls"))["outcome"] == "suppressed"
    flush_store(gw)
    r = gw.post("/v1/dispatch", json=call(command="ls"), headers=ADMIN)
    # The files' pack would allow `ls`: the gateway refuses to decide rather than use it.
    assert r.status_code == 503 and r.json()["error"]["code"] == "rules_unavailable"
    assert "PUT /v1/rules" in r.json()["error"]["message"] and "--rules-from-file" in r.json()["error"]["message"]
    assert gw.get("/v1/health").status_code == 503
    # A restarted gateway (same state directory) remembers that an API pack was in force.
    again = make_client()
    assert again.post("/v1/dispatch", json=call(command="ls"), headers=ADMIN).status_code == 503
    # An operator uploads the pack again: every process decides again.
    assert gw.put("/v1/rules", json={"yaml": ALLOW_ALL_BUT_LS}, headers=ADMIN).status_code == 200
    for g in (gw, again):
        assert dispatch(g, call(command="ls"))["outcome"] == "suppressed"
        assert g.get("/v1/health").status_code == 200


def test_rules_from_file_is_the_explicit_way_back(make_client: Callable[..., TestClient]) -> None:
    gw = make_client()
    assert gw.put("/v1/rules", json={"yaml": ALLOW_ALL_BUT_LS}, headers=ADMIN).status_code == 200
    flush_store(gw)
    restarted = make_client(rules_from_file=True)
    assert restarted.get("/v1/rules", headers=ADMIN).json()["source"] == "files"
    assert dispatch(restarted, call(command="ls"))["outcome"] == "executed"
    assert dispatch(gw, call(command="ls"))["outcome"] == "executed"  # the other process follows
    assert dispatch(gw, call(command="rm -rf /etc"))["outcome"] == "suppressed"


def test_an_api_pack_survives_a_gateway_restart(make_client: Callable[..., TestClient]) -> None:
    gw = make_client()
    assert gw.put("/v1/rules", json={"yaml": ALLOW_ALL_BUT_LS}, headers=ADMIN).status_code == 200
    restarted = make_client()  # its rules directory says otherwise; the uploaded pack stays in force
    assert restarted.get("/v1/rules", headers=ADMIN).json()["source"] == "api"
    assert dispatch(restarted, call(command="ls"))["outcome"] == "suppressed"


def test_a_lost_files_pack_is_reinstalled_without_a_gap(make_client: Callable[..., TestClient]) -> None:
    gw = make_client()
    assert dispatch(gw, call(command="ls"))["outcome"] == "executed"
    flush_store(gw)
    assert dispatch(gw, call(command="ls"))["outcome"] == "executed"
    assert dispatch(gw, call(command="rm -rf /etc"))["outcome"] == "suppressed"
    assert gw.get("/v1/rules", headers=ADMIN).json()["source"] == "files"


def test_edited_files_replace_an_older_files_pack_at_restart(
    make_client: Callable[..., TestClient], tmp_path: Path
) -> None:
    gw = make_client()
    assert dispatch(gw, call(command="ls"))["outcome"] == "executed"
    edited = tmp_path / "edited-rules"
    edited.mkdir()
    (edited / "pack.yaml").write_text(ALLOW_ALL_BUT_LS)
    restarted = make_client(rules_dir=edited)
    for g in (restarted, gw):  # one pack in force: the older process follows on its next call
        assert dispatch(g, call(command="ls"))["outcome"] == "suppressed"
