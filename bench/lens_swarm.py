"""Lens swarms: how close the member schedule comes to its lower bound, and what merging costs.

    python bench/lens_swarm.py [--members 8] [--cap 4] [--sleep 1.0] [--findings 500]

**Makespan.** A real run through the CLI (embedded gateway, command engine): one lens task of ``--members``
members, each ``sleep --sleep`` (dispatched to the gateway first, like any member), at most ``--cap`` at
once. No schedule can beat ⌈members / cap⌉ × sleep; the ratio makespan / lower bound is printed (target
≤ 1.10). The makespan is the lens task's time from started to done in the journal, merge included.

**Merge.** ``--findings`` findings spread over the members' answers (random files, lines, categories and
severities, many of them agreeing): parsing and validating every answer, clustering, rating, the merger's
fenced prompt and both report files — everything but the merger model itself. Its time is printed
against a reference measured in the same run: only ``json.loads`` of the same answers plus ``json.dumps``
of the report (the floor of any merge that reads and writes JSON).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from orchestrator.lenses.answers import parse_answer  # noqa: E402
from orchestrator.lenses.clusters import cluster, ranked  # noqa: E402
from orchestrator.lenses.merger import MemberOutcome, merger_prompt, new_tag, report_json, report_markdown  # noqa: E402
from orchestrator.plan.model import Lens  # noqa: E402


def makespan(members: int, cap: int, sleep_s: float) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "ws").mkdir()
        answer = root / "answer.json"
        answer.write_text(json.dumps({"findings": []}))
        plan = {"id": "bench", "objective": "bench", "status": "approved", "estimated_actions": 10 * members,
                "scope": {"working_directory": str(root / "ws"), "max_agents": cap},
                "tasks": [{"id": "lens", "name": "lens", "assigned_role": "executor", "kind": "lens",
                           "lens": {"question": "q", "max_parallel": cap, "members": [
                               {"id": f"m{i}", "command": f"sleep {sleep_s}; cat {answer}"} for i in range(members)]}}]}
        (root / "plan.json").write_text(json.dumps(plan))
        (root / "swarm.toml").write_text("[defaults]\nenable_refiner = false\n[graph]\nenabled = false\n")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "ACTEON_URL": ""}
        subprocess.run([sys.executable, "-m", "orchestrator.cli", "run", "--plan", str(root / "plan.json"), "--engine",
                        "command", "--state-dir", str(root / "state"), "--run-id", "b", "--config",
                        str(root / "swarm.toml"), "--json"], check=True, capture_output=True, env=env)
        journal = root / "state" / "runs" / "b" / "events.jsonl"
        events = [json.loads(line) for line in journal.read_text().splitlines()]
        marks = {e["status"]: datetime.fromisoformat(e["ts"]) for e in events
                 if e["type"] == "task_status" and e["task_id"] == "lens" and e["status"] in ("running", "done")}
        took = (marks["done"] - marks["running"]).total_seconds()
    return took, math.ceil(members / cap) * sleep_s


def answers(members: int, total: int, rng: random.Random) -> dict[str, str]:
    files = [f"src/module_{i}.py" for i in range(12)]
    out: dict[str, list[dict[str, object]]] = {f"m{i}": [] for i in range(members)}
    for n in range(total):
        member = f"m{n % members}"
        out[member].append({
            "claim": f"finding {n}: " + "the input is not validated before use " * 3, "confidence": rng.random(),
            "category": rng.choice(["security", "correctness", "performance", "docs"]),
            "severity": rng.choice(["info", "low", "medium", "high", "critical"]),
            "evidence": [f"{rng.choice(files)}:{rng.randrange(1, 400)}"]})
    return {m: json.dumps({"findings": f}) for m, f in out.items()}


def merge_once(texts: dict[str, str], lens: Lens) -> dict[str, object]:
    outcomes = []
    for m, text in texts.items():
        got = parse_answer(text)
        outcomes.append(MemberOutcome(m, "answered", raw=text, findings=got.findings))
    clusters = ranked(cluster({o.id: o.findings for o in outcomes}), len(outcomes), lens.merge_mode, lens.consensus)
    merger_prompt(lens.question, lens, outcomes, clusters, new_tag(list(texts.values())))
    report = report_json("t", lens, "ok", [], outcomes, clusters, {"text": "", "fallback": True, "reason": ""})
    report_markdown(report)
    json.dumps(report)
    return report


def reference_once(texts: dict[str, str], report: dict[str, object]) -> None:
    for text in texts.values():
        json.loads(text)
    json.dumps(report)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--members", type=int, default=8)
    ap.add_argument("--cap", type=int, default=4)
    ap.add_argument("--sleep", type=float, default=1.0)
    ap.add_argument("--findings", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()

    took, bound = makespan(args.members, args.cap, args.sleep)
    flag = "" if took / bound <= 1.10 else "   (above the 1.10 target)"
    print(f"lens swarm: {args.members} members of sleep {args.sleep}s, cap {args.cap}: makespan {took:.3f}s, "
          f"lower bound {bound:.3f}s, ratio {took / bound:.3f}{flag}")

    rng = random.Random(1)
    texts = answers(args.members, args.findings, rng)
    lens = Lens.model_validate({"question": "review", "members": [{"id": m} for m in texts]})
    report = merge_once(texts, lens)
    merge_t, ref_t = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        merge_once(texts, lens)
        merge_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        reference_once(texts, report)
        ref_t.append(time.perf_counter() - t0)
    m, r = statistics.median(merge_t), statistics.median(ref_t)
    print(f"merge of {args.findings} findings from {args.members} members into {len(report['clusters'])} clusters "
          f"(median of {args.repeat}): {m * 1000:.1f} ms; reference (json load + dump only) {r * 1000:.1f} ms; "
          f"ratio {m / r:.1f}")


if __name__ == "__main__":
    main()
