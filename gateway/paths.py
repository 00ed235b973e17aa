"""Lexical path resolution and classification (docs/gateway.md).

Resolution is purely lexical (``~``, ``.``/``..``, relative to the agent's ``cwd``): the gateway does not
follow the agent's filesystem, and a symlink it could see might not be what the agent sees anyway. The
one exception, ``in_other_project``, only asks whether a `.git` exists above a path under home.
"""

from __future__ import annotations

import functools
import os
import posixpath
from dataclasses import dataclass
from pathlib import Path

WORKSPACE = "workspace"
TEMP = "temp"
HOME = "home"
SYSTEM = "system"
PATH_CLASSES = (WORKSPACE, TEMP, HOME, SYSTEM)

_TEMP_ROOTS = ("/tmp", "/var/tmp", "/dev/shm")  # noqa: S108 - classifying paths, not creating files

# The agent says where it works (the CLI's cwd, which a `cd` in Claude's persistent shell moves), and
# inside the workspace deletes and writes are normal work. So a cwd in (or above) the system's own
# directories, or at or above a home directory, is no workspace at all: with `cwd=/etc`, `rm -rf passwd`
# deletes a system file, not workspace scratch. Directories people do develop in (/usr/src, /usr/local/src,
# /opt, /srv, /var/www) stay possible workspaces.
_NOT_WORKSPACE_ROOTS = (
    "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/run", "/sbin", "/sys",
    "/snap", "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libexec", "/usr/include",
    "/usr/share", "/usr/local/bin", "/usr/local/sbin", "/usr/local/lib", "/usr/local/etc", "/usr/local/share",
    "/var/lib", "/var/log", "/var/spool", "/var/cache", "/var/mail", "/var/backups", "/var/run", "/var/lock",
)


def default_home() -> str:
    return str(Path("~").expanduser())


def resolve(path: str, cwd: str | None, home: str) -> str:
    """Return the absolute, normalized form of ``path`` as the agent would see it."""
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    if not path.startswith("/"):
        base = cwd if cwd and cwd.startswith("/") else "/"
        path = posixpath.join(base, path)
    # normpath keeps a leading '//' (POSIX allows it to mean something else); agents never mean that.
    normalized = posixpath.normpath(path)
    if normalized.startswith("//"):
        normalized = "/" + normalized.lstrip("/")
    return normalized


def is_within(path: str, root: str) -> bool:
    """True if ``path`` equals ``root`` or lies below it (both already resolved)."""
    if root == "/":
        return True
    return path == root or path.startswith(root.rstrip("/") + "/")


@functools.lru_cache(maxsize=4096)
def workspace_root(cwd: str | None, home: str) -> str | None:
    """The workspace an agent working in ``cwd`` may treat as its own, or None (see _NOT_WORKSPACE_ROOTS).
    Cached: every path classification asks, and agents keep working in the same few directories."""
    if not cwd or not cwd.startswith("/"):
        return None
    root = resolve(cwd, None, home)
    if root == "/" or (home and home != "/" and is_within(home, root)) or _touches_system_dirs(root):
        return None
    return root


def _touches_system_dirs(path: str) -> bool:
    """``path`` lies in one of the system's own directories, or contains one (`/usr` contains `/usr/bin`)."""
    return any(is_within(path, p) or is_within(p, path) for p in _NOT_WORKSPACE_ROOTS)


def in_other_project(path: str, cwd: str | None, home: str) -> bool:
    """``path`` (resolved) lies in another git repository under ``home`` than the workspace's own: a
    directory between it and home holds `.git` (`~/other-repo/src/x.py`). Someone else's checkout is
    someone's work. This is the one fact read from the filesystem rather than from the path: it is seen
    where the gateway shares the agents' filesystem (the embedded and same-machine setups) and simply not
    found elsewhere; only the existence of `.git` entries is looked at."""
    if not home or home == "/" or classify(path, cwd, home) != HOME:
        return False
    root = _repository_root(path, posixpath.normpath(home))  # the path itself may be a checkout (`cp f ~/repo/`)
    if root is None:
        return False
    workspace = workspace_root(cwd, home)
    return workspace is None or not is_within(workspace, root)


def _repository_root(directory: str, home: str) -> str | None:
    for _ in range(32):
        if directory == home or not is_within(directory, home):
            return None  # home itself under version control (a dotfiles setup) is not "another project"
        if os.path.lexists(directory + "/.git"):
            return directory
        directory = posixpath.dirname(directory)
    return None


def agent_home(value: str | None) -> str | None:
    """The HOME an agent reports, if it can be one: absolute, not `/`, not a system directory (an agent
    claiming HOME=/ would make every path "home"). None: use the gateway's own."""
    if not value or not value.startswith("/") or "\x00" in value:
        return None
    home = resolve(value, None, "/")
    if home == "/" or _touches_system_dirs(home):
        return None
    return home


def classify(path: str, cwd: str | None, home: str) -> str:
    """Classify a resolved path as workspace, temp, home or system."""
    workspace = workspace_root(cwd, home)
    if workspace is not None and is_within(path, workspace):
        return WORKSPACE
    # Home before temp: a home directory that happens to live under /tmp is still someone's home.
    if home and home != "/" and is_within(path, home):
        return HOME
    if any(is_within(path, root) for root in _TEMP_ROOTS):
        return TEMP
    return SYSTEM


@dataclass(frozen=True, slots=True)
class PathFact:
    """One path a call touches, resolved and classified."""

    path: str
    path_class: str
    # True when the path is the workspace root itself or one of its ancestors: deleting it deletes
    # the whole workspace.
    contains_workspace: bool = False


def fact(raw: str, cwd: str | None, home: str) -> PathFact:
    resolved = resolve(raw, cwd, home)
    ws = workspace_root(cwd, home)
    contains_ws = ws is not None and is_within(ws, resolved)
    return PathFact(resolved, classify(resolved, cwd, home), contains_ws)
