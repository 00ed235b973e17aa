"""Running git for the orchestrator: argument lists only, a bounded time, errors that say what failed.

No function here (nor anywhere in the orchestrator) runs ``git stash``, ``reset --hard``, ``checkout --``,
``clean`` or deletes a branch with commits that are not merged: a run never destroys work.
``FORBIDDEN`` is checked on every call, so a future change cannot slip one in by accident.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from orchestrator.errors import UserError

TIMEOUT_S = 120.0

# (subcommand, option) pairs that destroy work; None as option: the subcommand itself.
FORBIDDEN: tuple[tuple[str, str | None], ...] = (
    ("stash", None), ("clean", None), ("reset", "--hard"), ("checkout", "--"), ("branch", "-D"),
    ("checkout", "-f"), ("checkout", "--force"), ("switch", "--discard-changes"), ("restore", None),
)


class GitError(UserError):
    """A git command failed; the message names the command and git's own words."""

    def __init__(self, args: list[str], returncode: int | None, stderr: str) -> None:
        lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
        detail = " / ".join(lines[:12]) if lines else f"exit {returncode}"
        shown = [a for i, a in enumerate(args) if a != "-c" and (i == 0 or args[i - 1] != "-c")]  # not -c k=v
        super().__init__(f"git {' '.join(shown[:4])}{' …' if len(shown) > 4 else ''} failed: {detail}")
        self.returncode = returncode
        self.stderr = stderr


@dataclass(frozen=True)
class Result:
    returncode: int
    stdout: str
    stderr: str


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # Never ask a question on a terminal, never open an editor, never page: the run is unattended.
    # GIT_OPTIONAL_LOCKS=0: `git status` must not refresh (rewrite) the user's index behind their back.
    env.update(GIT_TERMINAL_PROMPT="0", GIT_EDITOR="true", GIT_PAGER="cat", LC_ALL="C", GIT_OPTIONAL_LOCKS="0")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):  # the caller's settings must not redirect us
        env.pop(name, None)
    return env


def _refuse_destructive(args: list[str]) -> None:
    i = 0
    while i < len(args) and args[i].startswith("-"):  # global options: `-c name=value`, `--no-optional-locks`
        i += 2 if args[i] == "-c" else 1
    sub, rest = (args[i], args[i + 1:]) if i < len(args) else ("", [])
    for name, option in FORBIDDEN:
        if sub == name and (option is None or option in rest):
            raise AssertionError(f"refusing to run destructive git command: git {' '.join(args)}")


# `git worktree add` reads every other worktree's administrative folder (is the branch checked out there?);
# one that a concurrent `add` has half made fails it ("failed to read .git/worktrees/x/commondir"). Parallel
# tasks create worktrees at once, so these commands are run one at a time per repository: a thread lock in
# this process, and an flock on a file in the repository's .git folder for other processes.
_WORKTREE_ADMIN = frozenset({"add", "remove", "prune", "move", "repair", "lock", "unlock"})
_repository_locks: dict[str, threading.Lock] = {}
_repository_locks_guard = threading.Lock()


@contextlib.contextmanager
def _one_at_a_time(cwd: Path, argv: list[str]) -> Iterator[None]:
    if argv[:1] != ["worktree"] or argv[1:2] == [] or argv[1] not in _WORKTREE_ADMIN:
        yield
        return
    key = os.path.realpath(cwd)
    with _repository_locks_guard:
        lock = _repository_locks.setdefault(key, threading.Lock())
    with lock:
        gitdir = Path(key) / ".git"
        if not gitdir.is_dir():
            yield
            return
        with (gitdir / "acteon-worktree.lock").open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield


def git(cwd: Path, *args: str, check: bool = True, input: str | None = None,
        env: dict[str, str] | None = None, timeout: float = TIMEOUT_S) -> Result:
    """Run ``git -C cwd args…``. ``check``: raise :class:`GitError` on a non-zero exit."""
    argv = list(args)
    _refuse_destructive(argv)
    try:
        with _one_at_a_time(cwd, argv):
            proc = subprocess.run(["git", "-C", str(cwd), *argv], capture_output=True, text=True, input=input,
                                  env={**_env(), **(env or {})}, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise GitError(argv, None, f"timed out after {timeout:.0f}s") from None
    except FileNotFoundError:
        raise GitError(argv, None, "git is not installed (no 'git' on PATH)") from None
    result = Result(proc.returncode, proc.stdout, proc.stderr)
    if check and proc.returncode != 0:
        raise GitError(argv, proc.returncode, proc.stderr or proc.stdout)
    return result


def out(cwd: Path, *args: str) -> str:
    """stdout of a git command that must succeed, stripped."""
    return git(cwd, *args).stdout.strip()


def repository_root(path: Path) -> Path | None:
    """The top of the git working tree that holds ``path``, or None when it is not in one."""
    if not path.is_dir():
        return None
    r = git(path, "rev-parse", "--show-toplevel", check=False)
    return Path(r.stdout.strip()) if r.returncode == 0 and r.stdout.strip() else None


def rev(cwd: Path, name: str) -> str | None:
    r = git(cwd, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}", check=False)
    return r.stdout.strip() if r.returncode == 0 else None
