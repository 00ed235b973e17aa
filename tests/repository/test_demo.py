"""The README's main-job command: a bundled plan on the command engine behind an embedded gateway."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.console import Console

from orchestrator.cli import demo


@pytest.mark.slow
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
    # The live output says why a task is not moving — waiting for a human, or throttled.
    assert "waiting   publish  publish.publish-1: approval apr-" in text
    assert re.search(r"throttled fan-out  fan-out\.fan-out-\d: retry in \d+ s: echo \d >> fanout\.txt", text)
    assert "behaved as designed" in text and f"acteon-swarm status --run {result['run_id']}" in text
    # the headline says what the demo was meant to show, and keeps the run's true status
    headline = f"Swarm run: {result['run_id']} (as designed: the gateway blocked the cleanup task — run status failed"
    assert headline in text
    # lines in the order things happened: a task's decisions show before it reads done, the operator acts
    # once the call is seen waiting
    lines = text.splitlines()

    def first(prefix: str) -> int:
        return next(i for i, line in enumerate(lines) if line.startswith(prefix))

    assert first("waiting   publish") < first("approval  apr-") < first("done      publish")
    throttled = [i for i, line in enumerate(lines) if line.startswith("throttled fan-out")]
    assert throttled and max(throttled) < first("done      fan-out")
    # the hints name the state folder: they work from any folder
    assert f"--state-dir {(tmp_path / 'state').resolve()}" in text
