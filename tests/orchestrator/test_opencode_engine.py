"""The opencode engine's own parts: the session config that loads the gate plugin from the agent's folder, and
OpenCode's JSON events read into an answer, usage and failures. Whole runs: tests/e2e/test_opencode.py."""

from __future__ import annotations

import json
from pathlib import Path

from acteon_core.settings import HookOptions
from orchestrator.engines.opencode import failure, final_text, session_config
from orchestrator.engines.usage import from_opencode


def test_the_session_config_loads_the_gate_from_the_agents_folder(tmp_path: Path) -> None:
    config = session_config(tmp_path, HookOptions(url="http://127.0.0.1:8080", budget=40, authoritative=True))
    loaded = json.loads(config.read_text())
    (plugin,) = loaded["plugin"]
    assert plugin == (tmp_path / "acteon-swarm.js").as_uri()
    text = (tmp_path / "acteon-swarm.js").read_text()
    assert "gate --cli opencode" in text and "--authoritative" in text and "throw new Error" in text


def step(kind: str, message: str, **part: object) -> dict[str, object]:
    return {"type": kind, "sessionID": "s", "part": {"messageID": message, **part}}


def test_the_answer_usage_and_failures_as_opencode_prints_them() -> None:
    events = [
        step("text", "m1", text="let me look"), step("step_finish", "m1", tokens={"input": 10, "output": 5,
                                                                                   "cache": {"read": 2}}, cost=0.001),
        step("text", "m2", text="all "), step("text", "m2", text="done"),
        step("step_finish", "m2", tokens={"input": 20, "output": 7, "cache": {"read": 0}}, cost=0.002),
    ]
    assert final_text(events) == "all done"
    assert from_opencode(events).fields() == {"input_tokens": 30, "output_tokens": 12, "cached_tokens": 2,
                                              "cost_usd": 0.003}
    assert failure(events) is None
    broken = [*events, {"type": "error", "error": {"name": "APIError", "data": {"message": "rate limited"}}}]
    assert failure(broken) == "rate limited"
    assert final_text([]) == "" and from_opencode([]).fields() == {}
