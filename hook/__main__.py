"""``acteon-swarm-hook``: the executable every agent CLI runs on every tool call (docs/hook.md, docs/clis.md).

    acteon-swarm-hook gate [--cli CLI] [--url URL] [--key-file F] [--budget S] [--authoritative] [--defer]
    acteon-swarm-hook complete [--cli CLI] [--url URL] [--key-file F]
    acteon-swarm-hook install --cli CLI [--http] [--settings PATH | --scope ...]
    acteon-swarm-hook uninstall --cli CLI [--settings PATH | --scope ...]

CLI is one of claude, gemini, codex, qwen, opencode, copilot, crush, cline, cursor, goose, windsurf,
antigravity. Standard library only, and only what ``gate``
needs is imported on the hot path: this runs before every tool call. It may be run as a file
(``python -I -S /path/hook/__main__.py``), which skips site-packages and saves most of the interpreter's
start-up.
"""

from __future__ import annotations

import sys

if not __package__:  # run as a file: make the package importable without site-packages
    sys.path.insert(0, __file__.rsplit("/", 2)[0])

USAGE = """usage: acteon-swarm-hook gate [--cli CLI] [--url URL] [--key-file FILE] [--budget SECONDS]
                                [--authoritative] [--defer]
       acteon-swarm-hook complete [--cli CLI] [--url URL] [--key-file FILE]
       acteon-swarm-hook install --cli CLI [--http] [--settings PATH] [--scope SCOPE] ...
       acteon-swarm-hook install --help
       acteon-swarm-hook uninstall --cli CLI [--settings PATH] [--scope SCOPE]
       acteon-swarm-hook --version

CLI: claude, gemini, codex, qwen, opencode, copilot, crush, cline, cursor, goose, windsurf or antigravity
(docs/clis.md); without --cli, the event tells claude from gemini.

gate      PreToolUse / BeforeTool: ask the gateway, answer in the caller's dialect (fails closed): a block is a
          deny; an allow leaves the CLI's own permissions to decide, or is an allow with --authoritative;
          --defer (Claude, headless): a call waiting for a person stops the session (resumed with --resume)
complete  PostToolUse / AfterTool: report the finished tool call to the gateway
install   write or merge the hook configuration into an agent CLI's settings (docs/clis.md)
uninstall remove what install added: the file as it was before, byte for byte, unless edited since
"""

EXIT_ALLOW = 0
EXIT_DENY = 2  # blocks even if the JSON answer were lost (Cline's deny exits 0: acteon_core.dialects.DENY_EXIT)


def _options(args: list[str]) -> dict[str, str]:
    opts: dict[str, str] = {}
    i = 0
    while i < len(args):
        name = args[i]
        if name in ("--cli", "--url", "--key-file", "--budget") and i + 1 < len(args):
            opts[name[2:]] = args[i + 1]
            i += 2
        elif name in ("--authoritative", "--defer"):
            opts[name[2:]] = "1"
            i += 1
        else:
            raise ValueError(f"unknown argument {name!r}")
    return opts


def _gate(args: list[str]) -> int:
    import time

    from acteon_core import contract as c
    from hook import gate

    started = time.monotonic()  # the budget covers everything from here, reading the input included
    flag: str | None = None
    try:
        opts = _options(args)
        flag = opts.get("cli")
        budget = float(opts.get("budget", c.HOOK_BUDGET_S))
    except ValueError as e:
        return _failed(args, f"acteon-swarm-hook: {e}; call blocked")
    from hook.stdin import InputTimeout, read_input

    try:
        raw = read_input(started + max(0.5, budget - gate.SAFETY_S))
    except InputTimeout:
        from acteon_core import dialects

        problem = f"acteon-swarm: the hook input did not arrive within {budget:g} s; call blocked (fail closed)"
        dialect = dialects.detect(None, flag)
        answer = dialects.deny(dialect, problem) if dialect is not None else None
    else:
        left = budget - (time.monotonic() - started)
        answer, _dialect, problem = gate.run(raw, flag, gate.environ(), url=opts.get("url"),
                                             key_file=opts.get("key-file"), budget_s=left,
                                             authoritative="authoritative" in opts, defer="defer" in opts)
    if answer is None:
        sys.stderr.write(problem + "\n")
        return EXIT_DENY
    from acteon_core import dialects, wire

    sys.stdout.write(wire.dumps(answer) + "\n")
    sys.stdout.flush()
    reason = dialects.denied(answer)
    if reason is not None:
        sys.stderr.write(f"{reason}\n")
        return dialects.DENY_EXIT.get(flag or "", EXIT_DENY)
    return EXIT_ALLOW


def _complete(args: list[str]) -> int:
    import time

    from hook import complete, gate
    from hook.stdin import InputTimeout, read_input

    started = time.monotonic()
    try:
        opts = _options(args)
        budget = float(opts.get("budget", 5))
        raw = read_input(started + budget)
        problem = complete.run(raw, opts.get("cli"), gate.environ(), url=opts.get("url"),
                               key_file=opts.get("key-file"), budget_s=budget - (time.monotonic() - started))
    except ValueError as e:
        problem = f"acteon-swarm-hook: {e}"
    except InputTimeout:
        problem = "acteon-swarm-hook: the hook input did not arrive in time; completion not reported"
    if problem:
        sys.stderr.write(problem + "\n")
    sys.stdout.write("{}\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else ""
    try:
        if command == "gate":
            return _gate(args[1:])
        if command == "complete":
            return _complete(args[1:])
        if command == "install":
            from hook import install

            return install.main(args[1:])
        if command == "uninstall":
            from hook import install

            return install.uninstall_main(args[1:])
        if command in ("-V", "--version"):
            from acteon_core import contract

            sys.stdout.write(f"acteon-swarm-hook {contract.VERSION}\n")
            return 0
        if command in ("-h", "--help", "help"):
            sys.stdout.write(USAGE)
            return 0
        sys.stderr.write(USAGE)
        return EXIT_DENY
    except BaseException as e:  # the hook's own bugs must block, never let the tool through
        if isinstance(e, SystemExit) and command in ("install", "uninstall"):
            raise
        message = f"acteon-swarm-hook: internal error ({type(e).__name__}: {e}); call blocked"
        return _failed(args[1:], message) if command == "gate" else _say(message, EXIT_DENY)


def _say(message: str, code: int) -> int:
    sys.stderr.write(message + "\n")
    return code


def _failed(args: list[str], message: str) -> int:
    """A deny for a gate that could not decide: in the CLI's dialect when ``--cli`` names one (a CLI that reads
    only the answer, like Cline, would run the call on a bare exit code), else exit 2 alone."""
    try:
        from acteon_core import dialects, wire

        flag = args[args.index("--cli") + 1] if "--cli" in args[:-1] else None
        if flag in dialects.DIALECTS:
            sys.stdout.write(wire.dumps(dialects.deny(flag, message)) + "\n")
            return _say(message, dialects.DENY_EXIT.get(flag, EXIT_DENY))
    except BaseException:  # noqa: S110 - already failing: exit 2 below is the deny
        pass
    return _say(message, EXIT_DENY)


def run_as_program() -> None:
    """Exit without interpreter finalization: nothing is left to clean up once the answer is flushed,
    and skipping it saves over a millisecond on every tool call."""
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # a closed pipe: the exit code still carries the decision
        code = code or EXIT_DENY
    import posix

    posix._exit(code)


if __name__ == "__main__":
    run_as_program()
