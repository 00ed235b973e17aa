"""``acteon-swarm doctor``: does this setup actually gate the agents?

Each check prints ``ok``, ``PROBLEM`` (with how to fix it) or ``note`` (something not in use here, such as a
CLI that is not installed); the exit code is 1 when there is any problem. The last check is a real one: a
synthetic destructive call is fed to every installed gate hook exactly as the CLI would run it, and must
come back denied.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from acteon_core import contract as c
from acteon_core import dialects
from acteon_core.hook_files import hook_files
from acteon_core.settings import FLAT_GATE_EVENTS
from orchestrator.cli.common import JsonOut, StateDir, find_admin_key, print_json, state_of

OK, PROBLEM, NOTE = "ok", "PROBLEM", "note"
_PROBE = "rm -rf / --no-preserve-root"  # never runs: it goes to the hook on stdin, as a call to decide
_HARMLESS = "ls"  # nor does this: the hook is asked, nothing is executed


@dataclass
class Check:
    name: str
    status: str
    detail: str
    fix: str = ""


def _gateway(url: str, state: Path) -> list[Check]:
    import asyncio

    from orchestrator.gatewayclient import GatewayClient, GatewayError, Unreachable

    key = find_admin_key(state)

    async def ask() -> tuple[dict[str, Any], str | None]:
        client = GatewayClient(url, key or "", timeout_s=3.0)
        try:
            health = await client.health()
            if key is None:
                return health, None
            try:
                await client.rules()
                return health, ""
            except GatewayError as e:
                return health, str(e)
        finally:
            await client.aclose()

    try:
        body, key_problem = asyncio.run(ask())
    except Unreachable as e:
        return [Check("gateway", PROBLEM, str(e), "start it: `acteon-gateway` (or point ACTEON_URL at yours)")]
    except GatewayError as e:
        return [Check("gateway", PROBLEM, f"{url} is not healthy: {e}",
                      "see the gateway's log; `acteon-gateway` prints its store and rule pack at start-up")]
    rules = body.get("rules") or {}
    out = [Check("gateway", OK, f"{url}: {body.get('store')} store, {rules.get('count')} rules "
                                f"(version {str(rules.get('version'))[:12]}, from {rules.get('source')})")]
    if body.get("store") == "embedded":
        out.append(Check("store", NOTE, "the embedded store: audit, approvals and quotas are lost when the gateway "
                                        "stops", "use Redis (ACTEON_REDIS_URL) to keep them"))
    elif body.get("store") == "redis":
        out.append(_store_check(body))
    if key_problem is None:
        out.append(Check("admin key", PROBLEM, f"none: not in ${c.ENV_ADMIN_KEY} nor {state / 'admin.key'}",
                         f"set {c.ENV_ADMIN_KEY}, or pass --state-dir where the gateway keeps its keys"))
    elif key_problem:
        out.append(Check("admin key", PROBLEM, f"the gateway refuses it ({key_problem})",
                         f"use the key the gateway was started with ({c.ENV_ADMIN_KEY} or its state dir's admin.key)"))
    else:
        out.append(Check("admin key", OK, "accepted by the gateway"))
    return out


def _store_check(health: dict[str, Any]) -> Check:
    """The store's shape as the gateway reports it (docs/ha.md), never its addresses."""
    acks = health.get("replica_acks")
    shape = {"sentinel": "Redis Sentinel", "cluster": "Redis Cluster"}.get(str(health.get("topology")), "one Redis")
    if acks:
        return Check("store", OK, f"{shape}; approvals, keys, rule packs and cancels wait for {acks} "
                                  f"replica{'' if acks == 1 else 's'} to confirm them")
    if acks == 0:
        return Check("store", NOTE, f"{shape}; nothing waits for a replica (ACTEON_REDIS_REPLICA_ACKS=0): a "
                                    "failover can undo an approval", "unset ACTEON_REDIS_REPLICA_ACKS")
    return Check("store", NOTE, f"{shape}, no replica seen yet: when it stops, every agent stops until it is back",
                 "run Redis with a replica under Sentinel (docs/ha.md)")


def _binary(cli: str) -> tuple[str | None, str]:
    path = os.environ.get(f"ACTEON_{cli.upper()}_BIN") or shutil.which(_PROGRAMS.get(cli, cli))
    if not path:
        return None, ""
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        version = f"(--version failed: {type(e).__name__})"
    return path, version.splitlines()[0] if version else "?"


def _settings_files(cli: str, cwd: Path, home: Path) -> list[Path]:
    return hook_files(cli, cwd, home, os.environ)


def _codex_home(home: Path) -> Path:
    return Path(os.environ["CODEX_HOME"]) if os.environ.get("CODEX_HOME") else home / ".codex"


def _codex_trust(hooks_file: Path, cwd: Path, home: Path) -> Check:
    """Codex runs a hook only when the user trusted it (``/hooks`` records its hash in config.toml), and a
    project's .codex/ only in a trusted project; an untrusted hook is skipped without a word."""
    import tomllib

    try:
        config = tomllib.loads((_codex_home(home) / "config.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = {}
    hooks = config.get("hooks")
    states = hooks.get("state") if isinstance(hooks, dict) else None
    prefix = f"{hooks_file}:pre_tool_use:"
    trusted = any(str(k).strip().removeprefix("file:").startswith(prefix) and isinstance(v, dict)
                  and v.get("trusted_hash") and v.get("enabled") is not False
                  for k, v in (states or {}).items())
    fix = ("start `codex` in this folder, type /hooks and trust the acteon-swarm hooks (automation: pass "
           "--dangerously-bypass-hook-trust); re-trust after every reinstall, which changes the hook")
    if not trusted:
        return Check("codex trust", PROBLEM, f"no trust recorded for the gate in {hooks_file}: Codex skips it "
                                             "silently and runs every call", fix)
    projects = config.get("projects")
    if hooks_file.parent.parent == cwd and not any(
            isinstance(v, dict) and v.get("trust_level") == "trusted" and (cwd == Path(k) or Path(k) in cwd.parents)
            for k, v in (projects or {}).items()):
        return Check("codex trust", PROBLEM, f"{cwd} is not a trusted project: Codex ignores its .codex/ hooks",
                     "trust the project when `codex` asks (or `codex exec --trust` once)")
    return Check("codex trust", OK, f"the gate in {hooks_file} is trusted (Codex recorded its hash)")


def _gate_commands(path: Path, cli: str) -> list[dict[str, Any]]:
    """Our gate hooks in one settings file (command and http hooks alike; for OpenCode, the command our
    plugin runs)."""
    from acteon_core.hook_files import MARKER

    if cli == "cline":  # a folder of executables: the PreToolUse one runs the gate
        script = path / "PreToolUse"
        ours = script.is_file() and MARKER in script.read_text(encoding="utf-8", errors="replace")
        return [{"type": "command", "command": shlex.quote(str(script))}] if ours else []
    if cli == "opencode":
        try:
            line = re.search(r'^const GATE = (".*");$', path.read_text(encoding="utf-8"), re.M)
            return [{"type": "command", "command": json.loads(line.group(1))}] if line else []
        except (OSError, ValueError):
            return []
    try:
        settings = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if cli == "copilot":  # {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": …}]}}
        hooks = settings.get("hooks") if isinstance(settings, dict) else None
        pre = hooks.get("preToolUse") if isinstance(hooks, dict) else None
        return [{"type": "command", "command": h["bash"]} for h in pre or []
                if isinstance(h, dict) and MARKER in str(h.get("bash", ""))]
    if cli == "antigravity" and isinstance(settings, dict):  # {"acteon-swarm": {"PreToolUse": [groups]}}
        settings = {"hooks": settings.get(MARKER)}
    if cli in FLAT_GATE_EVENTS:  # hooks listed without groups
        hooks = settings.get("hooks") if isinstance(settings, dict) else None
        pre = hooks.get(FLAT_GATE_EVENTS[cli]) if isinstance(hooks, dict) else None
        return [{"type": "command", "command": h["command"]} for h in pre if isinstance(h, dict)
                and MARKER in str(h.get("command", ""))] if isinstance(pre, list) else []
    event = "BeforeTool" if cli == "gemini" else "PreToolUse"
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    found = []
    for group in groups if isinstance(groups, list) else []:
        for hook in (group.get("hooks") or []) if isinstance(group, dict) else []:
            text = str(hook.get("command", "")) + str(hook.get("name", "")) + str(hook.get("url", ""))
            if isinstance(hook, dict) and (MARKER in text or c.CLAUDE_HOOK_PATH in text):
                found.append(hook)
    return found


def _gemini_trusted(cwd: Path, home: Path) -> bool:
    if os.environ.get("GEMINI_CLI_TRUST_WORKSPACE", "").lower() == "true":
        return True
    try:
        trusted = json.loads((home / ".gemini" / "trustedFolders.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    for folder, level in trusted.items() if isinstance(trusted, dict) else []:
        root = Path(folder) if level == "TRUST_FOLDER" else Path(folder).parent if level == "TRUST_PARENT" else None
        if root is not None and (cwd == root or root in cwd.parents):
            return True
    return False


def _shell_event(cli: str, cwd: Path, command: str) -> dict[str, Any]:
    """A shell call as ``cli`` sends it to its hook."""
    where = str(cwd)
    if cli == "copilot":  # camelCase and no event name
        return {"sessionId": "acteon-doctor", "cwd": where, "toolName": "bash", "toolArgs": {"command": command}}
    if cli == "cline":
        return {"hookName": "PreToolUse", "taskId": "acteon-doctor", "workspaceRoots": [where],
                "preToolUse": {"toolName": "execute_command", "parameters": {"command": command}}}
    if cli == "cursor":
        return {"hook_event_name": "preToolUse", "conversation_id": "acteon-doctor", "workspace_roots": [where],
                "tool_name": "Shell", "tool_input": {"command": command}}
    if cli in ("goose", "crush"):
        tool = "developer__shell" if cli == "goose" else "bash"
        return {"event": "PreToolUse", "session_id": "acteon-doctor", "cwd": where, "working_dir": where,
                "tool_name": tool, "tool_input": {"command": command}}
    if cli == "windsurf":
        return {"agent_action_name": "pre_run_command", "trajectory_id": "acteon-doctor",
                "tool_info": {"command_line": command, "cwd": where}}
    if cli == "antigravity":
        return {"conversationId": "acteon-doctor", "workspacePaths": [where],
                "toolCall": {"name": "run_command", "args": {"CommandLine": command}}}
    shell = {"gemini": "run_shell_command", "qwen": "run_shell_command", "opencode": "bash"}.get(cli, "Bash")
    return {"session_id": "acteon-doctor", "cwd": where, "tool_name": shell, "tool_input": {"command": command},
            "hook_event_name": "BeforeTool" if cli == "gemini" else "PreToolUse"}


def _ask_hook(command: str, cli: str, cwd: Path, shell_command: str) -> tuple[bool, str] | None:
    """Run the installed gate command on one call, exactly as the CLI would; (denied, reason), or None
    when it did not answer in time."""
    try:
        r = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(_shell_event(cli, cwd, shell_command)),
                           capture_output=True, text=True, timeout=60, cwd=cwd)
    except subprocess.TimeoutExpired:
        return None
    answer = r.stdout.strip()
    try:
        parsed = json.loads(answer.splitlines()[-1]) if answer else {}
    except ValueError:
        parsed = {}
    reason = dialects.denied(parsed) if isinstance(parsed, dict) else None
    denied = r.returncode == 2 or reason is not None
    return denied, (r.stderr.strip() or reason or answer)[:300]


def _probe(hook: dict[str, Any], cli: str, cwd: Path) -> Check:
    """Two calls through the installed gate, as the CLI would send them: a harmless one must be allowed and
    a destructive one denied by a named rule. A gate that denies both (no key, no gateway) passes nothing."""
    if hook.get("type") == "http":
        return Check(f"{cli} probe", NOTE, "an http hook: Claude calls the gateway itself (not probed here)")
    command = str(hook.get("command", "")).split("  # ", 1)[0]
    harmless = _ask_hook(command, cli, cwd, _HARMLESS)
    destructive = _ask_hook(command, cli, cwd, _PROBE)
    if harmless is None or destructive is None:
        return Check(f"{cli} probe", PROBLEM, "the gate hook did not answer within 60 s",
                     "check the gateway; the CLI would block every call (fail closed)")
    if harmless[0]:
        return Check(f"{cli} probe", PROBLEM, f"the installed hook denies even `{_HARMLESS}`: {harmless[1]}",
                     "check the key file and the gateway URL the hook was installed with (`acteon-swarm-hook "
                     "install` warns about both); the CLI would block every call")
    if not destructive[0]:
        return Check(f"{cli} probe", PROBLEM, f"the installed hook let {shlex.quote(_PROBE)} through",
                     "check the gateway's rule pack (`acteon-swarm doctor` against the gateway the hook calls)")
    rule = re.search(r"rule ([\w.-]+)", destructive[1])
    if rule is None:
        return Check(f"{cli} probe", PROBLEM, f"the destructive probe was denied, but by no rule: {destructive[1]}",
                     "the hook is failing closed rather than deciding: check its key file and gateway URL")
    return Check(f"{cli} probe", OK, f"`{_HARMLESS}` is allowed and {shlex.quote(_PROBE)} is denied by rule "
                                     f"{rule.group(1)}, through the installed hook")


# The program each CLI is started as, where it is not the CLI's name.
_PROGRAMS = {"cursor": "cursor-agent", "antigravity": "agy"}


def _cli_checks(cli: str, cwd: Path, home: Path) -> list[Check]:
    path, version = _binary(cli)
    if path is None:
        return [Check(cli, NOTE, f"`{cli}` is not installed (not checked further)")]
    out = [Check(cli, OK, f"{path}: {version}")]
    installed = [(f, h) for f in _settings_files(cli, cwd, home) for h in _gate_commands(f, cli)]
    if not installed:
        scope = {"claude": "--scope local", "codex": "--scope user"}.get(cli, "--scope project")
        looked = ", ".join(map(str, _settings_files(cli, cwd, home)))
        out.append(Check(f"{cli} hook", NOTE, f"installed, but no acteon-swarm gate in {looked} (not gated here)",
                         f"`acteon-swarm-hook install --cli {cli} {scope} --key-file STATE/default-agent.key` "
                         "in the project folder"))
        return out
    where = ", ".join(sorted({str(f) for f, _ in installed}))
    out.append(Check(f"{cli} hook", OK, f"installed in {where}"))
    if cli == "codex":
        out.append(_codex_trust(installed[0][0], cwd, home))
    if cli == "gemini" and not _gemini_trusted(cwd, home):
        out.append(Check("gemini trust", PROBLEM, f"{cwd} is not a trusted folder: Gemini CLI ignores every hook "
                                                  "there (its own and the user's)",
                         "trust the folder once in `gemini`, add it to ~/.gemini/trustedFolders.json, or set "
                         "GEMINI_CLI_TRUST_WORKSPACE=true"))
    out.append(_probe(installed[0][1], cli, cwd))
    return out


def checks(state: Path, cwd: Path, home: Path) -> list[Check]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("acteon-swarm")
    except PackageNotFoundError:
        installed = "not installed as a package (running from the source tree)"
    python = ".".join(map(str, sys.version_info[:3]))
    out = [Check("python", OK, python) if sys.version_info >= (3, 11) else
           Check("python", PROBLEM, python, "use Python 3.11 or newer"),
           Check("acteon-swarm", OK, f"{c.VERSION} ({installed})")]
    out += _gateway(os.environ.get(c.ENV_URL) or c.DEFAULT_URL, state)
    for cli in dialects.DIALECTS:
        out += _cli_checks(cli, cwd, home)
    return out


def doctor(
    folder: Annotated[Path, typer.Option("--folder", help="the project folder agents work in")] = Path(),
    state_dir: StateDir = None,
    as_json: JsonOut = False,
) -> None:
    """Check that this setup gates the agents: gateway, keys, CLIs, hooks, and a real probe through them."""
    results = checks(state_of(state_dir), folder.absolute(), Path.home())
    if as_json:
        print_json([asdict(r) for r in results])
    else:
        for r in results:
            print(f"{r.status:<8} {r.name:<14} {r.detail}")
            if r.fix:
                print(f"{'':<23} fix: {r.fix}")
    raise typer.Exit(1 if any(r.status == PROBLEM for r in results) else 0)
