"""File scopes enforced by the gateway, and scope claims with fencing tokens — the same tests on fakeredis
and on a real Redis. A key minted for one agent carries its worktree and scope: writes outside them are
suppressed before any rule (write tools by path, shell commands by what the analysis finds they write, git
anywhere but inside the worktree); a claim that lapsed refuses its holder's calls by token."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ADMIN, FakeClock, call

ROOT = "/work/wt/task-a"
SCOPE = ["src/api/**", "docs/api.md"]


def _run(client: TestClient, run_id: str = "r1") -> None:
    r = client.post("/v1/runs", json={"run_id": run_id}, headers=ADMIN)
    assert r.status_code == 201, r.text


def _key(client: TestClient, run_id: str = "r1", **body: Any) -> dict[str, str]:
    r = client.post(f"/v1/runs/{run_id}/agent-keys", json={"agent_id": "a.1", "root": ROOT, **body}, headers=ADMIN)
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['agent_key']}"}


def _go(client: TestClient, key: dict[str, str], **fields: Any) -> dict[str, Any]:
    fields.setdefault("cwd", ROOT)
    r = client.post("/v1/dispatch", json=call(run_id="r1", **fields), headers=key)
    assert r.status_code == 200, r.text
    return dict(r.json())


@pytest.mark.parametrize("command", [
    "echo x > src/api/new.py",
    "tee docs/api.md < /dev/null",
    "sed -i s/a/b/ src/api/handlers/users.py",
    "cp README.md src/api/",
    "python3 -c \"open('src/api/x.py', 'w').write('')\"",
    "echo log > /tmp/build.log",  # temporary files are nobody's work
    "git status && git add -A && git commit -qm done",
    "pytest -q > /dev/null",
    "mkdir -p src/api/v2 && echo x > src/api/v2/a.py",
    "mkdir -p src docs",  # parents of files in the scope
])
def test_writes_inside_the_scope_run(client: TestClient, command: str) -> None:
    _run(client)
    out = _go(client, _key(client, files_scope=SCOPE), command=command)
    assert out["outcome"] == "executed", out


@pytest.mark.parametrize(("command", "why"), [
    ("echo x > src/db/models.py", "outside the task's file scope"),
    ("echo x >> README.md", "outside the task's file scope"),
    ("ls | tee src/other.txt", "outside the task's file scope"),
    ("sed -i 's/a/b/' setup.cfg", "outside the task's file scope"),
    ("cp src/api/a.py lib/a.py", "outside the task's file scope"),
    ("mv src/api/a.py src/b.py", "outside the task's file scope"),
    ("python3 -c \"open('conftest.py', 'w').write('x')\"", "outside the task's file scope"),
    ("python3 -c \"import sys; open(sys.argv[1], 'w')\" src/api/x", "cannot determine"),
    ("echo x > $OUT", "cannot determine"),
    ("cd .. && echo x > task-b/src/api/a.py", "outside this agent's worktree"),
    ("echo x > /work/repo/src/api/a.py", "outside this agent's worktree"),
    ("rm -rf src", "outside the task's file scope"),
    ("git -C ../elsewhere commit -am x", "runs git in /work/wt/elsewhere"),
    ("git --git-dir=/work/repo/.git log", "runs git in /work/repo/.git"),
    ("git --work-tree=/work/repo checkout -- .", "outside this agent's worktree"),
    ("GIT_DIR=/work/repo/.git git status", "outside this agent's worktree"),
    ("cd /work/repo && git status", "outside this agent's worktree"),
    ("cd $X && git log", "cannot determine"),
    ("echo 'gitdir: /elsewhere' > .git", "git link"),
    ("mkdir -p src/db", "outside the task's file scope"),
    ("mkdir ../task-b/x", "outside this agent's worktree"),
])
def test_writes_outside_the_scope_are_suppressed_with_a_reason(client: TestClient, command: str, why: str) -> None:
    _run(client)
    out = _go(client, _key(client, files_scope=SCOPE), command=command)
    assert out["outcome"] == "suppressed" and out["rule"] == "file-scope", out
    assert why in out["reason"] and "file scope" in out["reason"]


def test_write_tools_are_held_to_the_scope_and_the_worktree(client: TestClient) -> None:
    _run(client)
    key = _key(client, files_scope=SCOPE)
    assert _go(client, key, tool="Write", file_path=f"{ROOT}/src/api/v2.py", content="x")["outcome"] == "executed"
    assert _go(client, key, tool="Edit", file_path="docs/api.md")["outcome"] == "executed"
    out = _go(client, key, tool="Write", file_path=f"{ROOT}/src/core.py", content="x")
    assert out["outcome"] == "suppressed" and "src/core.py" in out["reason"]
    out = _go(client, key, tool="write_file", file_path="/work/repo/src/api/a.py", content="x")
    assert out["outcome"] == "suppressed" and "outside this agent's worktree" in out["reason"]
    # reading is not writing: reads anywhere are up to the rules
    assert _go(client, key, tool="Read", file_path="/work/repo/README.md")["outcome"] == "executed"


def test_a_task_without_a_scope_writes_anywhere_in_its_worktree_only(client: TestClient) -> None:
    _run(client)
    key = _key(client)
    assert _go(client, key, command="echo x > anything/at/all.txt")["outcome"] == "executed"
    assert _go(client, key, command="echo x > ../task-b/x.txt")["outcome"] == "suppressed"


def test_the_key_decides_who_calls_and_the_audit_says_so(client: TestClient) -> None:
    _run(client)
    key = _key(client, files_scope=SCOPE)
    out = _go(client, key, command="echo x > src/db.py", agent_id="someone-else")
    assert out["outcome"] == "suppressed"
    records = client.get("/v1/runs/r1/audit", headers=ADMIN).json()["records"]
    assert records[-1]["agent_id"] == "a.1" and records[-1]["rule"] == "file-scope"
    assert client.get("/v1/runs/r1/stats", headers=ADMIN).json()["suppressed"] == 1


def test_bad_bindings_are_refused_clearly(client: TestClient) -> None:
    _run(client)
    for body, text in (({"agent_id": "a", "root": "relative/dir"}, "root"),
                       ({"agent_id": "a", "root": ROOT, "files_scope": ["../up/**"]}, ".."),
                       ({"agent_id": "a", "root": ROOT, "files_scope": ["/abs/**"]}, "absolute"),
                       ({"agent_id": "a", "root": ROOT, "claim": {"repo": "/r", "claim_id": "0" * 16, "token": 1}},
                        "not held")):
        r = client.post("/v1/runs/r1/agent-keys", json=body, headers=ADMIN)
        assert r.status_code in (400, 422) and text in r.text, r.text


# --- claims -----------------------------------------------------------------------------------------

REPO = "/work/repo/.git"


def _claim(client: TestClient, owner: str, globs: list[str], mode: str = "write", ttl_s: float = 30) -> Any:
    return client.post("/v1/claims", json={"repo": REPO, "owner": owner, "globs": globs, "mode": mode,
                                           "ttl_s": ttl_s}, headers=ADMIN)


def test_overlapping_write_claims_are_refused_glob_against_glob(client: TestClient) -> None:
    first = _claim(client, "run1/a", ["src/**"])
    assert first.status_code == 201
    refused = _claim(client, "run2/b", ["src/api/*.py"])
    assert refused.status_code == 409
    assert "'src/api/*.py' overlaps 'src/**' claimed (write) by run1/a" in refused.text
    assert _claim(client, "run2/b", ["docs/**"]).status_code == 201  # disjoint: granted
    assert _claim(client, "run2/c", ["src/*"], mode="read").status_code == 409  # read vs write: exclusive
    r1 = _claim(client, "run3/r", ["lib/**"], mode="read")
    r2 = _claim(client, "run4/r", ["lib/x/**"], mode="read")
    assert r1.status_code == r2.status_code == 201  # reads are shared
    assert _claim(client, "run5/w", ["lib/x/y.py"]).status_code == 409
    tokens = [first.json()["token"], r1.json()["token"], r2.json()["token"]]
    assert tokens == sorted(tokens) and len(set(tokens)) == 3  # the fencing token increases with every grant


def test_a_lapsed_claim_refuses_its_holder_by_token(client: TestClient, clock: FakeClock) -> None:
    _run(client)
    got = _claim(client, "r1/a", ["src/api/**"], ttl_s=10).json()
    ref = {"repo": REPO, "claim_id": got["claim_id"], "token": got["token"]}
    key = _key(client, files_scope=["src/api/**"], claim=ref)
    assert _go(client, key, command="echo x > src/api/a.py")["outcome"] == "executed"
    clock.advance(5_000)
    renewed = client.post(f"/v1/claims/{got['claim_id']}/renew", json={"repo": REPO, "token": got["token"],
                                                                       "ttl_s": 10}, headers=ADMIN)
    assert renewed.status_code == 200
    clock.advance(9_000)  # still within the renewed lease
    assert _go(client, key, command="echo x > src/api/a.py")["outcome"] == "executed"
    clock.advance(2_000)  # the heartbeat stopped: the lease lapsed
    out = _go(client, key, command="echo x > src/api/a.py")
    assert out["outcome"] == "suppressed" and out["rule"] == "scope-claim" and str(got["token"]) in out["reason"]
    # a lapsed claim is not revived; somebody else may now claim the globs, with a newer token
    assert client.post(f"/v1/claims/{got['claim_id']}/renew", json={"repo": REPO, "token": got["token"]},
                       headers=ADMIN).status_code == 409
    other = _claim(client, "r2/b", ["src/**"])
    assert other.status_code == 201 and other.json()["token"] > got["token"]
    assert _go(client, key, command="echo x > src/api/a.py")["outcome"] == "suppressed"


def test_release_frees_the_globs_and_needs_the_token(client: TestClient) -> None:
    got = _claim(client, "r1/a", ["src/**"]).json()
    bad = client.delete(f"/v1/claims/{got['claim_id']}", params={"repo": REPO, "token": got["token"] + 1},
                        headers=ADMIN)
    assert bad.json()["released"] is False
    assert _claim(client, "r2/b", ["src/x"]).status_code == 409
    ok = client.delete(f"/v1/claims/{got['claim_id']}", params={"repo": REPO, "token": got["token"]}, headers=ADMIN)
    assert ok.json()["released"] is True
    assert _claim(client, "r2/b", ["src/x"]).status_code == 201
    listed = client.get("/v1/claims", params={"repo": REPO}, headers=ADMIN).json()["claims"]
    assert [c["owner"] for c in listed] == ["r2/b"]


def test_a_released_claim_cuts_off_its_agents_in_every_run(client: TestClient) -> None:
    """Each run's decisions read the run's own copy of the claim: a release reaches every copy, a refused
    release (the wrong token) none."""
    got = _claim(client, "r1/a", ["src/**"]).json()
    ref = {"repo": REPO, "claim_id": got["claim_id"], "token": got["token"]}
    keys = {}
    for run_id in ("r1", "r2"):
        _run(client, run_id)
        keys[run_id] = _key(client, run_id, files_scope=["src/**"], claim=ref)

    def outcome(run_id: str) -> str:
        r = client.post("/v1/dispatch", json=call(run_id=run_id, command="echo x > src/a.py", cwd=ROOT),
                        headers=keys[run_id])
        assert r.status_code == 200, r.text
        return str(r.json()["outcome"])

    assert [outcome("r1"), outcome("r2")] == ["executed", "executed"]
    client.delete(f"/v1/claims/{got['claim_id']}", params={"repo": REPO, "token": got["token"] + 1}, headers=ADMIN)
    assert [outcome("r1"), outcome("r2")] == ["executed", "executed"]
    client.delete(f"/v1/claims/{got['claim_id']}", params={"repo": REPO, "token": got["token"]}, headers=ADMIN)
    assert [outcome("r1"), outcome("r2")] == ["suppressed", "suppressed"]


def test_claims_need_the_admin_key(client: TestClient) -> None:
    _run(client)
    key = _key(client)
    r = client.post("/v1/claims", json={"repo": REPO, "owner": "x", "globs": ["**"]}, headers=key)
    assert r.status_code == 403
