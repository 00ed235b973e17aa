"""Analysis is bounded (docs/rules.md): pathological commands from the outside review get a verdict, fast.

Each case here crashed, stalled or was allowed before the limits existed. The bounds
asserted are generous ceilings for a 2-core machine, not benchmarks (bench/shell_worst_case.py measures).
"""

from __future__ import annotations

import resource
import time

import pytest

from gateway.shell import analyze
from gateway.shell.limits import MAX_COMMAND_BYTES, MAX_PIPES, prescan

PATHOLOGICAL = {
    # a 20,000-stage pipeline ending in a dangling `|`: segfaulted the native parser (~24 GB first)
    "dangling-pipeline": "a | " * 20_000,
    # `a=(` repeated: quadratic error recovery, 84 s
    "unclosed-arrays": "a=(" * 40_000,
    # 256 KB of `cd a;`: 28 s, 6.6 GB, and then allowed
    "cd-chain": "cd a;" * (256 * 1024 // 5),
    # dcg issue 189: nested command substitutions
    "nested-substitutions": "echo " + "$(" * 2_000 + "x" + ")" * 2_000,
    "nested-quoted-substitutions": 'echo "' + '$(echo "' * 2_000 + "x" + '")' * 2_000 + '"',
    "one-megabyte": "echo " + "a" * (1 << 20),
    "many-commands": "true;" * 12_000,
    "deep-subshells": "(" * 5_000 + "rm -rf /" + ")" * 5_000,
    "deep-braces": "{ " * 3_000 + "x; " + "}; " * 3_000,
    "long-pipeline-just-under-size": "cat x | " * (MAX_COMMAND_BYTES // 8 - 1),
}


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_pathological_commands_are_unparseable_with_the_limit_named(name: str) -> None:
    command = PATHOLOGICAL[name]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    result = analyze(command, "/work/proj", "/home/agent")
    elapsed = time.perf_counter() - started
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert "unparseable" in result.categories
    assert result.limit, "the verdict must say which limit was hit"
    assert elapsed < 1.0, f"{name}: {elapsed:.2f} s"
    assert grown_mb < 256, f"{name}: grew {grown_mb:.0f} MB"


def test_what_was_found_before_a_limit_still_counts() -> None:
    result = analyze("rm -rf /etc; " + "true;" * 2_000, "/work/proj", "/home/agent")
    assert "unparseable" in result.categories
    # The destructive part is not lost behind the limit (the prescan refuses the whole line, so the
    # verdict is unparseable, which is never an allow; a line within limits keeps both facts).
    walked = analyze("rm -rf /etc; " + "(" * 200 + "true" + ")" * 200, "/work/proj", "/home/agent")
    assert walked.limit is not None and "nested" in walked.limit
    assert {"destructive_delete", "unparseable"} <= walked.categories


def test_here_documents_and_single_quotes_do_not_count_towards_the_pipe_limit() -> None:
    table = "\n".join(f"| row {i} | a | b | c |" for i in range(200))
    command = f"cat > TABLE.md <<'EOF'\n{table}\nEOF\n"
    assert command.count("|") > MAX_PIPES
    assert prescan(command) is None
    assert analyze(command, "/work/proj", "/home/agent").categories == frozenset()
    awk = "awk '" + " | ".join(["print $1"] * 200) + "' data.txt"
    assert prescan(awk) is None


def test_ordinary_big_scripts_stay_analysable() -> None:
    script = "\n".join(f"echo step {i} && make target{i} | tee -a log.txt" for i in range(100))
    result = analyze(script, "/work/proj", "/home/agent")
    assert result.limit is None
    assert "unparseable" not in result.categories


def test_list_operators_count_once() -> None:
    lines = "\n".join(f"make t{i} && ./check {i} || echo failed {i}" for i in range(80))
    assert prescan(lines) is None  # 80 lines, 3 separators each: 239 < 256; no pipeline at all
    assert prescan("a || " * 300 + "b") is not None  # but 300 of them are over the separator budget
