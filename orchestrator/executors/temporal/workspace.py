"""The repository on a worker machine: git carries the work there and back.

The coordinator keeps the worktree-and-merge model (orchestrator/workspace): each task has its worktree
and branch there, and its merge queue lands the results. For a subtask on a worker:

1. the coordinator points a ref at the task's worktree head (``refs/acteon/<run>/dispatch/<agent>/<n>``);
2. the worker fetches it from the git remote into its own clone (one per remote, ``<state>/repos/``) and
   adds a worktree for the attempt (``<state>/worktrees/<run>/<agent>/<attempt>``), where the agent works
   (the gateway holds the agent to that worktree, as it would on the coordinator);
3. when the agent committed something, the worker pushes its head to a ref of that attempt
   (``refs/acteon/<run>/result/<agent>/<attempt>``): a stale attempt's late push lands on its own ref and
   is never fetched;
4. the coordinator fetches the accepted attempt's ref and fast-forwards the task's branch to it; the merge
   queue takes it from there.

No step rewrites or deletes anything: fetches go to new refs, the task branch only moves forward.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path
from typing import Any

from orchestrator.workspace.git import GitError, git, rev


def dispatch_ref(run_id: str, agent_id: str, generation: int) -> str:
    return f"refs/acteon/{run_id}/dispatch/{agent_id}/{generation}"


def result_ref(run_id: str, agent_id: str, attempt: int) -> str:
    return f"refs/acteon/{run_id}/result/{agent_id}/{attempt}"


# --- the coordinator's side ---------------------------------------------------------------------------
def offer(worktree: dict[str, str], workdir: Path, remote: str | None, run_id: str, agent_id: str,
          generation: int) -> dict[str, Any]:
    """Make the task's worktree head fetchable; what the worker needs to check it out (``spec["git"]``)."""
    top = Path(worktree["top"])
    git(top, "update-ref", dispatch_ref(run_id, agent_id, generation), "HEAD")
    if remote is None:  # the coordinator's repository itself (this host, or a filesystem the workers share)
        remote = str(Path(git(top, "rev-parse", "--path-format=absolute", "--git-common-dir").stdout.strip()))
    return {"remote": remote, "ref": dispatch_ref(run_id, agent_id, generation),
            "subdir": os.path.relpath(workdir, top) if workdir != top else "", "push": bool(worktree.get("branch"))}


def take(worktree: dict[str, str], remote: str, landed: dict[str, str]) -> None:
    """Bring an attempt's commits into the task's worktree: fetch its ref, then fast-forward only."""
    top = Path(worktree["top"])
    git(top, "fetch", "--quiet", "--no-tags", remote, f"+{landed['ref']}:{landed['ref']}")
    if rev(top, landed["ref"]) != landed["commit"]:
        raise GitError(["fetch", landed["ref"]], 1, f"the worker's result ref {landed['ref']} is not the commit it "
                       f"reported ({landed['commit']})")
    git(top, "merge", "--ff-only", "--quiet", landed["commit"])


# --- the worker's side ----------------------------------------------------------------------------------
class Checkouts:
    """The worker's clones (one per remote) and the worktree of each attempt."""

    def __init__(self, state_dir: Path) -> None:
        self.repos = state_dir / "repos"
        self.trees = state_dir / "worktrees"
        self._locks: dict[str, asyncio.Lock] = {}  # git keeps one lock per repository: one writer at a time

    def _clone_of(self, remote: str) -> Path:
        return self.repos / hashlib.sha256(remote.encode()).hexdigest()[:16]

    async def checkout(self, spec_git: dict[str, Any], run_id: str, agent_id: str, attempt: int) -> tuple[Path, str]:
        """The attempt's worktree (its top) at the dispatched head, and that head."""
        remote, ref = str(spec_git["remote"]), str(spec_git["ref"])
        clone = self._clone_of(remote)
        top = self.trees / run_id / agent_id / str(attempt)
        local = f"refs/acteon-work/{run_id}/{agent_id}/{attempt}"
        async with self._locks.setdefault(remote, asyncio.Lock()):
            await asyncio.to_thread(self._prepare, clone, remote, ref, local, top)
        head = rev(top, "HEAD")
        assert head is not None
        return top, head

    @staticmethod
    def _prepare(clone: Path, remote: str, ref: str, local: str, top: Path) -> None:
        if not (clone / ".git").exists():
            clone.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            git(clone.parent, "clone", "--quiet", "--no-checkout", remote, clone.name)
        git(clone, "fetch", "--quiet", "--no-tags", remote, f"+{ref}:{local}")
        if not (top / ".git").exists():
            top.parent.mkdir(parents=True, exist_ok=True)
            git(clone, "worktree", "add", "--quiet", "--detach", str(top), local)

    @staticmethod
    async def give_back(spec_git: dict[str, Any], top: Path, base: str, run_id: str, agent_id: str,
                        attempt: int) -> dict[str, str] | None:
        """Push what the agent committed to the attempt's own ref; None when it committed nothing."""
        head = rev(top, "HEAD")
        if not spec_git.get("push") or head is None or head == base:
            return None
        ref = result_ref(run_id, agent_id, attempt)
        await asyncio.to_thread(git, top, "push", "--quiet", str(spec_git["remote"]), f"{head}:{ref}")
        return {"ref": ref, "commit": head}
