"""The hook as Qwen Code runs it (``gate --cli qwen``), fed events recorded from the real qwen 0.24.4: Claude's
event and answer shapes with Gemini's tool names, the audit's provider ``qwen-code``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.hook.fake_gateway import fake_gateway
from tests.hook.test_gate import decision, gw_env, run_hook

FIXTURES = Path(__file__).parent / "fixtures" / "qwen-0.24.4"


def recorded(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / f"{name}.json").read_text()))


def gate(stdin: bytes, result: Any, *args: str) -> tuple[int, Any, str, list[Any]]:
    with fake_gateway(lambda m, p, b: (200, result)) as (url, seen, _r):
        code, answer, err, _ = run_hook(stdin, "gate", "--cli", "qwen", *args, env=gw_env(url))
    return code, answer, err, seen


def test_a_refusal_is_claudes_deny_and_the_call_is_qwens() -> None:
    event = recorded("pre_run_shell_command")
    code, answer, err, seen = gate(json.dumps(event).encode(), decision("suppressed", False))
    assert code == 2 and "because suppressed" in err
    reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert answer == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                             "permissionDecisionReason": reason}}
    body = seen[0][2]["body"]
    assert (body["provider"], body["tool"], body["input"]) == ("qwen-code", "run_shell_command", event["tool_input"])
    assert "files" in body  # a shell call: the programs it runs are attached, as for the other CLIs


@pytest.mark.parametrize(("flags", "expected"), [
    ((), {}),
    (("--authoritative",), {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                                   "permissionDecisionReason": "acteon-swarm: executed (some-rule)"}}),
])
def test_an_allow_is_claudes(flags: tuple[str, ...], expected: dict[str, Any]) -> None:
    code, answer, _err, _ = gate(json.dumps(recorded("pre_run_shell_command")).encode(),
                                 decision("executed", True), *flags)
    assert (code, answer) == (0, expected)


@pytest.mark.parametrize("stdin", [b"", b"{", b"null", b'{"hook_event_name": "PreToolUse"}'])
def test_malformed_input_is_denied(stdin: bytes) -> None:
    code, answer, _err, _ = gate(stdin, decision("executed", True))
    assert code == 2 and answer["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_completion_is_reported() -> None:
    with fake_gateway(lambda m, p, b: (202, {"accepted": True})) as (url, seen, _r):
        code, answer, _err, _ = run_hook(json.dumps(recorded("post_run_shell_command")), "complete", "--cli", "qwen",
                                         env=gw_env(url))
    assert (code, answer) == (0, {})
    body = seen[0][2]["body"]
    assert body["tool"] == "run_shell_command" and body["success"] is True and body["duration_ms"] == 12
