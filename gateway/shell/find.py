"""find: roots, what -delete removes and the commands -exec runs on each result."""

from __future__ import annotations

import fnmatch

from gateway.credentials import seeks_secrets
from gateway.shell import categories as cat
from gateway.shell.flow import Flow
from gateway.shell.invocation import Invocation
from gateway.shell.targets import ALL, SOME, UNKNOWN, Target
from gateway.shell.words import Word, placeholder, target_of

_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# Tests that narrow the results; without one, find returns everything below its roots.
_FILTERS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
                      "-lname", "-ilname", "-newer", "-anewer", "-cnewer", "-mtime", "-mmin", "-atime",
                      "-amin", "-ctime", "-cmin", "-size", "-empty", "-user", "-group", "-perm", "-links",
                      "-inum", "-samefile", "-uid", "-gid", "-nouser", "-nogroup", "-used"})
_ONE_VALUE = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
                        "-lname", "-ilname", "-newer", "-anewer", "-cnewer", "-mtime", "-mmin", "-atime",
                        "-amin", "-ctime", "-cmin", "-size", "-user", "-group", "-perm", "-links", "-inum",
                        "-samefile", "-uid", "-gid", "-type", "-xtype", "-maxdepth", "-mindepth", "-fstype",
                        "-printf", "-regextype", "-used", "-context", "-files0-from", "-fprint", "-fprint0",
                        "-fls"})
_WRITES_FILE = frozenset({"-fprint", "-fprint0", "-fls", "-fprintf"})


def find(call: Invocation) -> Flow:
    args = call.args
    i = 0
    while i < len(args) and (
        args[i].value in ("-H", "-L", "-P", "-D") or (args[i].value.startswith("-O") and args[i].value[2:].isdigit())
    ):
        i += 2 if args[i].value == "-D" else 1
    roots: list[Word] = []
    while i < len(args) and not (args[i].value[:1] in ("-", "(", "!", ")") and args[i].value != "-"):
        roots.append(args[i])
        i += 1
    if not roots:
        roots = [Word(".")]
    filtered = False
    hits_git = False
    deletes = False
    seeks: str | bool = False
    commands: list[list[Word]] = []
    while i < len(args):
        test = args[i].value
        if test in _EXEC:
            command: list[Word] = []
            i += 1
            while i < len(args) and args[i].value not in (";", "+"):
                command.append(args[i])
                i += 1
            commands.append(command)
        elif test == "-delete":
            deletes = True
        elif test in _ONE_VALUE or test == "-fprintf":
            value = args[i + 1].value if i + 1 < len(args) else ""
            if test in _FILTERS:
                filtered = True
            if test in ("-name", "-iname") and value.startswith(".") and fnmatch.fnmatchcase(".git", value):
                hits_git = True
            if test in ("-name", "-iname") and seeks_secrets(value):
                # `*.pem` may be the project's test certificates: only outside the workspace is it a hunt
                seeks = "anywhere" if not value.lower().lstrip("*").endswith((".pem", ".crt")) else seeks or "outside"
            if test in _WRITES_FILE and i + 1 < len(args):
                call.write(args[i + 1])
            i += 2 if test == "-fprintf" else 1
        elif test in _FILTERS:
            filtered = True
        i += 1
    targets = [_results(call, root, filtered, hits_git) for root in roots]
    outside = any(t.path is None or call.facts.record(t.path).path_class != "workspace" for t in targets)
    if seeks and (outside or (commands and seeks == "anywhere")):
        call.flag(cat.CREDENTIAL_ACCESS)  # `find ~ -name '*.pem' …`: the keys, gathered to be read
    for root in roots:
        call.inspect(root)
    if deletes:
        for root, target in zip(roots, targets, strict=True):
            call.delete(placeholder(root.value, target), True)
    for command in commands:
        for target in targets:
            item = placeholder("{}", target)
            argv = [item if word.value == "{}" else _inside(word, target) if "{}" in word.value else word
                    for word in command]
            if argv:
                call.invoke(argv)
    return Flow(opaque=True, listing=targets[0])


def _inside(word: Word, target: Target) -> Word:
    """`-F file=@{}`, `{}.bak`: the found name inside a larger word, written as a path under where find looks."""
    if target.path is None:
        return Word(word.value, literal=False, wild=0)
    value = word.value.replace("{}", target.path.rstrip("/") + "/*")
    return Word(value, literal=False, wild=value.index("*"))


def _results(call: Invocation, root: Word, filtered: bool, hits_git: bool) -> Target:
    scope = call.scope
    base = target_of(root, scope.cwd, scope.cwd_known, call.facts.home)
    if base.path is None:
        return UNKNOWN
    return Target(base.path, SOME if filtered else ALL, hits_git or base.hits_git)
