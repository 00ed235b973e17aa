"""chmod, chown, chgrp, chattr, setfacl: permission changes and where they land."""

from __future__ import annotations

import re

from gateway.paths import HOME, SYSTEM
from gateway.shell import categories as cat
from gateway.shell.flow import EMPTY, Flow
from gateway.shell.invocation import Invocation
from gateway.shell.options import scan, short_letters, spec
from gateway.shell.words import Word

# chmod's own options; any other `-…` word is a mode such as `-x` or `-rwx`.
_CHMOD_OPTION = re.compile(r"-[Rcfvh]+|--[a-z-]+(=.*)?")
_CHATTR_MODE = re.compile(r"[-+=][aAcCdDeFijmPsStTux]+")


def _change(call: Invocation, targets: list[Word], recursive: bool) -> Flow:
    call.flag(cat.PERMISSION_CHANGE)
    for word in targets:
        path = call.inspect(word)
        if path is None:
            continue
        pf = call.facts.record(path)
        if pf.path_class in (HOME, SYSTEM) or (recursive and path == "/"):
            call.flag(cat.SYSTEM_PERMISSION_CHANGE)
    return EMPTY


def chmod(call: Invocation) -> Flow:
    mode_seen = False
    recursive = False
    targets: list[Word] = []
    end_of_options = False
    for word in call.args:
        value = word.value
        if not end_of_options and value == "--":
            end_of_options = True
        elif not end_of_options and _CHMOD_OPTION.fullmatch(value):
            recursive = recursive or "R" in value or value == "--recursive"
            if value.startswith("--reference"):
                mode_seen = True
        elif not mode_seen:
            mode_seen = True
            if _SETUID.search(value):
                call.flag(cat.SYSTEM_PERMISSION_CHANGE)  # a set-user-id program runs with its owner's rights
        else:
            targets.append(word)
    return _change(call, targets, recursive)


# A mode that sets the set-user-id or set-group-id bit: `u+s`, `g+s`, `+s`, `4755`, `2755`, `6755`.
_SETUID = re.compile(r"^(?:[ugoa]*[+=][rwxXt]*s|[0-7]?[2-7][0-7]{3})$")


_CHOWN = spec(long=["--reference", "--from"])


def chown(call: Invocation) -> Flow:
    options = scan(call.args, _CHOWN)
    recursive = "R" in short_letters(options) or options.has("--recursive")
    operands = options.operands
    if not options.has("--reference"):
        operands = operands[1:]  # the owner / group
    return _change(call, operands, recursive)


def chattr(call: Invocation) -> Flow:
    recursive = False
    targets: list[Word] = []
    args = call.args
    i = 0
    while i < len(args):
        value = args[i].value
        if value in ("-v", "-p"):
            i += 2
            continue
        if value == "-R":
            recursive = True
        elif not (value in ("-V", "-f") or _CHATTR_MODE.fullmatch(value)):
            targets.append(args[i])
        i += 1
    return _change(call, targets, recursive)


_SETFACL = spec("mMxX", ["--modify", "--modify-file", "--remove", "--remove-file", "--set", "--set-file"])


def setfacl(call: Invocation) -> Flow:
    options = scan(call.args, _SETFACL)
    for word in options.values("-M", "-X", "--modify-file", "--remove-file", "--set-file"):
        call.read(word)
    recursive = "R" in short_letters(options) or options.has("--recursive")
    return _change(call, options.operands, recursive)
