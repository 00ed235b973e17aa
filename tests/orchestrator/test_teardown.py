"""A command that started Temporal's native runtime ends with its own exit code and its whole answer, never
with an abort in the interpreter's finalization (orchestrator/teardown.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


def test_after_a_native_runtime_the_exit_code_output_and_exit_handlers_all_survive() -> None:
    r = _python("""
        import atexit, sys
        from orchestrator import teardown
        atexit.register(lambda: print("exit handler ran"))
        print("the answer")          # buffered: stdout is a pipe
        sys.stderr.write("a note")   # no newline: still delivered
        teardown.native_runtime_started()
        teardown.exit_process(3)
        print("never printed")
    """)
    assert r.returncode == 3
    assert r.stdout == "the answer\nexit handler ran\n"
    assert r.stderr == "a note"


def test_without_a_native_runtime_exit_is_an_ordinary_system_exit() -> None:
    from orchestrator import teardown

    with pytest.raises(SystemExit) as e:
        teardown.exit_process(0)
    assert e.value.code == 0


@pytest.mark.parametrize("attempt", range(3))
def test_a_worker_that_cannot_reach_temporal_exits_2_with_one_line(attempt: int, tmp_path: Path) -> None:
    """The SDK's runtime starts even for a refused connect; the worker still exits 2 (it aborted with -6
    at finalization under load before)."""
    key = tmp_path / "worker.key"
    key.write_text("acteon_worker_not-a-real-key\n")
    r = subprocess.run([sys.executable, "-m", "orchestrator.cli", "worker", "--temporal", "127.0.0.1:1",
                        "--gateway", "http://127.0.0.1:9", "--key-file", str(key), "--state-dir",
                        str(tmp_path / "w")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("acteon-swarm: cannot reach Temporal at 127.0.0.1:1")
    assert r.stderr.count("\n") == 1
