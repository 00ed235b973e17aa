"""``acteon-swarm-hook install``: write or merge the gate into Claude Code or Gemini CLI settings.

Merging keeps every other key and every other hook; an earlier acteon-swarm entry is replaced, never
duplicated. The file is written atomically, and a settings file that is not valid JSON is refused
rather than overwritten.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

from hook import contract as c

MARKER = "acteon-swarm"  # in every command and hook name we write; identifies our entries
HOOK_MAIN = Path(__file__).resolve().parent / "__main__.py"


class InstallError(Exception):
    pass


def hook_command(subcommand: str, cli: str, *, key_file: str | None, url: str | None, budget: float | None,
                 authoritative: bool = False) -> str:
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
    return " ".join(shlex.quote(p) for p in parts) + f"  # {MARKER}"


def _is_ours(hook: Any) -> bool:
    if not isinstance(hook, dict):
        return False
    return MARKER in str(hook.get("command", "")) or MARKER in str(hook.get("name", "")) or (
        hook.get("type") == "http" and c.CLAUDE_HOOK_PATH in str(hook.get("url", "")))


def _merge_event(settings: dict[str, Any], event: str, group: dict[str, Any]) -> None:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError("'hooks' in the settings file is not an object")
    groups = hooks.get(event, [])
    if not isinstance(groups, list):
        raise InstallError(f"'hooks.{event}' in the settings file is not a list")
    kept = []
    for g in groups:
        if isinstance(g, dict) and isinstance(g.get("hooks"), list):
            others = [h for h in g["hooks"] if not _is_ours(h)]
            if others:
                kept.append({**g, "hooks": others})
        else:
            kept.append(g)
    hooks[event] = [*kept, group]


def _authoritative(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "authoritative", False))


def claude_settings(settings: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    timeout_s = int(args.budget + c.HOOK_TIMEOUT_MARGIN_S)  # Claude counts seconds
    if args.http:
        url = (args.url or c.DEFAULT_URL).rstrip("/") + c.CLAUDE_HOOK_PATH
        wait = max(0, int(args.budget) - 10)
        gate: dict[str, Any] = {
            "type": "http", "timeout": timeout_s, "onFailure": "block",
            "url": f"{url}?{c.QUERY_APPROVAL_WAIT}={wait}"
                   + (f"&{c.QUERY_AUTHORITATIVE}=1" if _authoritative(args) else ""),
            "headers": {
                "Authorization": f"Bearer ${c.ENV_AGENT_KEY}", c.HEADER_RUN_ID: f"${c.ENV_RUN_ID}",
                c.HEADER_AGENT_ID: f"${c.ENV_AGENT_ID}", c.HEADER_AGENT_ROLE: f"${c.ENV_AGENT_ROLE}",
                c.HEADER_HOME: "$HOME",
            },
            "allowedEnvVars": [c.ENV_AGENT_KEY, c.ENV_RUN_ID, c.ENV_AGENT_ID, c.ENV_AGENT_ROLE, "HOME"],
        }
    else:
        gate = {"type": "command", "timeout": timeout_s, "onFailure": "block",
                "command": hook_command("gate", "claude", key_file=args.key_file, url=args.url, budget=args.budget,
                                        authoritative=_authoritative(args))}
    _merge_event(settings, "PreToolUse", {"matcher": "*", "hooks": [gate]})
    done = {"type": "command", "timeout": 10,
            "command": hook_command("complete", "claude", key_file=args.key_file, url=args.url, budget=None)}
    _merge_event(settings, "PostToolUse", {"matcher": "*", "hooks": [done]})
    return settings


def gemini_settings(settings: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    if args.http:
        raise InstallError("Gemini CLI has no http hook type; install the command hook (without --http)")
    timeout_ms = int((args.budget + c.HOOK_TIMEOUT_MARGIN_S) * 1000)  # Gemini counts milliseconds
    gate = {"name": f"{MARKER}-gate", "type": "command", "timeout": timeout_ms,
            "command": hook_command("gate", "gemini", key_file=args.key_file, url=args.url, budget=args.budget,
                                    authoritative=_authoritative(args))}
    done = {"name": f"{MARKER}-complete", "type": "command", "timeout": 10_000,
            "command": hook_command("complete", "gemini", key_file=args.key_file, url=args.url, budget=None)}
    _merge_event(settings, "BeforeTool", {"matcher": ".*", "hooks": [gate]})
    _merge_event(settings, "AfterTool", {"matcher": ".*", "hooks": [done]})
    config = settings.setdefault("hooksConfig", {})
    if not isinstance(config, dict):
        raise InstallError("'hooksConfig' in the settings file is not an object")
    config["enabled"] = True
    disabled = config.get("disabled")
    if isinstance(disabled, list):  # a disabled gate would let every tool run
        config["disabled"] = [d for d in disabled if MARKER not in str(d)]
    return settings


def target_path(args: argparse.Namespace) -> Path:
    if args.settings:
        return Path(args.settings).expanduser().absolute()
    home = Path.home()
    cwd = Path.cwd()
    if args.cli == "claude":
        return {"project": cwd / ".claude" / "settings.json", "local": cwd / ".claude" / "settings.local.json",
                "user": home / ".claude" / "settings.json"}[args.scope]
    return {"project": cwd / ".gemini" / "settings.json", "local": cwd / ".gemini" / "settings.json",
            "user": home / ".gemini" / "settings.json"}[args.scope]


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
        raise InstallError(f"{path} is not valid JSON ({e}); not touching it") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object; not touching it")
    return data


def write_atomic(path: Path, data: Any, *, new_mode: int = 0o600) -> None:
    """Write JSON atomically (see :func:`write_text_atomic`)."""
    write_text_atomic(path, json.dumps(data, indent=2, default=str) + "\n", new_mode=new_mode)


def write_text_atomic(path: Path, text: str, *, new_mode: int = 0o600) -> None:
    """Write a file so that a reader, or a crash, never sees half of it: a temp file in the same directory,
    fsync'd, then renamed over the target. An existing file keeps its mode; a new one gets ``new_mode``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else new_mode
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="acteon-swarm-hook install",
        description="Add the acteon-swarm gate to Claude Code or Gemini CLI settings (merged, atomic).",
    )
    p.add_argument("--cli", required=True, choices=["claude", "gemini"])
    p.add_argument("--http", action="store_true", help="Claude only: use Claude's native http hook (no process)")
    p.add_argument("--settings", help="the settings file to write (default: by --scope)")
    p.add_argument("--scope", choices=["project", "local", "user"], default="local",
                   help="claude: .claude/settings.json | .claude/settings.local.json | ~/.claude/settings.json; "
                        "gemini: .gemini/settings.json | ~/.gemini/settings.json (default: %(default)s)")
    p.add_argument("--url", help=f"gateway URL written into the hook (default: ${c.ENV_URL} or {c.DEFAULT_URL})")
    p.add_argument("--key-file", help=f"file holding the agent key (default: ${c.ENV_AGENT_KEY} at run time)")
    p.add_argument("--budget", type=float, default=c.HOOK_BUDGET_S,
                   help="seconds the gate may take, approvals included; the CLI timeout is set above it")
    p.add_argument("--authoritative", action="store_true",
                   help="a call the gateway allows runs without the CLI's own permission prompt (what "
                        "orchestrated runs use); by default the CLI's own permission settings still decide")
    p.add_argument("--print", action="store_true", help="print the merged settings instead of writing them")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if args.key_file:
        args.key_file = str(Path(args.key_file).expanduser().absolute())
    path = target_path(args)
    try:
        if args.cli == "gemini" and args.settings and (bad := insecure_ancestor(path)):
            raise InstallError(
                f"{bad} is writable by group or others: Gemini CLI silently ignores a system settings file "
                f"below it and would run tools ungated. Choose a path in an owner-only directory.")
        settings = load(path)
        merged = claude_settings(settings, args) if args.cli == "claude" else gemini_settings(settings, args)
    except InstallError as e:
        sys.stderr.write(f"acteon-swarm-hook install: {e}\n")
        return 2
    if args.print:
        sys.stdout.write(json.dumps(merged, indent=2) + "\n")
        return 0
    write_atomic(path, merged)
    sys.stdout.write(f"acteon-swarm gate installed for {args.cli} in {path}\n")
    for warning in _warnings(args):
        sys.stderr.write(f"acteon-swarm-hook install: warning: {warning}\n")
    return 0


def _warnings(args: argparse.Namespace) -> list[str]:
    """What would make the installed gate deny every call: a key file that is not there, a gateway that does
    not answer. Installed anyway (it fails closed), but said now rather than found by a blocked agent."""
    out = []
    if args.key_file and not Path(args.key_file).is_file():
        out.append(f"--key-file {args.key_file} does not exist: every call will be denied until it does")
    elif not args.key_file and not args.http and not os.environ.get(c.ENV_AGENT_KEY):
        out.append(f"no --key-file and ${c.ENV_AGENT_KEY} is not set here: the CLI must have it, or every call "
                   "is denied")
    url = args.url or os.environ.get(c.ENV_URL) or c.DEFAULT_URL
    problem = _unreachable(url)
    if problem:
        out.append(f"the gateway at {url} does not answer ({problem}): every call will be denied until it does "
                   "(start it with `acteon-gateway`, or give --url)")
    return out


def _unreachable(url: str) -> str | None:
    """Why ``url``'s health endpoint does not answer within a second, or None when it does."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url.rstrip("/") + c.HEALTH_PATH, timeout=1.0) as reply:  # noqa: S310
            return None if reply.status == 200 else f"HTTP {reply.status}"
    except urllib.error.HTTPError as e:
        return f"HTTP {e.code}"
    except (OSError, ValueError) as e:
        return str(getattr(e, "reason", e))[:120]


def remove_ours(settings: dict[str, Any]) -> int:
    """Take every hook ``install`` wrote out of ``settings`` (in place); groups and event lists left empty by
    that go too, everything else stays as it was. Returns how many hooks were removed."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return 0
    removed = 0
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for g in groups:
            if isinstance(g, dict) and isinstance(g.get("hooks"), list):
                others = [h for h in g["hooks"] if not _is_ours(h)]
                removed += len(g["hooks"]) - len(others)
                if others:
                    kept.append({**g, "hooks": others})
            else:
                kept.append(g)
        if kept:
            hooks[event] = kept
        elif groups:
            del hooks[event]
    if not hooks and removed:
        del settings["hooks"]
    return removed


def uninstall_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="acteon-swarm-hook uninstall",
        description="Remove the acteon-swarm gate from Claude Code or Gemini CLI settings; other hooks and "
                    "settings are left as they are.",
    )
    p.add_argument("--cli", required=True, choices=["claude", "gemini"])
    p.add_argument("--settings", help="the settings file (default: by --scope)")
    p.add_argument("--scope", choices=["project", "local", "user"], default="local",
                   help="as for install (default: %(default)s)")
    p.add_argument("--print", action="store_true", help="print the settings without our hooks instead of writing")
    return p


def uninstall_main(argv: list[str]) -> int:
    args = uninstall_parser().parse_args(argv)
    path = target_path(args)
    if not path.exists():
        sys.stdout.write(f"nothing to remove: {path} does not exist\n")
        return 0
    try:
        settings = load(path)
    except InstallError as e:
        sys.stderr.write(f"acteon-swarm-hook uninstall: {e}\n")
        return 2
    removed = remove_ours(settings)
    if args.print:
        sys.stdout.write(json.dumps(settings, indent=2) + "\n")
        return 0
    if removed and not settings:
        # Nothing but our hooks was in it (install created it): an empty `{}` left behind is clutter.
        path.unlink()
        sys.stdout.write(f"removed {removed} acteon-swarm hook(s) for {args.cli}: {path} held nothing else and "
                         f"is deleted\n")
        return 0
    if removed:
        write_atomic(path, settings)
    sys.stdout.write(f"removed {removed} acteon-swarm hook(s) for {args.cli} from {path}\n")
    return 0
