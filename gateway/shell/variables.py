"""Variables that matter beyond their value: one a program runs as a command (`PAGER`, `GIT_SSH_COMMAND`,
`*_EDITOR`), one that loads code into every program (`LD_PRELOAD`, `NODE_OPTIONS=--require`), one that hides
the shell's history (`HISTFILE`, `HISTSIZE=0`)."""

from __future__ import annotations

from dataclasses import replace

from gateway.shell import categories as cat
from gateway.shell import handoff
from gateway.shell.facts import Collector
from gateway.shell.flow import EMPTY, Scope
from gateway.shell.generic import EMBEDDED_PATH
from gateway.shell.invocation import Invocation, Runner
from gateway.shell.words import Word

HISTORY_SIZE_VARS = frozenset({"HISTSIZE", "HISTFILESIZE", "SAVEHIST"})
# Variables whose value is a command some program runs (`PAGER='sh -c …' git log`, `LESSOPEN='|cmd %s' less`).
COMMAND_VARIABLES = frozenset({
    "PAGER", "MANPAGER", "GIT_PAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "SUDO_EDITOR",
    "LESSOPEN", "LESSCLOSE", "BROWSER", "CRASHPAGER", "SUDO_ASKPASS", "SSH_ASKPASS", "GIT_ASKPASS",
    "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "PROMPT_COMMAND", "BASH_ENV", "ENV",
    "TERMINAL", "FCEDIT", "HGEDITOR", "SVN_EDITOR", "RSYNC_RSH", "CVS_RSH",
})
# Any variable named like one of those holds a command too (`RESTIC_PASSWORD_COMMAND`, `FOO_EDITOR`).
COMMAND_SUFFIXES = ("_COMMAND", "_CMD", "_EDITOR", "_PAGER", "_ASKPASS", "_RSH", "_PROXY_COMMAND")
# Variables that load code into every program started with them.
INJECTION_VARIABLES = frozenset({"LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "PYTHONSTARTUP",
                                  "PERL5OPT", "RUBYOPT", "NODE_OPTIONS"})


def check_command_variable(runner: Runner, facts: Collector, name: str, value: Word, scope: Scope, depth: int) -> None:
    """A variable whose value some program will run as a command, or that injects code."""
    if name in handoff.PATH_VARIABLES and (scope.written() or scope.renamed):
        handoff.path_variable(Invocation(name, [], scope, EMPTY, depth, facts, runner), value.value)
    if name in COMMAND_VARIABLES or name.endswith(COMMAND_SUFFIXES):
        text = value.value.strip().lstrip("|").replace("%s", "").strip()
        if not value.literal:
            facts.flag(cat.DYNAMIC_COMMAND)
        elif text:
            if "EDITOR" in name or name == "VISUAL":
                text += " -"  # an editor is always handed the file to edit: `vim FILE`, not a bare `vim`
            runner.run_script(text, scope.copy(), EMPTY, depth + 1)
            if name == "LESSOPEN":  # its output names the file less shows: `LESSOPEN='echo /etc/shadow'`
                for match in EMBEDDED_PATH.finditer(text):
                    facts.read(Word(match.group(1)), scope)
    elif name in INJECTION_VARIABLES and value.value.strip():
        if name == "NODE_OPTIONS" and not any(o in value.value for o in ("--require", "-r ", "--import",
                                                                         "--loader", "--experimental-loader")):
            return  # memory and inspection flags, not code
        facts.flag(cat.DYNAMIC_COMMAND)  # code nobody can see runs inside every program


def check_history_variable(facts: Collector, name: str, value: Word) -> None:
    text = value.value.strip()
    if (
        name == "HISTFILE"
        or (name in HISTORY_SIZE_VARS and text in ("", "0"))
        or (name == "HISTIGNORE" and text == "*")
    ):
        facts.flag(cat.HISTORY_TAMPER)


def appended(name: str, value: Word, scope: Scope) -> Word:
    """`c=r; c+=m; $c -rf …`: what an append (`+=`) leaves in ``name`` — known only when both halves are."""
    before = scope.vars.get(name)
    if before is not None and value.exact:
        return replace(value, value=before + value.value)
    return replace(value, wild=0, literal=False, value=f"${{{name}}}{value.value}")
