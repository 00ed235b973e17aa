"""``acteon-swarm status``: what a run is doing, from its directory alone — the gateway's counters too, counted
from the journal's copy of its audit (so `status` works, and agrees with `audit`, once the gateway is gone)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acteon_core import contract as c
from acteon_core.vocabulary import TASK_STATUSES
from orchestrator import events as E
from orchestrator import rundir as R

STAT_LINES = (
    (("dispatched", "Total dispatched"), ("executed", "Executed"), ("suppressed", "Suppressed"),
     ("throttled", "Throttled"), ("deduplicated", "Deduplicated")),
    (("quota_exceeded", "Quota exceeded"), ("rerouted", "Rerouted"), ("cancelled", "Cancelled"),
     ("superseded", "Superseded")),
)


def gateway_counters(events: list[Any]) -> dict[str, int]:
    """The gateway's counters for a run, counted from the journal's copy of its audit.

    A run may have had several gateways — an embedded one per start when it was resumed, each beginning at
    zero — and the journal holds every decision of all of them (the tailer drains each before the run
    ends), so these counters are their sum and always agree with ``acteon-swarm audit``. Besides the
    outcomes: ``approvals_asked`` (distinct approvals the run's calls waited for) and ``approvals_open``
    (those never used nor refused since: still waiting, or abandoned when the run stopped)."""
    counts = {"dispatched": 0, **{o: 0 for o in c.OUTCOMES}, "quota_warned": 0}
    for ev in events:
        if isinstance(ev, E.ToolCall):
            counts["dispatched"] += 1
            counts[ev.outcome] = counts.get(ev.outcome, 0) + 1
            counts["quota_warned"] += ev.quota_warned
    asked, settled = approval_waits(events)
    counts["approvals_asked"] = len(asked)
    counts["approvals_open"] = len(asked.keys() - settled)
    return counts


def approval_waits(events: list[Any]) -> tuple[dict[str, E.ToolCall], set[str]]:
    """(the first call that waited for each approval, by approval id; the approvals a later call used or was
    refused by). An approval in the first and not the second is still open."""
    asked: dict[str, E.ToolCall] = {}
    settled: set[str] = set()
    for ev in events:
        if isinstance(ev, E.ToolCall) and ev.approval_id:
            if ev.outcome == c.PENDING_APPROVAL:
                asked.setdefault(ev.approval_id, ev)
            else:
                settled.add(ev.approval_id)
    return asked, settled


def collect(rd: R.RunDir) -> dict[str, Any]:
    run = rd.read_run()
    events = rd.read_events()
    plan = json.loads(rd.plan_file.read_text(encoding="utf-8")) if rd.plan_file.exists() else {}
    plan_tasks = list(plan.get("tasks", []))
    statuses: dict[str, str] = {}
    reasons: dict[str, str] = {}
    alerts: list[dict[str, Any]] = []
    refiner: list[dict[str, Any]] = []
    findings = 0
    merges: dict[str, dict[str, Any]] = {}  # task -> its last merge (conflict report included)
    usage = UsageTotals()
    lenses: dict[str, dict[str, Any]] = {}  # lens task -> its quorum and merge
    adversarial: dict[str, Any] = {"rounds": 0, "challenges": 0, "actionable": 0, "merged": 0, "not_merged": 0,
                                   "baseline": None, "final": None, "stopped": ""}
    for ev in events:  # one pass over the journal: the source of truth
        if isinstance(ev, E.TaskStatusChanged):
            statuses[ev.task_id], reasons[ev.task_id] = ev.status, ev.reason
        elif isinstance(ev, E.Alert):
            alerts.append(ev.model_dump(include={"kind", "agent_id", "task_id", "detail", "action", "ts"}))
        elif isinstance(ev, E.RefinerDecision):
            refiner.append(ev.model_dump(include={"after_task", "action", "skipped", "priorities", "reason",
                                                  "fallback", "ts", "retried"}))
            if ev.added_task:
                plan_tasks.append(ev.added_task)
                refiner[-1]["added"] = ev.added_task.get("id")
        elif isinstance(ev, E.Finding):
            findings += 1
        elif isinstance(ev, E.SubtaskFinished):
            usage.add(ev.agent_id, ev)
        elif isinstance(ev, E.LensMerged):
            lenses[ev.task_id] = ev.model_dump(include={"result", "members", "answered", "min_quorum", "clusters",
                                                        "warnings", "merger_engine", "merger_fallback",
                                                        "merger_reason", "file"})
            usage.add(f"{ev.task_id}.merger", ev)
        elif isinstance(ev, E.ChallengeRound):
            adversarial["rounds"] = ev.round
            adversarial["challenges"] += len(ev.challenges)
            adversarial["actionable"] += len(ev.actionable)
            usage.add(f"challenger.r{ev.round}", ev)
        elif isinstance(ev, E.FixFinished):
            adversarial["merged" if ev.result == "merged" else "not_merged"] += 1
        elif isinstance(ev, E.AdversarialFinished):
            adversarial.update(baseline=ev.baseline, final=ev.final, stopped=ev.stopped)
        elif isinstance(ev, E.Merge) and ev.phase == "finished":
            merges[ev.task_id] = {"result": ev.result, "integration_before": ev.before, "integration_after": ev.after,
                                  "report": ev.report, "detail": ev.detail}
            if ev.report and ev.result == "conflict":
                merges[ev.task_id]["conflict"] = _report(ev.report).get("conflict")
    tasks = [{"id": t["id"], "name": t.get("name", ""), "role": t.get("assigned_role", ""),
              "status": statuses.get(t["id"], "pending"), "reason": reasons.get(t["id"], "")} for t in plan_tasks]
    counts = {s: sum(1 for t in tasks if t["status"] == s) for s in TASK_STATUSES}
    stats = gateway_counters(events)
    started = run.get("started_at")
    ended = run.get("finished_at")
    elapsed = _elapsed(started, ended)
    return {"run_id": rd.run_id, "status": rd.status(), "objective": run.get("objective"),
            "engine": run.get("engine"), "started_at": started, "finished_at": ended, "elapsed_s": elapsed,
            "tasks": tasks, "task_counts": counts, "stats": stats,
            "gateway_url": run.get("gateway_url"), "alerts": alerts, "refiner": refiner, "findings": findings,
            "repository": run.get("repository"), "integration_branch": run.get("integration_branch"),
            "merges": merges, "usage": usage.to_json(), "lenses": lenses,
            "phase": run.get("phase") if rd.status() in ("running", "interrupted") else None,
            "adversarial": adversarial if adversarial["rounds"] else None}


USAGE_FIELDS = ("input_tokens", "output_tokens", "cached_tokens", "cost_usd")


class UsageTotals:
    """Tokens and cost the agents' CLIs reported, per agent session and in total (only what was reported)."""

    def __init__(self) -> None:
        self.agents: dict[str, dict[str, float]] = {}

    def add(self, agent_id: str, ev: Any) -> None:
        reported = {f: getattr(ev, f) for f in USAGE_FIELDS if getattr(ev, f, None) is not None}
        if reported:
            mine = self.agents.setdefault(agent_id, {})
            for f, v in reported.items():
                mine[f] = mine.get(f, 0) + v

    def to_json(self) -> dict[str, Any]:
        total: dict[str, float] = {}
        for mine in self.agents.values():
            for f, v in mine.items():
                total[f] = total.get(f, 0) + v
        return {"total": total, "agents": self.agents}


def usage_line(usage: dict[str, Any]) -> str:
    total = usage.get("total") or {}
    if not total:
        return ""
    parts = [f"{label} {int(total[f]):,}" for f, label in (("input_tokens", "in"), ("output_tokens", "out"),
                                                           ("cached_tokens", "cached")) if f in total]
    if "cost_usd" in total:
        parts.append(f"cost ${total['cost_usd']:.4f}")
    return f"Tokens: {' · '.join(parts)} ({len(usage.get('agents') or {})} agent session(s) reporting)"


def _report(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _elapsed(started: str | None, ended: str | None) -> float | None:
    if not started:
        return None
    t0 = datetime.fromisoformat(started)
    t1 = datetime.fromisoformat(ended) if ended else datetime.now(UTC)
    return max(0.0, (t1 - t0).total_seconds())


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    s = int(seconds)
    return f"{s // 3600}h{s % 3600 // 60:02d}m{s % 60:02d}s" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def render(info: dict[str, Any]) -> str:
    """The status as text. ``info["outcome"]``, when set, is what the run was meant to show, put before its
    status (the demo's run ends ``failed`` by design: its dangerous task is blocked)."""
    counts = info["task_counts"]
    task_part = " · ".join(f"{counts[k]} {k}" for k in ("done", "running", "pending", "failed", "skipped")
                           ) + "".join(f" · {counts[k]} {k}" for k in ("waiting_approval", "blocked", "cancelled",
                                                                        "parked", "conflict", "verify_failed")
                                       if counts.get(k))
    state = info["status"] if not info.get("outcome") else f"{info['outcome']} — run status {info['status']}"
    lines = [f"Swarm run: {info['run_id']} ({state}, {_clock(info['elapsed_s'])})   tasks: {task_part}"]
    stats = info["stats"]
    for group in STAT_LINES:
        lines.append("  " + "   ".join(f"{label}: {int(stats.get(key, 0))}" for key, label in group))
    if stats.get("approvals_asked"):
        lines[-1] += f"   Approvals asked: {stats['approvals_asked']} ({stats['approvals_open']} still open)"
    for t in info["tasks"]:
        shown = t["status"] in ("failed", "blocked", "skipped", "parked", "conflict", "verify_failed",
                                "waiting_approval") or (
            t["status"] in ("ready", "running") and t.get("reason", "").startswith("waiting"))
        why = f"  ({t['reason']})" if t.get("reason") and shown else ""
        lines.append(f"    {t['status']:<9} {t['id']:<16} {t['role']:<10} {t['name']}{why}")
    if info.get("lenses"):
        lines.append("  Lens swarms:")
        for task_id, lens in info["lenses"].items():
            lines.append(f"    {task_id}: {lens['result']} — {lens['answered']} of {lens['members']} members answered "
                         f"(min quorum {lens['min_quorum']}), {lens['clusters']} finding cluster(s)")
            lines += [f"      ! {w}" for w in lens["warnings"]]
    if info.get("phase"):
        when = " (when it stopped)" if info["status"] == "interrupted" else ""
        lines.append(f"  Phase{when}: {info['phase']}")
    adv = info.get("adversarial")
    if adv:
        scores = (f", score {adv['baseline']:.3f} -> {adv['final']:.3f}" if adv["baseline"] is not None
                  and adv["final"] is not None else "")
        lines.append(f"  Adversarial: {adv['rounds']} round(s), {adv['challenges']} challenge(s), "
                     f"{adv['actionable']} actionable, {adv['merged']} fix(es) merged, {adv['not_merged']} not "
                     f"merged{scores}" + (f" (stopped: {adv['stopped']})" if adv["stopped"] else ""))
    if info.get("refiner"):
        lines.append("  Refiner:")
        for d in info["refiner"]:
            lines.append(f"    after {d['after_task']}: {_decision(d)}")
    if info.get("alerts"):
        lines.append("  Alerts:")
        for a in info["alerts"]:
            lines.append(f"    {a['kind']:<8} {a['action']:<8} {a['detail']}")
    if info.get("usage") and usage_line(info["usage"]):
        lines.append("  " + usage_line(info["usage"]))
    if info.get("integration_branch"):
        lines.append(f"  Integration branch: {info['integration_branch']} in {info.get('repository')} "
                     f"(land it with `acteon-swarm merge {info['run_id']}`)")
    if info.get("findings"):
        lines.append(f"  Findings reported: {info['findings']}")
    return "\n".join(lines)


def _decision(d: dict[str, Any]) -> str:
    if d["fallback"]:
        return f"CONTINUE (fallback: {d['reason']})"
    what = {"continue": "CONTINUE", "skip": "SKIP " + ", ".join(d["skipped"]),
            "reprioritize": "REPRIORITIZE " + ", ".join(f"{k}={v}" for k, v in d["priorities"].items()),
            "add": f"ADD {d.get('added', '')}", "retry": "RETRY " + ", ".join(d.get("retried", []))}[d["action"]]
    return what + (f" — {d['reason']}" if d["reason"] else "")
