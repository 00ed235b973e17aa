"""What a command hands to the program it starts: a shell, a renamed shell, a file written just before.

Programs take commands in more places than any table of handlers can list: an operand (`npm exec
/bin/sh`), an option value (`--editor '/bin/sh -s'`, `-o APT::Update::Pre-Invoke::=/bin/sh`,
`-H/bin/sh`, `kernel.core_pattern=|/path`), a directory or a file they load (`cmake DIR` runs the
CMakeLists.txt there, `bundle install` the Gemfile in the current directory, `logrotate -m FILE`), an
environment variable naming a directory of helpers (`GROFF_BIN_PATH=. nroff`). Handlers know the usual
ones; this check runs for every program that is not a plain data tool, so a new way of passing a
command to a known program is not a new bypass.

- A shell named there is run by the program: with arguments it is analysed as the command it is
  (`'/bin/sh -c "ls"'`), alone it is interactive — ``dynamic_command`` (docs/rules.md).
- A shell copied or linked under another name earlier in the command line (``Scope.renamed``),
  named there or inside a directory named there, is the same.
- A file written earlier in the command line (``Scope.files``) whose text invokes a shell is code the
  program will run: ``dynamic_command``; a secret or a start-up location it names is read or written
  as if the program did it (`go run f.go` of a file that opens /etc/shadow). A file's first line
  (`#!/bin/sh`) is how scripts begin, not a command.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from gateway.paths import HOME
from gateway.persistence import is_persistence_path
from gateway.shell import categories as cat
from gateway.shell.facts import Collector
from gateway.shell.flow import Flow, Scope
from gateway.shell.generic import EMBEDDED_PATH, SHELL_INSIDE, SHELLS, is_shell
from gateway.shell.invocation import Invocation
from gateway.shell.syntax import text_of
from gateway.shell.words import Word, locate

# A shell started with a command or an option inside program text (`sh -c`, `bash -i`).
_SHELL_CALL = re.compile(r"(?:^|[\s;'\"(|&!`])(?:ba|da|z|k|c|tc|fi|a)?sh\s+-[a-z]*[ci]\b")
# Files a build or package tool loads from its working directory and runs code from.
MANIFESTS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("bundle", "bundler"), ("Gemfile",)),
    "composer": ("composer.json",),
    **dict.fromkeys(("npm", "yarn", "pnpm", "bun"), ("package.json",)),
    **dict.fromkeys(("make", "gmake"), ("Makefile", "makefile", "GNUmakefile")),
    "cmake": ("CMakeLists.txt",),
    "cargo": ("build.rs", "Cargo.toml"),
    "rake": ("Rakefile",),
    "gradle": ("build.gradle", "build.gradle.kts"),
    "mvn": ("pom.xml",),
    "just": ("justfile", "Justfile"),
    "task": ("Taskfile.yml",),
    "vagrant": ("Vagrantfile",),
    **dict.fromkeys(("pip", "pip3"), ("setup.py",)),
    "tox": ("tox.ini",),
    "nox": ("noxfile.py",),
}
# Variables naming a directory a program loads helpers from (`GROFF_BIN_PATH=. nroff`).
PATH_VARIABLES = frozenset({"PATH", "GIT_EXEC_PATH", "GROFF_BIN_PATH", "PYTHONPATH", "RUBYLIB", "PERL5LIB",
                             "NODE_PATH", "LD_LIBRARY_PATH"})
_MAX_CANDIDATES = 256  # words of one command examined (the command line is already bounded)


def check(call: Invocation) -> None:
    """Judge what ``call`` hands its program."""
    scope = call.scope
    written = scope.written()
    for n, (word, text) in enumerate(_candidates(call.args)):
        if n >= _MAX_CANDIDATES:
            break
        if _hands_shell(call, text):
            continue
        if (scope.renamed or written) and text and " " not in text:
            _hands_path(call, Word(text) if text != word.value else word, written)
    if written or scope.renamed:
        for name in PATH_VARIABLES:
            value = scope.vars.get(name)
            if value:
                path_variable(call, value, written)
        cwd = scope.cwd if scope.cwd_known else None
        if cwd is not None:
            for manifest in MANIFESTS.get(call.name, ()):
                flow = written.get(f"{cwd.rstrip('/')}/{manifest}")
                if flow is not None:
                    judge_content(call, flow)


def path_variable(call: Invocation, value: str, written: dict[str, Flow] | None = None) -> None:
    """`PATH=$PATH:/tmp/d prog`, `GROFF_BIN_PATH=. nroff`: a directory searched for helpers, holding a shell
    under another name or a file written just before."""
    for part in value.split(":")[:64]:
        if part and "$" not in part:
            _hands_path(call, Word(part), call.scope.written() if written is None else written)


# Options whose value is where a program writes (`curl -o out.png`, `--output-document=x`): an output, never
# something handed to the program to load or run.
_OUTPUTS = frozenset({"-o", "--output", "--output-document", "--output-file", "--out", "--outfile"})


def _candidates(args: list[Word]) -> list[tuple[Word, str]]:
    """Each argument, and the value inside `--opt=VALUE`, `KEY=VALUE` and `-XVALUE` forms; not the value of an
    output option."""
    out: list[tuple[Word, str]] = []
    for i, word in enumerate(args):
        if not word.literal or (i and args[i - 1].value in _OUTPUTS and "=" not in word.value):
            continue  # an output path (`apt-get -o Key=Value`, `ssh -o Opt=…` are settings, still read)
        value = word.value
        if value.split("=", 1)[0] in _OUTPUTS:
            continue
        out.append((word, value))
        if "=" in value:
            out.append((word, value.split("=", 1)[1]))
        elif len(value) > 2 and value[0] == "-" and value[1] != "-" and value[2] == "/":
            out.append((word, value[2:]))  # `-H/bin/sh`
    return out


def _hands_shell(call: Invocation, text: str) -> bool:
    stripped = text.lstrip("|!")
    tokens = stripped.split()
    if not tokens:
        return False
    first = tokens[0]
    if not is_shell(first) or not (first.startswith("/") or (len(tokens) > 1 and tokens[1].startswith("-"))):
        return False
    if len(tokens) > 1:
        call.run_script(stripped)  # `'/bin/sh -c "cmd"'`: the command is known; `'/bin/sh -s'` is not
    else:
        call.flag(cat.DYNAMIC_COMMAND)
    return True


def _hands_path(call: Invocation, word: Word, written: dict[str, Flow]) -> None:
    scope = call.scope
    path = locate(word, scope.cwd, scope.cwd_known, call.facts.home)
    if path is None:
        return
    if scope.renamed.get(path) in SHELLS:
        call.flag(cat.DYNAMIC_COMMAND)  # `cp /bin/sh ./x; prog --helper ./x`
        return
    flow = written.get(path)
    if flow is not None:
        judge_content(call, flow)
        return
    prefix = path.rstrip("/") + "/"
    if any(p.startswith(prefix) and original in SHELLS for p, original in scope.renamed.items()):
        call.flag(cat.DYNAMIC_COMMAND)  # a directory holding a shell under another name (run-parts DIR)
        return
    for other, content in list(written.items()):
        if other.startswith(prefix):
            judge_content(call, content)


def invokes_shell(text: str) -> bool:
    """Text that starts a shell (`exec /bin/sh`, `sh -c …`), not counting a `#!` first line."""
    if text.startswith("#!"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
    text = text[: 1 << 16]
    return bool(SHELL_INSIDE.search(text) or _SHELL_CALL.search(text))


def plants_command(facts: Collector, path: str, flow: Flow) -> None:
    """Shell-starting text written to a dot-file or a `~/.config` file in a home directory (`.rtorrent.rc`
    `execute = /bin/sh …`, procps' `toprc` pipe fields): some program will run it later, on its own."""
    if flow.script is None or not invokes_shell(flow.script):
        return
    pf = facts.record(path)
    if pf.path_class == HOME and "/." in pf.path:  # a dot-file, or anything under a dot-directory (~/.config/…)
        facts.flag(cat.PERSISTENCE)


def judge_content(call: Invocation, flow: Flow) -> None:
    """A file this command line wrote is loaded by a program that may run it."""
    if flow.payload:
        call.flag(cat.REMOTE_CODE)
    text = flow.script
    if text is None:
        return
    if invokes_shell(text):
        call.flag(cat.DYNAMIC_COMMAND)
    home = call.facts.home
    for match in EMBEDDED_PATH.finditer(text[: 1 << 16]):
        path = match.group(1)
        if is_persistence_path(path, home):
            call.write(Word(path))
        else:
            call.read(Word(path))  # a secret the file names counts as read


# `q() { psql "$@"; }`: a function whose body hands all its arguments to one program.
_FORWARDER = re.compile(r"\{\s*(?:command\s+|exec\s+)?([\w.+/-]+)(?:\s+[^;&|$`(){}]*?)?\s+\"?\$[@*]\"?\s*;?\s*\}")


def remember_forwarder(scope: Scope, name_node: Node | None, body: Node) -> None:
    """`q() { psql "$@"; }; q -c 'DROP …'`: the function's name runs that program from now on, as a renamed
    copy does (``Scope.renamed``), so its calls are judged as the program's."""
    match = _FORWARDER.fullmatch(text_of(body).strip())
    if name_node is not None and match is not None:
        program = match.group(1).rsplit("/", 1)[-1]
        if program != text_of(name_node):
            scope.renamed[text_of(name_node)] = program
