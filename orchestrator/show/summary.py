"""``summary.md``: a run's outcome for people — tasks, the gateway's counters, usage, the refiner's decisions,
the adversarial loop, monitor alerts and findings — written from the journal when the run ends."""

from __future__ import annotations

from typing import Any

from orchestrator import events as E
from orchestrator.adversarial.report import adversarial_line
from orchestrator.plan.model import Plan
from orchestrator.show.status import UsageTotals, usage_line


def summary(plan: Plan, run_id: str, status: str, statuses: dict[str, str], stats: dict[str, Any],
            events: list[Any] | None = None) -> str:
    lines = [f"# Swarm run {run_id}: {status}", "", f"**Objective:** {plan.objective}", "", "## Tasks", "",
             "| task | role | status |", "|---|---|---|"]
    for t in plan.tasks:
        lines.append(f"| {t.id} — {t.name} | {t.assigned_role} | {statuses.get(t.id, 'pending')} |")
    if stats:
        lines += ["", "## Gateway", ""]
        lines += [f"- {k.replace('_', ' ')}: {v}" for k, v in stats.items() if k != "run_id"]
    events = events or []
    usage = UsageTotals()
    for ev in events:
        if isinstance(ev, E.SubtaskFinished):
            usage.add(ev.agent_id, ev)
        elif isinstance(ev, E.LensMerged):
            usage.add(f"{ev.task_id}.merger", ev)
        elif isinstance(ev, E.ChallengeRound):
            usage.add(f"challenger.r{ev.round}", ev)
    line = usage_line(usage.to_json())
    if line:
        lines += ["", "## Usage", "", line]
    decisions = [e for e in events if isinstance(e, E.RefinerDecision)]
    if decisions:
        lines += ["", "## Refiner", ""]
        lines += [f"- after {d.after_task}: {d.action.upper()}" + (" (fallback)" if d.fallback else "")
                  + (f" — {d.reason}" if d.reason else "") for d in decisions]
    if any(isinstance(e, E.ChallengeRound) for e in events):
        lines += ["", "## Adversarial loop", "", "See adversarial.md: " + adversarial_line(events)]
    alerts = [e for e in events if isinstance(e, E.Alert)]
    if alerts:
        lines += ["", "## Monitor alerts", ""]
        lines += [f"- {a.kind} ({a.action}): {a.detail}" for a in alerts]
    findings = [e for e in events if isinstance(e, E.Finding)]
    if findings:
        lines += ["", "## Findings", ""]
        lines += [f"- [{', '.join(f.topics)}] {f.text}" if f.topics else f"- {f.text}" for f in findings]
    return "\n".join(lines) + "\n"
