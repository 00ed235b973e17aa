"""The README's main-job command: the demo decides real dispatches over HTTP on the embedded store."""

from __future__ import annotations

from rich.console import Console

from orchestrator import demo


def test_demo_shows_each_kind_of_decision(tmp_path) -> None:
    console = Console(record=True, width=200)
    result = demo.run(console, state_dir=tmp_path / "state")
    outcomes = {d["note"]: d["outcome"] for d in result["decisions"]}
    assert outcomes["ordinary work runs"] == "executed"
    assert outcomes["mentioning danger is fine"] == "executed"
    assert outcomes["parsed, not regexed"] == "suppressed"
    assert outcomes["needs a human"] == "pending_approval"
    assert outcomes["second writer waits"] == "deduplicated"
    assert outcomes["unknown MCP: deny by default"] == "suppressed"
    assert result["burst"].count("executed") == 12 and result["burst"].count("throttled") == 2
    text = console.export_text()
    assert "2 throttled" in text and "Total dispatched: 23" in text
