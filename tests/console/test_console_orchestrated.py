"""A decision made in the browser is what the agent sees: orchestrated runs (command engine, a real gateway
process on real Redis) paused on approvals, decided in chromium; cancel in the console stops the run."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.console.conftest import ADMIN_KEY, Gateway, sign_in
from tests.orchestrator.test_run import cli, groups_of, plan, start_cli, task, write_plan
from tests.support import wait_until


def _unknowable(tid: str, out: str) -> dict[str, Any]:
    """A task whose second step's command word comes from a file the first wrote: a person must decide."""
    t = task(tid, f"echo echo > .tool-{tid}")
    t["subtasks"].append({"id": f"{tid}-2", "name": tid, "command": f"$(cat .tool-{tid}) {tid}-ran > {out}"})
    return t


@pytest.mark.slow
def test_approve_and_reject_in_the_browser_reach_the_agents(tmp_path: Path, gateway: Gateway, context: Any) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    state = tmp_path / "state"
    p = write_plan(tmp_path, plan(ws, [_unknowable("yes", "yes.txt"), _unknowable("no", "no.txt")]))
    env = {"ACTEON_URL": gateway.url, "ACTEON_ADMIN_KEY": ADMIN_KEY}
    proc = start_cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "cr", env=env)
    try:
        page = sign_in(context, gateway, gateway.operator("otto", "operator"))
        yes = page.locator("article.approval", has_text="yes-ran > yes.txt")
        no = page.locator("article.approval", has_text="no-ran > no.txt")
        yes.wait_for(timeout=30_000)
        no.wait_for(timeout=30_000)
        yes.click()  # focus it
        page.keyboard.press("a")
        yes.wait_for(state="detached")
        no.click()
        page.keyboard.press("r")
        page.fill("#reject-reason", "writes outside the plan")
        page.click("#reject-confirm")
        no.wait_for(state="detached")
        _out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (ws / "yes.txt").read_text() == "yes-ran\n"
    assert not (ws / "no.txt").exists()
    status = json.loads(cli("status", "--run", "cr", "--state-dir", str(state), "--json", env=env).stdout)
    by_task = {t["id"]: t["status"] for t in status["tasks"]}
    assert by_task == {"yes": "done", "no": "failed"}, err
    journal = (state / "runs" / "cr" / "events.jsonl").read_text()
    assert "writes outside the plan" in journal and "rejected by otto" in journal
    # The run page shows what the orchestrator reported about its tasks.
    page.goto(f"{gateway.url}/console/runs/cr")
    assert page.text_content("#task-yes .state") == "done" and page.text_content("#task-no .state") == "failed"
    assert page.text_content("#run-status") == "failed"


@pytest.mark.slow
def test_cancel_in_the_console_stops_the_orchestrated_run(tmp_path: Path, gateway: Gateway, context: Any) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    state = tmp_path / "state"
    marker = f"console-cancel-{secrets.token_hex(4)}"
    p = write_plan(tmp_path, plan(ws, [task("long", f"sleep 300; : {marker}")]))
    env = {"ACTEON_URL": gateway.url, "ACTEON_ADMIN_KEY": ADMIN_KEY}
    proc = start_cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "cc", env=env)
    try:
        wait_until(lambda: bool(groups_of(marker)), timeout_s=30, what="the agent to start")
        page = sign_in(context, gateway, gateway.operator("otto", "operator"))
        page.goto(f"{gateway.url}/console/runs/cc")
        page.locator("#task-long .state", has_text="running").wait_for()
        page.click("#cancel-run")
        with page.expect_navigation():
            page.click("#cancel-confirm")
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    wait_until(lambda: not groups_of(marker), timeout_s=5, what="the agent's process group to be gone")
    status = json.loads(cli("status", "--run", "cc", "--state-dir", str(state), "--json", env=env).stdout)
    assert status["status"] == "cancelled"
    page.reload()
    assert page.text_content("#run-status") == "cancelled"
