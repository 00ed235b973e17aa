"""Programs that run code the gateway cannot read, or take their commands from a terminal.

The gateway reads bash, Python, JavaScript, Ruby, Perl and PHP with their own parsers. Every other
language a program accepts inline (`julia -e`, `lua -e`, `pwsh -c`, `gdb -ex`, `vim -c`, TeX given on
the command line, `dosbox -c`) is code nobody has vouched for: ``dynamic_command`` (docs/rules.md — a
parse failure is never an allow). So is a REPL or shell started without a program (it runs whatever
is typed or piped into it), a program reading its program from stdin, and a session program that
hands out shells (screen, tmux, file managers, `terraform console`). Running a script *file* of the
workspace is not flagged, as for any interpreter: the file is the agent's work; a file written in the
same command line is judged by ``handoff``.

Paths and hosts named in the code are still noted (`generic.note_arguments`), so `lua -e` code
naming /etc/shadow is credential access as well.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass

from gateway.paths import is_within
from gateway.shell import categories as cat
from gateway.shell import lexicon, program_text
from gateway.shell.flow import EMPTY, OPAQUE, Flow
from gateway.shell.generic import note_arguments
from gateway.shell.invocation import Handler, Invocation
from gateway.shell.words import Word, literal_word

_INFO = frozenset({"--version", "-version", "-v", "-V", "--help", "-help", "-h", "-?"})


@dataclass(frozen=True, slots=True)
class _Program:
    code: frozenset[str] = frozenset()  # options whose value is program text (`-e`, `--eval`)
    files: frozenset[str] = frozenset()  # options whose value is a script file (`-x`, `-S`)
    values: frozenset[str] = frozenset()  # other options that take a value
    unsafe: frozenset[str] = frozenset()  # flags that let it run commands (`--shell-escape`, `-U`)
    repl: bool = True  # with no program given, it reads commands from a terminal or stdin
    script_operand: bool = True  # the first operand is a script file (else: data files)
    edits_operands: bool = False  # an editor: the files it opens may be written
    inline_prefix: str = ""  # an operand starting with this is program text (TeX: `\`)
    harmless: frozenset[str] = frozenset()  # commands that only inspect (gdb `bt`): their text is no risk


def _set(*names: str) -> frozenset[str]:
    return frozenset(names)


_TEX = _Program(
    unsafe=_set("--shell-escape", "-shell-escape", "--enable-write18", "-enable-write18"),
    values=_set("-output-directory", "--output-directory", "-jobname", "--jobname", "-interaction",
                "--interaction", "-fmt", "-cnf-line"),
    repl=False, inline_prefix="\\",
)
_EDITOR = _Program(code=_set("-c", "--cmd", "--eval", "-cmd"), files=_set("-S", "-s", "-l", "--load", "-u", "-x"),
                   values=_set("-t", "-T", "-i", "-w", "-W", "-f"), repl=True, script_operand=False,
                   edits_operands=True)

# gdb commands that only run and inspect the program being debugged (`gdb -batch -ex run -ex bt ./a.out`);
# `shell`, `!`, `pipe`, `python`, `call`, `dump`, `source`, `set logging` … are not among them.
_GDB_INSPECT = _set("run", "r", "start", "starti", "bt", "backtrace", "where", "info", "i", "print", "p", "list",
                    "l", "frame", "f", "up", "down", "thread", "continue", "c", "next", "n", "step", "s", "stepi",
                    "nexti", "break", "b", "tbreak", "watch", "finish", "quit", "q", "disassemble", "x", "display",
                    "ptype", "whatis", "kill", "detach", "set pagination", "set confirm", "set print", "set width",
                    "set height", "set var", "set variable", "handle", "catch", "delete", "until", "advance")

PROGRAMS: dict[str, _Program] = {
    "julia": _Program(code=_set("-e", "-E", "--eval", "--print"), files=_set("-L", "--load"),
                      values=_set("-t", "--threads", "-p", "--procs", "--project", "-J", "--sysimage")),
    **dict.fromkeys(("lua", "luajit", "texlua"), _Program(code=_set("-e"), values=_set("-l"))),
    "jrunscript": _Program(code=_set("-e"), files=_set("-f"), values=_set("-cp", "-classpath", "-l")),
    "jshell": _Program(values=_set("--class-path", "--module-path", "--add-modules", "-R", "-J")),
    **dict.fromkeys(("octave", "octave-cli"), _Program(code=_set("--eval"), values=_set("-p", "--path"))),
    "R": _Program(code=_set("-e"), files=_set("-f", "--file")),
    "Rscript": _Program(code=_set("-e"), repl=False),
    "matlab": _Program(code=_set("-batch", "-r"), values=_set("-logfile", "-sd", "-c", "-licmode"), repl=True,
                       script_operand=False),
    **dict.fromkeys(("stata", "stata-mp", "stata-se", "xstata"), _Program(values=_set("-b", "-q", "-s", "-e"),
                                                                           repl=True)),
    **dict.fromkeys(("sas", "sas_u8", "sasbatch"), _Program(
        files=_set("-sysin", "-autoexec", "-initstmt"), repl=True,
        values=_set("-log", "-print", "-work", "-config", "-set", "-sysparm", "-altlog", "-altprint"),
        unsafe=_set("-xcmd", "-allowxcmd"))),
    **dict.fromkeys(("dotnet-script", "csi.exe", "scriptcs"), _Program(code=_set("eval"), repl=True)),
    **dict.fromkeys(("tclsh", "wish", "jimsh"), _Program()),
    # compiled languages run from source: rust-script, TinyCC's `tcc -run`, the cling C++ interpreter
    "rust-script": _Program(code=_set("-e", "--expr"), repl=False),
    "tcc": _Program(files=_set("-run"), repl=False, script_operand=False),
    "cling": _Program(repl=True),
    "expect": _Program(code=_set("-c"), files=_set("-f")),
    # AppleScript / JXA: `do shell script "…"`, `tell application "Terminal" to do script "…"`, keystrokes to apps
    "osascript": _Program(code=_set("-e"), values=_set("-l", "-s", "-i")),
    **dict.fromkeys(("pwsh", "powershell", "pwsh-preview", "powershell.exe", "pwsh.exe"), _Program(
        code=_set("-c", "-command", "-Command", "--command", "-e", "-ec", "-enc", "-EncodedCommand",
                  "-encodedcommand"),
        files=_set("-f", "-file", "-File"),
        values=_set("-ExecutionPolicy", "-executionpolicy", "-ep", "-wd", "-WorkingDirectory", "-o", "-OutputFormat",
                    "-w", "-WindowStyle", "-windowstyle"))),
    **dict.fromkeys(("elvish", "xonsh", "nu", "rc", "es", "scsh"), _Program(code=_set("-c"))),
    "gdb": _Program(code=_set("-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--init-eval-command"),
                    files=_set("-x", "--command", "-ix", "--init-command"),
                    values=_set("-p", "--pid", "-d", "--directory", "-cd", "--cd", "-c", "--core", "-s", "--symbols",
                                "-e", "--exec", "-se"),
                    repl=True, script_operand=False, harmless=_GDB_INSPECT),
    "puppet": _Program(code=_set("-e", "--execute"), repl=False, script_operand=False),
    **dict.fromkeys(("vim", "vi", "nvim", "view", "rvim", "gvim", "vimdiff", "ex", "evim"), _EDITOR),
    **dict.fromkeys(("emacs", "emacsclient"), _EDITOR),
    **dict.fromkeys(("nano", "pico", "joe", "micro", "mcedit", "kak", "hx", "helix", "jed", "ne", "mg", "zile"),
                    _Program(repl=False, script_operand=False, edits_operands=True,
                             values=_set("-T", "--tabsize", "-Y", "--syntax"))),
    # ed and ex read editing commands (`!cmd`, `w FILE`) from stdin.
    **dict.fromkeys(("ed", "red"), _Program(repl=False, script_operand=False, edits_operands=True,
                                            values=_set("-p"))),
    "dosbox": _Program(code=_set("-c"), values=_set("-conf", "-lang", "-machine"), repl=True, script_operand=False),
    "bpftrace": _Program(code=_set("-e"), unsafe=_set("--unsafe"), values=_set("-p", "-c", "-o", "-f", "-B"),
                         repl=False),
    **dict.fromkeys(("tex", "etex", "pdftex", "xetex", "luatex", "latex", "pdflatex", "xelatex", "lualatex",
                     "context", "mpost", "amstex", "platex", "uplatex"), _TEX),
    "latexmk": _Program(code=_set("-e"), unsafe=_set("-shell-escape", "--shell-escape"), files=_set("-r"),
                        repl=False),
    "dvips": _Program(unsafe=_set("-R0", "-R-"), values=_set("-o", "-P", "-t", "-p", "-l"), repl=False,
                      script_operand=False),
    **dict.fromkeys(("groff", "troff", "nroff", "pic", "gpic", "grog", "soelim", "eqn", "tbl"),
                    _Program(unsafe=_set("-U"), values=_set("-m", "-M", "-F", "-T", "-d", "-r", "-I", "-n", "-o", "-w",
                                                             "-W", "-f", "-P"),
                             repl=False, script_operand=False)),
    **dict.fromkeys(("sbcl", "clisp", "ecl", "ccl"), _Program(code=_set("--eval", "-x", "-eval"),
                                                              files=_set("--load", "--script", "-i", "-load"))),
    "guile": _Program(code=_set("-c"), files=_set("-l", "-s")),
    "racket": _Program(code=_set("-e", "--eval"), files=_set("-f", "--load", "-r", "--script")),
    **dict.fromkeys(("scala", "groovy", "kotlin", "kotlinc"), _Program(code=_set("-e"))),
    **dict.fromkeys(("erl",), _Program(code=_set("-eval"), values=_set("-s", "-run", "-sname", "-name", "-pa",
                                                                        "-pz", "-setcookie"))),
    **dict.fromkeys(("elixir", "iex"), _Program(code=_set("-e", "--eval"), files=_set("-r", "--require"))),
    **dict.fromkeys(("ghci", "irb", "pry", "swift", "gforth", "scheme", "chicken", "csi"), _Program(
        code=_set("-e", "--eval"))),
}

# Sessions that hand out shells or run typed commands: multiplexers, file managers, consoles.
_SESSIONS = frozenset({"screen", "tmux", "byobu", "zellij", "dtach", "abduco", "capsh", "sg", "newgrp", "ranger",
                       "ncdu", "nnn", "vifm", "lf", "minicom", "picocom", "cu", "posh-session"})
# Subcommands of those that only look (`tmux ls`, `screen -ls`).
_SESSION_QUERIES = frozenset({"ls", "list-sessions", "list-windows", "list-panes", "has-session", "has",
                              "-ls", "-list", "capture-pane", "display-message", "info", "-v", "-V", "--version",
                              "show-environment", "showenv", "show-options", "show", "list-keys", "list-clients",
                              "list-buffers", "show-buffer", "lsw", "lsp", "lsc", "lsb", "display",
                              "--help", "-h"})
# `CLI console`-style subcommands that open a REPL of their own.
CONSOLES: dict[str, frozenset[str]] = {
    "terraform": _set("console"), "tofu": _set("console"), "rails": _set("console", "c", "dbconsole", "db"),
    "ansible-test": _set("shell"), "flask": _set("shell"), "dotnet": _set("fsi"), "php": _set("-a"),
    "vagrant": _set("ssh"), "heroku": _set("run"), "kubectl": _set("attach"),
}


def _handler(program: _Program) -> Handler:
    def handle(call: Invocation) -> Flow:
        args = call.args
        if args and all(w.value in _INFO for w in args):
            return OPAQUE
        code: list[Word] = []
        operands: list[Word] = []
        script_given = False
        i = 0
        while i < len(args):
            word = args[i]
            text = word.value
            name, eq, _ = text.partition("=")
            value: Word | None = None
            if text in program.unsafe or name in program.unsafe:
                call.flag(cat.DYNAMIC_COMMAND)
            elif name in program.code or name in program.files or name in program.values:
                value = word.tail(len(name) + 1) if eq else args[i + 1] if i + 1 < len(args) else None
                i += 0 if eq else 1
                if value is not None and name in program.code:
                    code.append(value)
                elif value is not None and name in program.files:
                    script_given = True
                    call.read(value)
                    _read_script(call, value)  # `pwsh -File x.ps1`, `julia -L x.jl`: read like a script operand
            elif text.startswith("+") and program is _EDITOR:
                code.append(word.tail(1))  # vim +CMD
            elif len(text) > 2 and text[0] == "-" and text[:2] in program.code and not text.startswith("--"):
                code.append(word.tail(2))  # `-eCODE`
            elif program.inline_prefix and text.startswith(program.inline_prefix):
                code.append(word)
            elif text == "-" or not text.startswith("-"):
                operands.append(word)
            i += 1
        if any(w.value == "-" for w in code) or (program.script_operand and not code and operands[:1]
                                                 and operands[0].value == "-"):
            _from_stdin(call)  # `… | powershell -NoProfile -`, `pwsh -Command -`: the program is what arrives
            code = [w for w in code if w.value != "-"]
            script_given = True
            operands = operands[1:] if operands[:1] and operands[0].value == "-" else operands
        if any(not _harmless(program, w.value) for w in code):
            call.flag(cat.DYNAMIC_COMMAND)  # program text in a language the gateway does not read
            note_arguments(call, code)
            for word in code:
                program_text.judge(call, _decoded(word.value), None)  # what it says still counts (`Repo.delete_all`)
        if program.script_operand and operands and not code:
            script_given = True
            call.read(operands[0])  # a secret run as a script is a secret read
            _read_script(call, operands[0])
            operands = operands[1:]
        opened = bool(operands)
        if program.edits_operands:
            for word in operands:
                if word.value != "-":
                    call.write(word)
            operands = []
        if not code and not script_given and program.repl and call.stdin is EMPTY and not opened:
            call.flag(cat.DYNAMIC_COMMAND)  # a REPL: what it runs comes from a terminal
        elif not code and not script_given and call.stdin is not EMPTY and (program.repl or program.edits_operands):
            call.flag(cat.DYNAMIC_COMMAND)  # its program (or ed commands) arrive on stdin
        note_arguments(call, operands)
        return OPAQUE

    return handle


def _from_stdin(call: Invocation) -> None:
    """A program read from standard input: downloaded bytes are remote code, known text is read like a script's,
    anything else is unknowable."""
    if call.stdin.payload:
        call.flag(cat.REMOTE_CODE)
    elif call.stdin.script is not None:
        program_text.judge(call, call.stdin.script, None)
    else:
        call.flag(cat.DYNAMIC_COMMAND)


def _decoded(text: str) -> str:
    """PowerShell's `-EncodedCommand` is base64 of UTF-16LE text: read as what it decodes to (anything else as is)."""
    if len(text) < 8 or not re.fullmatch(r"[A-Za-z0-9+/=]+", text):
        return text
    try:
        return base64.b64decode(text, validate=True).decode("utf-16-le")
    except (ValueError, UnicodeDecodeError):
        return text


def _read_script(call: Invocation, word: Word) -> None:
    """A script file the command hook sent with the call (acteon_core/attachments.py): no parser reads its language,
    but its text is read for what it names — SQL that drops or truncates, client calls that delete or
    deploy, secrets, hosts — like any program's (``program_text``)."""
    content = call.file_content(word)
    if content is not None and content.payload:
        call.flag(cat.REMOTE_CODE)  # `pwsh -File x.ps1` of a download: code nobody reviewed
    if content is not None and content.script is not None:
        program_text.judge(call, content.script, None)
    elif content is not None and content.opaque:
        call.flag(cat.DYNAMIC_COMMAND)  # too large to send: nothing vouches for it


def dart(handler: Handler) -> Handler:
    """`dart run tool/x.dart`, `dart tool/x.dart`: a Dart program of the workspace, read like any program in a
    language with no parser here (``program_text``: `Process.run('rm', ['-rf', …])`, client calls)."""
    def handle(call: Invocation) -> Flow:
        operands = [w for w in call.args if not w.value.startswith("-")]
        if operands[:1] and operands[0].value == "run":
            operands = operands[1:]
        if operands and operands[0].value.endswith(".dart"):
            _read_script(call, operands[0])
        return handler(call)

    return handle


def java(handler: Handler) -> Handler:
    """`java tools/Purge.java` (Java 11+ runs a source file as it is), `jbang x.java`, `kotlin x.main.kts`: a
    program of the workspace, read like any program in a language with no parser here (``program_text``:
    `new ProcessBuilder("rm", "-rf", …)`, SQL handed to a driver)."""
    def handle(call: Invocation) -> Flow:
        for word in call.args:
            if not word.value.startswith("-") and word.value.endswith((".java", ".kts", ".kt", ".groovy")):
                _read_script(call, word)
                break
        else:
            lexicon.judge(call)  # `java -jar jenkins-cli.jar … delete-job x`: a program nobody described
        return handler(call)

    return handle


def blender(call: Invocation) -> Flow:
    """`blender -b scene.blend --python-expr CODE` / `-P script.py` runs Python inside Blender (judged as Python);
    `-o //renders/x_####` writes beside the .blend file (Blender's `//` is that folder, not the root)."""
    args = call.args
    scene = next((w.value for w in args if w.value.endswith(".blend")), "")
    folder = scene.rsplit("/", 1)[0] + "/" if "/" in scene else ""
    for i, word in enumerate(args[:-1]):
        value, following = word.value, args[i + 1]
        if value == "--python-expr":
            call.invoke([literal_word("python3"), literal_word("-c"), following])
        elif value in ("-P", "--python"):
            call.invoke([literal_word("python3"), following])
        elif value in ("-o", "--render-output"):
            target = following.value
            call.write(Word(folder + target[2:]) if target.startswith("//") else following)
    return OPAQUE


def mix(handler: Handler) -> Handler:
    """`mix run -e CODE`, `mix run priv/repo/x.exs`: Elixir code run inside the project's application (its
    repository, its credentials) — read as `elixir -e CODE` / `elixir x.exs` would be, then by mix's table."""
    def handle(call: Invocation) -> Flow:
        words = [w.value for w in call.args]
        if "run" in words[:3] and not any(w.startswith("-") for w in words[:words.index("run")]):
            rest = call.args[words.index("run") + 1:]
            if any(not w.value.startswith("-") or w.value.split("=", 1)[0] in ("-e", "--eval") for w in rest):
                call.invoke([Word("elixir"), *rest])  # `mix run --no-halt` alone starts the application
        return handler(call)

    return handle


def _harmless(program: _Program, text: str) -> bool:
    words = text.split()
    return bool(words) and (words[0] in program.harmless or " ".join(words[:2]) in program.harmless) and not any(
        c in text for c in "|!;$`")


_M4_SYSCMD = re.compile(r"\be?syscmd\s*\(\s*`?([^)']*)'?\s*\)")


def m4(call: Invocation) -> Flow:
    """m4 runs `syscmd(CMD)`/`esyscmd(CMD)` from its input; input we can see is checked for them."""
    operands = [w for w in call.args if not w.value.startswith("-")]
    texts = [call.stdin.script] if call.stdin.script is not None else []
    for word in operands:
        content = call.file_content(word)
        if content is not None and content.script is not None:
            texts.append(content.script)
    if call.stdin.opaque and not operands:
        call.flag(cat.DYNAMIC_COMMAND)
    for text in texts:
        for match in _M4_SYSCMD.finditer(text[: 1 << 16]):
            call.run_script(match.group(1))
    return OPAQUE


def run_parts(call: Invocation) -> Flow:
    """run-parts DIR runs every program in DIR: a system directory (`/bin`) means running anything."""
    values = [w.value for w in call.args]
    if "--test" in values or "--list" in values:
        return OPAQUE
    for word in call.args:
        if not word.value.startswith("-"):
            path = call.inspect(word)
            workspace = call.facts.workspace
            if path is None or workspace is None or not is_within(path, workspace):
                call.flag(cat.DYNAMIC_COMMAND)
    return OPAQUE


def session(call: Invocation) -> Flow:
    """screen, tmux, capsh, sg, file managers …: a shell or a command typed into them runs."""
    words = [w.value for w in call.args if not w.value.startswith("-") or w.value in _SESSION_QUERIES]
    if not (words[:1] and words[0] in _SESSION_QUERIES):
        call.flag(cat.DYNAMIC_COMMAND)
    note_arguments(call, call.args)
    return OPAQUE


HANDLERS: dict[str, Handler] = {
    **{name: _handler(program) for name, program in PROGRAMS.items()},
    **dict.fromkeys(_SESSIONS, session),
    "m4": m4,
    "run-parts": run_parts,
}


def opens_console(call: Invocation) -> bool:
    """`terraform console`, `dotnet fsi` (no script), `ansible-test shell` …: a REPL of the CLI itself."""
    subcommands = CONSOLES.get(call.name)
    if not subcommands:
        return False
    first = next((w.value for w in call.args if not w.value.startswith("-") or w.value in subcommands), None)
    if first not in subcommands:
        return False
    rest = [w for w in call.args if not w.value.startswith("-") and w.value != first]
    if (call.name, first) in _JUDGED_INPUT and call.stdin.script is not None and not call.stdin.opaque:
        return False  # `rails dbconsole <<< 'SELECT …'`: its SQL is known and judged (databases.framework_db)
    return not (call.name == "dotnet" and rest)  # `dotnet fsi script.fsx` runs a file


_JUDGED_INPUT = frozenset({("rails", "dbconsole"), ("rails", "db")})
