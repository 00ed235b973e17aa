"""The hook as Cline's CLI runs it (``gate --cli cline``), fed events recorded from the real cline 3.0.65
(tests/hook/fixtures/cline-3.0.65/, with what each answer did in ``observations.json``): Cline cannot refuse one
call (``cancel`` ends the whole run), so a refused call gets an input that does nothing and the model is told
why; every answer exits 0 (Cline never reads the exit code)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.hook import dialect_helpers
from tests.hook.fake_gateway import fake_gateway
from tests.hook.test_gate import decision, gw_env, run_hook

REASON = "acteon-swarm blocked this call (suppressed, rule some-rule): because suppressed"


def recorded(name: str) -> dict[str, Any]:
    return dialect_helpers.recorded("cline-3.0.65", name)


def gate(event: Any, result: Any, *args: str) -> tuple[int, Any, str, list[Any]]:
    return dialect_helpers.gate("cline", event, result, *args)


@pytest.mark.parametrize(("name", "tool", "asked", "nothing"), [
    ("pre_run_commands", "run_commands", {"command": "echo hi > out.txt"},
     {"commands": [f"printf '%s\\n' '{REASON}' >&2; exit 126"]}),
    ("pre_editor_edit", "editor", {"path": "/home/dev/shop/existing.txt", "new_string": "new line"},
     {"path": "", "new_text": ""}),
    ("pre_editor_create", "editor", {"path": "/home/dev/shop/new.txt"}, {"path": "", "new_text": ""}),
    ("pre_read_files", "read_files", {"paths": ["/home/dev/shop/existing.txt"]}, {"files": []}),
    ("pre_fetch_web_content", "fetch_web_content", {"urls": ["http://127.0.0.1:9/x"]}, {"requests": []}),
    ("pre_search_codebase", "search_codebase", {"queries": ["line"]}, {"queries": []}),
])
def test_a_refused_call_gets_an_input_that_does_nothing_and_the_reason(name: str, tool: str, asked: dict[str, Any],
                                                                        nothing: dict[str, Any]) -> None:
    code, answer, err, seen = gate(recorded(name), decision("suppressed", False))
    assert (code, answer) == (0, {"cancel": False, "overrideInput": nothing, "contextModification": REASON})
    assert REASON in err
    body = seen[0][2]["body"]
    assert (body["provider"], body["tool"]) == ("cline", tool)
    assert {k: body["input"].get(k) for k in asked} == asked
    assert body["session_id"] == recorded(name)["taskId"] and body["cwd"] == "/home/dev/shop"


def test_a_tool_with_no_harmless_input_is_refused_by_ending_the_run() -> None:
    code, answer, _err, seen = gate(recorded("pre_spawn_agent"), decision("suppressed", False))
    assert (code, answer) == (0, {"cancel": True, "errorMessage": REASON})
    assert seen[0][2]["body"]["tool"] == "spawn_agent"


def test_a_sub_agents_call_is_marked_as_such() -> None:
    body = gate(recorded("pre_run_commands_in_subagent"), decision("executed", True))[3][0][2]["body"]
    assert body["agent_type"] == "sub-agent" and body["input"]["command"] == "echo sub > sub.txt"


def test_an_allow_is_no_opinion_and_a_reroute_is_refused() -> None:
    assert gate(recorded("pre_run_commands"), decision("executed", True))[:2] == (0, {})
    assert gate(recorded("pre_run_commands"), decision("executed", True), "--authoritative")[:2] == (0, {})
    code, answer, err, _ = gate(recorded("pre_run_commands"),
                                decision("rerouted", True, updated_input={"command": "true"}))
    assert code == 0 and answer["cancel"] is False and "cannot run a call with a new input" in err
    assert answer["overrideInput"]["commands"][0].endswith("exit 126")


def test_the_editor_extensions_events_are_read_too() -> None:
    event = {"clineVersion": "3.40.0", "hookName": "PreToolUse", "taskId": "t-1", "workspaceRoots": ["/home/dev/shop"],
             "preToolUse": {"toolName": "write_to_file", "parameters": {"path": ".env", "content": "X=1"}}}
    code, answer, _err, seen = gate(event, decision("suppressed", False))
    assert code == 0 and answer == {"cancel": True, "errorMessage": REASON}  # no harmless input known for it
    assert seen[0][2]["body"]["input"]["path"] == ".env"


@pytest.mark.parametrize("event", [b"", b"{", b"[]", {"hookName": "tool_call"},
                                   {"hookName": "tool_call", "tool_call": 1},
                                   {"hookName": "tool_call", "tool_call": {"name": "run_commands", "input": "x"}}])
def test_malformed_input_is_refused(event: Any) -> None:
    code, answer, _err, seen = gate(event, decision("executed", True))
    # a call of a known tool is replaced by nothing, anything else ends the run
    assert code == 0 and answer != {} and not seen
    assert "blocked" in (answer.get("errorMessage") or answer["contextModification"])


@pytest.mark.parametrize(("name", "tool", "success"), [("post_run_commands", "run_commands", True),
                                                       ("post_editor_edit", "editor", True)])
def test_a_completion_is_reported(name: str, tool: str, success: bool) -> None:
    with fake_gateway(lambda m, p, b: (202, {"accepted": True})) as (url, seen, _r):
        code, answer, _err, _ = run_hook(json.dumps(recorded(name)), "complete", "--cli", "cline", env=gw_env(url))
    assert (code, answer) == (0, {})
    body = seen[0][2]["body"]
    assert (body["tool"], body["success"]) == (tool, success) and body["duration_ms"] >= 0
