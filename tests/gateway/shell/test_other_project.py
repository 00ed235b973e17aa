"""Writes outside the workspace into another git repository under home: `other_project`,
sent to a human by the default pack. The only filesystem fact the gateway reads: whether a `.git` exists
between the written path and home."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.normalize import normalize
from gateway.shell import analyze
from tests.support import ROOT


@pytest.fixture
def home(tmp_path: Path) -> Path:
    for repo in ("work/app", "src/other-tool", "dotfiles"):
        (tmp_path / repo / ".git").mkdir(parents=True)
    (tmp_path / "src/other-tool/lib").mkdir()
    (tmp_path / "Documents").mkdir()
    return tmp_path


@pytest.mark.parametrize("command", [
    "echo 'x = 1' > ~/src/other-tool/lib/config.py",
    "cp patch.diff ~/src/other-tool/",
    "sed -i 's/a/b/' ../../src/other-tool/README.md",
    "tee ~/dotfiles/notes.md < notes.md",
    "git clone https://example.org/x ~/src/other-tool/vendor/x",
])
def test_a_write_into_another_repository_under_home(home: Path, command: str) -> None:
    assert "other_project" in analyze(command, str(home / "work/app"), str(home)).categories


@pytest.mark.parametrize("command", [
    "echo x > notes.txt",  # the workspace
    "echo x > ~/work/app/docs/x.md",  # the workspace's own repository, reached through home
    "touch ~/Documents/todo.txt",  # home, but no repository
    "mkdir -p ~/scratch/run1",
    "echo x > /tmp/out.txt",
    "cat ~/src/other-tool/README.md",  # reading is not writing
])
def test_writes_elsewhere_are_not_another_project(home: Path, command: str) -> None:
    assert "other_project" not in analyze(command, str(home / "work/app"), str(home)).categories


def test_write_and_edit_tools_are_judged_the_same(home: Path) -> None:
    def categories(tool: str, path: str) -> tuple[str, ...]:
        return normalize(run_id="r", agent_id="a", role=None, provider="claude-code", tool=tool,
                         input={"file_path": path, "content": "x", "old_string": "a", "new_string": "b"},
                         cwd=str(home / "work/app"), home=str(home)).categories

    assert "other_project" in categories("Write", str(home / "src/other-tool/lib/x.py"))
    assert "other_project" in categories("Edit", str(home / "dotfiles/.bashrc.d/x"))
    assert "other_project" not in categories("Write", str(home / "work/app/x.py"))
    assert "other_project" not in categories("Write", str(home / "Documents/x.txt"))


def test_the_default_pack_sends_it_to_a_human(home: Path) -> None:
    from gateway.rules import load_dir
    from gateway.rules.engine import evaluate

    pack = load_dir(ROOT / "rules")
    call = normalize(run_id="r", agent_id="a", role=None, provider="claude-code", tool="Bash",
                     input={"command": "echo x >> ~/src/other-tool/lib/x.py"}, cwd=str(home / "work/app"),
                     home=str(home))
    evaluation = evaluate(pack, call)
    assert evaluation.terminal is not None and evaluation.terminal.action == "request_approval"
