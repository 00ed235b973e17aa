"""What a delete or write hits, and when that is dangerous.

A delete target is a resolved path plus how much of it goes: the path itself (``rm -rf build``), every
entry in a directory (``rm -rf build/*``) or only some entries (``rm -f *.pyc``, ``find . -name x
-delete``). ``None`` as path means the target cannot be known statically (``rm -rf "$DIR"``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gateway.paths import HOME, SYSTEM, classify, is_within

SELF = "self"
ALL = "all"
SOME = "some"


@dataclass(frozen=True, slots=True)
class Target:
    path: str | None
    extent: str = SELF
    # A glob or find -name that can match a `.git` directory below ``path``.
    hits_git: bool = False


UNKNOWN = Target(None)

# Block devices and raw memory: writing them destroys file systems (or the running kernel).
_DEVICE = re.compile(
    r"/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|r?disk|md|dm-|loop|nbd|sr|mtd|zram|mapper/|mem$|kmem$|port$)"
)
# Pseudo-files that are always fine to write to.
_HARMLESS_SINKS = frozenset(
    {"/dev/null", "/dev/zero", "/dev/full", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty",
     "/dev/random", "/dev/urandom"}
)
_HISTORY_FILES = frozenset(
    {".bash_history", ".zsh_history", ".zhistory", ".sh_history", ".history", "fish_history",
     ".python_history", ".node_repl_history", ".psql_history", ".mysql_history", ".lesshst"}
)
SYSRQ_TRIGGER = "/proc/sysrq-trigger"


def is_device(path: str) -> bool:
    return bool(_DEVICE.match(path))


def is_harmless_sink(path: str) -> bool:
    return (
        path in _HARMLESS_SINKS
        or path.startswith(("/dev/fd/", "/proc/self/fd/", "/dev/pts/"))
    )


def is_network_pseudo_path(path: str) -> bool:
    """bash's /dev/tcp/host/port and /dev/udp/host/port open sockets."""
    return path.startswith(("/dev/tcp/", "/dev/udp/"))


def is_history_file(path: str) -> bool:
    return path.rsplit("/", 1)[-1] in _HISTORY_FILES


def in_git_dir(path: str) -> bool:
    return "/.git/" in path + "/"


def is_system_write(path: str, workspace: str | None, home: str) -> bool:
    """A write into a system location (devices and /dev pseudo-files are judged separately)."""
    if path.startswith("/dev/") or path == "/dev":
        return False
    return classify(path, workspace, home) == SYSTEM


def is_destructive(target: Target, workspace: str | None, home: str, recursive: bool) -> bool:
    """Deleting ``target`` loses work that is not the agent's own scratch space."""
    path = target.path
    if path is None:
        # Unknowable target: a recursive delete of it could be anything, a single file is tolerable.
        return recursive
    if target.hits_git or in_git_dir(path):
        return True
    contains_workspace = bool(workspace) and is_within(workspace, path)  # type: ignore[arg-type]
    if classify(path, workspace, home) in (HOME, SYSTEM):
        return True
    if target.extent == SOME:
        # Some entries of the workspace root (`rm *.pyc`) are normal work; some entries of one of its
        # ancestors may be the workspace itself.
        return contains_workspace and path != workspace
    # The path itself or every entry in it. `rm -rf *` / `rm -rf ./*` in the workspace root wipe the
    # whole workspace just like `rm -rf .`, so they count as destructive too (deliberate choice).
    return contains_workspace
