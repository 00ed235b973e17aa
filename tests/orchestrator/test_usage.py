"""Token usage and cost read from each CLI's JSON output (only what is reported, never estimated), and
totalled per agent session and per run in status."""

from __future__ import annotations

from orchestrator import events as E
from orchestrator.engines.usage import Usage, from_claude, from_gemini
from orchestrator.show.status import UsageTotals as Totals
from orchestrator.show.status import usage_line


def test_claude_result_usage_and_cost() -> None:
    data = {"type": "result", "result": "ok", "total_cost_usd": 0.0123,
            "usage": {"input_tokens": 120, "output_tokens": 45, "cache_read_input_tokens": 1000,
                      "cache_creation_input_tokens": 200}}
    assert from_claude(data) == Usage(120, 45, 1200, 0.0123)


def test_gemini_stats_summed_over_models_without_cost() -> None:
    data = {"response": "ok", "stats": {"models": {
        "gemini-2.5-flash": {"tokens": {"prompt": 100, "candidates": 20, "cached": 5, "total": 125}},
        "gemini-2.5-flash-lite": {"tokens": {"prompt": 10, "candidates": 2}}}}}
    assert from_gemini(data) == Usage(110, 22, 5, None)


def test_nothing_reported_is_nothing_invented() -> None:
    for data in ({}, {"usage": "lots"}, {"usage": {"input_tokens": -1, "output_tokens": True}},
                 {"total_cost_usd": "free"}, {"stats": {"models": []}}, {"stats": None}):
        assert from_claude(data).fields() == {} or from_gemini(data).fields() == {}
    assert from_claude({"usage": {"input_tokens": -1, "output_tokens": True}}).fields() == {}
    assert from_gemini({"stats": {"models": {"m": {"tokens": {"prompt": "x"}}}}}).fields() == {}


def test_status_totals_per_agent_and_run() -> None:
    totals = Totals()
    for agent, fields in (("a.1", {"input_tokens": 10, "output_tokens": 5, "cost_usd": 0.5}),
                          ("a.1", {"input_tokens": 1, "output_tokens": 1}),
                          ("b.1", {"input_tokens": 100}), ("c.1", {})):
        totals.add(agent, E.SubtaskFinished(ts="t", seq=0, task_id="t", subtask_id="s", agent_id=agent, ok=True,
                                            **fields))
    data = totals.to_json()
    assert data["agents"] == {"a.1": {"input_tokens": 11, "output_tokens": 6, "cost_usd": 0.5},
                              "b.1": {"input_tokens": 100}}
    assert data["total"] == {"input_tokens": 111, "output_tokens": 6, "cost_usd": 0.5}
    assert usage_line(data) == "Tokens: in 111 · out 6 · cost $0.5000 (2 agent session(s) reporting)"
    assert usage_line(Totals().to_json()) == ""
