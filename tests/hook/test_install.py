"""``acteon-swarm-hook install``: merges, never clobbers, right units, refuses unsafe targets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

HOOK = [sys.executable, "-I", "-S", str(ROOT / "hook" / "__main__.py")]


def _env(cwd: Path | None, **extra: str) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": str(cwd or Path.cwd()), "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"],
            **extra}


def install(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HOOK, "install", *args], capture_output=True, text=True, cwd=cwd, env=_env(cwd, **env))


def test_claude_command_hook_merges_into_existing_settings(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({
        "model": "opus", "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "mine.sh"}]}]},
    }))
    r = install("--cli", "claude", "--settings", str(path), "--key-file", "/k", "--budget", "40")
    assert r.returncode == 0, r.stderr
    s = json.loads(path.read_text())
    assert s["model"] == "opus" and s["permissions"] == {"allow": ["Bash(ls:*)"]}
    pre = s["hooks"]["PreToolUse"]
    assert pre[0] == {"matcher": "Write", "hooks": [{"type": "command", "command": "mine.sh"}]}
    ours = pre[1]["hooks"][0]
    assert pre[1]["matcher"] == "*"
    assert ours["onFailure"] == "block" and ours["timeout"] == 50  # seconds: budget + margin
    assert " gate --cli claude " in ours["command"] and "--key-file /k" in ours["command"]
    assert ours["command"].split()[1:3] == ["-I", "-S"]
    assert "complete --cli claude" in s["hooks"]["PostToolUse"][0]["hooks"][0]["command"]


def test_installing_twice_replaces_instead_of_duplicating(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    for _ in range(3):
        assert install("--cli", "claude", "--settings", str(path)).returncode == 0
    s = json.loads(path.read_text())
    assert len(s["hooks"]["PreToolUse"]) == 1 and len(s["hooks"]["PostToolUse"]) == 1
    assert install("--cli", "claude", "--settings", str(path), "--http").returncode == 0
    s = json.loads(path.read_text())
    assert len(s["hooks"]["PreToolUse"]) == 1 and s["hooks"]["PreToolUse"][0]["hooks"][0]["type"] == "http"


def test_claude_http_hook(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    r = install("--cli", "claude", "--settings", str(path), "--http", "--url", "http://127.0.0.1:9999")
    assert r.returncode == 0
    hook = json.loads(path.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]
    assert hook["type"] == "http" and hook["onFailure"] == "block"
    assert hook["url"].startswith("http://127.0.0.1:9999/v1/hooks/claude?approval_wait_s=")
    assert hook["headers"]["Authorization"] == "Bearer $ACTEON_AGENT_KEY"
    assert set(hook["allowedEnvVars"]) >= {"ACTEON_AGENT_KEY", "ACTEON_RUN_ID", "ACTEON_AGENT_ID"}


def test_claude_scopes(tmp_path: Path) -> None:
    assert install("--cli", "claude", "--scope", "local", cwd=tmp_path).returncode == 0
    assert (tmp_path / ".claude" / "settings.local.json").exists()
    assert install("--cli", "claude", "--scope", "project", cwd=tmp_path).returncode == 0
    assert (tmp_path / ".claude" / "settings.json").exists()


def test_gemini_hook_uses_milliseconds_and_enables_hooks(private_tmp: Path) -> None:
    d = private_tmp / "cfg"
    d.mkdir(mode=0o700)
    path = d / "settings.json"
    path.write_text(json.dumps({"hooksConfig": {"disabled": ["acteon-swarm-gate", "other"]}, "ui": {"theme": "x"}}))
    r = install("--cli", "gemini", "--settings", str(path), "--budget", "40")
    assert r.returncode == 0, r.stderr
    s = json.loads(path.read_text())
    gate = s["hooks"]["BeforeTool"][0]["hooks"][0]
    assert gate["timeout"] == 50_000 and gate["name"] == "acteon-swarm-gate" and "--cli gemini" in gate["command"]
    assert s["hooks"]["AfterTool"][0]["hooks"][0]["name"] == "acteon-swarm-complete"
    assert s["hooksConfig"]["enabled"] is True and s["hooksConfig"]["disabled"] == ["other"]
    assert s["ui"] == {"theme": "x"}


def test_gemini_refuses_a_group_or_world_writable_directory(private_tmp: Path) -> None:
    d = private_tmp / "shared"
    d.mkdir()
    d.chmod(0o777)
    r = install("--cli", "gemini", "--settings", str(d / "settings.json"))
    assert r.returncode == 2 and "writable by group or others" in r.stderr
    assert not (d / "settings.json").exists()


def test_gemini_has_no_http_hook(private_tmp: Path) -> None:
    d = private_tmp / "c"
    d.mkdir(mode=0o700)
    r = install("--cli", "gemini", "--settings", str(d / "s.json"), "--http")
    assert r.returncode == 2 and "no http hook" in r.stderr


def test_invalid_settings_file_is_not_touched(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text("{ this is not json")
    r = install("--cli", "claude", "--settings", str(path))
    assert r.returncode == 2 and "not valid JSON" in r.stderr
    assert path.read_text() == "{ this is not json"


def test_print_shows_without_writing(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    r = install("--cli", "claude", "--settings", str(path), "--print")
    assert r.returncode == 0 and "PreToolUse" in r.stdout and not path.exists()


def uninstall(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HOOK, "uninstall", *args], capture_output=True, text=True, cwd=cwd, env=_env(cwd, **env))


def test_uninstall_removes_exactly_what_install_added(tmp_path: Path, private_tmp: Path) -> None:
    """A way to uninstall the hook; other hooks, in the same events too, stay."""
    original = {
        "model": "opus",
        "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "mine.sh"}]}],
                  "Stop": [{"hooks": [{"type": "command", "command": "notify.sh"}]}]},
    }
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(original))
    for args in ((), ("--http",)):
        assert install("--cli", "claude", "--settings", str(path), *args).returncode == 0
        assert uninstall("--cli", "claude", "--settings", str(path)).returncode == 0
        assert json.loads(path.read_text()) == original
    bare = tmp_path / "bare.json"
    bare.write_text("{}")
    install("--cli", "claude", "--settings", str(bare))
    r = uninstall("--cli", "claude", "--settings", str(bare))
    assert r.returncode == 0 and "removed 2 acteon-swarm hook(s)" in r.stdout
    assert bare.read_bytes() == b"{}" and "as it was before install" in r.stdout
    created = tmp_path / "new" / "settings.json"
    install("--cli", "claude", "--settings", str(created))
    r = uninstall("--cli", "claude", "--settings", str(created))
    assert r.returncode == 0 and not created.exists() and "did not exist before install" in r.stdout
    d = private_tmp / "g"
    d.mkdir(mode=0o700)
    gem = d / "settings.json"
    gem.write_text(json.dumps({"ui": {"theme": "x"}, "hooks": {"BeforeTool": [
        {"matcher": "run_shell_command", "hooks": [{"name": "lint", "type": "command", "command": "lint.sh"}]}]}}))
    before = json.loads(gem.read_text())
    install("--cli", "gemini", "--settings", str(gem))
    assert uninstall("--cli", "gemini", "--settings", str(gem)).returncode == 0
    after = json.loads(gem.read_text())
    assert after["hooks"] == before["hooks"] and after["ui"] == before["ui"]


def test_uninstall_of_nothing_changes_nothing(tmp_path: Path) -> None:
    r = uninstall("--cli", "claude", "--settings", str(tmp_path / "none.json"))
    assert r.returncode == 0 and "nothing to remove" in r.stdout and not (tmp_path / "none.json").exists()
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    r = uninstall("--cli", "claude", "--settings", str(broken))
    assert r.returncode == 2 and "Traceback" not in r.stderr and broken.read_text() == "{not json"


def test_authoritative_is_written_only_when_asked(tmp_path: Path) -> None:
    plain, strong, http = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    install("--cli", "claude", "--settings", str(plain))
    install("--cli", "claude", "--settings", str(strong), "--authoritative")
    install("--cli", "claude", "--settings", str(http), "--http", "--authoritative")
    gate = json.loads(plain.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert " gate " in gate and "--authoritative" not in gate
    gate = json.loads(strong.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert "--authoritative" in gate
    assert "authoritative=1" in json.loads(http.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]["url"]


# The settings as a person wrote them: odd indentation, key order, no trailing newline.
HAND_WRITTEN = ('{\n    "ui":{"theme": "x"},\n  "hooks": {"BeforeTool": [{"matcher": "run_shell_command",\n'
                '      "hooks": [{"name": "lint", "type": "command", "command": "lint.sh"}]}]}\n}')


@pytest.mark.parametrize("hooks_config", [None, {"enabled": False}, {"enabled": True, "disabled": ["x"]}])
def test_every_uninstall_gives_the_file_back_byte_for_byte(private_tmp: Path, hooks_config: object) -> None:
    """Gemini's install also turns hooks on in ``hooksConfig``: uninstall turns that back too."""
    d = private_tmp / "g"
    d.mkdir(mode=0o700)
    path = d / "settings.json"
    text = HAND_WRITTEN
    if hooks_config is not None:
        text = HAND_WRITTEN[:-2] + f',\n "hooksConfig": {json.dumps(hooks_config)}\n}}'
    path.write_text(text)
    for _ in range(2):  # a second install is a re-install: the first one's record is kept
        assert install("--cli", "gemini", "--settings", str(path)).returncode == 0
    assert json.loads(path.read_text())["hooksConfig"]["enabled"] is True
    r = uninstall("--cli", "gemini", "--settings", str(path))
    assert r.returncode == 0, r.stderr
    assert path.read_text() == text and "as it was before install" in r.stdout


def test_a_file_edited_since_install_keeps_the_edits(private_tmp: Path) -> None:
    d = private_tmp / "g"
    d.mkdir(mode=0o700)
    path = d / "settings.json"
    path.write_text(HAND_WRITTEN)
    install("--cli", "gemini", "--settings", str(path))
    edited = json.loads(path.read_text())
    edited["ui"]["theme"] = "dark"
    path.write_text(json.dumps(edited))
    assert uninstall("--cli", "gemini", "--settings", str(path)).returncode == 0
    after = json.loads(path.read_text())
    assert after == {**json.loads(HAND_WRITTEN), "ui": {"theme": "dark"}}  # ours and hooksConfig gone, edit kept


def test_codex_hooks_file_at_each_scope(tmp_path: Path) -> None:
    """Codex reads hooks.json beside its config: $CODEX_HOME (user) or the project's .codex/ (trusted projects)."""
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    mine = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify.sh"}]}]}}
    (codex_home / "hooks.json").write_text(json.dumps(mine))
    r = install("--cli", "codex", "--scope", "user", "--budget", "40", cwd=tmp_path, CODEX_HOME=str(codex_home))
    assert r.returncode == 0, r.stderr
    assert "/hooks" in r.stdout  # the user is told Codex skips an untrusted hook
    s = json.loads((codex_home / "hooks.json").read_text())
    gate = s["hooks"]["PreToolUse"][0]
    assert gate["matcher"] == "*" and gate["hooks"][0]["timeout"] == 50
    assert " gate --cli codex " in gate["hooks"][0]["command"]
    assert "complete --cli codex" in s["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
    assert s["hooks"]["Stop"] == mine["hooks"]["Stop"]
    assert install("--cli", "codex", "--scope", "project", cwd=tmp_path).returncode == 0
    assert (tmp_path / ".codex" / "hooks.json").exists()
    assert install("--cli", "codex", "--http", "--settings", str(tmp_path / "h.json")).returncode == 2
    assert uninstall("--cli", "codex", "--scope", "user", cwd=tmp_path, CODEX_HOME=str(codex_home)).returncode == 0
    assert json.loads((codex_home / "hooks.json").read_text()) == mine
    assert uninstall("--cli", "codex", "--scope", "project", cwd=tmp_path).returncode == 0
    assert not (tmp_path / ".codex" / "hooks.json").exists()


def test_qwen_settings_in_milliseconds_at_each_scope(tmp_path: Path) -> None:
    """Qwen Code runs a call whose hook times out: the timeout written (ms) is the gate's budget plus a margin."""
    r = install("--cli", "qwen", "--scope", "project", "--budget", "40", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / ".qwen" / "settings.json").read_text())
    gate = s["hooks"]["PreToolUse"][0]
    assert gate["matcher"] == "*" and gate["hooks"][0]["timeout"] == 50_000
    assert " gate --cli qwen " in gate["hooks"][0]["command"]
    assert s["hooks"]["PostToolUse"][0]["hooks"][0]["timeout"] == 10_000
    assert install("--cli", "qwen", "--scope", "user", cwd=tmp_path).returncode == 0
    assert (tmp_path / ".qwen" / "settings.json").exists()  # HOME is tmp_path here: the same folder
    assert install("--cli", "qwen", "--http", "--settings", str(tmp_path / "h.json")).returncode == 2
    assert uninstall("--cli", "qwen", "--scope", "project", cwd=tmp_path).returncode == 0
    assert not (tmp_path / ".qwen" / "settings.json").exists()


def test_opencode_gets_the_plugin_file_and_a_foreign_one_is_left_alone(tmp_path: Path) -> None:
    r = install("--cli", "opencode", "--scope", "project", "--budget", "40", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    plugin = tmp_path / ".opencode" / "plugins" / "acteon-swarm.js"
    text = plugin.read_text()
    assert "gate --cli opencode" in text and "const BUDGET_MS = 50000;" in text and "throw new Error" in text
    assert install("--cli", "opencode", "--scope", "user", cwd=tmp_path,
                   XDG_CONFIG_HOME=str(tmp_path / "cfg")).returncode == 0
    assert (tmp_path / "cfg" / "opencode" / "plugins" / "acteon-swarm.js").exists()
    assert uninstall("--cli", "opencode", "--scope", "project", cwd=tmp_path).returncode == 0
    assert not plugin.exists()
    plugin.write_text("export const Mine = async () => ({});\n")  # the user's own file of that name
    r = install("--cli", "opencode", "--scope", "project", cwd=tmp_path)
    assert r.returncode == 2 and "not acteon-swarm's" in r.stderr
    r = uninstall("--cli", "opencode", "--scope", "project", cwd=tmp_path)
    assert r.returncode == 2 and plugin.read_text() == "export const Mine = async () => ({});\n"


def test_copilot_gets_a_hook_file_of_its_own(tmp_path: Path) -> None:
    r = install("--cli", "copilot", "--scope", "project", "--budget", "40", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    hooks = json.loads((tmp_path / ".github" / "hooks" / "acteon-swarm.json").read_text())
    (gate,) = hooks["hooks"]["preToolUse"]
    assert hooks["version"] == 1 and gate["timeoutSec"] == 50 and " gate --cli copilot " in gate["bash"]
    assert " complete --cli copilot " in hooks["hooks"]["postToolUse"][0]["bash"]
    assert install("--cli", "copilot", "--scope", "user", cwd=tmp_path).returncode == 0
    assert (tmp_path / ".copilot" / "hooks" / "acteon-swarm.json").exists()
    assert uninstall("--cli", "copilot", "--scope", "project", cwd=tmp_path).returncode == 0
    assert not (tmp_path / ".github" / "hooks" / "acteon-swarm.json").exists()
