"""Shell analysis cost per command: the full analysis, and a repeated call's normalization, against the bare
tree-sitter-bash parse of the same command, measured in the same run.

    python bench/shell_analysis.py [--repeat 20]

Commands come from the safety corpus (tests/data/safety_corpus.yaml).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tree_sitter_bash  # noqa: E402
import yaml  # noqa: E402
from tree_sitter import Language, Parser  # noqa: E402

from gateway.normalize import normalize  # noqa: E402
from gateway.shell import analyze  # noqa: E402


def per_command_us(fn, commands: list[str], repeat: int) -> float:  # type: ignore[no-untyped-def]
    rounds = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for cmd in commands:
            fn(cmd)
        rounds.append((time.perf_counter() - t0) / len(commands) * 1e6)
    return statistics.median(rounds)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    corpus = yaml.safe_load((ROOT / "tests" / "data" / "safety_corpus.yaml").read_text())
    commands = [c["input"]["command"] for c in corpus if "command" in c["input"]]
    parser = Parser(Language(tree_sitter_bash.language()))

    parse = per_command_us(lambda c: parser.parse(c.encode()), commands, args.repeat)
    full = per_command_us(lambda c: analyze(c, "/work/proj", "/home/agent"), commands, args.repeat)
    # What the gateway pays for a command it has seen before: normalization caches the derived facts.
    cached = per_command_us(lambda c: normalize(run_id="r", agent_id="a", role=None, provider="claude-code",
                                                tool="Bash", input={"command": c}, cwd="/work/proj",
                                                home="/home/agent"), commands, args.repeat)
    print(f"shell analysis over {len(commands)} corpus commands (median of {args.repeat} rounds)")
    print(f"  bare tree-sitter parse   {parse:7.1f} us/command")
    print(f"  full analysis, uncached  {full:7.1f} us/command   ({full / parse:.1f}x the bare parse)")
    print(f"  normalize, repeated call {cached:7.2f} us/command (facts cached)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
