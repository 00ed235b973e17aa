"""End-to-end fixtures: the real ``claude`` and ``gemini`` binaries, a real gateway process, a scripted
fake model, and a sandbox (workspace + HOME) in an owner-only directory."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.fake_models import Script, fake_model
from tests.support import ROOT, free_port, gateway_process, require

ADMIN_KEY = "e2e-admin-key"
CLI_DIR = Path(os.environ.get("ACTEON_E2E_CLI_DIR", ROOT / ".e2e-cli")) / "node_modules" / ".bin"
HOOK_MAIN = ROOT / "hook" / "__main__.py"


def _binary(name: str) -> str:
    path = CLI_DIR / name
    found = str(path) if path.exists() else shutil.which(name)
    require(f"the {name} CLI (scripts/test installs it into .e2e-cli)", found is not None)
    return str(found)


@pytest.fixture(scope="session")
def claude_bin() -> str:
    return _binary("claude")


@pytest.fixture(scope="session")
def gemini_bin() -> str:
    return _binary("gemini")


@pytest.fixture(scope="session")
def codex_bin() -> str:
    return _binary("codex")


@pytest.fixture(scope="session")
def qwen_bin() -> str:
    return _binary("qwen")


@pytest.fixture(scope="session")
def opencode_bin() -> str:
    return _binary("opencode")


@pytest.fixture(scope="session")
def copilot_bin() -> str:
    return _binary("copilot")


@pytest.fixture(scope="session")
def cline_bin() -> str:
    return _binary("cline")


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One gateway process (embedded store, default pack) for a test module; tests use separate runs."""
    state = tmp_path_factory.mktemp("gw-state")
    with gateway_process({"ACTEON_ADMIN_KEY": ADMIN_KEY, "ACTEON_STATE_DIR": str(state)}) as url:
        yield url


@dataclass
class Sandbox:
    root: Path
    workspace: Path
    home: Path

    def precious(self) -> Path:
        """A directory in HOME that a destructive command would delete."""
        d = self.home / "precious"
        d.mkdir(exist_ok=True)
        (d / "data.txt").write_text("keep me")
        return d


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    base = Path.home() / ".cache" / "acteon-swarm-tests"
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    root = Path(tempfile.mkdtemp(dir=base, prefix="e2e-"))
    (root / "ws").mkdir()
    (root / "home").mkdir()
    try:
        yield Sandbox(root, root / "ws", root / "home")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def new_run(gateway: str, run_id: str) -> str:
    r = httpx.post(f"{gateway}/v1/runs", json={"run_id": run_id}, headers={"Authorization": f"Bearer {ADMIN_KEY}"})
    assert r.status_code == 201, r.text
    return str(r.json()["agent_key"])


def scoped_key(gateway: str, run_id: str, root: Path, files_scope: list[str]) -> str:
    """A new run, and an agent key held to ``root`` and ``files_scope`` in it (as a task in a worktree has)."""
    new_run(gateway, run_id)
    r = httpx.post(f"{gateway}/v1/runs/{run_id}/agent-keys", headers={"Authorization": f"Bearer {ADMIN_KEY}"},
                   json={"agent_id": "scoped-agent", "root": str(root), "files_scope": files_scope})
    assert r.status_code == 201, r.text
    return str(r.json()["agent_key"])


def audit(gateway: str, run_id: str) -> list[dict[str, Any]]:
    r = httpx.get(f"{gateway}/v1/runs/{run_id}/audit?limit=1000", headers={"Authorization": f"Bearer {ADMIN_KEY}"})
    return list(r.json()["records"])


def install(cli: str, settings: Path, url: str, *extra: str) -> None:
    # what install found is recorded beside the sandbox, not in the real home (hook/originals.py)
    env = {**os.environ, "XDG_STATE_HOME": str(settings.parent / ".state")}
    r = subprocess.run([sys.executable, "-I", "-S", str(HOOK_MAIN), "install", "--cli", cli, "--settings",
                        str(settings), "--url", url, *extra], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    script: Script


def run_claude(claude_bin: str, sb: Sandbox, script: Script, *, gateway: str, run_id: str, key: str,
               http: bool = False, agent_id: str = "claude-agent-1", authoritative: bool = True) -> Result:
    """Claude headless in its default permission mode (Bash is not in an allow list), the gate installed
    --authoritative as orchestrated runs install it, unless ``authoritative`` is False."""
    settings = sb.root / "claude-settings.json"
    install("claude", settings, gateway, *(["--http"] if http else []), "--budget", "20",
            *(["--authoritative"] if authoritative else []))
    with fake_model(script) as model:
        env = {
            "PATH": os.environ["PATH"], "HOME": str(sb.home), "ANTHROPIC_BASE_URL": model,
            "ANTHROPIC_API_KEY": "sk-ant-fake", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1", "ACTEON_AGENT_KEY": key, "ACTEON_RUN_ID": run_id, "ACTEON_AGENT_ID": agent_id,
        }
        p = subprocess.run(
            [claude_bin, "-p", "Do the task.", "--settings", str(settings), "--setting-sources", "",
             "--output-format", "json", "--no-session-persistence"],
            cwd=sb.workspace, env=env, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
        )
    return Result(p.returncode, p.stdout, p.stderr, script)


def run_gemini(gemini_bin: str, sb: Sandbox, script: Script, *, gateway: str, run_id: str, key: str,
               agent_id: str = "gemini-agent-1", authoritative: bool = True) -> Result:
    cfg = sb.root / "gemini-system"
    cfg.mkdir(mode=0o700, exist_ok=True)
    settings = cfg / "settings.json"
    settings.write_text(json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False}, "model": {"name": "gemini-2.5-flash"},
    }))
    install("gemini", settings, gateway, "--budget", "20", *(["--authoritative"] if authoritative else []))
    with fake_model(script) as model:
        env = {
            "PATH": os.environ["PATH"], "HOME": str(sb.home), "GOOGLE_GEMINI_BASE_URL": model,
            "GEMINI_API_KEY": "fake", "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(settings), "GEMINI_TELEMETRY_ENABLED": "false",
            "ACTEON_AGENT_KEY": key, "ACTEON_RUN_ID": run_id, "ACTEON_AGENT_ID": agent_id,
        }
        p = subprocess.run(
            [gemini_bin, "-p", "Do the task.", "--yolo", "--output-format", "json"],
            cwd=sb.workspace, env=env, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
        )
    return Result(p.returncode, p.stdout, p.stderr, script)


# A model Codex has no metadata for, described the way its own catalog describes models: with the freeform
# apply_patch tool (which Codex offers only to models whose metadata asks for it).
CODEX_MODEL = {
    "slug": "fake-coder", "display_name": "fake coder", "description": "scripted", "base_instructions": "Code.",
    "apply_patch_tool_type": "freeform", "shell_type": "shell_command", "visibility": "list",
    "supported_in_api": True, "priority": 1, "context_window": 100_000, "supported_reasoning_levels": [],
    "default_reasoning_level": None, "input_modalities": ["text"], "supports_parallel_tool_calls": False,
    "truncation_policy": {"mode": "tokens", "limit": 10_000}, "support_verbosity": False,
    "experimental_supported_tools": [],
}


def run_codex(codex_bin: str, sb: Sandbox, script: Script, *, gateway: str, run_id: str, key: str,
              agent_id: str = "codex-agent-1", budget: str = "20", gated: bool = True) -> Result:
    """``codex exec`` with the gate installed in its hooks.json by the installer (``gated``), against the fake
    Responses API, with no sandbox: the gate is all that stands between the model and the machine.
    ``--dangerously-bypass-hook-trust`` stands for the user having trusted the hook in ``/hooks``."""
    codex_home = sb.root / "codex-home"
    codex_home.mkdir(mode=0o700, exist_ok=True)
    (codex_home / "models.json").write_text(json.dumps({"models": [CODEX_MODEL]}))
    with fake_model(script) as model:
        (codex_home / "config.toml").write_text(
            f'model = "fake-coder"\nmodel_provider = "fake"\nmodel_catalog_json = "{codex_home / "models.json"}"\n'
            f'check_for_update_on_startup = false\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "{model}/v1"\nwire_api = "responses"\n')
        if gated:
            install("codex", codex_home / "hooks.json", gateway, "--budget", budget, "--authoritative")
        else:
            subprocess.run([sys.executable, "-I", "-S", str(HOOK_MAIN), "uninstall", "--cli", "codex", "--settings",
                            str(codex_home / "hooks.json")], check=True, capture_output=True,
                           env={**os.environ, "XDG_STATE_HOME": str(codex_home / ".state")})
        env = {
            "PATH": os.environ["PATH"], "HOME": str(sb.home), "CODEX_HOME": str(codex_home),
            "ACTEON_AGENT_KEY": key, "ACTEON_RUN_ID": run_id, "ACTEON_AGENT_ID": agent_id,
        }
        p = subprocess.run(
            [codex_bin, "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "--sandbox",
             "danger-full-access", "--json", "Do the task."],
            cwd=sb.workspace, env=env, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
        )
    return Result(p.returncode, p.stdout, p.stderr, script)


def run_qwen(qwen_bin: str, sb: Sandbox, script: Script, *, gateway: str, run_id: str, key: str,
             agent_id: str = "qwen-agent-1", budget: str = "20") -> Result:
    """Qwen Code headless in yolo mode (the gate is the only check), its model API Anthropic's (the fake's),
    the gate installed --authoritative in the user's ~/.qwen/settings.json."""
    install("qwen", sb.home / ".qwen" / "settings.json", gateway, "--budget", budget, "--authoritative")
    with fake_model(script) as model:
        env = {
            "PATH": os.environ["PATH"], "HOME": str(sb.home), "ANTHROPIC_BASE_URL": model,
            "ANTHROPIC_API_KEY": "sk-ant-fake", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
            "ACTEON_AGENT_KEY": key, "ACTEON_RUN_ID": run_id, "ACTEON_AGENT_ID": agent_id,
        }
        p = subprocess.run(
            [qwen_bin, "--auth-type", "anthropic", "-m", "claude-sonnet-4", "--yolo", "-o", "json", "Do the task."],
            cwd=sb.workspace, env=env, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
        )
    return Result(p.returncode, p.stdout, p.stderr, script)


def run_opencode(opencode_bin: str, sb: Sandbox, script: Script, *, gateway: str, run_id: str, key: str,
                 agent_id: str = "opencode-agent-1", budget: str = "20") -> Result:
    """``opencode run`` with the gate plugin installed in the project's .opencode/plugins/ by the installer, its
    Anthropic provider pointed at the fake model; OpenCode asks no permission here, so the gate is the check."""
    install("opencode", sb.workspace / ".opencode" / "plugins" / "acteon-swarm.js", gateway, "--budget", budget,
            "--authoritative")
    with fake_model(script) as model:
        (sb.workspace / "opencode.json").write_text(json.dumps({
            "provider": {"anthropic": {"options": {"baseURL": f"{model}/v1", "apiKey": "sk-ant-fake"}}},
            "model": "anthropic/claude-sonnet-4-5", "permission": {"external_directory": "allow"},
            "autoupdate": False, "share": "disabled"}))
        env = {
            "PATH": os.environ["PATH"], "HOME": str(sb.home),
            "ACTEON_AGENT_KEY": key, "ACTEON_RUN_ID": run_id, "ACTEON_AGENT_ID": agent_id,
        }
        p = subprocess.run([opencode_bin, "run", "Do the task."], cwd=sb.workspace, env=env, capture_output=True,
                           text=True, timeout=240, stdin=subprocess.DEVNULL)
    return Result(p.returncode, p.stdout, p.stderr, script)


def run_copilot(copilot_bin: str, sb: Sandbox, script: Script, *, gateway: str, run_id: str, key: str,
                agent_id: str = "copilot-agent-1", budget: str = "20") -> Result:
    """``copilot -p`` offline with its BYOK Anthropic provider pointed at the fake model, every tool allowed
    (the gate is the check), the gate installed in ~/.copilot/hooks/ by the installer."""
    install("copilot", sb.home / ".copilot" / "hooks" / "acteon-swarm.json", gateway, "--budget", budget,
            "--authoritative")
    with fake_model(script) as model:
        env = {
            "PATH": os.environ["PATH"], "HOME": str(sb.home), "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": model, "COPILOT_PROVIDER_TYPE": "anthropic",
            "COPILOT_PROVIDER_API_KEY": "sk-ant-fake", "COPILOT_MODEL": "claude-sonnet-4.5",
            "ACTEON_AGENT_KEY": key, "ACTEON_RUN_ID": run_id, "ACTEON_AGENT_ID": agent_id,
        }
        p = subprocess.run([copilot_bin, "-p", "Do the task.", "--allow-all-tools"], cwd=sb.workspace, env=env,
                           capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
    return Result(p.returncode, p.stdout, p.stderr, script)


def run_cline(cline_bin: str, sb: Sandbox, script: Script, *, gateway: str, run_id: str, key: str,
              agent_id: str = "cline-agent-1", budget: str = "20") -> Result:
    """Cline's CLI (``cline --json``) offline: its Anthropic provider, set up with ``cline auth``, pointed at the fake
    model; its sessions in this process (``CLINE_SESSION_BACKEND_MODE=local``: a background daemon would run the
    hooks with another run's environment); the gate installed in the project's .clinerules/hooks/."""
    install("cline", sb.workspace / ".clinerules" / "hooks", gateway, "--budget", budget)
    with fake_model(script) as model:
        env = {
            "PATH": os.environ["PATH"], "HOME": str(sb.home), "CLINE_SESSION_BACKEND_MODE": "local",
            "ACTEON_AGENT_KEY": key, "ACTEON_RUN_ID": run_id, "ACTEON_AGENT_ID": agent_id,
        }
        auth = subprocess.run([cline_bin, "auth", "-p", "anthropic", "-k", "sk-ant-fake", "-m", "claude-sonnet-4-5"],
                              cwd=sb.workspace, env=env, capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)
        assert auth.returncode == 0, auth.stdout + auth.stderr
        providers = sb.home / ".cline" / "data" / "settings" / "providers.json"
        config = json.loads(providers.read_text())
        config["providers"]["anthropic"]["settings"]["baseUrl"] = f"{model}/v1"
        providers.write_text(json.dumps(config))
        p = subprocess.run([cline_bin, "--json", "Do the task."], cwd=sb.workspace, env=env, capture_output=True,
                           text=True, timeout=240, stdin=subprocess.DEVNULL)
    return Result(p.returncode, p.stdout, p.stderr, script)


def dead_gateway_url() -> str:
    return f"http://127.0.0.1:{free_port()}"
