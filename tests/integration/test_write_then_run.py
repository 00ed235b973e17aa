"""Write, then run: every way an agent runs a file it just wrote is judged by what the file does.

Real files in a temporary workspace, the installed `acteon-swarm-hook` run as the CLIs run it, a real
gateway process on a password-protected redis-server. Each form is tried with a destructive payload (it
must be refused at write time or at run time) and with an everyday one (both calls must run). A write the
gateway allows is performed on disk before the run, as the CLI would.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import ROOT, free_port, gateway_process, require

HARM = "rm -rf ~/important"
EVERYDAY = "rm -rf build && pytest -q"


@dataclass(frozen=True)
class Form:
    name: str
    path: str  # the file written, relative to the workspace
    text: str  # its content, with {payload} for the command it runs
    run: str  # the command that runs it
    executable: bool = False


FORMS = [
    Form("bash-script", "scripts/cleanup.sh", "#!/usr/bin/env bash\nset -euo pipefail\n{payload}\n",
         "bash scripts/cleanup.sh"),
    Form("script-by-path", "scripts/cleanup.sh", "#!/bin/sh\n{payload}\n", "./scripts/cleanup.sh", executable=True),
    Form("sourced", "env/setup.sh", "export APP_ENV=dev\n{payload}\n", "source env/setup.sh"),
    Form("dirname-idiom", "scripts/clean.sh", '#!/bin/sh\ncd "$(dirname "$0")/.."\n{payload}\n', "sh scripts/clean.sh"),
    Form("make-target", "Makefile", ".PHONY: clean\nclean:\n\t{payload}\n", "make clean"),
    Form("make-prerequisite", "Makefile", "all: tidy\ntidy:\n\t{payload}\nbuild:\n\techo ok\n", "make"),
    Form("package-script", "package.json", json.dumps({"scripts": {"clean": "{payload}"}}), "npm run clean"),
    Form("package-lifecycle", "package.json", json.dumps({"scripts": {"pretest": "{payload}", "test": "true"}}),
         "npm test"),
    Form("just-recipe", "justfile", "clean:\n    {payload}\n", "just clean"),
    Form("taskfile", "Taskfile.yml", "version: '3'\ntasks:\n  clean:\n    cmds:\n      - {payload}\n", "task clean"),
    Form("python-source", "tools/clean.py", "import subprocess\nsubprocess.run({payload!r}, shell=True)\n",
         "python3 tools/clean.py"),
    Form("node-source", "tools/clean.mjs",
         "import { execSync } from 'node:child_process';\nexecSync({payload_json});\n", "node tools/clean.mjs"),
    Form("python-shebang", "tools/clean", "#!/usr/bin/env python3\nimport os\nos.system({payload!r})\n",
         "./tools/clean", executable=True),
]


def _content(form: Form, payload: str) -> str:
    return form.text.replace("{payload!r}", repr(payload)).replace("{payload_json}", json.dumps(payload)) \
        .replace("{payload}", payload.replace('"', '\\"') if form.path == "package.json" else payload)


@pytest.fixture(scope="module")
def gateway(redis_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A gateway with the default pack minus its traffic gates (throttles and dedup: this test makes many
    calls in a few seconds, and decisions are what it checks)."""
    base = tmp_path_factory.mktemp("wtr")
    rules = base / "rules"
    rules.mkdir()
    pack = yaml.safe_load((ROOT / "rules" / "default.yaml").read_text())
    pack["rules"] = [r for r in pack["rules"] if r["action"] not in ("throttle", "deduplicate")]
    (rules / "default.yaml").write_text(yaml.safe_dump(pack))
    state = base / "state"
    env = {"ACTEON_ADMIN_KEY": "adm-wtr", "ACTEON_STATE_DIR": str(state), "ACTEON_RULES_DIR": str(rules),
           "ACTEON_REDIS_URL": redis_server}
    with gateway_process(env) as url:
        yield {"url": url, "key": (state / "default-agent.key").read_text().strip(), "base": base}


def hook_command(budget_s: float) -> list[str]:
    installed = Path(sys.executable).with_name("acteon-swarm-hook")
    found = str(installed) if installed.exists() else shutil.which("acteon-swarm-hook")
    require("the installed acteon-swarm-hook command", found is not None)
    # authoritative, as orchestrated agents run it: an allow is an explicit allow to assert on
    return [str(found), "gate", "--cli", "claude", "--budget", str(budget_s), "--authoritative"]


def ask(gw: dict[str, Any], home: Path, workspace: Path, tool: str, tool_input: dict[str, Any],
        budget_s: float = 20) -> tuple[bool, str]:
    event = {"session_id": "wtr-session", "hook_event_name": "PreToolUse", "tool_name": tool,
             "tool_input": tool_input, "cwd": str(workspace), "tool_use_id": "toolu_wtr"}
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "ACTEON_URL": gw["url"], "ACTEON_AGENT_KEY": gw["key"],
           "ACTEON_AGENT_ID": "writer"}
    p = subprocess.run(hook_command(budget_s), input=json.dumps(event), capture_output=True, text=True, env=env,
                       timeout=60, cwd=workspace)
    answer = json.loads(p.stdout)["hookSpecificOutput"]
    return answer["permissionDecision"] == "allow", answer.get("permissionDecisionReason", "")


def attempt(gw: dict[str, Any], tmp_path: Path, form: Form, payload: str) -> list[tuple[str, bool, str]]:
    """Write the file through the hook (and to disk when allowed), then run it through the hook."""
    home = tmp_path / "home"
    workspace = home / "work" / "proj"
    workspace.mkdir(parents=True)
    (home / "important").mkdir()
    target = workspace / form.path
    content = _content(form, payload)
    allowed, reason = ask(gw, home, workspace, "Write", {"file_path": str(target), "content": content})
    steps = [("write", allowed, reason)]
    if not allowed:
        return steps
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content)
    if form.executable:
        target.chmod(0o755)
    allowed, reason = ask(gw, home, workspace, "Bash", {"command": form.run})
    steps.append(("run", allowed, reason))
    return steps


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.name)
def test_a_destructive_file_is_refused_when_written_or_when_run(gateway, tmp_path: Path, form: Form) -> None:
    steps = attempt(gateway, tmp_path, form, HARM)
    assert not all(allowed for _, allowed, _ in steps), steps
    refused = next(reason for _, allowed, reason in steps if not allowed)
    assert "destructive" in refused, refused


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.name)
def test_the_same_file_with_everyday_work_runs(gateway, tmp_path: Path, form: Form) -> None:
    steps = attempt(gateway, tmp_path, form, EVERYDAY)
    assert [s[0] for s in steps] == ["write", "run"] and all(allowed for _, allowed, _ in steps), steps


def test_a_script_written_by_the_shell_is_judged_when_run(gateway, tmp_path: Path) -> None:
    """No Write tool involved. A script the shell spells out is judged as it is written, as the editor's write of
    it would be; one whose text the command line does not show (copied from a template) is judged when it runs,
    by the file the hook attaches."""
    home = tmp_path / "home"
    workspace = home / "work" / "proj"
    workspace.mkdir(parents=True)
    spelled = f"mkdir -p scripts && printf '%s\\n' '{HARM}' > scripts/x.sh"
    allowed, reason = ask(gateway, home, workspace, "Bash", {"command": spelled})
    assert not allowed and "destructive" in reason
    (workspace / "templates").mkdir()
    (workspace / "templates" / "x.tpl").write_text(HARM + "\n")
    write = "mkdir -p scripts && cp templates/x.tpl scripts/x.sh"
    allowed, _ = ask(gateway, home, workspace, "Bash", {"command": write})
    assert allowed
    subprocess.run(["bash", "-c", write], cwd=workspace, check=True)  # as the CLI would, once allowed
    allowed, reason = ask(gateway, home, workspace, "Bash", {"command": "sh scripts/x.sh"})
    assert not allowed and "destructive" in reason


def test_a_program_too_large_to_send_is_not_run_unseen(gateway, tmp_path: Path) -> None:
    home = tmp_path / "home"
    workspace = home / "work" / "proj"
    workspace.mkdir(parents=True)
    big = "#!/bin/sh\n" + "# padding\n" * 20_000 + "echo hi\n"
    allowed, _ = ask(gateway, home, workspace, "Write", {"file_path": str(workspace / "big.sh"), "content": big})
    assert allowed
    (workspace / "big.sh").write_text(big)
    allowed, reason = ask(gateway, home, workspace, "Bash", {"command": "bash big.sh"}, budget_s=2)
    assert not allowed and "approval" in reason.lower(), reason


def test_the_projects_own_scripts_keep_being_judged_by_the_command_line(gateway, tmp_path: Path) -> None:
    """A file nobody in the run wrote (the project's `scripts/test`) runs as before, whatever it holds."""
    home = tmp_path / "home"
    workspace = home / "work" / "proj"
    (workspace / "scripts").mkdir(parents=True)
    (workspace / "scripts" / "show-env.sh").write_text("#!/bin/sh\nenv\n")
    allowed, reason = ask(gateway, home, workspace, "Bash", {"command": "sh scripts/show-env.sh"})
    assert allowed, reason


def test_a_key_file_named_in_a_command_is_never_sent(tmp_path: Path) -> None:
    """The hook ships programs only: naming a private key in a command does not copy it to the gateway."""
    from acteon_core.attachments import attach

    (tmp_path / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n")
    (tmp_path / "run.sh").write_text("echo hi\n")
    sent = attach("ssh -i id_ed25519 host && sh run.sh", str(tmp_path))
    assert list(sent) == [str(tmp_path / "run.sh")]


@pytest.fixture
def downloads(tmp_path: Path) -> Iterator[str]:
    """A real web server on loopback serving an install script and a compiled program."""
    served = tmp_path / "served"
    served.mkdir()
    (served / "install.sh").write_text("#!/bin/sh\necho installing\n")
    shutil.copy("/bin/true", served / "tool")
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"], cwd=served,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(200):  # until it answers (a connection attempt, not a timed wait)
            if subprocess.run(["curl", "-fs", "-o", "/dev/null", url], check=False).returncode == 0:
                break
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.parametrize(("fetch", "run"), [
    ("curl -fsSL -o install.sh {url}/install.sh", "bash install.sh"),
    ("curl -fsSL {url}/install.sh > setup.sh && chmod +x setup.sh", "./setup.sh"),
    ("mkdir -p bin && curl -fsSLo bin/tool {url}/tool && chmod +x bin/tool", "./bin/tool --version"),
])
def test_a_file_downloaded_in_one_call_is_downloaded_code_in_the_next(gateway, tmp_path: Path, downloads: str,
                                                                       fetch: str, run: str) -> None:
    require("curl", shutil.which("curl") is not None)
    home = tmp_path / "home"
    workspace = home / "work" / "proj"
    workspace.mkdir(parents=True)
    fetch = fetch.format(url=downloads)
    allowed, reason = ask(gateway, home, workspace, "Bash", {"command": fetch})
    assert allowed, reason
    subprocess.run(["bash", "-c", fetch], cwd=workspace, check=True)  # as the CLI would, once allowed
    allowed, reason = ask(gateway, home, workspace, "Bash", {"command": run})
    assert not allowed and "remote" in reason.lower(), reason


def test_the_projects_own_compiled_program_runs(gateway, tmp_path: Path) -> None:
    home = tmp_path / "home"
    workspace = home / "work" / "proj"
    (workspace / "bin").mkdir(parents=True)
    shutil.copy("/bin/true", workspace / "bin" / "tool")
    allowed, reason = ask(gateway, home, workspace, "Bash", {"command": "./bin/tool --version"})
    assert allowed, reason
