"""The shell-equivalent effects an interpreter API call can have."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

DELETE = "delete"  # one file or empty directory (os.remove, fs.unlinkSync, unlink)
DELETE_TREE = "delete_tree"  # a whole tree (shutil.rmtree, fs.rmSync recursive, FileUtils.rm_rf)
WRITE = "write"  # creates or changes a file
READ = "read"  # reads a file (secrets)
EXEC = "exec"  # runs a shell command (value: the command line)
CONNECT = "connect"  # opens a connection (value: host)
DYNAMIC = "dynamic"  # runs code that cannot be known (eval of a variable, exec of a built string)
ENVIRONMENT = "environment"  # the whole environment printed, serialized or iterated (API keys included)

MAX_EFFECTS = 256  # a program with more API calls than this is judged on the first ones


@dataclass(frozen=True, slots=True)
class Effect:
    kind: str
    value: str | None  # a path, a command line or a host; None when the program builds it at run time


def command_line(argv: list[str | None]) -> str | None:
    """An argument vector as a shell command line. An argument the program computes becomes an unknown
    shell variable (`rm -rf "$ARGUMENT"` stays a delete of an unknown path); a computed program name makes
    the command unknowable (None)."""
    if not argv or argv[0] is None:
        return None
    return " ".join(shlex.quote(a) if a is not None else '"$ARGUMENT"' for a in argv)
