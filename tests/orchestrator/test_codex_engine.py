"""The codex engine's own parts: the gate as command-line overrides Codex can parse, its events read safely,
usage and failures as Codex reports them. Whole runs on the real binary: tests/e2e/test_codex.py."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from acteon_core.settings import HookOptions
from orchestrator.engines.base import read_json_lines
from orchestrator.engines.codex import failure, gate_flags
from orchestrator.engines.usage import from_codex


def test_the_gate_flags_are_toml_codex_reads_and_keep_hooks_on() -> None:
    flags = gate_flags(HookOptions(url="http://127.0.0.1:8080", budget=40, authoritative=True))
    values = flags[1::2]
    assert flags[0::2] == ["-c", "-c", "-c"] and values[2] == "features.hooks=true"
    parsed = tomllib.loads("\n".join(values[:2]).replace("hooks.PreToolUse=", "PreToolUse = ")
                           .replace("hooks.PostToolUse=", "PostToolUse = "))
    (gate,) = parsed["PreToolUse"][0]["hooks"]
    assert parsed["PreToolUse"][0]["matcher"] == "*" and gate["timeout"] == 50
    assert " gate --cli codex " in gate["command"] and "--authoritative" in gate["command"]
    assert "complete --cli codex" in parsed["PostToolUse"][0]["hooks"][0]["command"]


def test_events_usage_and_failures_as_codex_prints_them(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text("\n".join([
        json.dumps({"type": "thread.started", "thread_id": "t"}), "not json", "[1]", "[" * 100_000,
        json.dumps({"type": "turn.completed", "usage": {"input_tokens": 40, "cached_input_tokens": 8,
                                                        "output_tokens": 20}}),
    ]))
    read = read_json_lines(events)
    assert [e["type"] for e in read] == ["thread.started", "turn.completed"]
    assert from_codex(read).fields() == {"input_tokens": 40, "output_tokens": 20, "cached_tokens": 8}
    assert failure(read) is None
    assert failure([*read, {"type": "turn.failed", "error": {"message": "model unreachable"}}]) == "model unreachable"
    assert read_json_lines(tmp_path / "missing.jsonl") == [] and from_codex([]).fields() == {}
