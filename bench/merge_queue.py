"""The merge queue's cost per branch, against a plain `git merge` of the same branches in the same run.

    python bench/merge_queue.py [--branches 50] [--files 200]

A repository with ``--files`` files gets ``--branches`` task branches, each changing its own file (no
conflicts). Two copies of it are integrated:

* **queue**: the merge queue as runs use it (conflict prediction with ``git merge-tree --write-tree``, a
  merge commit built from the predicted tree, one compare-and-swap ``update-ref``; no worktree touched);
* **reference**: ``git merge --no-ff`` of each branch, one after the other, in a checkout of the same
  repository — what a person (or a naive integrator) would do.

It prints the time per branch of each and their ratio (below 1: the queue is cheaper). Machines are
noisy, so only the ratio measured in one run is meaningful; the absolute figures are for orientation.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from orchestrator.workspace.merging import MergeQueue, predict  # noqa: E402
from orchestrator.workspace.worktrees import RunWorkspace  # noqa: E402

ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
       "GIT_COMMITTER_EMAIL": "b@x"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=ENV).stdout.strip()


def make_repo(path: Path, files: int, branches: int) -> None:
    """A repository with ``files`` files and ``branches`` branches each changing one file, built with
    plumbing (fast): the branches start from the first commit."""
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    for i in range(files):
        (path / f"f{i:04d}.txt").write_text(f"file {i}\n" * 20)
    git(path, "add", "-A")
    git(path, "commit", "-qm", "base")
    base = git(path, "rev-parse", "HEAD")
    for b in range(branches):
        git(path, "checkout", "-q", "-b", f"acteon/bench/t{b}", base)
        (path / f"f{b % files:04d}.txt").write_text(f"changed by task {b}\n" * 20)
        git(path, "commit", "-qam", f"task {b}")
    git(path, "checkout", "-q", "main")


def bench_queue(repo: Path, state: Path, branches: int) -> float:
    ws = RunWorkspace(repo, "bench", state)
    git(repo, "branch", ws.integration, "main")
    queue = MergeQueue(ws, mode="merge")

    async def land_all() -> None:
        for b in range(branches):
            result = await queue.land(f"t{b}", [])
            assert result.status == "merged", result

    started = time.perf_counter()
    asyncio.run(land_all())
    return time.perf_counter() - started


def bench_reference(repo: Path, branches: int) -> float:
    started = time.perf_counter()
    for b in range(branches):
        git(repo, "merge", "--no-ff", "-q", "-m", f"merge t{b}", f"acteon/bench/t{b}")
    return time.perf_counter() - started


def bench_prediction(repo: Path, branches: int) -> float:
    """Conflict prediction alone (the part a plain merge does not have)."""
    started = time.perf_counter()
    for b in range(branches):
        predict(repo, "main", f"acteon/bench/t{b}")
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--branches", type=int, default=50)
    ap.add_argument("--files", type=int, default=200)
    args = ap.parse_args()
    n = args.branches
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        make_repo(base / "queue", max(args.files, n), n)
        shutil.copytree(base / "queue", base / "reference")
        shutil.copytree(base / "queue", base / "predict")
        queue_s = bench_queue(base / "queue", base / "state", n)
        reference_s = bench_reference(base / "reference", n)
        predict_s = bench_prediction(base / "predict", n)
        merged = int(git(base / "queue", "rev-list", "--count", "--merges", "acteon/bench/integration"))
        assert merged == n, f"{merged} merges on the integration branch, expected {n}"
    print(f"branches: {n} (disjoint files)")
    print(f"merge queue (predict + commit-tree + CAS update-ref): {queue_s / n * 1000:7.1f} ms per branch")
    print(f"reference (git merge --no-ff in a checkout):          {reference_s / n * 1000:7.1f} ms per branch")
    print(f"conflict prediction alone (merge-tree --write-tree):  {predict_s / n * 1000:7.1f} ms per branch")
    print(f"ratio queue / reference: {queue_s / reference_s:.2f}")
    print(f"ratio prediction / reference: {predict_s / reference_s:.2f}")


if __name__ == "__main__":
    main()
