"""The run journal's bytes (``events.jsonl``): its lines, and a last line torn by a crash mid-write.

An event is appended in one ``write`` of its line and a newline, then fsync'd; a crash can still leave
the last line without its newline — half an event. Readers skip such a line with a warning; before the
first append of a process, :func:`set_torn_tail_aside` moves it to ``events.jsonl.torn`` so the next event
starts on a line of its own and a resume continues from before it. Validating the lines is
``orchestrator.rundir``'s job.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

_TAIL = 65536  # no event is longer: a longer last line is left for the reader to name


def lines(path: Path) -> list[bytes] | None:
    """The journal's complete lines (None when there is no journal); a torn last line is left out with a
    warning naming file and line."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    whole = data.split(b"\n")
    torn = whole.pop()  # after the last newline: empty, or a line the writer never finished
    if torn.strip():
        sys.stderr.write(f"warning: {path}:{len(whole) + 1}: a torn last line (a crash while writing it) is "
                         f"ignored\n")
    return whole


def set_torn_tail_aside(path: Path, aside: Path) -> None:
    """Move a torn last line (no newline) from ``path`` to the end of ``aside``."""
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            if size == 0:
                return
            f.seek(max(0, size - _TAIL))
            tail = f.read()
    except FileNotFoundError:
        return
    if tail.endswith(b"\n"):
        return
    cut = tail.rfind(b"\n")
    if cut < 0 and size > len(tail):
        return
    with aside.open("ab") as out:
        out.write(tail[cut + 1:] + b"\n")
    os.truncate(path, size - len(tail) + cut + 1)
