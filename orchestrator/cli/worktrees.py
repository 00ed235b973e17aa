"""``acteon-swarm merge | cleanup``: a run's integration branch onto the user's branch (only when asked), and
its worktrees removed without losing anything.

Registered on the main app by ``orchestrator.cli``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from orchestrator.cli.common import JsonOut, StateDir, fail, print_json, run_dir, state_of


def _workspace(state: Path, run_id: str) -> Any:
    from orchestrator.workspace.worktrees import RunWorkspace

    rd = run_dir(state, run_id)
    repo = rd.read_run().get("repository")
    if not repo:
        raise fail(f"run {run_id!r} did not work in a git repository: it has no branches or worktrees")
    return RunWorkspace(Path(repo), run_id, state)


def merge(
    run_id: Annotated[str, typer.Argument(help="the run whose integration branch to land")],
    into: Annotated[str | None, typer.Option("--into", help="the branch to land it on (default: the branch "
                                                            "checked out in the repository)")] = None,
    state_dir: StateDir = None,
    as_json: JsonOut = False,
) -> None:
    """Land a run's integration branch on your branch: a fast-forward when possible, else a merge commit.
    Refuses (changing nothing) when the two conflict or git would overwrite uncommitted changes; never resets."""
    from orchestrator.workspace.git import GitError
    from orchestrator.workspace.landing import land_integration

    ws = _workspace(state_of(state_dir), run_id)
    try:
        result = land_integration(ws, into)
    except GitError as e:
        raise fail(str(e), 1) from None
    if as_json:
        print_json(result)
    else:
        print(f"{result['how']}: {ws.integration} -> {result['into']} ({result['head'][:12]})")


def cleanup(
    run_id: Annotated[str, typer.Argument(help="the run whose worktrees to remove")],
    state_dir: StateDir = None,
    as_json: JsonOut = False,
) -> None:
    """Remove a run's worktrees and merged task branches. Unmerged branches and worktrees with uncommitted
    changes are kept, and listed."""
    from orchestrator.workspace.landing import clean_up

    result = clean_up(_workspace(state_of(state_dir), run_id))
    if as_json:
        print_json(result)
        return
    print(f"removed {len(result['removed_worktrees'])} worktree(s), {len(result['deleted_branches'])} merged "
          "branch(es)")
    for branch in result["kept_branches"]:
        print(f"  kept unmerged branch {branch}")
    for path in result["kept_worktrees"]:
        print(f"  kept worktree with uncommitted changes {path}")
