"""A run's branches and worktrees (docs/swarm.md, "Parallel writers").

    refs/acteon/<run>/base          the commit the run started from (the user's HEAD then)
    refs/acteon/<run>/start/<task>  the integration head an isolated task's branch started from
    acteon/<run>/integration        where finished tasks land, one merge at a time
    acteon/<run>/<task>             an isolated task's branch, from the integration head when it starts

Every worktree lives under ``ACTEON_STATE_DIR/worktrees/<run>/``, never in the user's tree. Creating a
worktree or a branch writes only to the repository's object store and refs; the user's checkout, its
branch, index and stash are never read for writing nor changed. A run works from the user's last commit:
uncommitted changes in their checkout are theirs alone (the run says so when it starts).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from orchestrator.workspace.git import GitError, git, out, repository_root, rev

INTEGRATION = "integration"
# Authors the orchestrator's own commits (merges) and the agents' commits on a machine without a git
# identity: the run never depends on the user's global git config.
IDENTITY = {"name": "acteon-swarm", "email": "acteon-swarm@localhost"}
# The same identity as git options, for the commits git makes on the orchestrator's behalf (merges).
IDENTITY_CONFIG = ("-c", f"user.name={IDENTITY['name']}", "-c", f"user.email={IDENTITY['email']}")


def worktrees_root(state_dir: Path, run_id: str) -> Path:
    return state_dir / "worktrees" / run_id


def commit_env(name: str) -> dict[str, str]:
    """Commit identity (author and committer) as git's environment variables."""
    return {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": IDENTITY["email"],
            "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": IDENTITY["email"]}


def identity_env(agent_id: str) -> dict[str, str]:
    """Commit identity for an agent's commits, named after the agent."""
    return commit_env(f"acteon-swarm agent {agent_id}")


def worktree_list(repo: Path) -> list[tuple[Path, str | None]]:
    """Every worktree git knows of in ``repo``: (its path, the branch checked out there or None)."""
    found: list[tuple[Path, str | None]] = []
    for line in out(repo, "worktree", "list", "--porcelain").splitlines():
        if line.startswith("worktree "):
            found.append((Path(line[len("worktree "):]), None))
        elif line.startswith("branch refs/heads/") and found:
            found[-1] = (found[-1][0], line[len("branch refs/heads/"):])
    return found


@dataclass(frozen=True)
class Worktree:
    path: Path  # the directory the task works in (the working directory's place inside the worktree)
    top: Path  # the worktree's root
    branch: str | None  # None: a detached view of the integration head (nothing of it is merged)


class RunWorkspace:
    def __init__(self, repo: Path, run_id: str, state_dir: Path, subdir: str = "") -> None:
        self.repo = repo
        self.run_id = run_id
        self.root = worktrees_root(state_dir, run_id)
        self.subdir = subdir  # the plan's working directory, relative to the repository root

    @classmethod
    def for_directory(cls, workdir: Path, run_id: str, state_dir: Path) -> RunWorkspace | None:
        """The workspace of a run whose working directory is ``workdir``; None when it is not in git."""
        top = repository_root(workdir)
        if top is None:
            return None
        sub = workdir.resolve().relative_to(top.resolve()).as_posix()
        return cls(top, run_id, state_dir, "" if sub == "." else sub)

    # --- names ---------------------------------------------------------------------------------------
    @property
    def integration(self) -> str:
        return f"acteon/{self.run_id}/{INTEGRATION}"

    @property
    def base_ref(self) -> str:
        return f"refs/acteon/{self.run_id}/base"

    def branch(self, task_id: str) -> str:
        return f"acteon/{self.run_id}/{task_id}"

    def identity(self) -> str:
        """The repository's identity for scope claims: its common git directory, the same from every worktree."""
        common = Path(out(self.repo, "rev-parse", "--git-common-dir"))
        return str(common if common.is_absolute() else (self.repo / common).resolve())

    def head(self) -> str:
        head = rev(self.repo, self.integration)
        if head is None:
            raise GitError(["rev-parse", self.integration], 1, f"the run's integration branch {self.integration} "
                           "is missing")
        return head

    def base(self) -> str:
        base = rev(self.repo, self.base_ref)
        return base if base is not None else self.head()

    # --- lifecycle -----------------------------------------------------------------------------------
    def start(self) -> str:
        """Create the integration branch at the user's HEAD (kept as it is on a resume); returns its head."""
        self.root.mkdir(parents=True, exist_ok=True)
        existing = rev(self.repo, self.integration)
        if existing is not None:
            return existing
        head = rev(self.repo, "HEAD")
        if head is None:
            raise GitError(["rev-parse", "HEAD"], 1, f"{self.repo} has no commit yet: commit something first, "
                           "a run starts from your last commit")
        # update-ref with an empty old value: create only, never move an existing ref.
        git(self.repo, "update-ref", self.base_ref, head, "")
        git(self.repo, "branch", "--no-track", self.integration, head)
        return head

    def change(self) -> str:
        """The run's work so far: the diff of the integration branch against the run's base."""
        return out(self.repo, "diff", "--no-color", "--no-ext-diff", f"{self.base()}..{self.head()}")

    def dirty(self) -> bool:
        """True when the user's checkout has changes the run cannot see (not committed)."""
        return bool(out(self.repo, "status", "--porcelain", "--untracked-files=no"))

    def worktree(self, task_id: str, *, isolated: bool) -> Worktree:
        """The task's worktree: its own branch from the integration head (isolated), or a detached view of
        the integration head. On a resume an existing worktree is reused as it is: whatever the earlier
        attempt left there (committed or not) is kept."""
        top = self.root / task_id
        branch = self.branch(task_id) if isolated else None
        if not (top / ".git").exists():
            if top.exists() and any(top.iterdir()):
                raise GitError(["worktree", "add", str(top)], 1, f"{top} exists and is not a worktree")
            git(self.repo, "worktree", "prune")  # a worktree directory removed by hand leaves a stale entry
            if branch is not None and rev(self.repo, branch) is not None:
                git(self.repo, "worktree", "add", str(top), branch)
            elif branch is not None:
                start = self.head()
                git(self.repo, "update-ref", self.start_ref(task_id), start)  # where the branch began
                git(self.repo, "worktree", "add", "-b", branch, str(top), start)
            else:
                git(self.repo, "worktree", "add", "--detach", str(top), self.head())
        return Worktree(top / self.subdir if self.subdir else top, top, branch)

    def start_ref(self, task_id: str) -> str:
        return f"refs/acteon/{self.run_id}/start/{task_id}"

    def new_commits(self, task_id: str) -> int:
        """Commits the task made on its branch (since the integration head it started from)."""
        since = rev(self.repo, self.start_ref(task_id)) or self.base()
        return int(out(self.repo, "rev-list", "--count", f"{since}..{self.branch(task_id)}"))

    def uncommitted(self, top: Path) -> list[str]:
        return [line[3:] for line in git(top, "status", "--porcelain").stdout.splitlines() if line]

    # --- the end ---------------------------------------------------------------------------------------
    def branches(self) -> list[str]:
        """The run's task branches (not the integration branch)."""
        names = out(self.repo, "for-each-ref", "--format=%(refname:short)", f"refs/heads/acteon/{self.run_id}/")
        return [n for n in names.splitlines() if n and n != self.integration]

    def is_merged(self, branch: str, into: str) -> bool:
        return git(self.repo, "merge-base", "--is-ancestor", branch, into, check=False).returncode == 0

    def registered_worktrees(self) -> list[Path]:
        """Worktrees of this run that git knows about."""
        return [path for path, _ in worktree_list(self.repo) if path.parent == self.root]

    def remove_worktree(self, top: Path) -> bool:
        """Remove one of the run's worktrees when nothing in it would be lost (no uncommitted change); a
        worktree with changes is kept. Returns whether it was removed."""
        if self.uncommitted(top):
            return False
        git(self.repo, "worktree", "remove", str(top))  # refuses, by itself too, when it is not clean
        return True
