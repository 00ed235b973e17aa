"""Parallel writers on a real git repository, through the real CLI on the command engine: worktrees per
task, scopes that never run together, the merge queue (verify on the merged tree, conflicts reported),
kill -9 in the middle of a merge, and the user's checkout byte for byte unchanged throughout."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from orchestrator.process import group_alive
from tests.orchestrator.test_run import (
    cli,
    groups_of,
    gw,  # noqa: F401 - a fixture: a gateway process both runs share
    journal,
    kill_groups,
    start_cli,
    write_plan,
)
from tests.support import wait_until

GIT_ENV = {"GIT_AUTHOR_NAME": "User", "GIT_AUTHOR_EMAIL": "user@example.com", "GIT_COMMITTER_NAME": "User",
           "GIT_COMMITTER_EMAIL": "user@example.com"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout.strip()


def user_repo(tmp_path: Path) -> Path:
    """A repository as users have them: commits, a stash, staged and unstaged changes, an untracked file."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("line one\nline two\n")
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('hi')\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "initial")
    (repo / "src" / "app.py").write_text("print('stashed work')\n")
    git(repo, "stash", "-q")
    (repo / "src" / "app.py").write_text("print('unstaged work')\n")
    (repo / "staged.txt").write_text("staged\n")
    git(repo, "add", "staged.txt")
    (repo / "notes.txt").write_text("untracked notes\n")
    return repo


def snapshot(repo: Path) -> dict[str, Any]:
    """Everything of the user's checkout a run must not change: every file's bytes (the index too), HEAD,
    the current branch, the stash."""
    files = {}
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo).as_posix()
        if (path.is_file() and not rel.startswith(".git/")) or rel == ".git/index":
            files[rel] = path.read_bytes()
    return {"files": files, "head": git(repo, "rev-parse", "HEAD"), "branch": git(repo, "symbolic-ref", "HEAD"),
            "stash": git(repo, "stash", "list", "--format=%H"), "status": git(repo, "status", "--porcelain")}


def plan(repo: Path, tasks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": "p", "objective": "parallel writers", "scope": {"working_directory": str(repo), "max_agents": 4},
            "estimated_actions": 200, "status": "approved", "tasks": tasks}


def writer(tid: str, command: str, scope: list[str] | None = None, **kw: Any) -> dict[str, Any]:
    return {"id": tid, "name": tid, "assigned_role": "coder", "files_scope": scope or [],
            "subtasks": [{"id": f"{tid}-1", "name": tid, "command": command}], **kw}


def commit(message: str) -> str:
    return f"git add -A && git commit -qm {message}"


def run(tmp_path: Path, data: dict[str, Any], run_id: str, *extra: str) -> tuple[int, dict[str, Any], str]:
    p = write_plan(tmp_path, data)
    r = cli("run", "--plan", str(p), "--state-dir", str(tmp_path / "state"), "--run-id", run_id, "--json", *extra,
            env={"ACTEON_URL": ""})
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else {}), r.stderr


def intervals(state: Path, run_id: str) -> dict[str, tuple[int, int]]:
    """When each task ran, as journal sequence numbers (start, end)."""
    start: dict[str, int] = {}
    spans: dict[str, tuple[int, int]] = {}
    for e in journal(state, run_id):
        if e["type"] == "task_status" and e["status"] == "running":
            start[e["task_id"]] = e["seq"]
        elif e["type"] == "task_status" and e["task_id"] in start and e["status"] not in ("running", "ready"):
            spans.setdefault(e["task_id"], (start[e["task_id"]], e["seq"]))
    return spans


@pytest.mark.slow
def test_overlapping_scopes_never_run_together_and_everything_merges_verified(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    before = snapshot(repo)
    evidence = tmp_path / "evidence"
    evidence.mkdir()
    verify = f"git ls-files > {evidence}/$(git rev-parse HEAD).txt && git rev-parse -q --verify HEAD^2"
    tasks = [
        writer("a", "mkdir -p lib/a && echo A > lib/a/one.txt && sleep 1 && " + commit("a"), ["lib/a/**"],
               verify=[verify]),
        writer("b", "mkdir -p lib/a && echo B > lib/a/two.txt && sleep 1 && " + commit("b"), ["lib/a/*.txt"],
               verify=[verify]),
        writer("c", "mkdir -p docs && echo C > docs/c.md && sleep 1 && " + commit("c"), ["docs/**"], verify=[verify]),
        writer("d", "mkdir -p docs && echo D > docs/guide.md && sleep 1 && " + commit("d"), ["docs/guide.md"],
               verify=[verify]),
    ]
    rc, report, err = run(tmp_path, plan(repo, tasks), "scopes")
    assert rc == 0, err
    assert report["tasks"] == dict.fromkeys("abcd", "done")
    spans = intervals(tmp_path / "state", "scopes")

    def together(x: str, y: str) -> bool:
        return spans[x][0] < spans[y][1] and spans[y][0] < spans[x][1]

    assert not together("a", "b") and not together("c", "d")  # overlapping scopes: one after the other
    assert together("a", "c") or together("a", "d") or together("b", "c") or together("b", "d")  # disjoint: parallel
    waits = [e["reason"] for e in journal(tmp_path / "state", "scopes")
             if e["type"] == "task_status" and e["reason"].startswith("waiting for scope")]
    assert waits, "a task held back by a scope says why"
    integration = "acteon/scopes/integration"
    files = set(git(repo, "ls-tree", "-r", "--name-only", integration).splitlines())
    assert {"lib/a/one.txt", "lib/a/two.txt", "docs/c.md", "docs/guide.md", "README.md"} <= files
    # verify ran on merged trees: each saw the files of the merges before it, the last one saw all four
    seen = [set(f.read_text().split()) for f in evidence.iterdir()]
    assert len(seen) == 4 and max(len(s & files) for s in seen) == len(files)
    git(repo, "fsck", "--no-progress")
    assert snapshot(repo) == before
    # the run's work lands on the user's branch only when asked
    r = cli("cleanup", "scopes", "--state-dir", str(tmp_path / "state"), "--json")
    assert r.returncode == 0, r.stderr
    assert snapshot(repo) == before
    assert not list((tmp_path / "state" / "worktrees" / "scopes").glob("[abcd]"))


def test_a_conflicting_branch_is_reported_not_merged(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    before = snapshot(repo)
    tasks = [
        writer("x", "sed -i 's/line one/line one by x/' README.md && " + commit("x")),
        writer("y", "sleep 1 && sed -i 's/line one/line one by y/' README.md && " + commit("y")),
        {**writer("after-y", "true"), "depends_on": ["y"]},
    ]
    rc, report, _ = run(tmp_path, plan(repo, tasks), "clash")
    assert rc == 1
    assert report["tasks"] == {"x": "done", "y": "conflict", "after-y": "blocked"}
    conflict = json.loads((tmp_path / "state" / "runs" / "clash" / "reports" / "y.json").read_text())["conflict"]
    assert conflict["files"] == ["README.md"]
    assert conflict["branch_commits"][0]["subject"] == "y" and conflict["integration_commits"][0]["subject"] == "x"
    hunk = conflict["hunks"][0]
    assert hunk["integration"] == ["line one by x"] and hunk["branch"] == ["line one by y"]
    # the integration branch has x's change and nothing of y's, and is a consistent repository
    assert git(repo, "show", "acteon/clash/integration:README.md") == "line one by x\nline two"
    git(repo, "fsck", "--no-progress")
    s = json.loads(cli("status", "--run", "clash", "--state-dir", str(tmp_path / "state"), "--json").stdout)
    assert s["merges"]["y"]["result"] == "conflict" and s["merges"]["y"]["conflict"]["files"] == ["README.md"]
    assert snapshot(repo) == before
    # cleanup keeps the unmerged branch (and says so)
    r = json.loads(cli("cleanup", "clash", "--state-dir", str(tmp_path / "state"), "--json").stdout)
    assert "acteon/clash/y" in r["kept_branches"]
    assert git(repo, "rev-parse", "--verify", "acteon/clash/y")
    assert snapshot(repo) == before


def test_nothing_committed_fails_and_red_verify_never_lands(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    tasks = [writer("lazy", "echo forgot > forgot.txt"),
             writer("red", "echo r > r.txt && " + commit("red"), verify=["test -f does-not-exist"])]
    rc, report, _ = run(tmp_path, plan(repo, tasks), "red")
    assert rc == 1 and report["tasks"] == {"lazy": "failed", "red": "verify_failed"}
    events = journal(tmp_path / "state", "red")
    lazy = next(e for e in events if e["type"] == "task_status" and e["task_id"] == "lazy" and e["status"] == "failed")
    assert "nothing committed" in lazy["reason"] and "1 uncommitted change" in lazy["reason"]
    base = git(repo, "rev-parse", "refs/acteon/red/base")
    assert git(repo, "rev-parse", "acteon/red/integration") == base  # the red merge never landed


def test_isolate_outside_git_is_an_error(tmp_path: Path) -> None:
    ws = tmp_path / "plain"
    ws.mkdir()
    rc, _, err = run(tmp_path, plan(ws, [writer("a", "true", isolate=True)]), "nogit")
    assert rc == 2 and "not in a git repository" in err and "task 'a'" in err
    r = cli("plan", "validate", "--plan", str(tmp_path / "plan.json"))
    assert r.returncode == 2 and "isolate: true" in r.stderr


@pytest.mark.slow
def test_kill_9_during_a_merge_leaves_the_branch_before_it_and_resume_lands_it(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    before = snapshot(repo)
    state = tmp_path / "state"
    marker = f"acteon-merge-{uuid.uuid4().hex[:8]}"
    gate = tmp_path / "go"
    verify = f"if [ -f {gate} ]; then true; else sleep 300; : {marker}; fi"
    p = write_plan(tmp_path, plan(repo, [writer("m", "echo m > m.txt && " + commit("m"), verify=[verify])]))
    proc = start_cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "killed", "--json",
                     env={"ACTEON_URL": ""})
    orphans: set[int] = set()
    try:
        wait_until(lambda: bool(groups_of(marker)), timeout_s=60, what="the verify command to run")
        head_before = git(repo, "rev-parse", "acteon/killed/integration")
        orphans = groups_of(marker)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert git(repo, "rev-parse", "acteon/killed/integration") == head_before  # before the merge, not between
        git(repo, "fsck", "--no-progress")
        gate.touch()
        r = cli("run", "--resume", "killed", "--state-dir", str(state), "--json", env={"ACTEON_URL": ""})
        assert r.returncode == 0, r.stderr
        assert not any(group_alive(g) for g in orphans)
    finally:
        kill_groups(orphans | groups_of(marker))
    assert json.loads(r.stdout)["tasks"] == {"m": "done"}
    head = git(repo, "rev-parse", "acteon/killed/integration")
    assert git(repo, "show", f"{head}:m.txt") == "m"
    assert git(repo, "rev-list", "--count", "acteon/killed/m") == "2"  # the task's agent did not run again
    assert (state / "runs" / "killed" / "outputs" / "m.txt").exists()  # its output survived for a synthesis
    git(repo, "fsck", "--no-progress")
    assert snapshot(repo) == before


def test_merge_lands_only_when_asked_and_never_over_uncommitted_work(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    tasks = [writer("w", "echo new > README.md && " + commit("w"))]
    rc, _, err = run(tmp_path, plan(repo, tasks), "land")
    assert rc == 0, err
    state = ["--state-dir", str(tmp_path / "state")]
    # README.md is changed in the checkout too: git refuses, and nothing of the user's is touched
    (repo / "README.md").write_text("my own edit\n")
    before = snapshot(repo)
    r = cli("merge", "land", *state)
    assert r.returncode == 1 and "README.md" in r.stderr
    assert snapshot(repo) == before
    (repo / "README.md").write_text("line one\nline two\n")  # the user puts the file back
    main_before = git(repo, "rev-parse", "main")
    r = cli("merge", "land", *state, "--json")
    assert r.returncode == 0, r.stderr
    landed = json.loads(r.stdout)
    assert landed["how"] == "fast-forward" and landed["into"] == "main"
    assert (repo / "README.md").read_text() == "new\n"
    assert (repo / "src" / "app.py").read_text() == "print('unstaged work')\n"  # their other changes stay
    assert git(repo, "merge-base", "--is-ancestor", main_before, "main") == ""  # a fast-forward, no reset
    assert git(repo, "stash", "list")  # the stash is still there


def test_the_state_directory_stays_secret_except_the_agents_worktrees(tmp_path: Path) -> None:
    from gateway.credentials import is_secret_path

    state = "/home/u/.local/state/acteon-swarm"
    extra = (state, f"!{state}/worktrees")
    assert is_secret_path(f"{state}/admin.key", "/home/u", extra)
    assert is_secret_path(f"{state}/runs/r1/agents/a/settings.json", "/home/u", extra)
    assert not is_secret_path(f"{state}/worktrees/r1/a/src/x.py", "/home/u", extra)
    assert is_secret_path(f"{state}/worktrees/r1/a/.env", "/home/u", extra)  # still a secret by its name
    assert is_secret_path(f"{state}/worktrees-not/x", "/home/u", extra)


@pytest.mark.slow
@pytest.mark.parametrize("shared", [True, False], ids=["one-gateway", "embedded-gateways"])
def test_two_runs_on_one_repository_never_hold_overlapping_scopes(tmp_path: Path, shared: bool,
                                                                  request: pytest.FixtureRequest) -> None:
    """Two orchestrators on one repository — sharing one gateway, or each with its own embedded gateway:
    the second run's task waits for the first's scope claim (status says so), then runs; with
    on_claim_conflict = "fail" it fails with the reason."""
    gateway = request.getfixturevalue("gw") if shared else {"ACTEON_URL": ""}
    repo = user_repo(tmp_path)
    before = snapshot(repo)
    state = tmp_path / "state"
    gate = tmp_path / "gate"
    hold = f"while [ ! -f {gate} ]; do sleep 0.05; done; mkdir -p src && echo 1 > src/one.py && " + commit("one")
    first = write_plan(tmp_path, plan(repo, [writer("t1", hold, ["src/**"])]))
    proc1 = start_cli("run", "--plan", str(first), "--state-dir", str(state), "--run-id", "first", "--json",
                      env=gateway)
    try:
        wait_until(lambda: any(e["type"] == "agent_started" for e in journal(state, "first")), timeout_s=30,
                   what="the first run's agent")
        second = tmp_path / "second.json"
        second.write_text(json.dumps(plan(repo, [writer("t2", "mkdir -p src/api && echo 2 > src/api/two.py && "
                                                        + commit("two"), ["src/api/**"])])))
        proc2 = start_cli("run", "--plan", str(second), "--state-dir", str(state), "--run-id", "second", "--json",
                          env=gateway)
        wait_until(lambda: any(e["type"] == "task_status" and e["reason"].startswith("waiting for scope claim")
                               for e in journal(state, "second")), timeout_s=30, what="the second run to wait")
        shown = cli("status", "--run", "second", "--state-dir", str(state), env=gateway).stdout
        assert "waiting for scope claim" in shown and "first/t1" in shown
        assert not any(e["type"] == "agent_started" for e in journal(state, "second"))  # it never started
        # a third run that prefers to fail says why at once
        toml = tmp_path / "fail.toml"
        toml.write_text('[worktrees]\non_claim_conflict = "fail"\n[defaults]\nengine = "command"\n')
        third = tmp_path / "third.json"
        third.write_text(json.dumps(plan(repo, [writer("t3", "true", ["src/api/x.py"])])))
        r3 = cli("run", "--plan", str(third), "--config", str(toml), "--state-dir", str(state), "--run-id", "third",
                 "--json", env=gateway)
        assert json.loads(r3.stdout)["tasks"] == {"t3": "failed"}
        reason = [e["reason"] for e in journal(state, "third") if e["type"] == "task_status"][-1]
        assert "scope claim refused" in reason and "claimed (write) by first/t1" in reason
        gate.touch()
        assert proc1.wait(timeout=60) == 0
        assert proc2.wait(timeout=60) == 0
    finally:
        gate.touch()
        for p in (proc1, locals().get("proc2")):
            if p is not None and p.poll() is None:
                p.kill()
    starts = {e["task_id"]: e["ts"] for run_id in ("first", "second") for e in journal(state, run_id)
              if e["type"] == "agent_started"}
    ends = {e["task_id"]: e["ts"] for e in journal(state, "first") if e["type"] == "task_status"
            and e["status"] == "done"}
    assert starts["t2"] > ends["t1"]  # the second run's writer started only after the first one was done
    assert snapshot(repo) == before


def test_a_scoped_task_cannot_write_outside_its_scope_or_leave_its_worktree(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    before = snapshot(repo)
    tasks = [writer("out", "echo x > README.md && " + commit("out"), ["docs/**"]),
             writer("esc", f"git -C {repo} commit --allow-empty -qm sneaky", ["docs/**"]),
             writer("py", "python3 -c \"open('setup.py', 'w').write('x')\"", ["docs/**"])]
    rc, report, _ = run(tmp_path, plan(repo, tasks), "fence")
    assert rc == 1 and report["tasks"] == dict.fromkeys(("out", "esc", "py"), "failed")
    reasons = {e["task_id"]: e["reason"] for e in journal(tmp_path / "state", "fence")
               if e["type"] == "task_status" and e["status"] == "failed"}
    assert "file-scope" in reasons["out"] and "README.md, outside the task's file scope" in reasons["out"]
    assert "outside this agent's worktree" in reasons["esc"]
    assert "setup.py" in reasons["py"]
    wt = tmp_path / "state" / "worktrees" / "fence"
    assert (wt / "out" / "README.md").read_text() == "line one\nline two\n"
    assert not (wt / "py" / "setup.py").exists()
    assert git(repo, "log", "--format=%s", "main") == "initial"
    assert snapshot(repo) == before


def test_cancel_leaves_the_checkout_untouched(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    before = snapshot(repo)
    state = tmp_path / "state"
    marker = f"acteon-cancel-wt-{uuid.uuid4().hex[:8]}"
    p = write_plan(tmp_path, plan(repo, [writer("slow", f"echo s > s.txt && sleep 300; : {marker}")]))
    proc = start_cli("run", "--plan", str(p), "--state-dir", str(state), "--run-id", "cx", "--json",
                     env={"ACTEON_URL": ""})
    try:
        wait_until(lambda: bool(groups_of(marker)), timeout_s=60, what="the agent to run")
        proc.send_signal(signal.SIGTERM)  # what `acteon-swarm cancel` sends the owning orchestrator
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
        kill_groups(groups_of(marker))
    statuses = {e["task_id"]: e["status"] for e in journal(state, "cx") if e["type"] == "task_status"}
    assert statuses == {"slow": "cancelled"}
    assert snapshot(repo) == before
    assert (state / "worktrees" / "cx" / "slow" / "s.txt").exists()  # the agent's work is kept in its worktree


@pytest.mark.slow
def test_task_retry_reruns_a_conflicted_task_on_the_new_integration_head(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    before = snapshot(repo)
    state = ["--state-dir", str(tmp_path / "state")]
    # y rewrites line one only when its retry report is not there: the retry reads the report and keeps x's line
    y = ("if [ -n \"$ACTEON_RETRY_REPORT\" ] && grep -q 'line one by x' \"$ACTEON_RETRY_REPORT\"; then "
         "echo 'y, after reading the report' > y.txt; "
         "else sleep 1; sed -i 's/line one/line one by y/' README.md; fi && " + commit("y"))
    tasks = [writer("x", "sed -i 's/line one/line one by x/' README.md && " + commit("x")), writer("y", y),
             {**writer("after-y", "test -f y.txt"), "depends_on": ["y"], "assigned_role": "executor"}]
    rc, report, _ = run(tmp_path, plan(repo, tasks), "again")
    assert rc == 1 and report["tasks"] == {"x": "done", "y": "conflict", "after-y": "blocked"}
    r = cli("task", "retry", "again", "x", *state)
    assert r.returncode == 2 and "only a task that ended conflict" in r.stderr
    r = cli("task", "retry", "again", "y", *state)
    assert r.returncode == 0, r.stderr
    r = cli("run", "--resume", "again", *state, "--json", env={"ACTEON_URL": ""})
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["tasks"] == {"x": "done", "y": "done", "after-y": "done"}
    integration = "acteon/again/integration"
    assert git(repo, "show", f"{integration}:README.md") == "line one by x\nline two"
    assert git(repo, "show", f"{integration}:y.txt") == "y, after reading the report"
    assert git(repo, "rev-parse", "--verify", "acteon/again/y")  # the failed attempt's branch is kept
    git(repo, "fsck", "--no-progress")
    assert snapshot(repo) == before


def test_local_claims_end_with_the_process_that_holds_them(tmp_path: Path) -> None:
    from orchestrator.workspace.localclaims import LocalClaims

    claims = LocalClaims(tmp_path)
    claims.dir.mkdir()
    # a claim of a process that is gone (a pid that never had this start time) holds nothing
    claims.file.write_text(json.dumps([{"owner": "dead/t", "globs": ["**"], "pid": os.getpid(), "start_time": 1}]))
    assert claims.acquire("me/a", ["src/**"]) is None
    assert "claimed (write) by me/a" in (claims.acquire("other/b", ["src/x.py"]) or "")
    assert claims.acquire("other/b", ["docs/**"]) is None
    claims.release("me/a")
    assert claims.acquire("other/c", ["src/x.py"]) is None


def test_the_refiner_may_retry_a_conflicted_task_once(tmp_path: Path) -> None:
    fake = Path(__file__).resolve().parents[1] / "data" / "fake_refiner.py"
    repo = user_repo(tmp_path)
    before = snapshot(repo)
    y = ("if [ -n \"$ACTEON_RETRY_REPORT\" ] && grep -q 'line one by x' \"$ACTEON_RETRY_REPORT\"; then "
         "echo 'y, after reading the report' > y.txt; "
         "else sleep 1; sed -i 's/line one/line one by y/' README.md; fi && " + commit("y"))
    tasks = [writer("x", "sed -i 's/line one/line one by x/' README.md && " + commit("x")), writer("y", y),
             {**writer("after-y", "test -f y.txt"), "depends_on": ["y"], "assigned_role": "executor"}]
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"y": "RETRY: y"}))
    toml = tmp_path / "swarm.toml"
    toml.write_text(f'[refiner]\nengine = "command"\ncommand = "{sys.executable} {fake} {answers}"\n')
    rc, report, err = run(tmp_path, plan(repo, tasks), "refined", "--config", str(toml))
    assert rc == 0, err
    assert report["tasks"] == {"x": "done", "y": "done", "after-y": "done"}
    decisions = [(e["after_task"], e["action"], e["fallback"]) for e in journal(tmp_path / "state", "refined")
                 if e["type"] == "refiner_decision"]
    # after y's conflict: RETRY applied; after the retry succeeded, the same answer is refused (not retryable)
    assert ("y", "retry", False) in decisions and ("y", "continue", True) in decisions
    assert git(repo, "show", "acteon/refined/integration:y.txt") == "y, after reading the report"
    assert snapshot(repo) == before


def test_rebase_mode_replays_the_task_commits_linearly(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    toml = tmp_path / "rebase.toml"
    toml.write_text('[worktrees]\nmerge_mode = "rebase"\n[defaults]\nenable_refiner = false\n')
    tasks = [writer("a", "echo 1 > a.txt && " + commit("a1") + " && echo 2 >> a.txt && " + commit("a2"),
                    verify=["test \"$(cat a.txt)\" = \"$(printf '1\\n2')\""]),
             writer("b", "sleep 1 && echo b > b.txt && " + commit("b"))]
    rc, _, err = run(tmp_path, plan(repo, tasks), "linear", "--config", str(toml))
    assert rc == 0, err
    integration = "acteon/linear/integration"
    assert git(repo, "rev-list", "--merges", "--count", integration) == "0"  # no merge commits: replayed
    subjects = git(repo, "log", "--format=%s", integration).splitlines()
    assert subjects[-1] == "initial" and sorted(subjects[:-1]) == ["a1", "a2", "b"]
    assert subjects.index("a2") < subjects.index("a1")  # a's two commits kept in order
    git(repo, "fsck", "--no-progress")


def test_merge_into_a_branch_that_is_not_checked_out_moves_only_that_branch(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    git(repo, "branch", "release")
    git(repo, "commit", "--allow-empty", "-qm", "on main since")  # main moves on: release is behind
    before = snapshot(repo)
    rc, _, err = run(tmp_path, plan(repo, [writer("w", "echo w > w.txt && " + commit("w"))]), "into")
    assert rc == 0, err
    r = cli("merge", "into", "--into", "release", "--state-dir", str(tmp_path / "state"), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["how"] in ("fast-forward", "merge commit")
    assert git(repo, "show", "release:w.txt") == "w"
    assert snapshot(repo) == before  # the checked-out branch, files, index and stash: untouched


def test_the_orchestrator_never_runs_a_destructive_git_command(tmp_path: Path) -> None:
    from orchestrator.workspace.git import git as run_git

    for args in (["stash"], ["clean", "-fd"], ["reset", "--hard"], ["checkout", "--", "."], ["branch", "-D", "x"],
                 ["-c", "a.b=c", "stash", "drop"], ["restore", "."]):
        with pytest.raises(AssertionError, match="refusing to run destructive git command"):
            run_git(tmp_path, *args)


def test_the_eval_scores_the_integration_head_not_the_checkout(tmp_path: Path) -> None:
    repo = user_repo(tmp_path)
    before = snapshot(repo)
    toml = tmp_path / "eval.toml"
    toml.write_text('[eval_harness]\nenabled = true\ncommand = "if [ -f w.txt ]; then echo 1; else echo 0; fi"\n'
                    "pass_threshold = 1\n[defaults]\nenable_refiner = false\n")
    rc, report, err = run(tmp_path, plan(repo, [writer("w", "echo w > w.txt && " + commit("w"))]), "scored",
                          "--config", str(toml))
    assert rc == 0 and report["status"] == "done", err
    scored = [e for e in journal(tmp_path / "state", "scored") if e["type"] == "eval"]
    assert scored[0]["score"] == 1.0 and scored[0]["head"] == git(repo, "rev-parse", "acteon/scored/integration")
    assert snapshot(repo) == before


def test_worktrees_made_at_once_in_one_repository_all_succeed(tmp_path: Path) -> None:
    """`git worktree add` reads the other worktrees' folders: run concurrently, one fails on another's
    half-made folder. The orchestrator makes them one at a time per repository (threads here, as parallel
    tasks do, and a separate process holding the same lock)."""
    from concurrent.futures import ThreadPoolExecutor

    from orchestrator.workspace.git import git as run_git

    repo = user_repo(tmp_path)
    head = git(repo, "rev-parse", "HEAD")

    def add(i: int) -> str:
        return run_git(repo, "worktree", "add", "-b", f"t{i}", str(tmp_path / "wt" / f"t{i}"), head).stdout

    with ThreadPoolExecutor(max_workers=12) as pool:
        list(pool.map(add, range(24)))  # raises if any add failed
    listed = git(repo, "worktree", "list", "--porcelain")
    assert sum(1 for line in listed.splitlines() if line.startswith("worktree ")) == 25
