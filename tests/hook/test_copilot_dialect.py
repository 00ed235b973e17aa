"""The hook as Copilot CLI runs it (``gate --cli copilot``), fed events recorded from the real copilot 1.0.102:
camelCase, no event name, ``toolArgs`` as an object or a JSON string; answers with a top-level
``permissionDecision``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.hook import dialect_helpers
from tests.hook.fake_gateway import fake_gateway
from tests.hook.test_gate import decision, gw_env, run_hook


def recorded(name: str) -> dict[str, Any]:
    return dialect_helpers.recorded("copilot-1.0.102", name)


def gate(event: Any, result: Any, *args: str) -> tuple[int, Any, str, list[Any]]:
    return dialect_helpers.gate("copilot", event, result, *args)


@pytest.mark.parametrize("as_string", [False, True])
def test_a_refusal_is_a_deny_with_its_reason(as_string: bool) -> None:
    event = recorded("pre_bash")
    if as_string:  # some Copilot versions send the arguments as a JSON string
        event["toolArgs"] = json.dumps(event["toolArgs"])
    code, answer, err, seen = gate(event, decision("suppressed", False))
    assert code == 2 and "because suppressed" in err
    assert answer == {"permissionDecision": "deny", "permissionDecisionReason": answer["permissionDecisionReason"]}
    assert "because suppressed" in answer["permissionDecisionReason"]
    body = seen[0][2]["body"]
    assert (body["provider"], body["tool"], body["input"]["command"]) == ("copilot-cli", "bash", "echo hi > c.txt")
    assert body["session_id"] == recorded("pre_bash")["sessionId"] and body["cwd"] == "/home/dev/shop"


def test_allows_and_reroutes() -> None:
    assert gate(recorded("pre_bash"), decision("executed", True))[:2] == (0, {})
    assert gate(recorded("pre_bash"), decision("executed", True), "--authoritative")[:2] == (
        0, {"permissionDecision": "allow"})
    new = {"command": "trash build/"}
    assert gate(recorded("pre_bash"), decision("rerouted", True, updated_input=new))[:2] == (
        0, {"permissionDecision": "allow", "modifiedArgs": new})


@pytest.mark.parametrize("event", [b"", b"{", {"toolName": "bash"}, {"toolName": "bash", "toolArgs": "{not json"},
                                   {"toolName": "bash", "toolArgs": "[1]"}])
def test_malformed_input_is_denied(event: Any) -> None:
    code, answer, _err, _ = gate(event, decision("executed", True))
    assert code == 2 and answer["permissionDecision"] == "deny" and answer["permissionDecisionReason"]


def test_a_completion_is_reported() -> None:
    with fake_gateway(lambda m, p, b: (202, {"accepted": True})) as (url, seen, _r):
        code, answer, _err, _ = run_hook(json.dumps(recorded("post_bash")), "complete", "--cli", "copilot",
                                         env=gw_env(url))
    assert (code, answer) == (0, {})
    body = seen[0][2]["body"]
    assert body["tool"] == "bash" and body["success"] is True
