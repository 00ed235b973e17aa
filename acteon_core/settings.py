"""The gate as each agent CLI's settings file holds it: what `acteon-swarm-hook install` merges in and
`uninstall` takes out, and what the orchestrator writes for every agent it starts (docs/hook.md).

Merging keeps every other key and every other hook; an earlier acteon-swarm entry is replaced, never
duplicated. A settings file that is not valid JSON is refused rather than overwritten.
"""

from __future__ import annotations

import json
import shlex
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acteon_core import contract as c
from acteon_core.hook_files import MARKER  # in every command and hook name we write; identifies our entries

# The hook ships beside this package (one distribution); the CLI runs its file directly (see hook_command).
HOOK_MAIN = Path(__file__).resolve().parent.parent / "hook" / "__main__.py"


class SettingsError(Exception):
    """A settings file we will not touch, or options a CLI cannot honour."""


@dataclass(frozen=True)
class HookOptions:
    """How the gate is wired into a CLI: the options of ``acteon-swarm-hook install``, and what the
    orchestrator chooses for its agents."""

    url: str | None = None  # the gateway; None: $ACTEON_URL or the default, at run time
    key_file: str | None = None  # None: the agent key comes from $ACTEON_AGENT_KEY at run time
    budget: float = c.HOOK_BUDGET_S  # seconds the gate may take, approvals included
    http: bool = False  # Claude only: its native http hook instead of a process
    # A gateway allow answers allow (the CLI's own permission prompt is skipped). Orchestrated agents have no
    # human at a prompt; a person's own CLI keeps its prompts unless they ask for this.
    authoritative: bool = False
    # Claude only: a call waiting for a person stops a headless session (`defer`) instead of holding it; the
    # orchestrator resumes the session once the person decided.
    defer: bool = False


def hook_command(subcommand: str, cli: str, *, key_file: str | None, url: str | None, budget: float | None,
                 authoritative: bool = False, defer: bool = False) -> str:
    """The command line the CLI runs: this interpreter, isolated and without site-packages (the hook
    needs only the standard library), on the hook's own file — the fastest way to start it."""
    parts = [sys.executable, "-I", "-S", str(HOOK_MAIN), subcommand, "--cli", cli]
    if url:
        parts += ["--url", url]
    if key_file:
        parts += ["--key-file", key_file]
    if budget is not None and subcommand == "gate":
        parts += ["--budget", f"{budget:g}"]
    if authoritative and subcommand == "gate":
        parts.append("--authoritative")
    if defer and subcommand == "gate":
        parts.append("--defer")
    return " ".join(shlex.quote(p) for p in parts) + f"  # {MARKER}"


def _is_ours(hook: Any) -> bool:
    if not isinstance(hook, dict):
        return False
    return MARKER in str(hook.get("command", "")) or MARKER in str(hook.get("name", "")) or (
        hook.get("type") == "http" and c.CLAUDE_HOOK_PATH in str(hook.get("url", "")))


def _merge_event(settings: dict[str, Any], event: str, entry: dict[str, Any]) -> None:
    """Add our ``entry`` to ``event``'s list (a group of hooks, or a hook where a CLI lists them without groups),
    replacing an earlier one of ours."""
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError("'hooks' in the settings file is not an object")
    groups = hooks.get(event, [])
    if not isinstance(groups, list):
        raise SettingsError(f"'hooks.{event}' in the settings file is not a list")
    kept, _ = _without_ours(groups)
    hooks[event] = [*kept, entry]


def _no_http(opts: HookOptions, cli: str) -> None:
    if opts.http:
        raise SettingsError(f"the http hook is installed for Claude Code only; install the command hook for {cli}")


def _without_ours(groups: list[Any]) -> tuple[list[Any], int]:
    """An event's hook groups with our hooks taken out (a group left empty goes too), and how many were."""
    kept, removed = [], 0
    for g in groups:
        if isinstance(g, dict) and isinstance(g.get("hooks"), list):
            others = [h for h in g["hooks"] if not _is_ours(h)]
            removed += len(g["hooks"]) - len(others)
            if others:
                kept.append({**g, "hooks": others})
        elif _is_ours(g):  # Cursor, Windsurf and Crush list hooks without groups
            removed += 1
        else:
            kept.append(g)
    return kept, removed


def claude_settings(settings: dict[str, Any], opts: HookOptions) -> dict[str, Any]:
    timeout_s = int(opts.budget + c.HOOK_TIMEOUT_MARGIN_S)  # Claude counts seconds
    if opts.http:
        url = (opts.url or c.DEFAULT_URL).rstrip("/") + c.CLAUDE_HOOK_PATH
        wait = max(0, int(opts.budget) - 10)
        gate: dict[str, Any] = {
            "type": "http", "timeout": timeout_s, "onFailure": "block",
            "url": f"{url}?{c.QUERY_APPROVAL_WAIT}={wait}"
                   + (f"&{c.QUERY_AUTHORITATIVE}=1" if opts.authoritative else ""),
            "headers": {
                "Authorization": f"Bearer ${c.ENV_AGENT_KEY}", c.HEADER_RUN_ID: f"${c.ENV_RUN_ID}",
                c.HEADER_AGENT_ID: f"${c.ENV_AGENT_ID}", c.HEADER_AGENT_ROLE: f"${c.ENV_AGENT_ROLE}",
                c.HEADER_HOME: "$HOME",
            },
            "allowedEnvVars": [c.ENV_AGENT_KEY, c.ENV_RUN_ID, c.ENV_AGENT_ID, c.ENV_AGENT_ROLE, "HOME"],
        }
    else:
        gate = {"type": "command", "timeout": timeout_s, "onFailure": "block",
                "command": hook_command("gate", "claude", key_file=opts.key_file, url=opts.url, budget=opts.budget,
                                        authoritative=opts.authoritative, defer=opts.defer)}
    _merge_event(settings, "PreToolUse", {"matcher": "*", "hooks": [gate]})
    done = {"type": "command", "timeout": 10,
            "command": hook_command("complete", "claude", key_file=opts.key_file, url=opts.url, budget=None)}
    _merge_event(settings, "PostToolUse", {"matcher": "*", "hooks": [done]})
    return settings


def gemini_settings(settings: dict[str, Any], opts: HookOptions) -> dict[str, Any]:
    if opts.http:
        raise SettingsError("Gemini CLI has no http hook type; install the command hook (without --http)")
    timeout_ms = int((opts.budget + c.HOOK_TIMEOUT_MARGIN_S) * 1000)  # Gemini counts milliseconds
    gate = {"name": f"{MARKER}-gate", "type": "command", "timeout": timeout_ms,
            "command": hook_command("gate", "gemini", key_file=opts.key_file, url=opts.url, budget=opts.budget,
                                    authoritative=opts.authoritative)}
    done = {"name": f"{MARKER}-complete", "type": "command", "timeout": 10_000,
            "command": hook_command("complete", "gemini", key_file=opts.key_file, url=opts.url, budget=None)}
    _merge_event(settings, "BeforeTool", {"matcher": ".*", "hooks": [gate]})
    _merge_event(settings, "AfterTool", {"matcher": ".*", "hooks": [done]})
    config = settings.setdefault("hooksConfig", {})
    if not isinstance(config, dict):
        raise SettingsError("'hooksConfig' in the settings file is not an object")
    config["enabled"] = True
    disabled = config.get("disabled")
    if isinstance(disabled, list):  # a disabled gate would let every tool run
        config["disabled"] = [d for d in disabled if MARKER not in str(d)]
    return settings


def _command_hooks(settings: dict[str, Any], opts: HookOptions, cli: str, per_second: int) -> dict[str, Any]:
    """Claude's hook shape without Claude's extras (no ``onFailure``, no http hook): the gate on PreToolUse and
    the report on PostToolUse for every tool, their timeouts in the CLI's unit (``per_second`` of them)."""
    _no_http(opts, cli)
    gate = {"type": "command", "timeout": int((opts.budget + c.HOOK_TIMEOUT_MARGIN_S) * per_second),
            "command": hook_command("gate", cli, key_file=opts.key_file, url=opts.url, budget=opts.budget,
                                    authoritative=opts.authoritative)}
    done = {"type": "command", "timeout": 10 * per_second,
            "command": hook_command("complete", cli, key_file=opts.key_file, url=opts.url, budget=None)}
    _merge_event(settings, "PreToolUse", {"matcher": "*", "hooks": [gate]})
    _merge_event(settings, "PostToolUse", {"matcher": "*", "hooks": [done]})
    return settings


def codex_hooks(settings: dict[str, Any], opts: HookOptions) -> dict[str, Any]:
    """Codex CLI's hooks.json (timeouts in seconds). Codex runs a hook only once the user trusted it
    (``/hooks`` in codex) or with ``--dangerously-bypass-hook-trust``; an untrusted one is skipped without a
    word, and a hook that times out lets the call run: the gate answers well inside its timeout."""
    return _command_hooks(settings, opts, "codex", 1)


def qwen_settings(settings: dict[str, Any], opts: HookOptions) -> dict[str, Any]:
    """Qwen Code's settings.json (timeouts in milliseconds). Qwen runs the call when a hook times out
    (observed on 0.24.4), so the gate answers well inside the timeout written here."""
    return _command_hooks(settings, opts, "qwen", 1000)


PLUGIN_TEMPLATE = Path(__file__).resolve().parent / "opencode_plugin.js"


def opencode_plugin(opts: HookOptions) -> str:
    """The OpenCode plugin (JavaScript, loaded in-process from a plugins folder) that runs the gate before every
    tool call and throws on anything but an allow: OpenCode has no command hooks, and a throw is how a plugin
    blocks a call (its message reaches the model)."""
    if opts.http:
        raise SettingsError("the http hook is installed for Claude Code only; OpenCode gets the plugin")
    gate = hook_command("gate", "opencode", key_file=opts.key_file, url=opts.url, budget=opts.budget,
                        authoritative=opts.authoritative)
    done = hook_command("complete", "opencode", key_file=opts.key_file, url=opts.url, budget=None)
    return (PLUGIN_TEMPLATE.read_text(encoding="utf-8").replace("__GATE__", json.dumps(gate))
            .replace("__COMPLETE__", json.dumps(done))
            .replace("__BUDGET_MS__", str(int((opts.budget + c.HOOK_TIMEOUT_MARGIN_S) * 1000))))


def copilot_hooks(opts: HookOptions) -> dict[str, Any]:
    """Copilot CLI's hook file (a whole file of ours in .github/hooks/ or ~/.copilot/hooks/). Copilot sends no
    event name, so the command says ``--cli copilot``; it runs the call when a hook times out (30 s by
    default), so the timeout written is the gate's budget plus a margin."""
    _no_http(opts, "copilot")
    gate = hook_command("gate", "copilot", key_file=opts.key_file, url=opts.url, budget=opts.budget,
                        authoritative=opts.authoritative)
    done = hook_command("complete", "copilot", key_file=opts.key_file, url=opts.url, budget=None)
    return {"version": 1, "hooks": {
        "preToolUse": [{"type": "command", "bash": gate, "timeoutSec": int(opts.budget + c.HOOK_TIMEOUT_MARGIN_S)}],
        "postToolUse": [{"type": "command", "bash": done, "timeoutSec": 10}]}}


WINDSURF_PRE = ("pre_run_command", "pre_write_code", "pre_read_code", "pre_mcp_tool_use")
# CLIs whose hooks are listed without matcher groups: the event the gate is listed under (doctor looks there).
FLAT_GATE_EVENTS = {"crush": "PreToolUse", "cursor": "preToolUse", "windsurf": WINDSURF_PRE[0]}


def crush_settings(settings: dict[str, Any], opts: HookOptions) -> dict[str, Any]:
    """Crush's crush.json: a PreToolUse hook (timeout in seconds) for every tool. Crush lets the call run when a
    hook times out, so the timeout written is the gate's budget plus a margin; it has no PostToolUse."""
    _no_http(opts, "crush")
    _merge_event(settings, FLAT_GATE_EVENTS["crush"], {
        "name": f"{MARKER}-gate", "matcher": ".*", "timeout": int(opts.budget + c.HOOK_TIMEOUT_MARGIN_S),
        "command": hook_command("gate", "crush", key_file=opts.key_file, url=opts.url, budget=opts.budget,
                                authoritative=opts.authoritative)})
    return settings


def cursor_hooks(settings: dict[str, Any], opts: HookOptions) -> dict[str, Any]:
    """Cursor's hooks.json: ``preToolUse`` with ``failClosed`` (without it a hook that crashes, times out or
    prints nothing lets the call run), ``postToolUse`` for the audit."""
    _no_http(opts, "cursor")
    settings.setdefault("version", 1)
    _merge_event(settings, FLAT_GATE_EVENTS["cursor"], {
        "command": hook_command("gate", "cursor", key_file=opts.key_file, url=opts.url, budget=opts.budget,
                                authoritative=opts.authoritative),
        "timeout": int(opts.budget + c.HOOK_TIMEOUT_MARGIN_S), "failClosed": True})
    _merge_event(settings, "postToolUse", {"command": hook_command("complete", "cursor", key_file=opts.key_file,
                                                            url=opts.url, budget=None), "timeout": 10})
    return settings




def windsurf_hooks(settings: dict[str, Any], opts: HookOptions) -> dict[str, Any]:
    """Windsurf's hooks.json: the gate on each of its four pre-action events (only an exit code of 2 blocks;
    it reads no answer), the report on their ``post_`` forms."""
    _no_http(opts, "windsurf")
    gate = hook_command("gate", "windsurf", key_file=opts.key_file, url=opts.url, budget=opts.budget,
                        authoritative=opts.authoritative)
    done = hook_command("complete", "windsurf", key_file=opts.key_file, url=opts.url, budget=None)
    for event in WINDSURF_PRE:
        _merge_event(settings, event, {"command": gate, "show_output": False})
        _merge_event(settings, "post_" + event[4:], {"command": done, "show_output": False})
    return settings


def antigravity_hooks(settings: dict[str, Any], opts: HookOptions) -> dict[str, Any]:
    """Antigravity's hooks.json, whose top-level keys are hook names: ours is ``acteon-swarm``, with PreToolUse
    and PostToolUse for every tool (no matcher). agy refuses the call on an answer it cannot read."""
    _no_http(opts, "antigravity")
    timeout = int(opts.budget + c.HOOK_TIMEOUT_MARGIN_S)
    settings[MARKER] = {"enabled": True, "PreToolUse": [{"hooks": [{
        "type": "command", "timeout": timeout,
        "command": hook_command("gate", "antigravity", key_file=opts.key_file, url=opts.url, budget=opts.budget,
                                authoritative=opts.authoritative)}]}],
        "PostToolUse": [{"hooks": [{"type": "command", "timeout": 10, "command": hook_command(
            "complete", "antigravity", key_file=opts.key_file, url=opts.url, budget=None)}]}]}
    return settings


def goose_hooks(opts: HookOptions) -> dict[str, Any]:
    """Goose's hooks.json in a plugin folder of ours: ``on_failure: block`` (without it a hook that fails lets
    the call run), a matcher that is a regular expression matching every tool (``*`` is invalid there and the
    entry would be skipped)."""
    _no_http(opts, "goose")
    gate = hook_command("gate", "goose", key_file=opts.key_file, url=opts.url, budget=opts.budget,
                        authoritative=opts.authoritative)
    done = hook_command("complete", "goose", key_file=opts.key_file, url=opts.url, budget=None)
    return {"hooks": {
        "PreToolUse": [{"matcher": ".*", "hooks": [{"type": "command", "command": gate, "on_failure": "block",
                                                     "timeout": int(opts.budget + c.HOOK_TIMEOUT_MARGIN_S)}]}],
        "PostToolUse": [{"matcher": ".*", "hooks": [{"type": "command", "command": done, "timeout": 10}]}]}}


# Cline kills a hook after 120 s and then runs the call (observed on its CLI 3.0.65): the gate's budget must end
# well before.
CLINE_TIMEOUT_S = 120


def cline_scripts(opts: HookOptions) -> dict[str, str]:
    """Cline's hooks: an executable per event, named after it. Cline runs the call when a hook prints anything but
    one JSON answer (its exit code is never read), so the script prints a refusal itself whenever the gate fails
    to answer."""
    _no_http(opts, "cline")
    budget = min(opts.budget, CLINE_TIMEOUT_S - c.HOOK_TIMEOUT_MARGIN_S)
    gate = hook_command("gate", "cline", key_file=opts.key_file, url=opts.url, budget=budget,
                        authoritative=opts.authoritative).split("  # ")[0]
    done = hook_command("complete", "cline", key_file=opts.key_file, url=opts.url, budget=None).split("  # ")[0]
    refusal = json.dumps({"cancel": True, "errorMessage": "acteon-swarm: the gate failed to answer; call blocked "
                                                          "(fail closed)"})
    return {
        "PreToolUse": f"#!/bin/sh\n# {MARKER}: the gate (acteon-swarm-hook install --cli cline)\n"
                      f"answer=$({gate}) && [ -n \"$answer\" ] && printf '%s\\n' \"$answer\" && exit 0\n"
                      f"printf '%s\\n' {shlex.quote(refusal)}\nexit 0\n",
        "PostToolUse": f"#!/bin/sh\n# {MARKER}: the audit (acteon-swarm-hook install --cli cline)\n{done}\n",
    }


WRITERS = {"claude": claude_settings, "gemini": gemini_settings, "codex": codex_hooks, "qwen": qwen_settings,
           "crush": crush_settings, "cursor": cursor_hooks, "windsurf": windsurf_hooks,
           "antigravity": antigravity_hooks}


def revert_gemini_config(settings: dict[str, Any], original: dict[str, Any] | None) -> None:
    """Give ``hooksConfig`` back as it was before install turned hooks on (in place). ``original``: the
    settings install found, when known; else a ``hooksConfig`` that only says hooks are on is install's."""
    if original is not None:
        if "hooksConfig" in original:
            settings["hooksConfig"] = original["hooksConfig"]
        else:
            settings.pop("hooksConfig", None)
    elif settings.get("hooksConfig") == {"enabled": True}:
        del settings["hooksConfig"]


def remove_ours(settings: dict[str, Any]) -> int:
    """Take every hook ``install`` wrote out of ``settings`` (in place); groups and event lists left empty by
    that go too, everything else stays as it was. Returns how many hooks were removed."""
    removed = 0
    named = settings.get(MARKER)
    if isinstance(named, dict):  # Antigravity: a hook of ours under its own name
        del settings[MARKER]
        removed += 1
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return removed
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept, count = _without_ours(groups)
        removed += count
        if kept:
            hooks[event] = kept
        elif groups:
            del hooks[event]
    if not hooks and removed:
        del settings["hooks"]
    return removed


def insecure_ancestor(path: Path) -> Path | None:
    """The first existing directory above ``path`` that group or others may write, if any. Gemini CLI
    skips a system settings file under such a directory without an error, and its tools then run
    ungated."""
    for parent in path.parents:
        try:
            mode = parent.stat().st_mode
        except FileNotFoundError:
            continue
        if mode & (stat.S_IWGRP | stat.S_IWOTH):
            return parent
    return None


def load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (ValueError, UnicodeDecodeError) as e:
        raise SettingsError(f"{path} is not valid JSON ({e}); not touching it") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path} does not hold a JSON object; not touching it")
    return data
