"""`destructive_git`: git commands that throw away uncommitted work, commits or history, or
that are aimed at a repository outside the workspace — however they are wrapped or spelt."""

from __future__ import annotations

import pytest

from gateway.shell import analyze

CWD, HOME = "/home/agent/project", "/home/agent"

DESTRUCTIVE = [
    "git reset --hard", "git reset --hard HEAD~3", "git reset --merge ORIG_HEAD",
    "git clean -f", "git clean -xdf", "git clean --force -d",
    "git checkout -- src/app.py", "git checkout HEAD~2 -- .", "git checkout .", "git checkout -f main",
    "git restore src/", "git restore --worktree --staged .", "git restore -s HEAD~1 app.py",
    "git branch -D feature", "git branch --delete --force feature", "git branch -df feature",
    "git stash drop", "git stash clear",
    "git push --force", "git push -f origin main", "git push --mirror backup", "git push --delete origin x",
    "git push origin +main:main", "git push origin :release",
    "git filter-branch --tree-filter 'rm -f secrets' HEAD", "git filter-repo --path x --invert-paths",
    "git reflog expire --expire=now --all", "git gc --prune=now", "git update-ref -d refs/heads/main",
    # aimed outside the workspace
    "git -C ../other-repo reset --soft HEAD", "git --git-dir=/home/agent/other/.git log",
    "git --work-tree=/etc status", "GIT_DIR=/srv/repo.git git log", "export GIT_WORK_TREE=/; git add -A",
    # wrapped and hidden
    "sudo -u dev git reset --hard", "env -i git clean -fd", "command git stash clear", "nice -n 5 git reset --hard",
    "echo ok && git reset --hard", "echo $(git clean -fdx)", "(cd sub && git checkout -- .)",
    "bash -c 'git reset --hard'", "sh <<<'git branch -D x'", "/usr/bin/git reset --hard", "\\git reset --hard",
    "'git' 'reset' '--hard'", "xargs git branch -D < branches.txt",
]
SAFE = [
    "git status", "git log --oneline -5", "git diff HEAD", "git add -A", "git commit -m 'reset --hard docs'",
    "git checkout main", "git checkout -b feature", "git switch -c x", "git restore --staged app.py",
    "git reset", "git reset --soft HEAD~1", "git reset HEAD app.py", "git clean -n", "git clean -nfd",
    "git branch -d merged-feature", "git stash", "git stash pop", "git push --force-with-lease",
    "git gc", "git fetch --prune", "git -C sub status", "git -C /tmp/scratch init",
    "grep -rn 'git reset --hard' docs/", "echo 'never run git clean -fdx'",
]


@pytest.mark.parametrize("command", DESTRUCTIVE)
def test_destructive_git(command: str) -> None:
    assert "destructive_git" in analyze(command, CWD, HOME).categories


@pytest.mark.parametrize("command", SAFE)
def test_ordinary_git(command: str) -> None:
    assert "destructive_git" not in analyze(command, CWD, HOME).categories
