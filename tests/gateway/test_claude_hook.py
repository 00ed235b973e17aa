"""POST /v1/hooks/claude: Claude's native http hook, answered in Claude's schema, failing closed."""

from __future__ import annotations

import threading

from tests.conftest import ADMIN
from tests.gateway.test_gates import _run

EVENT = {"session_id": "s-123456789abcdef", "hook_event_name": "PreToolUse", "tool_name": "Bash",
         "tool_input": {"command": "ls"}, "cwd": "/work/proj", "tool_use_id": "toolu_1"}


def hook(client, event, headers, query: str = "?authoritative=1"):  # type: ignore[no-untyped-def]
    """Through the hook as orchestrated runs install it (authoritative: an allow is an allow)."""
    r = client.post("/v1/hooks/claude" + query, json=event, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


def decision(answer):  # type: ignore[no-untyped-def]
    hso = answer["hookSpecificOutput"]
    assert hso["hookEventName"] == "PreToolUse"
    return hso["permissionDecision"], hso.get("permissionDecisionReason", "")


def test_allows_and_denies_in_claudes_schema(client) -> None:
    key = {"Authorization": f"Bearer {_run(client, 'r1')}", "X-Acteon-Agent-Id": "coder-1"}
    assert decision(hook(client, EVENT, key))[0] == "allow"
    verdict, reason = decision(hook(client, {**EVENT, "tool_input": {"command": "rm -rf /"}}, key))
    assert verdict == "deny" and "block-destructive-commands" in reason
    records = client.get("/v1/runs/r1/audit", headers=ADMIN).json()["records"]
    assert [(r["agent_id"], r["provider"], r["outcome"]) for r in records] == [
        ("coder-1", "claude-code", "executed"), ("coder-1", "claude-code", "suppressed")]


def test_identity_falls_back_to_the_session_and_the_keys_run(client) -> None:
    key = {"Authorization": f"Bearer {_run(client, 'r2')}", "X-Acteon-Run-Id": "", "X-Acteon-Agent-Id": ""}
    assert decision(hook(client, EVENT, key))[0] == "allow"
    rec = client.get("/v1/runs/r2/audit", headers=ADMIN).json()["records"][0]
    assert rec["agent_id"] == "claude-s-123456789a"  # first 12 characters of the session


def test_failures_are_explicit_denies(client) -> None:
    assert decision(hook(client, EVENT, {}))[0] == "deny"  # no key
    assert decision(hook(client, EVENT, {"Authorization": "Bearer nope"}))[0] == "deny"
    key = {"Authorization": f"Bearer {_run(client, 'r3')}"}
    other = {**key, "X-Acteon-Run-Id": "default"}
    assert decision(hook(client, EVENT, other))[0] == "deny"  # not this key's run
    assert decision(hook(client, {**EVENT, "tool_input": "ls"}, key))[0] == "deny"
    r = client.post("/v1/hooks/claude", content=b"{bad", headers=key)
    assert r.status_code == 200 and decision(r.json())[0] == "deny"


def test_installed_by_hand_an_allow_leaves_claudes_own_permissions_to_decide(client) -> None:
    key = {"Authorization": f"Bearer {_run(client, 'r5')}"}
    assert hook(client, EVENT, key, query="") == {}  # no decision: Claude asks as it would without the gate
    verdict, _reason = decision(hook(client, {**EVENT, "tool_input": {"command": "rm -rf /"}}, key, query=""))
    assert verdict == "deny"  # a refusal is a refusal either way


def test_post_tool_use_records_an_event(client) -> None:
    key = {"Authorization": f"Bearer {_run(client, 'r4')}"}
    post = {**EVENT, "hook_event_name": "PostToolUse", "tool_response": {"stdout": "a"}, "duration_ms": 12}
    assert hook(client, post, key) == {}


def test_pending_approval_waits_for_a_human_when_asked(make_client) -> None:
    gw = make_client(use_clock=False)
    key = {"Authorization": f"Bearer {_run(gw, 'r5')}", "X-Acteon-Agent-Id": "a"}
    push = {**EVENT, "tool_input": {"command": "git push"}}
    verdict, reason = decision(hook(gw, push, key))
    assert verdict == "deny" and "waiting for human approval" in reason
    aid = gw.get("/v1/approvals?run=r5", headers=ADMIN).json()["approvals"][0]["approval_id"]
    result: dict[str, object] = {}
    t = threading.Thread(target=lambda: result.update(hook(gw, push, key, "?approval_wait_s=20&authoritative=1")))
    t.start()
    approver = make_client(use_clock=False)
    approver.post(f"/v1/approvals/{aid}/approve", headers=ADMIN)
    t.join(25)
    assert decision(result)[0] == "allow"


def test_default_run_agent_key_file_works_for_hooks(client) -> None:
    state_dir = client.app.state.gateway.settings.state_dir
    key = (state_dir / "default-agent.key").read_text().strip()
    assert decision(hook(client, EVENT, {"Authorization": f"Bearer {key}"}))[0] == "allow"
    r = client.post("/v1/approvals/apr-0123456789abcdef-default/approve", headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 403


def test_admin_can_mint_agent_keys_for_a_run(client) -> None:
    r = client.post("/v1/runs/default/agent-keys", headers=ADMIN)
    assert r.status_code == 201
    key = {"Authorization": f"Bearer {r.json()['agent_key']}"}
    assert client.post("/v1/dispatch", json={"run_id": "default", "agent_id": "x", "provider": "p", "tool": "Bash",
                                             "input": {"command": "ls"}}, headers=key).status_code == 200
    assert client.post("/v1/runs/nope/agent-keys", headers=ADMIN).status_code == 404
    assert client.post("/v1/runs/default/agent-keys", headers=key).status_code == 403


def test_a_failed_call_is_recorded_as_failed_with_its_error(client) -> None:
    """One adapter (acteon_core/dialects.py) reads completions for the hook command and this endpoint alike: a
    response with an `error` is a failure here too (it used to count as a success on this path)."""
    key = {"Authorization": f"Bearer {_run(client, 'r5')}", "X-Acteon-Agent-Id": "coder-5"}
    post = {**EVENT, "hook_event_name": "PostToolUse", "tool_response": {"error": "exit status 2"}}
    assert hook(client, post, key) == {}
    events = client.get("/v1/runs/r5/events", headers=ADMIN).json()["events"]
    assert [(e["agent_id"], e["success"], e.get("error")) for e in events] == [("coder-5", False, "exit status 2")]


def test_the_endpoint_and_the_hook_command_send_the_same_request() -> None:
    from acteon_core import dialects
    from hook import gate

    event = {**EVENT, "agent_type": "Explore", "mcp_server": {"name": "files"}}
    env = {"ACTEON_RUN_ID": "r6", "ACTEON_AGENT_ID": "coder-6", "ACTEON_AGENT_ROLE": "coder", "HOME": "/home/a"}
    sent = gate.identity(event, dialects.CLAUDE, env)
    # The command hook also attaches the local programs the command may run; the endpoint's gateway reads
    # them itself (gateway.dispatch.attached), so everything else must be the same request.
    assert sent.pop("files") == {}
    assert sent == dialects.dispatch_fields(
        event, dialects.CLAUDE, run_id="r6", agent_id="coder-6", role="coder", home="/home/a")
