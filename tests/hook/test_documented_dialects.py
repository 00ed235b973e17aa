"""The hook as Cursor, Goose, Windsurf and Antigravity (agy) run it, fed events built from their documented
formats (none of the four installs here: tests/hook/fixtures/<cli>-docs/README.md): what the gateway is asked,
and the exact answer and exit code each CLI gets."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.hook import dialect_helpers
from tests.hook.fake_gateway import fake_gateway
from tests.hook.test_gate import decision, gw_env, run_hook

REASON = "acteon-swarm blocked this call (suppressed, rule some-rule): because suppressed"


def recorded(cli: str, name: str) -> dict[str, Any]:
    return dialect_helpers.recorded(f"{cli}-docs", name)


gate = dialect_helpers.gate


# cli, fixture, (provider, tool, the keys the gateway reads → values), the deny answer, exit code of a deny
CASES = [
    ("cursor", "pre_shell", ("cursor", "Shell", {"command": "rm -r build", "dir_path": "/home/dev/shop"}),
     {"permission": "deny", "user_message": REASON, "agent_message": REASON}, 2),
    ("cursor", "pre_write", ("cursor", "Write", {"file_path": "/home/dev/shop/.env"}),
     {"permission": "deny", "user_message": REASON, "agent_message": REASON}, 2),
    ("goose", "pre_shell", ("goose", "developer__shell", {"command": "rm -r build"}),
     {"decision": "block", "reason": REASON}, 2),
    ("goose", "pre_write", ("goose", "developer__write", {"path": "/home/dev/.bashrc"}),
     {"decision": "block", "reason": REASON}, 2),
    ("windsurf", "pre_run_command", ("windsurf", "run_command", {"command": "rm -r build"}),
     {"decision": "deny", "reason": REASON}, 2),
    ("windsurf", "pre_write_code", ("windsurf", "write_code", {"file_path": "/home/dev/shop/.env"}),
     {"decision": "deny", "reason": REASON}, 2),
    ("windsurf", "pre_read_code", ("windsurf", "read_code", {"file_path": "/home/dev/.ssh/id_ed25519"}),
     {"decision": "deny", "reason": REASON}, 2),
    ("windsurf", "pre_mcp_tool_use", ("windsurf", "mcp__github__create_issue", {"title": "x"}),
     {"decision": "deny", "reason": REASON}, 2),
    ("antigravity", "pre_run_command", ("antigravity", "run_command",
                                        {"command": "rm -r build", "dir_path": "/home/dev/shop"}),
     {"decision": "deny", "reason": REASON}, 2),
    ("antigravity", "pre_write_to_file", ("antigravity", "write_to_file",
                                          {"file_path": "/home/dev/shop/.env", "content": "STRIPE_KEY=sk_live_0000\n"}),
     {"decision": "deny", "reason": REASON}, 2),
]


@pytest.mark.parametrize(("cli", "name", "asked", "denial", "exit_code"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_refusal_is_the_clis_own_deny(cli: str, name: str, asked: tuple[str, str, dict[str, Any]],
                                        denial: dict[str, Any], exit_code: int) -> None:
    code, answer, err, seen = gate(cli, recorded(cli, name), decision("suppressed", False))
    assert (code, answer) == (exit_code, denial)
    assert REASON in err
    body = seen[0][2]["body"]
    provider, tool, keys = asked
    assert (body["provider"], body["tool"]) == (provider, tool)
    assert {k: body["input"].get(k) for k in keys} == keys
    assert (body["run_id"], body["agent_id"]) == ("run-7", "coder-1")


@pytest.mark.parametrize(("cli", "session", "cwd"), [
    ("cursor", "c0ffee12-3456-7890-abcd-ef0123456789", "/home/dev/shop"),
    ("goose", "20261127_7", "/home/dev/shop"),
    ("windsurf", "traj-3b7e", "/home/dev/shop"),
    ("antigravity", "8f1d2c3b-aaaa-4bbb-8ccc-0d1e2f3a4b5c", "/home/dev/shop"),
])
def test_the_session_and_the_working_directory_reach_the_gateway(cli: str, session: str, cwd: str) -> None:
    name = {"cursor": "pre_shell", "goose": "pre_shell"}.get(cli, "pre_run_command")
    body = gate(cli, recorded(cli, name), decision("executed", True))[3][0][2]["body"]
    assert (body["session_id"], body["cwd"]) == (session, cwd)


@pytest.mark.parametrize(("cli", "name", "plain", "authoritative"), [
    ("cursor", "pre_shell", {"permission": "allow"}, {"permission": "allow"}),  # only Cursor's allow-list approves
    ("goose", "pre_shell", {}, {"decision": "allow"}),
    ("windsurf", "pre_run_command", {}, {}),  # Windsurf reads the exit code only
    ("antigravity", "pre_run_command", {"decision": "ask"}, {"decision": "allow"}),  # ask: agy's own policy decides
])
def test_an_allow_runs_the_call(cli: str, name: str, plain: dict[str, Any], authoritative: dict[str, Any]) -> None:
    assert gate(cli, recorded(cli, name), decision("executed", True))[:2] == (0, plain)
    assert gate(cli, recorded(cli, name), decision("executed", True), "--authoritative")[:2] == (0, authoritative)


@pytest.mark.parametrize(("cli", "name"), [("cursor", "pre_shell"), ("goose", "pre_shell"),
                                           ("windsurf", "pre_run_command"), ("antigravity", "pre_run_command")])
def test_a_reroute_is_refused_where_the_cli_cannot_run_a_new_input(cli: str, name: str) -> None:
    code, answer, err, _ = gate(cli, recorded(cli, name),
                                decision("rerouted", True, updated_input={"command": "trash build"}), "--authoritative")
    assert code == 2 and "cannot run a call with a new input" in err
    assert "allow" not in json.dumps(answer)


@pytest.mark.parametrize("cli", ["cursor", "goose", "windsurf", "antigravity"])
@pytest.mark.parametrize("event", [b"", b"{", b"[1]", {"toolCall": "x"}, {"tool_info": []}, {"tool_name": "Shell"}])
def test_malformed_input_is_denied(cli: str, event: Any) -> None:
    code, answer, err, seen = gate(cli, event, decision("executed", True))
    assert code == 2 and "blocked" in err and not seen
    assert answer not in ({}, {"permission": "allow"}, {"decision": "allow"}, {"decision": "ask"})


def test_cursors_byte_order_mark_is_read() -> None:
    raw = b"\xef\xbb\xbf" + json.dumps(recorded("cursor", "pre_shell")).encode()
    code, answer, _err, seen = gate("cursor", raw, decision("executed", True))
    assert (code, answer) == (0, {"permission": "allow"}) and seen[0][2]["body"]["tool"] == "Shell"


@pytest.mark.parametrize(("cli", "name", "tool", "success"), [
    ("cursor", "post_shell", "Shell", True), ("goose", "post_shell", "developer__shell", True),
    ("windsurf", "post_run_command", "run_command", True), ("antigravity", "post_run_command", "run_command", True),
])
def test_a_completion_is_reported(cli: str, name: str, tool: str, success: bool) -> None:
    with fake_gateway(lambda m, p, b: (202, {"accepted": True})) as (url, seen, _r):
        code, answer, _err, _ = run_hook(json.dumps(recorded(cli, name)), "complete", "--cli", cli, env=gw_env(url))
    assert (code, answer) == (0, {})
    assert seen[0][1] == "/v1/runs/run-7/events"
    body = seen[0][2]["body"]
    assert (body["tool"], body["success"]) == (tool, success)
