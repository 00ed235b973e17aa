"""Helpers for the memory tests: run directories with a plan and a journal, and memories to index."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.memory.model import Memory


def make_run(state: Path, run_id: str, workspace: Path) -> R.RunDir:
    """A run directory as the runner leaves it: run.json, plan.json (only what memory reads), a journal."""
    rd = R.RunDir(state, run_id)
    rd.create()
    rd.write_run(status="done", pid=1)
    rd.plan_file.write_text(json.dumps({"id": "p", "objective": "test", "status": "approved", "tasks": [],
                                        "scope": {"working_directory": str(workspace)}}))
    rd.record(E.RunStarted, run_id=run_id, plan_id="p", engine="command", pid=1)
    return rd


def finding(rd: R.RunDir, n: int, text: str, topics: list[str] | None = None, agent: str = "a1") -> Any:
    return rd.record(E.Finding, finding_id=f"{rd.run_id}/{n}", agent_id=agent, task_id="t1",
                     topics=topics or [], text=text)


def semantic(mid: str, text: str, *, run: str = "r1", workspace: str = "/ws", topics: tuple[str, ...] = (),
             created: str = "2030-01-01T00:00:00.000+00:00") -> Memory:
    return Memory(mid, "semantic", run, workspace, "agent", "task", topics, text, created)


FILLER = [
    "the build uses setuptools and a pyproject file",
    "docker compose starts the gateway next to a database container",
    "hypothesis generates inputs for the parser tests",
    "the scheduler orders ready tasks by priority",
    "prompts are rendered from jinja templates in a sandbox",
    "approvals expire after ten minutes without an answer",
]
