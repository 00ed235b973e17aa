"""The hook as Crush runs it (``gate --cli crush``), fed the events Crush's hook runner writes
(tests/hook/fixtures/crush-source/README.md): ``event`` for the event's name, a ``decision`` answer, exit 2 on a
deny (Crush blocks on either)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.hook import dialect_helpers
from tests.hook.test_gate import decision

REASON = "acteon-swarm blocked this call (suppressed, rule some-rule): because suppressed"


def recorded(name: str) -> dict[str, Any]:
    return dialect_helpers.recorded("crush-source", name)


def gate(event: Any, result: Any, *args: str) -> tuple[int, Any, str, list[Any]]:
    return dialect_helpers.gate("crush", event, result, *args)


@pytest.mark.parametrize(("name", "tool", "action_keys"), [
    ("pre_bash", "bash", {"command": "echo hi > out.txt"}),
    ("pre_edit", "edit", {"file_path": "/home/dev/shop/existing.txt", "new_string": "new line"}),
    ("pre_multiedit", "multiedit", {"file_path": "/home/dev/shop/existing.txt"}),
    ("pre_write", "write", {"file_path": "/home/dev/shop/new.txt"}),
    ("pre_view", "view", {"file_path": "/home/dev/shop/existing.txt"}),
    ("pre_agent", "agent", {"prompt": "look around"}),
])
def test_a_refusal_is_a_deny_with_its_reason(name: str, tool: str, action_keys: dict[str, Any]) -> None:
    code, answer, err, seen = gate(recorded(name), decision("suppressed", False))
    assert (code, answer) == (2, {"decision": "deny", "reason": REASON}) and REASON in err
    body = seen[0][2]["body"]
    assert (body["provider"], body["tool"]) == ("crush", tool)
    assert {k: body["input"].get(k) for k in action_keys} == action_keys
    assert body["session_id"] == "9b1f2c3e-1111-4a2b-8c3d-000000000001" and body["cwd"] == "/home/dev/shop"


def test_allows_and_reroutes() -> None:
    assert gate(recorded("pre_bash"), decision("executed", True))[:2] == (0, {})  # no opinion: Crush's own asks
    assert gate(recorded("pre_bash"), decision("executed", True), "--authoritative")[:2] == (0, {"decision": "allow"})
    new = {"command": "trash build/", "description": "write hi"}
    assert gate(recorded("pre_bash"), decision("rerouted", True, updated_input=new))[:2] == (
        0, {"decision": "allow", "updated_input": new})


@pytest.mark.parametrize("event", [b"", b"not json", b"[1]", {"event": "PreToolUse", "tool_name": "bash"},
                                   {"event": "PreToolUse", "tool_name": "bash", "tool_input": "rm -rf /"}])
def test_malformed_input_is_denied(event: Any) -> None:
    code, answer, _err, seen = gate(event, decision("executed", True))
    assert code == 2 and answer["decision"] == "deny" and answer["reason"] and not seen
