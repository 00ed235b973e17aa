"""What we assume about commands we know nothing specific about.

Their arguments are data, except those that look like paths (contain `/`, start with `~` or `.`),
which are recorded as read so a secret passed to any program is still noticed, and URLs, whose
hosts are recorded as contacted.

One thing an unknown program is never trusted with: a shell. Handed one as an operand or an option
value (`aa-exec /bin/sh`, `dhclient -sf /bin/sh`, `--on-download-complete=/bin/sh`), it will run it, so
the shell and what follows are analysed as the command they are — an interactive shell is
``dynamic_command`` (SPEC §2.3: what it runs next is unknowable). A shell named inside a larger argument
(`-c 'spawn /bin/sh;interact'`, `ProxyCommand /bin/sh -i`) is a command the program runs that cannot be
known: ``dynamic_command`` too.
"""

from __future__ import annotations

import re

from gateway.shell import categories as cat
from gateway.shell import hosts as hostnames
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.invocation import Call
from gateway.shell.words import Word


def looks_like_path(word: Word) -> bool:
    value = word.value
    if not value or value[0] == "-" or (not word.literal and word.wild == 0):
        return False
    if "://" in value or any(c in value for c in " \t\n"):
        return False
    if not ("/" in value or value[0] in "~."):
        return False
    colon = value.find(":")
    # `host:path` and `user@host:path` are remote specs, not local paths.
    return not (colon > 0 and "/" not in value[:colon] and hostnames.remote_spec_host(value))


def note_arguments(call: Call, args: list[Word]) -> None:
    """Record path-like arguments (and `--opt=PATH` values) as read, URL hosts as contacted."""
    for word in args:
        value = word.value
        for host in hostnames.url_hosts(value):
            call.host(host)
        if looks_like_path(word):
            call.read(word)
        elif value.startswith("-") and "=" in value:
            tail = word.tail(value.index("=") + 1)
            if looks_like_path(tail):
                call.read(tail)


SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "rbash", "yash", "tcsh", "csh",
                    "elvish", "xonsh", "nu", "pwsh", "busybox"})
# A shell's path inside a larger argument: `spawn /bin/sh;interact`, `ProxyCommand /bin/sh -i`, `/bin/sh,-s`.
_SHELL_INSIDE = re.compile(
    r"(?:^|[\s;'\"=(,|&!:])/(?:usr/)?(?:local/)?bin/(?:ba|da|z|k|mk|c|tc|fi|a|y)?sh(?:$|[\s;'\"),|&])")


def is_shell(value: str) -> bool:
    """`/bin/sh`, `/usr/bin/env`-free absolute shells and bare shell names."""
    return value.rsplit("/", 1)[-1] in SHELLS and (value.startswith("/") or "/" not in value)


def default_handler(call: Call) -> Flow:
    args = call.args
    for i, word in enumerate(args):
        value = word.value
        if i > 0 or value.startswith("/"):  # a bare first operand may be a subcommand (`pkg sh …`)
            shell_at = value if word.exact and is_shell(value) and (value.startswith("/") or i > 0) else None
            if shell_at is not None:
                note_arguments(call, args[:i])
                return call.invoke(args[i:])
        if value.startswith("-") and "=" in value and is_shell(value.split("=", 1)[1]):
            call.flag(cat.DYNAMIC_COMMAND)  # --on-download-complete=/bin/sh: run by the program, unknowable
        elif _SHELL_INSIDE.search(value) and not is_shell(value):
            call.flag(cat.DYNAMIC_COMMAND)
    note_arguments(call, args)
    return OPAQUE


def no_effect(call: Call) -> Flow:
    """Builtins and utilities that touch nothing (true, sleep, date, pwd, …)."""
    return OPAQUE
