"""Commands that run another command: sudo, env, timeout, nice, xargs, …

Each unwrapper takes the full argv (``argv[0]`` is the wrapper) and returns the argv of the command it
runs. Wrappers that run their argument through a shell (``su -c``, ``watch``, ``flock -c``) are turned
into ``sh -c SCRIPT`` so the shell handler analyzes the string like any other nested script.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from gateway.shell.options import Spec, scan, spec
from gateway.shell.words import Word, join_words, literal_word

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(slots=True)
class Unwrapped:
    argv: list[Word]  # the command run by the wrapper; empty when it runs none
    cwd: Word | None = None  # directory the command runs in (env -C, sudo -D)
    assignments: list[tuple[str, Word]] = field(default_factory=list)  # env/sudo VAR=value
    xargs_replace: str | None = None  # xargs -I STR: STR in argv stands for each input item
    xargs: bool = False  # the command's trailing arguments come from stdin
    prints_environment: bool = False  # `env` alone dumps the environment
    reads: list[Word] = field(default_factory=list)  # files the wrapper itself reads (xargs -a, ltrace -F)
    writes: list[Word] = field(default_factory=list)  # files the wrapper itself writes (strace -o)
    terminal_stdin: bool = False  # the command's stdin is the terminal (xargs -o, xargs -a FILE)


def _shell(script: Word) -> list[Word]:
    return [literal_word("sh"), literal_word("-c"), script]


def _split_assignments(words: list[Word], out: Unwrapped) -> list[Word]:
    i = 0
    # `env FOO=$(date) make`: the name is literal even when the value is not.
    while i < len(words) and _ASSIGNMENT.match(words[i].value) and (
            words[i].literal or 0 <= words[i].value.index("=") < words[i].wild):
        name, _, _ = words[i].value.partition("=")
        out.assignments.append((name, words[i].tail(len(name) + 1)))
        i += 1
    return words[i:]


def _after_options(argv: list[Word], option_spec: Spec) -> list[Word]:
    return scan(argv[1:], option_spec).operands


_SUDO = spec("CDghpRrtTUu", ["--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot",
                             "--role", "--type", "--command-timeout", "--other-user", "--user"], stop=True)


def _sudo(argv: list[Word]) -> Unwrapped:
    options = scan(argv[1:], _SUDO)
    out = Unwrapped([], cwd=options.value("-D", "--chdir"))
    rest = _split_assignments(options.operands, out)
    if options.has("-e", "--edit"):
        out.argv = [literal_word("sudoedit"), *rest]
    elif not options.has("-l", "--list", "-v", "--validate", "-k", "-K"):
        out.argv = rest
        if not rest and options.has("-i", "--login", "-s", "--shell"):
            out.argv = [literal_word("sh")]  # `sudo -i`: an interactive root shell
    return out


_DOAS = spec("uC", stop=True)


def _doas(argv: list[Word]) -> Unwrapped:
    rest = _after_options(argv, _DOAS)
    return Unwrapped(rest if rest else [literal_word("sh")])  # bare doas -s / doas: a root shell


_ENV = spec("uCSP", ["--unset", "--chdir", "--split-string"], stop=True)


def _env(argv: list[Word]) -> Unwrapped:
    args = argv[1:]
    out = Unwrapped([])
    for _ in range(8):  # -S can introduce more options; bound the rounds
        options = scan(args, _ENV)
        out.cwd = options.value("-C", "--chdir") or out.cwd
        operands = options.operands
        if operands and operands[0].value == "-":  # `env - cmd` is `env -i cmd`
            operands = operands[1:]
        rest = _split_assignments(operands, out)
        split = options.value("-S", "--split-string")
        if split is None:
            out.argv = rest
            out.prints_environment = not rest
            return out
        try:
            pieces = shlex.split(split.value)
        except ValueError:
            pieces = split.value.split()
        args = [Word(p, split.literal, -1 if split.literal else 0) for p in pieces] + rest
    out.argv = args
    return out


def _plain(option_spec: Spec) -> Callable[[list[Word]], Unwrapped]:
    def unwrap(argv: list[Word]) -> Unwrapped:
        return Unwrapped(_after_options(argv, option_spec))

    return unwrap


def _command(argv: list[Word]) -> Unwrapped:
    options = scan(argv[1:], spec(stop=True))
    if options.has("-v", "-V"):
        return Unwrapped([])  # lookup only, runs nothing
    return Unwrapped(options.operands)


_TIMEOUT = spec("sk", ["--signal", "--kill-after"], stop=True)


def _timeout(argv: list[Word]) -> Unwrapped:
    operands = _after_options(argv, _TIMEOUT)
    return Unwrapped(operands[1:])  # operands[0] is the duration


def _nice(argv: list[Word]) -> Unwrapped:
    args = argv[1:]
    # `nice -10 cmd` is the historic spelling of `nice -n 10 cmd`.
    while args and args[0].literal and re.fullmatch(r"-\d+", args[0].value):
        args = args[1:]
    return Unwrapped(scan(args, spec("n", ["--adjustment"], stop=True)).operands)


def _ionice(argv: list[Word]) -> Unwrapped:
    options = scan(argv[1:], spec("cnpPu", ["--class", "--classdata", "--pid", "--pgid", "--uid"], stop=True))
    if options.has("-p", "-P", "-u", "--pid", "--pgid", "--uid"):
        return Unwrapped([])  # changes existing processes, runs nothing
    return Unwrapped(options.operands)


def _chroot(argv: list[Word]) -> Unwrapped:
    operands = _after_options(argv, spec("", ["--userspec", "--groups"], stop=True))
    # operands[0] is the new root; with no command, chroot runs an interactive $SHELL in it
    return Unwrapped(operands[1:] if len(operands) > 1 else [literal_word("sh")])


def _trace(argv: list[Word]) -> Unwrapped:
    options = scan(argv[1:], spec("abeEIoOpPsSuUXAlLnxDF", ["--output", "--attach", "--trace", "--config"],
                                  stop=True))
    return Unwrapped(options.operands, writes=options.values("-o", "--output"),
                     reads=options.values("-F", "--config"))


def _taskset(argv: list[Word]) -> Unwrapped:
    options = scan(argv[1:], spec(stop=True))
    if options.has("-p", "--pid"):
        return Unwrapped([])
    return Unwrapped(options.operands[1:])  # operands[0] is the mask or cpu list


def _flock(argv: list[Word]) -> Unwrapped:
    operands = _after_options(argv, spec("wE", ["--timeout", "--conflict-exit-code"], stop=True))
    if len(operands) >= 3 and operands[1].value in ("-c", "--command"):
        return Unwrapped(_shell(operands[2]))
    return Unwrapped(operands[1:])  # operands[0] is the lock file


def _applet(argv: list[Word]) -> Unwrapped:
    # busybox/toybox: `busybox rm -rf /` runs the rm applet.
    rest = argv[1:]
    if rest and not rest[0].value.startswith("-"):
        return Unwrapped(rest)
    return Unwrapped([])


_WATCH = spec("ndq", ["--interval", "--differences"], stop=True)


def _watch(argv: list[Word]) -> Unwrapped:
    options = scan(argv[1:], _WATCH)
    if not options.operands:
        return Unwrapped([])
    if options.has("-x", "--exec"):
        return Unwrapped(options.operands)
    return Unwrapped(_shell(join_words(options.operands)))


_SU = spec("csgGw", ["--command", "--shell", "--group", "--supp-group", "--whitelist-environment",
                     "--session-command", "--user"], stop=True)


def _su(argv: list[Word]) -> Unwrapped:
    options = scan(argv[1:], _SU)
    script = options.value("-c", "--command", "--session-command")
    if script is not None:
        return Unwrapped(_shell(script))
    if argv[0].value.endswith("runuser") and options.has("-u", "--user"):
        return Unwrapped(options.operands)
    return Unwrapped([literal_word("sh")])  # an interactive login shell as another user


def _xargs(argv: list[Word]) -> Unwrapped:
    out = Unwrapped([], xargs=True)
    args = argv[1:]
    i = 0
    with_value = {"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter",
                  "--eof", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}
    while i < len(args):
        text = args[i].value
        if not text.startswith("-") or text == "-":
            break
        if text == "--":
            i += 1
            break
        name = text.split("=", 1)[0]
        if text.startswith("-I") or name == "--replace" or text.startswith("-i"):
            if text in ("-I",) and i + 1 < len(args):
                out.xargs_replace = args[i + 1].value
                i += 1
            elif text.startswith("-I"):
                out.xargs_replace = text[2:]
            elif "=" in text:
                out.xargs_replace = text.split("=", 1)[1] or "{}"
            else:
                out.xargs_replace = text[2:] or "{}"
        elif text in ("-o", "--open-tty"):
            out.terminal_stdin = True
        elif name in ("-a", "--arg-file") and ("=" in text or i + 1 < len(args)):
            out.reads.append(args[i].tail(len(name) + 1) if "=" in text else args[i + 1])
            out.terminal_stdin = True  # with -a, the command inherits xargs' own stdin
            i += 0 if "=" in text else 1
        elif text in with_value and "=" not in text:
            i += 1
        elif len(text) > 2 and text[:2] in with_value:
            pass  # value attached (-n1, -P4)
        i += 1
    out.argv = args[i:] or [literal_word("echo")]
    return out


# GNU parallel: the options that take a value (everything else is a flag), up to the command
_PARALLEL = spec("jPSadCnNLlIEX", ["--jobs", "--sshlogin", "--sshloginfile", "--slf", "--joblog", "--results",
                                   "--res", "--arg-file", "--colsep", "--delimiter", "--delay", "--timeout",
                                   "--retries", "--tagstring", "--max-args", "--max-lines", "--memfree", "--load",
                                   "--tmpdir", "--workdir", "--wd", "--env", "--halt", "--basefile", "--bf",
                                   "--return", "--eof", "--nice", "--ssh", "--max-procs", "--tmux", "--limit",
                                   "--termseq", "--rpl", "--template", "--header", "--block", "--recstart",
                                   "--recend", "--sqlmaster", "--sqlworker", "--sqlandworker", "--shellquote"],
                 stop=True)  # the command's own options follow it: `parallel rm -rf {} ::: …`
_PARALLEL_INPUTS = frozenset({":::", "::::", ":::+", "::::+"})
_REPLACEMENT = re.compile(r"\{[^{}\s]*\}")


def _parallel(argv: list[Word]) -> Unwrapped:
    """GNU parallel: the command template (up to `:::`) run through a shell once per input, each `{}`-style
    replacement string standing for an input; no template: every input line is itself a command."""
    options = scan(argv[1:], _PARALLEL)
    if any(name in ("--dry-run", "--dryrun") for name, _ in options.flags):
        return Unwrapped([literal_word("echo")])  # prints the commands, runs none
    operands = options.operands
    cut = next((i for i, w in enumerate(operands) if w.value in _PARALLEL_INPUTS), len(operands))
    template, inputs = operands[:cut], operands[cut:]
    reads = [w for i, w in enumerate(inputs[1:], 1) if inputs[i - 1].value.startswith("::::")]
    reads += options.values("-a", "--arg-file")
    if not template:
        return Unwrapped([literal_word("sh")], reads=reads)  # `parallel < commands.txt`
    first = next((w.value for w in inputs if w.value not in _PARALLEL_INPUTS), None)
    value = first if first is not None and cut < len(operands) and operands[cut].value == ":::" else "$X"
    script = " ".join(w.value for w in template)
    script = _REPLACEMENT.sub(lambda _m: value, script) if _REPLACEMENT.search(script) else f"{script} {value}"
    return Unwrapped(_shell(literal_word(script)), reads=reads)


_TIME = spec("fo", ["--format", "--output"], stop=True)
_STDBUF = spec("ioe", ["--input", "--output", "--error"], stop=True)
_PROXY = spec("f", stop=True)

# Wrappers that run their command as another user (root, by default): ``Scope.root`` inside.
PRIVILEGED = frozenset({"sudo", "doas", "su", "runuser"})

UNWRAPPERS: dict[str, Callable[[list[Word]], Unwrapped]] = {
    "sudo": _sudo,
    "doas": _doas,
    "env": _env,
    "command": _command,
    "builtin": _plain(spec(stop=True)),
    "nohup": _plain(spec(stop=True)),
    "setsid": _plain(spec(stop=True)),
    "unbuffer": _plain(spec(stop=True)),
    "torsocks": _plain(spec(stop=True)),
    "proxychains": _plain(_PROXY),
    "proxychains4": _plain(_PROXY),
    "time": _plain(_TIME),
    "timeout": _timeout,
    "nice": _nice,
    "ionice": _ionice,
    "exec": _plain(spec("a", stop=True)),
    "stdbuf": _plain(_STDBUF),
    "chroot": _chroot,
    "strace": _trace,
    "ltrace": _trace,
    "taskset": _taskset,
    "flock": _flock,
    "busybox": _applet,
    "toybox": _applet,
    "watch": _watch,
    "su": _su,
    "runuser": _su,
    "xargs": _xargs,
    "parallel": _parallel,
    "coproc": _plain(spec(stop=True)),
}
