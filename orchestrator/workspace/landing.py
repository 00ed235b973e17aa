"""The end of a run's branches: landing the integration branch on the user's branch, and cleaning up.

Landing changes the user's branch only when they ask (``acteon-swarm merge``), and never by a reset: a
fast-forward or a merge commit. When the branch is checked out, git's own ``merge`` does it in the user's
checkout after a prediction showed no conflict, so git refuses (changing nothing) if it would overwrite an
uncommitted change. Cleanup removes only what holds nothing unique: clean worktrees, and task branches
already in the integration branch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.workspace.git import GitError, git, out, rev
from orchestrator.workspace.merging import predict
from orchestrator.workspace.worktrees import IDENTITY_CONFIG, RunWorkspace, worktree_list


def _checked_out(repo: Path, branch: str) -> Path | None:
    """The worktree where ``branch`` is checked out, if any."""
    return next((path for path, checked_out in worktree_list(repo) if checked_out == branch), None)


def land_integration(ws: RunWorkspace, into: str | None) -> dict[str, Any]:
    repo = ws.repo
    if into is None:
        r = git(repo, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
        if r.returncode != 0:
            raise GitError(["symbolic-ref", "HEAD"], 1,
                           "the repository has no branch checked out: name one with --into")
        into = r.stdout.strip()
    target = rev(repo, into)
    if target is None:
        raise GitError(["rev-parse", into], 1, f"no branch {into!r}")
    head = ws.head()
    if ws.is_merged(head, target):
        return {"how": "already there", "into": into, "head": target}
    prediction = predict(repo, target, head)
    if prediction.conflicts:
        raise GitError(["merge-tree"], 1, f"{ws.integration} conflicts with {into} in "
                       f"{', '.join(prediction.conflicts[:10])}: merge it yourself (nothing was changed)")
    fast = ws.is_merged(target, head)
    where = _checked_out(repo, into)
    if where is not None:
        # In the user's checkout: git merge keeps their uncommitted changes, or refuses and changes nothing.
        args = ["merge", "--ff-only" if fast else "--no-ff", "--no-edit", "-m",
                f"Merge acteon-swarm run {ws.run_id}", ws.integration]
        git(where, *IDENTITY_CONFIG, *args)
        new = out(where, "rev-parse", "HEAD")
    else:
        new = head if fast else out(repo, *IDENTITY_CONFIG, "commit-tree", prediction.tree, "-p", target,
                                    "-p", head, "-m", f"Merge acteon-swarm run {ws.run_id}")
        git(repo, "update-ref", f"refs/heads/{into}", new, target)  # only if nobody moved it meanwhile
    return {"how": "fast-forward" if fast else "merge commit", "into": into, "head": new}


def clean_up(ws: RunWorkspace) -> dict[str, Any]:
    removed: list[str] = []
    kept_worktrees: list[str] = []
    for top in ws.registered_worktrees():
        if ws.remove_worktree(top):
            removed.append(str(top))
        else:
            kept_worktrees.append(str(top))
    git(ws.repo, "worktree", "prune")
    deleted: list[str] = []
    kept: list[str] = []
    busy = {branch for _, branch in worktree_list(ws.repo) if branch is not None}
    for branch in ws.branches():
        tip = rev(ws.repo, branch)
        if tip is not None and branch not in busy and ws.is_merged(tip, ws.integration):
            git(ws.repo, "update-ref", "-d", f"refs/heads/{branch}", tip)  # only the tip we checked is merged
            deleted.append(branch)
        else:
            kept.append(branch)
    return {"removed_worktrees": removed, "kept_worktrees": kept_worktrees, "deleted_branches": deleted,
            "kept_branches": kept, "integration_branch": ws.integration}
