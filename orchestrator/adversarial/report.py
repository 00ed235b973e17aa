"""``adversarial.json`` and ``adversarial.md``: the loop's rounds as the journal recorded them — per round
the head's score, the challenges (actionable or not), each fix's branch, its score against the head it was
judged on, and whether it was merged or kept unmerged and why."""

from __future__ import annotations

from typing import Any

from acteon_core.files import write_atomic, write_text_atomic
from orchestrator import events as E
from orchestrator import rundir as R


def build(events: list[Any]) -> dict[str, Any]:
    rounds: dict[int, dict[str, Any]] = {}
    finished: E.AdversarialFinished | None = None
    for ev in events:
        if isinstance(ev, E.ChallengeRound):
            rounds[ev.round] = {
                "round": ev.round, "head": ev.head, "score_before": ev.score_before,
                "challenger": {"engine": ev.engine, "fallback": ev.fallback, "reason": ev.reason},
                "rejected": ev.rejected,
                "challenges": [{**c, "index": n, "actionable": n in ev.actionable, "fix": None}
                               for n, c in enumerate(ev.challenges, 1)]}
        elif isinstance(ev, E.FixFinished) and ev.round in rounds:
            challenges = rounds[ev.round]["challenges"]
            if 0 < ev.challenge <= len(challenges):
                challenges[ev.challenge - 1]["fix"] = {
                    "fix_id": ev.fix_id, "branch": ev.branch, "result": ev.result, "reason": ev.reason,
                    "score_before": ev.score_before, "score_after": ev.score_after}
        elif isinstance(ev, E.AdversarialFinished):
            finished = ev
    return {"rounds": [rounds[k] for k in sorted(rounds)],
            "baseline": finished.baseline if finished else None, "final": finished.final if finished else None,
            "stopped": finished.stopped if finished else "", "finished": finished is not None}


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def markdown(data: dict[str, Any]) -> str:
    lines = ["# Adversarial loop", "",
             f"Baseline {_score(data['baseline'])} → final {_score(data['final'])}; "
             + (f"stopped: {data['stopped']}" if data["finished"] else "not finished")]
    for r in data["rounds"]:
        lines += ["", f"## Round {r['round']} (head {r['head'][:12]}, score {_score(r['score_before'])})", ""]
        if r["challenger"]["fallback"]:
            lines.append(f"No challenges: {r['challenger']['reason']}")
        for c in r["challenges"]:
            target = f" in {c['target_task']}" if c.get("target_task") else ""
            lines.append(f"- **{c['index']}. {c['category']}{target}, severity {c['severity']:.2f}"
                         f"{'' if c['actionable'] else ' (not actionable)'}**: {c['description']}")
            fix = c["fix"]
            if fix is not None:
                verdict = "merged" if fix["result"] == "merged" else f"not merged, branch {fix['branch']} kept"
                lines.append(f"  - fix {fix['fix_id']}: {verdict} — score {_score(fix['score_before'])} → "
                             f"{_score(fix['score_after'])}" + (f"; {fix['reason']}" if fix["reason"] else ""))
            elif c["actionable"]:
                lines.append("  - fix: not finished")
        lines += [f"- rejected: {why}" for why in r["rejected"]]
    return "\n".join(lines) + "\n"


def write_report(run_dir: R.RunDir) -> dict[str, Any]:
    data = build(run_dir.read_events())
    json_file, md_file = run_dir.adversarial_report
    write_atomic(json_file, data)
    write_text_atomic(md_file, markdown(data))
    return data


def adversarial_line(events: list[Any]) -> str:
    """One line for the run's summary."""
    data = build(events)
    fixes = [c["fix"] for r in data["rounds"] for c in r["challenges"] if c["fix"]]
    merged = sum(1 for f in fixes if f["result"] == "merged")
    return (f"{len(data['rounds'])} round(s), {sum(len(r['challenges']) for r in data['rounds'])} challenge(s), "
            f"{merged} fix(es) merged, {len(fixes) - merged} kept unmerged; score {_score(data['baseline'])} → "
            f"{_score(data['final'])}" + (f" (stopped: {data['stopped']})" if data["stopped"] else ""))
