"""Every executable answers --version with the release in pyproject.toml; help does
not label flags `<bool>`; tables printed into a pipe are not wrapped at 80 columns."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

from acteon_core import contract
from tests.support import ROOT


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    return subprocess.run(list(argv), capture_output=True, text=True, env=env, timeout=60, cwd=ROOT)


def test_every_executable_prints_the_release() -> None:
    release = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert release == contract.VERSION
    for argv, name in (([sys.executable, "-m", "orchestrator.cli"], "acteon-swarm"),
                       ([sys.executable, "-m", "gateway.cli"], "acteon-gateway"),
                       ([sys.executable, "-I", "-S", str(ROOT / "hook" / "__main__.py")], "acteon-swarm-hook")):
        r = run(*argv, "--version")
        assert (r.returncode, r.stdout.strip()) == (0, f"{name} {release}"), r.stderr


def test_help_shows_no_type_for_flags() -> None:
    for command in (["run"], ["plan", "validate"], ["status"], ["init"]):
        r = run(sys.executable, "-m", "orchestrator.cli", *command, "--help")
        assert r.returncode == 0 and "--help" in r.stdout
        assert "<bool>" not in r.stdout, command
    assert "<int" in run(sys.executable, "-m", "orchestrator.cli", "run", "--help").stdout  # real values keep theirs


def test_a_table_in_a_pipe_keeps_each_row_on_one_line() -> None:
    code = ("from rich.table import Table\nfrom orchestrator.show.terminal import console\n"
            "t = Table('id', 'text')\nt.add_row('r1', 'x' * 300)\nconsole().print(t)\n")
    out = run(sys.executable, "-c", code).stdout
    assert any(line.count("x") == 300 for line in out.splitlines())
