"""Lexical path resolution and classification (SPEC §2.2).

Resolution is purely lexical (``~``, ``.``/``..``, relative to the agent's ``cwd``): the gateway must not
touch the agent's filesystem, and a symlink it could see might not be what the agent sees anyway.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path

WORKSPACE = "workspace"
TEMP = "temp"
HOME = "home"
SYSTEM = "system"
PATH_CLASSES = (WORKSPACE, TEMP, HOME, SYSTEM)

_TEMP_ROOTS = ("/tmp", "/var/tmp", "/dev/shm")  # noqa: S108 - classifying paths, not creating files


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


def classify(path: str, cwd: str | None, home: str) -> str:
    """Classify a resolved path as workspace, temp, home or system."""
    if cwd and cwd.startswith("/") and cwd != "/" and is_within(path, posixpath.normpath(cwd)):
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
    ws = posixpath.normpath(cwd) if cwd and cwd.startswith("/") else None
    contains_ws = bool(ws) and is_within(ws, resolved)  # type: ignore[arg-type]
    return PathFact(resolved, classify(resolved, cwd, home), contains_ws)
