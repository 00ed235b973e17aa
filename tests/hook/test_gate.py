"""The hook executable, run as the CLIs run it, against a scripted gateway: every output path of both
dialects, and fail-closed on every failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

import pytest

from tests.hook.fake_gateway import fake_gateway
from tests.support import ROOT

HOOK = [sys.executable, "-I", "-S", str(ROOT / "hook" / "__main__.py")]
CLAUDE_EVENT = {"session_id": "abc123", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                "tool_input": {"command": "ls"}, "cwd": "/w", "tool_use_id": "toolu_1", "permission_mode": "default"}
GEMINI_EVENT = {"session_id": "g1", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
                "tool_input": {"command": "ls"}, "cwd": "/w", "timestamp": "2026-11-21T18:40:03.384Z"}
EVENTS = {"claude": CLAUDE_EVENT, "gemini": GEMINI_EVENT}


def decision(outcome: str, allowed: bool, **extra: Any) -> dict[str, Any]:
    return {"action_id": "act-1", "allowed": allowed, "outcome": outcome, "action_type": "execute_command",
            "target": "ls", "rule": "some-rule", "reason": f"because {outcome}", **extra}


def run_hook(stdin: bytes | str, *args: str, env: dict[str, str] | None = None,
             timeout: float = 30) -> tuple[int, Any, str, float]:
    full_env = {"PATH": os.environ.get("PATH", ""), "ACTEON_AGENT_KEY": "agent-key-1", **(env or {})}
    data = stdin.encode() if isinstance(stdin, str) else stdin
    t0 = time.monotonic()
    p = subprocess.run([*HOOK, *args], input=data, capture_output=True, env=full_env, timeout=timeout)
    elapsed = time.monotonic() - t0
    out = p.stdout.decode()
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) <= 1, f"more than one line on stdout: {out!r}"
    return p.returncode, (json.loads(lines[0]) if lines else None), p.stderr.decode(), elapsed


def is_deny(dialect: str, answer: Any) -> bool:
    if answer == {}:
        return False  # no decision: the CLI's own permissions decide
    if dialect == "claude":
        hso = answer["hookSpecificOutput"]
        return hso["hookEventName"] == "PreToolUse" and hso["permissionDecision"] == "deny"
    return answer["decision"] == "deny" and "hookSpecificOutput" not in answer


def reason_of(dialect: str, answer: Any) -> str:
    return answer["hookSpecificOutput"]["permissionDecisionReason"] if dialect == "claude" else answer["reason"]


@pytest.fixture(params=["claude", "gemini"])
def dialect(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def gw_env(url: str) -> dict[str, str]:
    return {"ACTEON_URL": url, "ACTEON_RUN_ID": "run-7", "ACTEON_AGENT_ID": "coder-1", "ACTEON_AGENT_ROLE": "coder"}


def test_an_allowed_call_leaves_the_clis_own_permissions_to_decide(dialect) -> None:
    """Installed by hand, the gate only refuses: what it allows still goes through the CLI's own permission
    settings (an interactive Claude Code still asks). Orchestrated runs install it --authoritative."""
    with fake_gateway(lambda m, p, b: (200, decision("executed", True))) as (url, _, _r):
        code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", env=gw_env(url))
    assert (code, answer) == (0, {})


def test_an_authoritative_gate_answers_allow_with_exit_0(dialect) -> None:
    with fake_gateway(lambda m, p, b: (200, decision("executed", True))) as (url, seen, _):
        code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", "--authoritative", env=gw_env(url))
    assert code == 0
    if dialect == "claude":
        assert answer["hookSpecificOutput"]["permissionDecision"] == "allow"
        assert answer["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    else:
        assert answer["decision"] == "allow"
    method, path, req = seen[0]
    assert (method, path, req["auth"]) == ("POST", "/v1/dispatch", "Bearer agent-key-1")
    body = req["body"]
    assert body["run_id"] == "run-7" and body["agent_id"] == "coder-1" and body["role"] == "coder"
    assert body["provider"] == ("claude-code" if dialect == "claude" else "gemini-cli")
    assert body["tool"] == EVENTS[dialect]["tool_name"] and body["input"] == {"command": "ls"}
    assert body["cwd"] == "/w" and body["session_id"]


def test_denied_call_answers_deny_with_the_reason(dialect) -> None:
    with fake_gateway(lambda m, p, b: (200, decision("suppressed", False))) as (url, _, _r):
        code, answer, err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", env=gw_env(url))
    assert code == 2 and is_deny(dialect, answer)
    assert "because suppressed" in reason_of(dialect, answer) and "some-rule" in reason_of(dialect, answer)
    assert "because suppressed" in err  # Claude shows stderr on exit 2


@pytest.mark.parametrize("outcome", ["throttled", "deduplicated", "quota_exceeded", "cancelled"])
def test_every_refusal_outcome_denies(dialect, outcome) -> None:
    with fake_gateway(lambda m, p, b: (200, decision(outcome, False, retry_after_ms=1000))) as (url, _, _r):
        code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", env=gw_env(url))
    assert code == 2 and is_deny(dialect, answer) and outcome in reason_of(dialect, answer)


def test_reroute_sends_the_complete_replacement_input(dialect) -> None:
    new = {"command": "terraform plan", "description": "x"}
    with fake_gateway(lambda m, p, b: (200, decision("rerouted", True, updated_input=new))) as (url, _, _r):
        code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", "--authoritative", env=gw_env(url))
        assert code == 0
        if dialect == "claude":
            assert answer["hookSpecificOutput"]["updatedInput"] == new
        else:
            assert answer["decision"] == "allow" and answer["hookSpecificOutput"]["tool_input"] == new
        # not authoritative: the rewritten call is offered to the CLI's own confirmation, never just allowed
        code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", env=gw_env(url))
    assert code == 0
    if dialect == "claude":
        specific = answer["hookSpecificOutput"]
        assert (specific["permissionDecision"], specific["updatedInput"]) == ("ask", new)
    else:
        assert "decision" not in answer and answer["hookSpecificOutput"]["tool_input"] == new


def test_dialect_is_detected_from_the_event_without_a_flag(dialect) -> None:
    with fake_gateway(lambda m, p, b: (200, decision("suppressed", False))) as (url, _, _r):
        _code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", env=gw_env(url))
    assert is_deny(dialect, answer)


def test_flag_wins_over_the_event(dialect) -> None:
    other = "gemini" if dialect == "claude" else "claude"
    with fake_gateway(lambda m, p, b: (200, decision("suppressed", False))) as (url, _, _r):
        _code, answer, _err, _ = run_hook(json.dumps(EVENTS[other]), "gate", "--cli", dialect, env=gw_env(url))
    assert is_deny(dialect, answer)


@pytest.mark.parametrize("stdin", [b"", b"{bad", b"[]", b"null", b"\xff\xfe", b'"a string"'])
def test_garbage_stdin_is_denied(dialect, stdin) -> None:
    code, answer, err, _ = run_hook(stdin, "gate", "--cli", dialect, env={"ACTEON_URL": "http://127.0.0.1:9"})
    assert code == 2 and is_deny(dialect, answer) and "blocked" in err


def test_garbage_stdin_without_a_flag_blocks_by_exit_code() -> None:
    code, answer, err, _ = run_hook(b"{bad", "gate")
    assert code == 2 and answer is None and "blocked" in err  # both CLIs block on exit 2


def test_event_without_tool_is_denied(dialect) -> None:
    event = {k: v for k, v in EVENTS[dialect].items() if k != "tool_input"}
    code, answer, _err, _ = run_hook(json.dumps(event), "gate", env={"ACTEON_URL": "http://127.0.0.1:9"})
    assert code == 2 and is_deny(dialect, answer)


def test_unreachable_gateway_fails_closed(dialect) -> None:
    from tests.support import free_port

    url = f"http://127.0.0.1:{free_port()}"
    code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", env=gw_env(url))
    assert code == 2 and is_deny(dialect, answer)
    assert "unavailable" in reason_of(dialect, answer) and "fail closed" in reason_of(dialect, answer)


def test_hanging_gateway_fails_closed_within_the_budget(dialect) -> None:
    with fake_gateway(lambda m, p, b: (200, "HANG")) as (url, _, _r):
        code, answer, _err, elapsed = run_hook(json.dumps(EVENTS[dialect]), "gate", "--budget", "2", env=gw_env(url))
    assert code == 2 and is_deny(dialect, answer) and "did not answer in time" in reason_of(dialect, answer)
    assert elapsed < 2 + 1.5  # answered before a CLI timeout written as budget + 10 s


@pytest.mark.parametrize(("status", "body"), [
    (500, {"error": {"code": "internal", "message": "boom"}}), (503, {"error": {"code": "store_unavailable",
                                                                            "message": "down"}}),
    (401, {"error": {"code": "unauthorized", "message": "unknown key"}}), (200, b"not json"), (200, b"[1,2]"),
    (404, b"<html>"),
])
def test_non_200_or_non_json_answers_fail_closed(dialect, status, body) -> None:
    with fake_gateway(lambda m, p, b: (status, body)) as (url, _, _r):
        code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", env=gw_env(url))
    assert code == 2 and is_deny(dialect, answer)


def test_unknown_outcome_fails_closed(dialect) -> None:
    with fake_gateway(lambda m, p, b: (200, decision("maybe", True))) as (url, _, _r):
        code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", env=gw_env(url))
    assert code == 2 and is_deny(dialect, answer) and "unknown outcome" in reason_of(dialect, answer)


def test_allowed_flag_without_an_allowed_outcome_fails_closed(dialect) -> None:
    with fake_gateway(lambda m, p, b: (200, decision("suppressed", True))) as (url, _, _r):
        code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", env=gw_env(url))
    assert code == 2 and is_deny(dialect, answer)


def test_missing_agent_key_is_denied(dialect) -> None:
    code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", env={"ACTEON_AGENT_KEY": ""})
    assert code == 2 and is_deny(dialect, answer) and "agent key" in reason_of(dialect, answer)


def test_key_file_is_read(dialect, tmp_path) -> None:
    key = tmp_path / "k"
    key.write_text("from-file\n")
    with fake_gateway(lambda m, p, b: (200, decision("executed", True))) as (url, seen, _r):
        code, _answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", "--key-file", str(key),
                                          env={**gw_env(url), "ACTEON_AGENT_KEY": ""})
    assert code == 0 and seen[0][2]["auth"] == "Bearer from-file"


def _approval_gateway(final_status: str, dispatches: list[int]):  # type: ignore[no-untyped-def]
    def handle(method: str, path: str, body: Any) -> tuple[int, Any]:
        if path == "/v1/dispatch":
            dispatches.append(1)
            if len(dispatches) == 1:
                return 200, decision("pending_approval", False, approval_id="apr-0123456789abcdef-run-7")
            return 200, decision("executed", True, approval_id="apr-0123456789abcdef-run-7")
        if "/wait" in path:
            return 200, {"approval_id": "apr-0123456789abcdef-run-7", "status": final_status,
                         "resolved_by": "alice", "resolution_reason": "not today"}
        return 404, {}
    return handle


def test_pending_approval_then_approved_runs_the_call(dialect) -> None:
    dispatches: list[int] = []
    with fake_gateway(_approval_gateway("approved", dispatches)) as (url, seen, _r):
        code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", "--budget", "20", env=gw_env(url))
    assert code == 0 and not is_deny(dialect, answer)
    assert [p for _m, p, _b in seen][1].startswith("/v1/approvals/apr-0123456789abcdef-run-7/wait?timeout_s=")
    assert len(dispatches) == 2  # the second dispatch consumes the approval


def test_pending_approval_then_rejected_is_denied_with_the_reason(dialect) -> None:
    with fake_gateway(_approval_gateway("rejected", [])) as (url, _, _r):
        code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", "--budget", "20", env=gw_env(url))
    assert code == 2 and "alice" in reason_of(dialect, answer) and "not today" in reason_of(dialect, answer)


def test_approval_still_pending_at_the_budget_denies_naming_it(dialect) -> None:
    with fake_gateway(_approval_gateway("pending", [])) as (url, _, _r):
        code, answer, _err, elapsed = run_hook(json.dumps(EVENTS[dialect]), "gate", "--budget", "7",
                                               env=gw_env(url))
    assert code == 2 and is_deny(dialect, answer)
    reason = reason_of(dialect, answer)
    assert "waiting for human approval" in reason and "apr-0123456789abcdef-run-7" in reason
    assert elapsed < 7 + 1.5


def test_with_defer_claude_stops_at_a_pending_approval_at_once(dialect) -> None:
    """Orchestrated headless Claude agents: the session stops (``defer``) rather than holding its slot; the
    orchestrator resumes it once a person decided. Gemini has no defer: it keeps the bounded wait."""
    dispatches: list[int] = []
    with fake_gateway(_approval_gateway("approved", dispatches)) as (url, seen, _r):
        code, answer, _err, elapsed = run_hook(json.dumps(EVENTS[dialect]), "gate", "--cli", dialect, "--defer",
                                               "--budget", "20", env=gw_env(url))
    if dialect == "claude":
        assert code == 0 and answer == {"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "defer",
            "permissionDecisionReason": "acteon-swarm: waiting for human approval (apr-0123456789abcdef-run-7); "
                                        "the session resumes once a person decides"}}
        assert [p for _m, p, _b in seen] == ["/v1/dispatch"] and elapsed < 5  # no wait
    else:
        assert code == 0 and not is_deny(dialect, answer) and len(dispatches) == 2  # waited, then ran


def test_the_hook_never_answers_ask() -> None:
    for dialect in ("claude", "gemini"):
        with fake_gateway(lambda m, p, b: (200, decision("pending_approval", False, approval_id=""))) as (url, _, _r):
            _code, answer, _err, _ = run_hook(json.dumps(EVENTS[dialect]), "gate", env=gw_env(url))
        assert "ask" not in json.dumps(answer).replace("task", "")


def test_complete_posts_the_event_and_answers_empty(dialect) -> None:
    post = {**EVENTS[dialect], "hook_event_name": "PostToolUse" if dialect == "claude" else "AfterTool",
            "tool_response": {"stdout": "x", "stderr": "", "interrupted": False}, "duration_ms": 76}
    with fake_gateway(lambda m, p, b: (202, {"accepted": True})) as (url, seen, _r):
        code, answer, err, _ = run_hook(json.dumps(post), "complete", env=gw_env(url))
    assert (code, answer, err) == (0, {}, "")
    method, path, req = seen[0]
    assert (method, path) == ("POST", "/v1/runs/run-7/events")
    assert req["body"]["success"] is True and req["body"]["agent_id"] == "coder-1"
    assert req["body"]["tool"] == EVENTS[dialect]["tool_name"]


def test_complete_never_blocks_even_when_the_gateway_is_down() -> None:
    code, answer, err, _ = run_hook(b"{bad", "complete", env={"ACTEON_URL": "http://127.0.0.1:9"})
    assert (code, answer) == (0, {}) and "not" in err


def test_bad_arguments_block() -> None:
    code, answer, err, _ = run_hook(json.dumps(CLAUDE_EVENT), "gate", "--colour", "red")
    assert code == 2 and answer is None and "unknown argument" in err
    code, _a, _e, _ = run_hook(b"", "frobnicate")
    assert code == 2
