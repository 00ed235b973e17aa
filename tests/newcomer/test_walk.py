"""A newcomer's first run, step by step, through the installed commands (``.venv/bin``, as `scripts/setup-env`
puts them on the PATH) from a folder of their own — never the checkout, never ``python -m`` with this source
on the path: ``init`` → ``plan validate`` → ``plan approve`` → ``run`` → ``runs`` → ``status`` → ``audit`` →
``graph query``, in a plain folder and in a git repository. Each step must exit 0 without a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
CHECKOUT = Path(__file__).resolve().parents[2]


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACTEON_") and k != "PYTHONPATH"}
    return {**env, "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}", "HOME": str(home), "USER": "newcomer",
            "GIT_AUTHOR_NAME": "New Comer", "GIT_AUTHOR_EMAIL": "new@example.org",
            "GIT_COMMITTER_NAME": "New Comer", "GIT_COMMITTER_EMAIL": "new@example.org"}


def _step(folder: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["acteon-swarm", *args], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=180)
    shown = f"`acteon-swarm {' '.join(args)}` in {folder}:\n{done.stdout}\n{done.stderr}"
    assert done.returncode == 0, shown
    assert "Traceback" not in done.stdout + done.stderr, shown
    return done


def _walk(folder: Path, env: dict[str, str], seen: str) -> None:
    """``seen``: a file the run's tasks must find (in a git repository they read the last commit)."""
    _step(folder, env, "init", "--engine", "command")
    assert "valid (3 tasks" in _step(folder, env, "plan", "validate", "--plan", "plan.json").stdout
    assert "approved by newcomer" in _step(folder, env, "plan", "approve", "--plan", "plan.json").stdout
    ran = json.loads(_step(folder, env, "run", "--plan", "plan.json", "--json").stdout)
    assert ran["status"] == "done" and set(ran["tasks"].values()) == {"done"}, ran
    run_id = ran["run_id"]
    outputs = folder / ".acteon-swarm" / "runs" / run_id / "outputs"
    assert f"./{seen}" in (outputs / "inventory.txt").read_text().split()
    assert int((outputs / "count.txt").read_text()) >= 1
    assert run_id in _step(folder, env, "runs").stdout
    status = _step(folder, env, "status", "--run", run_id)
    assert "Total dispatched: 3" in status.stdout and "3 done" in status.stdout
    audit = json.loads(_step(folder, env, "audit", "--run", run_id, "--json").stdout)
    assert [row["outcome"] for row in audit] == ["executed"] * 3
    calls = json.loads(_step(folder, env, "graph", "query", "--run", run_id, "--ready", "blocked-calls-by-rule",
                             "--format", "json").stdout)
    assert "results" in calls or "head" in calls  # SPARQL JSON results: nothing was blocked


@pytest.fixture
def home(tmp_path: Path) -> Path:
    if not (BIN / "acteon-swarm").exists():
        pytest.fail(f"acteon-swarm is not installed in {BIN}: run scripts/setup-env")
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


@pytest.mark.slow
def test_a_first_run_in_a_plain_folder(tmp_path: Path, home: Path) -> None:
    folder = tmp_path / "my-notes"
    folder.mkdir()
    (folder / "ideas.md").write_text("# ideas\n")
    assert not folder.is_relative_to(CHECKOUT)
    _walk(folder, _env(home), "ideas.md")
    assert (folder / "ideas.md").read_text() == "# ideas\n"  # the run read the folder, wrote nothing in it


@pytest.mark.slow
def test_a_first_run_in_a_git_repository(tmp_path: Path, home: Path) -> None:
    folder = tmp_path / "my-app"
    folder.mkdir()
    env = _env(home)
    (folder / "app.py").write_text("print('hi')\n")
    for args in (["init", "-q"], ["add", "app.py"], ["commit", "-qm", "first"]):
        subprocess.run(["git", *args], cwd=folder, env=env, check=True)
    before = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=folder, env=env, capture_output=True,
                            text=True, check=True).stdout
    _walk(folder, env, "app.py")
    head = subprocess.run(["git", "log", "--format=%s"], cwd=folder, env=env, capture_output=True, text=True,
                          check=True).stdout
    assert head == "first\n"  # the user's branch untouched
    after = subprocess.run(["git", "status", "--porcelain"], cwd=folder, env=env, capture_output=True, text=True,
                           check=True).stdout
    assert before == "" and set(after.split()) <= {"??", ".acteon-swarm/", "plan.json", "swarm.toml"}


def test_setup_env_prints_the_line_that_puts_the_commands_on_the_path() -> None:
    """The walk above runs the commands from the PATH: `scripts/setup-env` says how to get them there (and
    that they already are)."""
    script = CHECKOUT / "scripts" / "setup-env"
    without = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if Path(p) != BIN)
    # "test --quiet" is how scripts/test installed this .venv: already installed, so nothing is reinstalled
    hint = subprocess.run([str(script), "test"], env={**os.environ, "PATH": without}, capture_output=True,
                          text=True, timeout=600, check=True).stdout
    assert f'export PATH="{CHECKOUT / ".venv" / "bin"}:$PATH"' in hint
    there = subprocess.run([str(script), "test"], env={**os.environ, "PATH": f"{CHECKOUT / '.venv' / 'bin'}:{without}"},
                           capture_output=True, text=True, timeout=600, check=True).stdout
    assert "are on your PATH" in there
    quiet = subprocess.run([str(script), "test", "--quiet"], env={**os.environ, "PATH": without}, capture_output=True,
                           text=True, timeout=600, check=True).stdout
    assert quiet == ""
