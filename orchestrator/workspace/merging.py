"""The merge queue: finished task branches land on the run's integration branch one at a time.

For each branch, in the order tasks finish:

1. **Predict** with ``git merge-tree --write-tree`` (no worktree, no index touched). A conflict is
   reported (files, both sides' commits, the conflicting hunks) and nothing is merged.
2. **Build** the candidate commit without moving any branch: a merge commit from the predicted tree
   (``merge`` mode), or the task's commits replayed on the integration head in a scratch worktree
   (``rebase`` mode).
3. **Verify**: the union of the plan's ``verify`` commands runs on the candidate in a separate worktree.
4. **Land**: ``git update-ref`` moves the integration branch from the head it was built on to the
   candidate, atomically and only if nobody moved it meanwhile.

So the integration branch only ever holds verified merges, and it is never half-merged: a process killed
at any point leaves it either before or after a merge (``update-ref`` is one atomic ref update). A red
verify therefore has nothing to undo on the branch; the task ends ``verify_failed`` with the report.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from orchestrator.workspace.git import GitError, git, out
from orchestrator.workspace.worktrees import IDENTITY, IDENTITY_CONFIG, RunWorkspace, commit_env

MergeMode = Literal["merge", "rebase"]
MAX_HUNKS = 20
MAX_HUNK_LINES = 60


@dataclass
class VerifyResult:
    command: str
    ok: bool
    detail: str = ""  # exit status and the end of the output when it failed


# (task id, commands, directory) -> one result per command, in order, stopping at the first red one.
Verifier = Callable[[str, list[str], Path], Awaitable[list[VerifyResult]]]


@dataclass
class MergeResult:
    task_id: str
    status: Literal["merged", "conflict", "verify_failed"]
    before: str  # the integration head the merge was built on
    after: str  # the integration head afterwards (== before unless merged)
    candidate: str = ""
    conflict: dict[str, Any] | None = None
    verify: list[VerifyResult] = field(default_factory=list)

    def summary(self) -> str:
        if self.status == "merged":
            return f"merged into the integration branch ({self.after[:12]})"
        if self.status == "conflict" and self.conflict:
            return f"conflicts with the integration branch in {', '.join(self.conflict['files'][:5])}"
        failed = next((v for v in self.verify if not v.ok), None)
        return f"verify failed: {failed.command}: {failed.detail}" if failed else "verify failed"

    def to_json(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "verify": [dataclasses.asdict(v) for v in self.verify]}


_COMMIT_ENV = commit_env(IDENTITY["name"])


class MergeQueue:
    def __init__(self, ws: RunWorkspace, *, mode: MergeMode = "merge", verifier: Verifier | None = None) -> None:
        self.ws = ws
        self.mode = mode
        self.verifier = verifier
        self._lock = asyncio.Lock()  # first come, first merged: asyncio.Lock wakes waiters in order

    async def land(self, task_id: str, verify: list[str]) -> MergeResult:
        async with self._lock:
            return await self._land(task_id, verify)

    async def _land(self, task_id: str, verify: list[str]) -> MergeResult:
        ws = self.ws
        branch = ws.branch(task_id)
        # One git call for both heads (each git process costs about a millisecond and a half).
        before, tip = out(ws.repo, "rev-parse", f"refs/heads/{ws.integration}^{{commit}}",
                          f"refs/heads/{branch}^{{commit}}").split()
        if await asyncio.to_thread(ws.is_merged, tip, before):
            return MergeResult(task_id, "merged", before, before, before)
        prediction = await asyncio.to_thread(predict, ws.repo, before, tip)
        if prediction.conflicts:
            report = await asyncio.to_thread(conflict_report, ws.repo, before, tip, prediction)
            return MergeResult(task_id, "conflict", before, before, conflict=report)
        scratch = ws.root / f".merge-{task_id}"
        try:
            if self.mode == "merge":
                candidate: str | None = out(ws.repo, *_commit_tree(prediction.tree, before, tip, task_id, branch))
            else:
                candidate = await asyncio.to_thread(_replay, ws, before, tip, scratch)
            if candidate is None:  # a commit of the series conflicts although the whole merges cleanly
                report = await asyncio.to_thread(conflict_report, ws.repo, before, tip, prediction)
                return MergeResult(task_id, "conflict", before, before, conflict=report)
            results: list[VerifyResult] = []
            if verify and self.verifier is not None:
                await asyncio.to_thread(_checkout_detached, ws, scratch, candidate)
                results = await self.verifier(task_id, verify, scratch / ws.subdir if ws.subdir else scratch)
                if not all(r.ok for r in results) or len(results) < len(verify):
                    return MergeResult(task_id, "verify_failed", before, before, candidate, verify=results)
            # Compare-and-swap: lands only on the head the candidate was built (and verified) on.
            git(ws.repo, "update-ref", "-m", f"acteon-swarm: land task {task_id}",
                f"refs/heads/{ws.integration}", candidate, before)
            return MergeResult(task_id, "merged", before, candidate, candidate, verify=results)
        finally:
            await asyncio.to_thread(drop_scratch, ws, scratch)


@dataclass(frozen=True)
class Prediction:
    tree: str
    conflicts: tuple[str, ...]


def predict(repo: Path, ours: str, theirs: str) -> Prediction:
    """What merging ``theirs`` into ``ours`` gives, computed in the object store only."""
    r = git(repo, "merge-tree", "--write-tree", "--name-only", "--no-messages", ours, theirs, check=False)
    if r.returncode not in (0, 1):
        raise GitError(["merge-tree", ours, theirs], r.returncode, r.stderr)
    lines = r.stdout.splitlines()
    tree = lines[0].strip() if lines else ""
    conflicts = tuple(dict.fromkeys(line for line in lines[1:] if line.strip())) if r.returncode == 1 else ()
    return Prediction(tree, conflicts)


def conflict_report(repo: Path, ours: str, theirs: str, prediction: Prediction) -> dict[str, Any]:
    """Files, both sides' commits touching them since they diverged, and the conflicting hunks."""
    base = out(repo, "merge-base", ours, theirs)
    files = list(prediction.conflicts)

    def commits(tip: str) -> list[dict[str, str]]:
        log = out(repo, "log", "--format=%H%x1f%an%x1f%s", f"{base}..{tip}", "--", *files)
        return [dict(zip(("commit", "author", "subject"), line.split("\x1f"), strict=False))
                for line in log.splitlines() if line]

    hunks: list[dict[str, Any]] = []
    for name in files:
        blob = git(repo, "cat-file", "-p", f"{prediction.tree}:{name}", check=False)
        if blob.returncode != 0:
            hunks.append({"file": name, "kind": "not a text conflict (deleted, renamed or binary)"})
            continue
        hunks.extend({"file": name, **h} for h in _marker_hunks(blob.stdout))
    return {"base": base, "integration": ours, "branch": theirs, "files": files,
            "integration_commits": commits(ours), "branch_commits": commits(theirs), "hunks": hunks[:MAX_HUNKS]}


def _marker_hunks(text: str) -> list[dict[str, Any]]:
    hunks: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    side = ""
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("<<<<<<< "):
            current, side = {"line": number, "integration": [], "branch": []}, "integration"
        elif current is not None and line.startswith("======="):
            side = "branch"
        elif current is not None and line.startswith(">>>>>>> "):
            hunks.append(current)
            current = None
        elif current is not None and len(current[side]) < MAX_HUNK_LINES:
            current[side].append(line)
    return hunks


def _commit_tree(tree: str, ours: str, theirs: str, task_id: str, branch: str) -> list[str]:
    return [*IDENTITY_CONFIG, "commit-tree", tree, "-p", ours, "-p", theirs, "-m", f"Merge task {task_id} ({branch})"]


def _checkout_detached(ws: RunWorkspace, path: Path, commit: str) -> None:
    if (path / ".git").exists():
        git(path, "checkout", "--detach", "--quiet", commit)
    else:
        git(ws.repo, "worktree", "add", "--detach", "--quiet", str(path), commit)


def _replay(ws: RunWorkspace, onto: str, tip: str, scratch: Path) -> str | None:
    """The task's commits replayed on ``onto`` in a scratch worktree (``rebase`` mode); None on a conflict."""
    _checkout_detached(ws, scratch, onto)
    base = out(ws.repo, "merge-base", onto, tip)
    picked = git(scratch, "cherry-pick", "--allow-empty", "--keep-redundant-commits", f"{base}..{tip}",
                 check=False, env=_COMMIT_ENV)
    if picked.returncode != 0:
        git(scratch, "cherry-pick", "--abort", check=False)
        return None
    return out(scratch, "rev-parse", "HEAD")


def drop_scratch(ws: RunWorkspace, path: Path) -> None:
    """Remove a scratch worktree: it is detached at a commit that is either landed or recorded in a report,
    and holds only what verify commands produced, so nothing of anyone's work is in it."""
    if not path.exists():
        return  # merge mode without verify commands never makes one
    if (path / ".git").exists():
        git(ws.repo, "worktree", "remove", "--force", str(path), check=False)
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)
    git(ws.repo, "worktree", "prune", check=False)
