"""git: pushes, remote hosts, and the configuration knobs that run commands."""

from __future__ import annotations

from gateway.shell import categories as cat
from gateway.shell import hosts as hostnames
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.generic import note_arguments
from gateway.shell.invocation import Call
from gateway.shell.options import scan, spec
from gateway.shell.words import Word

_GLOBAL = spec("Cc", ["--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env",
                      "--exec-path", "--list-cmds", "--attr-source"], stop=True)
# `git -c KEY=VALUE` settings whose value is a command git runs.
_COMMAND_SETTINGS = frozenset({"core.sshcommand", "core.pager", "core.editor", "core.fsmonitor",
                               "core.askpass", "sequence.editor", "diff.external", "gpg.program",
                               "credential.helper", "pager.log", "pager.diff", "pager.show"})
_NETWORK = frozenset({"clone", "fetch", "pull", "push", "ls-remote", "remote", "submodule"})
_COMMIT = spec("mFCcSt", ["--message", "--file", "--reuse-message", "--reedit-message", "--author",
                          "--date", "--template", "--fixup", "--squash", "--cleanup", "--trailer"])


def git(call: Call) -> Flow:
    options = scan(call.args, _GLOBAL)
    aliases: dict[str, str] = {}
    for setting in options.values("-c"):
        key, _, value = setting.value.partition("=")
        key = key.strip().lower()
        if key.startswith("alias."):
            aliases[key[len("alias."):]] = value
        elif key in _COMMAND_SETTINGS and value and value.lower() not in ("true", "false"):
            call.run_script(value.lstrip("!"))
    for directory in options.values("-C", "--git-dir", "--work-tree"):
        call.inspect(directory)
    operands = options.operands
    if not operands:
        return OPAQUE
    sub = operands[0].value
    rest = operands[1:]
    alias = aliases.get(sub.lower())
    if alias is not None:
        if alias.startswith("!"):
            call.run_script(alias[1:])
            return OPAQUE
        sub = alias.split(maxsplit=1)[0] if alias.split() else sub
    if sub == "push":
        call.flag(cat.GIT_PUSH)
    if sub in _NETWORK:
        for word in rest:
            if "://" in word.value or "@" in word.value:
                call.host(hostnames.remote_spec_host(word.value))
    if sub == "commit":
        commit = scan(rest, _COMMIT)
        for word in commit.values("-F", "--file", "-t", "--template"):
            call.read(word)
        note_arguments(call, commit.operands)  # the message values are data, not paths
    elif sub == "clone":
        targets = [w for w in scan(rest, spec("bocj", ["--branch", "--origin", "--config", "--depth",
                                                      "--reference", "--separate-git-dir", "--jobs",
                                                      "--template", "--upload-pack"])).operands]
        if len(targets) >= 2:
            call.write(targets[1])
    elif sub not in _NETWORK:
        note_arguments(call, _without_option_values(rest))
    return OPAQUE


def _without_option_values(words: list[Word]) -> list[Word]:
    """Drop values of `-m` style options so a message never reads as a path."""
    out: list[Word] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word.value in ("-m", "--message", "--author", "-S", "--grep", "--format", "--pretty"):
            skip = True
            continue
        out.append(word)
    return out
