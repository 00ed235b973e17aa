"""A run's start and end as its folder records them: run.json (who runs it, where, its status), the journal's
first and last events, and at the end the gateway's counters, the summary and the RDF twin."""

from __future__ import annotations

import os
from typing import Any

from acteon_core.files import write_atomic
from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.config import SwarmConfig
from orchestrator.plan.model import Plan
from orchestrator.process import process_start_time
from orchestrator.run.options import RunOptions
from orchestrator.show.status import gateway_counters
from orchestrator.show.summary import summary


def record_start(run_dir: R.RunDir, opts: RunOptions, plan: Plan, cfg: SwarmConfig, *, remote: bool) -> None:
    """``remote``: subtasks run on worker machines (run.json names the executor, so that `cancel` finds them
    when this process is gone)."""
    pid = os.getpid()
    run_dir.write_run(pid=pid, process_start_time=process_start_time(pid), status="running",
                      gateway_url=opts.gateway_url, engine=opts.engine, plan_id=plan.id,
                      objective=plan.objective, finished_at=None,
                      # a resume keeps the first start: elapsed time is the run's, not this process's
                      started_at=(run_dir.read_run().get("started_at") if opts.resume else None) or E.now_iso(),
                      overrides=opts.overrides, executor=cfg.executor.model_dump() if remote else None)
    run_dir.record(E.RunStarted, run_id=run_dir.run_id, plan_id=plan.id, engine=opts.engine, pid=pid,
                   resumed=opts.resume)


def final_status(statuses: dict[str, str], cancel_reason: str | None) -> str:
    if cancel_reason:
        return "cancelled"
    if all(s in ("done", "skipped") for s in statuses.values()):
        return "done"
    if "parked" in statuses.values() and all(s in ("done", "skipped", "parked", "pending") for s in statuses.values()):
        return "parked"  # only work that waits for a person is left: approve it and resume
    return "failed"


def record_finished(run_dir: R.RunDir, status: str, reason: str) -> tuple[dict[str, Any], list[Any]]:
    """The run's last event, after stats.json. Returns the gateway's counters (every gateway this run had,
    equal to its audit) and the journal they were counted from."""
    events = run_dir.read_events()
    stats = gateway_counters(events)
    write_atomic(run_dir.stats_file, stats)
    run_dir.record(E.RunFinished, status=status, reason=reason)
    return stats, events


def record_end(run_dir: R.RunDir, plan: Plan, status: str, statuses: dict[str, str], stats: dict[str, Any],
               events: list[Any], *, twin: bool) -> None:
    """run.json's end, summary.md, and the twin when enabled: written once the console has heard the end
    (the twin can take seconds on a long run)."""
    run_dir.write_run(status=status, finished_at=E.now_iso())
    run_dir.summary_file.write_text(summary(plan, run_dir.run_id, status, statuses, stats, events), encoding="utf-8")
    if twin:
        _write_twin(run_dir)


def _write_twin(run_dir: R.RunDir) -> None:
    """The run's RDF twin (graph.nq), projected from the journal now that it is complete. It is a cache
    (``graph query`` rebuilds a missing or stale one), so a failure here is journaled, not fatal."""
    from orchestrator.graph.twin import write_run_graph  # rdflib is heavy: only when a run ends

    try:
        write_run_graph(run_dir)
    except Exception as e:
        run_dir.record(E.Note, kind="graph_error", data={"error": f"{type(e).__name__}: {e}"})
