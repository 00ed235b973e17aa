"""``acteon-swarm-hook install`` and ``uninstall``: the command lines that merge the gate into a CLI's
settings file, or take it out (what is merged: ``acteon_core.settings``; written atomically; the file as
install found it: ``hook.originals``).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
from pathlib import Path

from acteon_core import contract as c
from acteon_core.files import write_atomic, write_bytes_atomic, write_text_atomic
from acteon_core.hook_files import MARKER, hook_file
from acteon_core.settings import (
    WRITERS,
    HookOptions,
    SettingsError,
    cline_scripts,
    copilot_hooks,
    goose_hooks,
    insecure_ancestor,
    load,
    opencode_plugin,
    remove_ours,
    revert_gemini_config,
)
from hook import originals

CLIS = ("claude", "gemini", "codex", "qwen", "opencode", "copilot", "crush", "cline", "cursor", "goose", "windsurf",
        "antigravity")
# CLIs that get files of our own rather than entries merged into theirs
OWN_FILE = ("opencode", "copilot", "goose", "cline")


def target_path(args: argparse.Namespace) -> Path:
    """The file install writes (for Cline: the folder its hook executables go in)."""
    if args.settings:
        return Path(args.settings).expanduser().absolute()
    return hook_file(args.cli, args.scope, Path.cwd(), Path.home(), os.environ)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="acteon-swarm-hook install",
        description="Add the acteon-swarm gate to an agent CLI's hook settings (merged, atomic; docs/clis.md).",
    )
    p.add_argument("--cli", required=True, choices=CLIS)
    p.add_argument("--http", action="store_true", help="Claude only: use Claude's native http hook (no process)")
    p.add_argument("--settings", help="the settings file to write (default: by --scope)")
    p.add_argument("--scope", choices=["project", "local", "user"], default="local",
                   help="claude: .claude/settings.json | .claude/settings.local.json | ~/.claude/settings.json; "
                        "gemini: .gemini/settings.json | ~/.gemini/settings.json; codex: .codex/hooks.json | "
                        "$CODEX_HOME/hooks.json; qwen: .qwen/settings.json | ~/.qwen/settings.json; "
                        "opencode: the plugin .opencode/plugins/acteon-swarm.js | "
                        "~/.config/opencode/plugins/acteon-swarm.js; copilot: .github/hooks/acteon-swarm.json | "
                        "~/.copilot/hooks/acteon-swarm.json; crush: .crush.json | ~/.config/crush/crush.json; "
                        "cline: .clinerules/hooks/ | ~/Documents/Cline/Hooks/; cursor: .cursor/hooks.json | "
                        "~/.cursor/hooks.json; goose: .agents/plugins/acteon-swarm/hooks/hooks.json | the same under "
                        "~; windsurf: .windsurf/hooks.json | ~/.codeium/windsurf/hooks.json; antigravity: "
                        ".agents/hooks.json | ~/.gemini/config/hooks.json (default: %(default)s)")
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
    if args.cli in OWN_FILE:
        return _install_own_file(args, path)
    try:
        if args.cli == "gemini" and args.settings and (bad := insecure_ancestor(path)):
            raise SettingsError(
                f"{bad} is writable by group or others: Gemini CLI silently ignores a system settings file "
                f"below it and would run tools ungated. Choose a path in an owner-only directory.")
        settings = load(path)
        opts = HookOptions(url=args.url, key_file=args.key_file, budget=args.budget, http=args.http,
                           authoritative=args.authoritative)
        reinstall = remove_ours(copy.deepcopy(settings)) > 0
        merged = WRITERS[args.cli](settings, opts)
    except SettingsError as e:
        sys.stderr.write(f"acteon-swarm-hook install: {e}\n")
        return 2
    if args.print:
        sys.stdout.write(json.dumps(merged, indent=2) + "\n")
        return 0
    if not reinstall:
        originals.remember(path)  # a re-install keeps the first one's record
    write_atomic(path, merged)
    sys.stdout.write(f"acteon-swarm gate installed for {args.cli} in {path}\n")
    if args.cli == "codex":
        sys.stdout.write("Codex runs a new hook only once you trust it: start codex, type /hooks and trust the two "
                         "acteon-swarm hooks (until then Codex skips them silently; `acteon-swarm doctor` checks)\n")
    for warning in _warnings(args):
        sys.stderr.write(f"acteon-swarm-hook install: warning: {warning}\n")
    return 0


def _install_own_file(args: argparse.Namespace, path: Path) -> int:
    """OpenCode's plugin, Copilot's and Goose's hook files, Cline's hook executables: files wholly ours (a file of
    that name that is not is refused)."""
    try:
        files = _own_files(args, path)
        for file in files:
            if file.exists() and MARKER not in file.read_text(encoding="utf-8", errors="replace"):
                raise SettingsError(f"{file} exists and is not acteon-swarm's; not touching it")
    except SettingsError as e:
        sys.stderr.write(f"acteon-swarm-hook install: {e}\n")
        return 2
    if args.print:
        sys.stdout.write("".join(files.values()))
        return 0
    for file, text in files.items():
        write_text_atomic(file, text, new_mode=0o755 if args.cli == "cline" else 0o644)
    sys.stdout.write(f"acteon-swarm gate installed for {args.cli}: {', '.join(map(str, files))}\n")
    for warning in _warnings(args):
        sys.stderr.write(f"acteon-swarm-hook install: warning: {warning}\n")
    return 0


def _own_files(args: argparse.Namespace, path: Path) -> dict[Path, str]:
    opts = HookOptions(url=args.url, key_file=args.key_file, budget=args.budget, http=args.http,
                       authoritative=args.authoritative)
    if args.cli == "cline":
        return {path / event: text for event, text in cline_scripts(opts).items()}
    if args.cli == "opencode":
        return {path: opencode_plugin(opts)}
    hooks = goose_hooks(opts) if args.cli == "goose" else copilot_hooks(opts)
    return {path: json.dumps(hooks, indent=2) + "\n"}


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


def uninstall_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="acteon-swarm-hook uninstall",
        description="Remove the acteon-swarm gate from an agent CLI's settings: the file "
                    "as install found it, byte for byte, unless edited since (then other hooks and settings stay "
                    "as they are).",
    )
    p.add_argument("--cli", required=True, choices=CLIS)
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
    if args.cli in OWN_FILE:
        files = [path / "PreToolUse", path / "PostToolUse"] if args.cli == "cline" else [path]
        files = [f for f in files if f.exists()]
        for file in files:
            if MARKER not in file.read_text(encoding="utf-8", errors="replace"):
                sys.stderr.write(f"acteon-swarm-hook uninstall: {file} is not acteon-swarm's; not touching it\n")
                return 2
        if not args.print:
            for file in files:
                file.unlink()
        sys.stdout.write(f"removed the acteon-swarm gate for {args.cli}: {', '.join(map(str, files))}\n")
        return 0
    try:
        settings = load(path)
    except SettingsError as e:
        sys.stderr.write(f"acteon-swarm-hook uninstall: {e}\n")
        return 2
    removed = remove_ours(settings)
    original = originals.recall(path)
    before = _parsed(original)
    if args.cli == "gemini" and removed:
        revert_gemini_config(settings, before)
    if args.print:
        sys.stdout.write(json.dumps(settings, indent=2) + "\n")
        return 0
    if not removed:
        sys.stdout.write(f"removed 0 acteon-swarm hook(s) for {args.cli} from {path}\n")
        return 0
    originals.forget(path)
    if original is not None and settings == before:
        # Nothing changed since install but our hooks: the file as it was, byte for byte (or no file).
        if original.existed:
            write_bytes_atomic(path, original.data)
            sys.stdout.write(f"removed {removed} acteon-swarm hook(s) for {args.cli}: {path} is as it was before "
                             "install\n")
        else:
            path.unlink()
            sys.stdout.write(f"removed {removed} acteon-swarm hook(s) for {args.cli}: {path} did not exist before "
                             "install and is deleted\n")
        return 0
    if not settings:
        # Nothing but our hooks was in it (install created it): an empty `{}` left behind is clutter.
        path.unlink()
        sys.stdout.write(f"removed {removed} acteon-swarm hook(s) for {args.cli}: {path} held nothing else and "
                         f"is deleted\n")
        return 0
    write_atomic(path, settings)
    sys.stdout.write(f"removed {removed} acteon-swarm hook(s) for {args.cli} from {path}\n")
    return 0


def _parsed(original: originals.Original | None) -> dict[str, object] | None:
    """The settings install found (``{}`` for no file); None when unknown or unreadable."""
    if original is None:
        return None
    if not original.existed:
        return {}
    try:
        data = json.loads(original.data.decode("utf-8") or "{}")
    except (ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None
