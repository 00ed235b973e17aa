"""The README's main-job command: a bundled plan on the command engine behind an embedded gateway."""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console

from orchestrator import demo


def test_demo_runs_the_bundled_plan_and_shows_each_kind_of_decision(tmp_path) -> None:
    console = Console(record=True, width=200)
    result = demo.run(console, state_dir=tmp_path / "state")
    assert result["tasks"] == {"scaffold": "done", "docs": "done", "check": "done", "cleanup": "failed",
                               "publish": "done", "fan-out": "done"}
    stats = result["stats"]
    assert stats["suppressed"] == 1  # the dangerous cleanup
    assert stats["pending_approval"] == 1 and len(result["approvals"]) == 1  # publish waited for the operator
    assert stats["throttled"] >= 1  # the fan-out hit the run's throttle and waited it out
    assert result["peak_running"] >= 2  # tasks ran in parallel
    assert result["as_designed"] is True
    workspace = Path(result["workspace"])
    assert (workspace / "published.txt").read_text() == "published\n"
    assert sorted((workspace / "fanout.txt").read_text().split()) == [str(i) for i in range(8)]
    text = console.export_text()
    assert "block-destructive-commands" in text and "the operator approves it" in text
    assert "Total dispatched:" in text
    # Issue 12, point 6: the live output says why a task is not moving — waiting for a human, or throttled.
    assert "waiting   publish  publish.publish-1: approval apr-" in text
    assert re.search(r"throttled fan-out  fan-out\.fan-out-\d: retry in \d+ s: echo \d >> fanout\.txt", text)
    assert "behaved as designed" in text and f"acteon-swarm status --run {result['run_id']}" in text
