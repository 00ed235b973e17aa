"""Where each agent CLI reads its hooks: the file (or, for Cline, the folder) ``acteon-swarm-hook install``
writes at each scope, and that ``acteon-swarm doctor`` looks in (docs/clis.md)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

MARKER = "acteon-swarm"
SCOPES = ("project", "local", "user")
PLUGIN_NAME = "acteon-swarm.js"  # OpenCode loads every .js file in its plugins folders


def hook_file(cli: str, scope: str, cwd: Path, home: Path, env: Mapping[str, str]) -> Path:
    """The file install writes for ``cli`` at ``scope`` (``local`` is Claude's own; elsewhere it is ``project``)."""
    user = scope == "user"
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    if cli == "claude":
        return {"project": cwd / ".claude" / "settings.json", "local": cwd / ".claude" / "settings.local.json",
                "user": home / ".claude" / "settings.json"}[scope]
    if cli == "codex":
        codex_home = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
        return codex_home / "hooks.json" if user else cwd / ".codex" / "hooks.json"
    plugin = home / ".agents" / "plugins" / MARKER / "hooks" / "hooks.json"
    places = {  # (project, user)
        "gemini": (cwd / ".gemini" / "settings.json", home / ".gemini" / "settings.json"),
        "qwen": (cwd / ".qwen" / "settings.json", home / ".qwen" / "settings.json"),
        "opencode": (cwd / ".opencode" / "plugins" / PLUGIN_NAME, config / "opencode" / "plugins" / PLUGIN_NAME),
        # Copilot runs every *.json in these folders
        "copilot": (cwd / ".github" / "hooks" / f"{MARKER}.json", home / ".copilot" / "hooks" / f"{MARKER}.json"),
        "crush": (cwd / ".crush.json", config / "crush" / "crush.json"),
        "cline": (cwd / ".clinerules" / "hooks", home / "Documents" / "Cline" / "Hooks"),
        "cursor": (cwd / ".cursor" / "hooks.json", home / ".cursor" / "hooks.json"),
        "goose": (cwd / plugin.relative_to(home), plugin),
        "windsurf": (cwd / ".windsurf" / "hooks.json", home / ".codeium" / "windsurf" / "hooks.json"),
        "antigravity": (cwd / ".agents" / "hooks.json", home / ".gemini" / "config" / "hooks.json"),
    }
    return places[cli][user]


def hook_files(cli: str, cwd: Path, home: Path, env: Mapping[str, str]) -> list[Path]:
    """Every place ``cli`` reads a hook of ours from, the project's first."""
    return list(dict.fromkeys(hook_file(cli, scope, cwd, home, env) for scope in SCOPES))
