"""The README's demo excerpt, cut from a real run of the demo — never written by hand.

    .venv/bin/python scripts/readme_excerpts.py           # run the demo, rewrite the excerpt in README.md
    .venv/bin/python scripts/readme_excerpts.py --check   # exit 1 when README.md no longer matches a fresh run

The excerpt sits between ``<!-- demo-output -->`` and ``<!-- /demo-output -->``. What changes from one run to
the next (run and approval ids, timings, how many calls met the throttle, temporary folders) is compared in a
normal form; everything else must be what the demo prints (tests/repository/test_readme_excerpts.py runs the check).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
START, END = "<!-- demo-output -->\n```\n", "```\n<!-- /demo-output -->"
PROJECT = "/home/you/project"  # where the README pretends the demo ran

_VARIABLE = (
    (re.compile(r"demo-[0-9a-f]{6}"), "demo-RUN"),
    (re.compile(r"apr-[0-9a-f]{16}"), "apr-ID"),
    (re.compile(r"\b\d+m\d\ds\b"), "TIME"),
    (re.compile(r"acteon-demo-RUN-[^\s)]+"), "acteon-demo-RUN-WORKSPACE"),  # the agents' scratch folder
    # counters that depend on timing: calls retried while throttled
    (re.compile(r"(Total dispatched|Executed|Throttled): \d+"), r"\1: N"),
    (re.compile(r"\d+ call\(s\) waited out the throttle"), "N call(s) waited out the throttle"),
)


def run_demo() -> str:
    """The demo's output, run in a fresh folder, with that folder written as ``PROJECT``."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
        env.pop("ACTEON_STATE_DIR", None)
        done = subprocess.run([sys.executable, "-m", "orchestrator.cli", "demo"], cwd=tmp, env=env,
                              capture_output=True, text=True, timeout=300, check=False)
        if done.returncode != 0:
            raise SystemExit(f"the demo failed (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
        return done.stdout.replace(str(Path(tmp).resolve()), PROJECT).replace(tmp, PROJECT)


def excerpt(output: str) -> str:
    """The lines the README shows: the blocked task, the approval, then everything from the final status on."""
    lines = output.splitlines()
    picked = [next(ln for ln in lines if ln.startswith("failed    cleanup")),
              next(ln for ln in lines if ln.startswith("approval  ")), "…"]
    start = next(i for i, ln in enumerate(lines) if ln.startswith("Swarm run: "))
    picked += [ln.rstrip() for ln in lines[start:]]
    return "\n".join(picked).rstrip() + "\n"


def normal(text: str) -> str:
    for pattern, replacement in _VARIABLE:
        text = pattern.sub(replacement, text)
    return text


def current() -> str:
    text = README.read_text(encoding="utf-8")
    return text[text.index(START) + len(START):text.index(END)]


def main(argv: list[str]) -> int:
    fresh = excerpt(run_demo())
    if "--check" in argv:
        if normal(current()) != normal(fresh):
            print("README.md's demo excerpt is not what the demo prints; run scripts/readme_excerpts.py",
                  file=sys.stderr)
            return 1
        return 0
    text = README.read_text(encoding="utf-8")
    README.write_text(text[:text.index(START) + len(START)] + fresh + text[text.index(END):], encoding="utf-8")
    print(f"rewrote the demo excerpt in {README}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
