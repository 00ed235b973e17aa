"""The hook as Codex CLI runs it (``gate --cli codex``), fed events recorded from the real codex 0.169.0:
exact answer bytes for every decision, because Codex runs the call on any answer it does not understand
(an unknown field, a bare allow, ``ask``, a deny without a reason)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.hook.fake_gateway import fake_gateway
from tests.hook.test_gate import decision, gw_env, run_hook

FIXTURES = Path(__file__).parent / "fixtures" / "codex-0.169.0"
# The fields Codex 0.169 accepts in a PreToolUse answer (codex-rs/hooks schema, deny_unknown_fields).
TOP_LEVEL = {"continue", "stopReason", "suppressOutput", "systemMessage", "decision", "reason",
             "hookSpecificOutput"}
SPECIFIC = {"hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext"}


def recorded(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / f"{name}.json").read_text()))


def gate(event: dict[str, Any] | bytes, result: Any, *args: str) -> tuple[int, Any, str, list[Any]]:
    stdin = event if isinstance(event, bytes) else json.dumps(event).encode()
    with fake_gateway(lambda m, p, b: (200, result)) as (url, seen, _r):
        code, answer, err, _ = run_hook(stdin, "gate", "--cli", "codex", *args, env=gw_env(url))
    return code, answer, err, seen


def codex_accepts(answer: dict[str, Any]) -> None:
    assert set(answer) <= TOP_LEVEL, answer
    assert set(answer.get("hookSpecificOutput", {})) <= SPECIFIC, answer


@pytest.mark.parametrize("name", ["pre_bash_ls", "pre_apply_patch", "pre_bash_apply_patch_heredoc"])
def test_a_refusal_is_a_deny_with_its_reason_and_nothing_else(name: str) -> None:
    code, answer, err, seen = gate(recorded(name), decision("suppressed", False))
    assert code == 2 and "because suppressed" in err
    codex_accepts(answer)
    specific = answer["hookSpecificOutput"]
    assert answer == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                             "permissionDecisionReason": specific["permissionDecisionReason"]}}
    assert "because suppressed" in specific["permissionDecisionReason"]
    body = seen[0][2]["body"]
    event = recorded(name)
    assert (body["provider"], body["tool"], body["input"]) == ("codex-cli", event["tool_name"], event["tool_input"])
    assert body["session_id"] == event["session_id"] and body["tool_use_id"] == event["tool_use_id"]


@pytest.mark.parametrize("flags", [(), ("--authoritative",)])
def test_an_allow_is_no_decision_because_codex_takes_no_bare_allow(flags: tuple[str, ...]) -> None:
    code, answer, _err, _ = gate(recorded("pre_bash_ls"), decision("executed", True), *flags)
    assert (code, answer) == (0, {})


def test_a_reroute_is_an_allow_with_the_whole_new_input() -> None:
    new = {"command": "trash build/"}
    code, answer, _err, _ = gate(recorded("pre_bash_ls"), decision("rerouted", True, updated_input=new))
    assert code == 0
    codex_accepts(answer)
    assert answer == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                             "updatedInput": new}}


@pytest.mark.parametrize("stdin", [b"", b"{", b"[]", b"\xff\xfe", b'{"hook_event_name": "PreToolUse"}'])
def test_malformed_input_is_a_deny_codex_understands(stdin: bytes) -> None:
    code, answer, _err, _ = gate(stdin, decision("executed", True))
    assert code == 2
    codex_accepts(answer)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert answer["hookSpecificOutput"]["permissionDecisionReason"].strip()


def test_pending_approval_and_unknown_outcomes_deny_never_ask() -> None:
    for result in (decision("pending_approval", False, approval_id=""), decision("maybe", True), b"oops"):
        code, answer, _err, _ = gate(recorded("pre_bash_ls"), result)
        assert code == 2 and answer["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert "ask" not in json.dumps(answer).replace("task", "")


@pytest.mark.parametrize(("name", "success"), [("post_bash_ls", True), ("post_apply_patch", True)])
def test_completions_are_reported(name: str, success: bool) -> None:
    with fake_gateway(lambda m, p, b: (202, {"accepted": True})) as (url, seen, _r):
        code, answer, err, _ = run_hook(json.dumps(recorded(name)), "complete", "--cli", "codex", env=gw_env(url))
    assert (code, answer, err) == (0, {}, "")
    body = seen[0][2]["body"]
    assert body["tool"] == recorded(name)["tool_name"] and body["success"] is success


def test_a_failed_patch_is_reported_failed() -> None:
    event = {**recorded("post_apply_patch"), "tool_response": "Exit code: 1\nWall time: 0 seconds\nOutput:\nno"}
    with fake_gateway(lambda m, p, b: (202, {"accepted": True})) as (url, seen, _r):
        run_hook(json.dumps(event), "complete", "--cli", "codex", env=gw_env(url))
    assert seen[0][2]["body"]["success"] is False
