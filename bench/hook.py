"""Hook wall time per tool call, as a CLI sees it: process start, stdin, the gateway round trip, the
answer. acteon-swarm-hook (run exactly as ``install`` writes it) against an equivalent bash + jq + curl
hook (bench/reference_hook.sh), alternating calls against the same gateway, in the same run.

    python bench/hook.py [--calls 200]

Targets (docs/hook.md, docs/performance.md): p50 <= 25 ms, and hook/reference p50 ratio <= 0.25.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from tests.support import RedisServer, gateway_process  # noqa: E402

ADMIN = "bench-admin-key"
EVENT = {"session_id": "bench-session", "hook_event_name": "PreToolUse", "tool_name": "Bash",
         "tool_input": {"command": "git status", "description": "status"}, "cwd": "/work/proj",
         "tool_use_id": "toolu_bench"}


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    for tool in ("bash", "jq", "curl"):
        if not any((Path(d) / tool).exists() for d in os.environ.get("PATH", "").split(":")):
            print(f"bench/hook.py needs {tool} on PATH for the reference hook", file=sys.stderr)
            return 2
    server = RedisServer().start()
    try:
        env = {"ACTEON_REDIS_URL": server.url, "ACTEON_ADMIN_KEY": ADMIN, "ACTEON_STATE_DIR": tempfile.mkdtemp()}
        with gateway_process(env) as url:
            # A run whose rules allow everything without a throttle: every call does the full round trip.
            rules = "rules:\n  - {name: allow-all, priority: 1, action: allow}\n"
            key = httpx.post(f"{url}/v1/runs", json={"run_id": "bench", "rules": rules},
                             headers={"Authorization": f"Bearer {ADMIN}"}).json()["agent_key"]
            from acteon_core.settings import hook_command

            # authoritative: an allow is answered as an allow (what orchestrated agents get), so it can be checked
            ours = hook_command("gate", "claude", key_file=None, url=url, budget=None, authoritative=True)
            ref = str(ROOT / "bench" / "reference_hook.sh")
            call_env = {"PATH": os.environ["PATH"], "ACTEON_AGENT_KEY": key, "ACTEON_RUN_ID": "bench",
                        "ACTEON_AGENT_ID": "bench-agent", "ACTEON_URL": url}
            stdin = json.dumps(EVENT).encode()
            times: dict[str, list[float]] = {"hook": [], "reference": []}
            for i in range(args.calls + 10):
                for name, cmd in (("hook", ours), ("reference", ref)):
                    t0 = time.perf_counter()
                    # Both run the way the CLIs run hooks: through a shell.
                    p = subprocess.run(["/bin/sh", "-c", cmd], input=stdin, capture_output=True, env=call_env)
                    elapsed = (time.perf_counter() - t0) * 1000
                    answer = json.loads(p.stdout)["hookSpecificOutput"]["permissionDecision"]
                    if answer != "allow":
                        print(f"{name} answered {answer}: {p.stdout!r} {p.stderr!r}", file=sys.stderr)
                        return 1
                    if i >= 10:  # warm-up
                        times[name].append(elapsed)
    finally:
        server.stop()
    h, r = times["hook"], times["reference"]
    figures = {
        "calls": args.calls,
        "hook": {"p50_ms": round(statistics.median(h), 2), "p95_ms": round(pct(h, 95), 2)},
        "reference_bash_jq_curl": {"p50_ms": round(statistics.median(r), 2), "p95_ms": round(pct(r, 95), 2)},
        "ratio_p50": round(statistics.median(h) / statistics.median(r), 3),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"hook wall time per call ({args.calls} calls each, alternating, through /bin/sh like the CLIs)")
        ours = figures["hook"]
        print(f"  acteon-swarm-hook     p50 {ours['p50_ms']:6.2f} ms   p95 {ours['p95_ms']:6.2f} ms"
              "   (target p50 <= 25 ms)")
        ref_f = figures["reference_bash_jq_curl"]
        print(f"  bash + jq + curl      p50 {ref_f['p50_ms']:6.2f} ms   p95 {ref_f['p95_ms']:6.2f} ms")
        print(f"  ratio hook/reference (p50): {figures['ratio_p50']:.3f}   (target <= 0.25)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
