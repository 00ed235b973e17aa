"""``acteon-swarm approvals`` prints what the console shows (hidden characters made visible) and decides
with the hash of exactly that text."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.orchestrator.test_run import ADMIN, cli, gw  # noqa: F401 - gw: fixture


def test_the_cli_shows_hidden_characters_and_decides_on_what_it_printed(tmp_path: Path, gw) -> None:  # noqa: F811
    admin = {"Authorization": f"Bearer {ADMIN}"}
    key = httpx.post(f"{gw['ACTEON_URL']}/v1/runs", json={"run_id": "cli1"}, headers=admin).json()["agent_key"]
    body = {"run_id": "cli1", "agent_id": "a1", "provider": "claude", "tool": "Bash",
            "input": {"command": "git push origin \u200bmain"}}
    aid = httpx.post(f"{gw['ACTEON_URL']}/v1/dispatch", json=body,
                     headers={"Authorization": f"Bearer {key}"}).json()["approval_id"]
    state = str(tmp_path / "state")
    listed = cli("approvals", "list", "--run", "cli1", "--state-dir", state, env=gw)
    assert listed.returncode == 0, listed.stderr
    assert "\u200b" not in listed.stdout and "⟦U+200B ZERO WIDTH SPACE⟧" in listed.stdout
    assert "2 hidden or unusual character(s)" in listed.stdout
    sha = httpx.get(f"{gw['ACTEON_URL']}/v1/approvals/{aid}", headers=admin).json()["shown_sha256"]
    assert f"content sha256 {sha}" in listed.stdout
    stale = cli("approvals", "approve", aid, "--hash", "0" * 12, "--state-dir", state, env=gw)
    assert stale.returncode == 2 and "not what you reviewed" in stale.stderr
    ok = cli("approvals", "approve", aid, "--hash", sha[:12], "--state-dir", state, env=gw)
    assert ok.returncode == 0 and "approved" in ok.stdout, ok.stderr
    view = httpx.get(f"{gw['ACTEON_URL']}/v1/approvals/{aid}", headers=admin).json()
    assert view["resolved_shown_sha256"] == sha


def test_with_an_operator_key_the_cli_decides_as_that_operator(tmp_path: Path, gw) -> None:  # noqa: F811
    admin = {"Authorization": f"Bearer {ADMIN}"}
    url = gw["ACTEON_URL"]
    key = httpx.post(f"{url}/v1/runs", json={"run_id": "cli2"}, headers=admin).json()["agent_key"]
    person = httpx.post(f"{url}/v1/operators", json={"name": "carol", "role": "operator"},
                        headers=admin).json()["operator_key"]
    body = {"run_id": "cli2", "agent_id": "a1", "provider": "claude", "tool": "Bash",
            "input": {"command": "git push origin main"}}
    aid = httpx.post(f"{url}/v1/dispatch", json=body, headers={"Authorization": f"Bearer {key}"}).json()["approval_id"]
    env = {"ACTEON_URL": url, "ACTEON_ADMIN_KEY": "", "ACTEON_OPERATOR_KEY": person, "USER": "mallory"}
    r = cli("approvals", "reject", aid, "--reason", "not today", "--state-dir", str(tmp_path / "s"), env=env)
    assert r.returncode == 0, r.stderr
    view = httpx.get(f"{url}/v1/approvals/{aid}", headers=admin).json()
    assert (view["status"], view["resolved_by"], view["resolution_reason"]) == ("rejected", "carol", "not today")
