"""What we assume about commands we know nothing specific about.

Their arguments are data, except those that look like paths (contain `/`, start with `~` or `.`),
which are recorded as read so a secret passed to any program is still noticed, and URLs, whose
hosts are recorded as contacted.
"""

from __future__ import annotations

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


def default_handler(call: Call) -> Flow:
    note_arguments(call, call.args)
    return OPAQUE


def no_effect(call: Call) -> Flow:
    """Builtins and utilities that touch nothing (true, sleep, date, pwd, …)."""
    return OPAQUE
