"""``install`` / ``uninstall`` for Crush, Cursor, Windsurf, Antigravity (entries merged into the CLI's file,
which uninstall gives back byte for byte), Goose and Cline (files of our own); Cline's hook executable refuses
the call whenever the gate fails to answer."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.hook.fake_gateway import fake_gateway
from tests.hook.test_gate import decision, gw_env
from tests.hook.test_install import install, uninstall

# cli, (project file, user file) relative to the project / HOME, what the user had there first
MERGED = [
    ("crush", ".crush.json", ".config/crush/crush.json",
     '{\n  "options": {"debug": true},\n  "hooks": {"PreToolUse": [{"name": "fmt", "matcher": "^edit$", '
     '"command": "fmt.sh"}]}\n}\n'),
    ("cursor", ".cursor/hooks.json", ".cursor/hooks.json",
     '{"version": 1, "hooks": {"afterFileEdit": [{"command": "./fmt.sh"}],\n '
     '"preToolUse": [{"command": "audit.sh"}]}}'),
    ("windsurf", ".windsurf/hooks.json", ".codeium/windsurf/hooks.json",
     '{"hooks": {"pre_user_prompt": [{"command": "log.sh", "show_output": true}]}}\n'),
    ("antigravity", ".agents/hooks.json", ".gemini/config/hooks.json",
     '{"lint": {"enabled": true, "PostToolUse": [{"matcher": "write_to_file", "hooks": [{"type": "command", '
     '"command": "lint.sh"}]}]}}\n'),
]


@pytest.mark.parametrize(("cli", "project", "user", "theirs"), MERGED, ids=[m[0] for m in MERGED])
def test_merged_into_the_clis_file_and_given_back_byte_for_byte(tmp_path: Path, cli: str, project: str, user: str,
                                                                  theirs: str) -> None:
    for scope, rel in (("project", project), ("user", user)):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(theirs)
        for _ in range(2):  # a second install replaces the first, and keeps its record of the original
            r = install("--cli", cli, "--scope", scope, "--budget", "40", cwd=tmp_path,
                        XDG_CONFIG_HOME=str(tmp_path / ".config"))
            assert r.returncode == 0, r.stderr
        text = path.read_text()
        assert text.count(f"gate --cli {cli}") == (4 if cli == "windsurf" else 1)
        for key in json.loads(theirs):
            assert key in json.loads(text)  # nothing of theirs dropped
        r = uninstall("--cli", cli, "--scope", scope, cwd=tmp_path, XDG_CONFIG_HOME=str(tmp_path / ".config"))
        assert r.returncode == 0, r.stderr
        assert path.read_text() == theirs


def test_crush_gate_has_a_timeout_above_its_budget(tmp_path: Path) -> None:
    assert install("--cli", "crush", "--scope", "project", "--budget", "40", cwd=tmp_path).returncode == 0
    (gate,) = json.loads((tmp_path / ".crush.json").read_text())["hooks"]["PreToolUse"]
    assert gate["timeout"] == 50 and gate["matcher"] == ".*" and " gate --cli crush --budget 40" in gate["command"]


def test_cursor_gate_fails_closed_in_cursor(tmp_path: Path) -> None:
    assert install("--cli", "cursor", "--scope", "project", cwd=tmp_path).returncode == 0
    hooks = json.loads((tmp_path / ".cursor" / "hooks.json").read_text())
    (gate,) = hooks["hooks"]["preToolUse"]
    assert hooks["version"] == 1 and gate["failClosed"] is True and " gate --cli cursor " in gate["command"]
    assert " complete --cli cursor " in hooks["hooks"]["postToolUse"][0]["command"]


def test_windsurf_gates_its_four_pre_events(tmp_path: Path) -> None:
    assert install("--cli", "windsurf", "--scope", "project", cwd=tmp_path).returncode == 0
    hooks = json.loads((tmp_path / ".windsurf" / "hooks.json").read_text())["hooks"]
    assert sorted(hooks) == ["post_mcp_tool_use", "post_read_code", "post_run_command", "post_write_code",
                             "pre_mcp_tool_use", "pre_read_code", "pre_run_command", "pre_write_code"]
    assert all(" gate --cli windsurf " in hooks[e][0]["command"] for e in hooks if e.startswith("pre_"))


def test_antigravity_hook_is_named_and_enabled(tmp_path: Path) -> None:
    assert install("--cli", "antigravity", "--scope", "project", "--budget", "40", cwd=tmp_path).returncode == 0
    ours = json.loads((tmp_path / ".agents" / "hooks.json").read_text())["acteon-swarm"]
    (group,) = ours["PreToolUse"]
    assert ours["enabled"] is True and "matcher" not in group  # every tool
    assert group["hooks"][0]["timeout"] == 50 and " gate --cli antigravity " in group["hooks"][0]["command"]


def test_goose_gets_a_plugin_of_its_own_that_blocks_on_failure(tmp_path: Path) -> None:
    assert install("--cli", "goose", "--scope", "project", "--budget", "40", cwd=tmp_path).returncode == 0
    path = tmp_path / ".agents" / "plugins" / "acteon-swarm" / "hooks" / "hooks.json"
    hooks = json.loads(path.read_text())["hooks"]
    (gate,) = hooks["PreToolUse"][0]["hooks"]
    assert hooks["PreToolUse"][0]["matcher"] == ".*"  # Goose skips an entry whose matcher is `*`
    assert (gate["on_failure"], gate["timeout"]) == ("block", 50) and " gate --cli goose " in gate["command"]
    assert uninstall("--cli", "goose", "--scope", "project", cwd=tmp_path).returncode == 0
    assert not path.exists()
    path.write_text("{}")  # someone else's file of that name
    r = install("--cli", "goose", "--scope", "project", cwd=tmp_path)
    assert r.returncode == 2 and path.read_text() == "{}"


def _cline_hooks(tmp_path: Path, *args: str) -> Path:
    r = install("--cli", "cline", "--scope", "project", *args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return tmp_path / ".clinerules" / "hooks"


def test_cline_gets_two_executables_and_a_budget_inside_its_timeout(tmp_path: Path) -> None:
    hooks = _cline_hooks(tmp_path, "--budget", "40")
    for event in ("PreToolUse", "PostToolUse"):
        assert os.access(hooks / event, os.X_OK) and "acteon-swarm" in (hooks / event).read_text()
    assert " gate --cli cline --budget 40)" in (hooks / "PreToolUse").read_text()
    hooks = _cline_hooks(tmp_path, "--budget", "200")
    assert " gate --cli cline --budget 110)" in (hooks / "PreToolUse").read_text()  # Cline's 120 s minus a margin
    (hooks / "Stop").write_text("#!/bin/sh\n")  # the user's own hook stays
    assert uninstall("--cli", "cline", "--scope", "project", cwd=tmp_path).returncode == 0
    assert sorted(p.name for p in hooks.iterdir()) == ["Stop"]


EVENT = json.loads((Path(__file__).parent / "fixtures" / "cline-3.0.65" / "pre_run_commands.json").read_text())


def _run_script(script: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(script)], input=json.dumps(EVENT), capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ["PATH"], "ACTEON_AGENT_KEY": "k", **env})


def test_cline_script_passes_the_gates_answer_and_exits_0(tmp_path: Path) -> None:
    script = _cline_hooks(tmp_path) / "PreToolUse"
    with fake_gateway(lambda m, p, b: (200, decision("suppressed", False))) as (url, _seen, _r):
        r = _run_script(script, gw_env(url))
    assert r.returncode == 0  # Cline reads the answer only when the hook exits 0
    answer = json.loads(r.stdout.splitlines()[-1])
    assert answer["cancel"] is False and "because suppressed" in answer["contextModification"]
    with fake_gateway(lambda m, p, b: (200, decision("executed", True))) as (url, _seen, _r):
        r = _run_script(script, gw_env(url))
    assert (r.returncode, json.loads(r.stdout)) == (0, {})  # the whole output is one JSON answer


def test_cline_script_refuses_when_the_gate_cannot_run(tmp_path: Path) -> None:
    script = _cline_hooks(tmp_path) / "PreToolUse"
    text = script.read_text()
    interpreter = text.split("answer=$(", 1)[1].split(" ", 1)[0]
    script.write_text(text.replace(interpreter, str(tmp_path / "no-such-python")))  # the hook cannot start
    r = _run_script(script, {})
    assert r.returncode == 0
    answer = json.loads(r.stdout.splitlines()[-1])
    assert answer["cancel"] is True and "fail closed" in answer["errorMessage"]
