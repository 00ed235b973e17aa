"""Read the CLI's hook input within the hook's time budget.

The budget starts when the hook starts, not when the input has arrived: a CLI (or anything between it
and the hook) that holds stdin open without writing must not keep a tool call waiting past the budget
(before, `read()` waited for end of input however long that took: 20 s on a 5 s budget). ``select``
is a small C module, like everything else on the hook's hot path.
"""

from __future__ import annotations

import select
import time
from posix import read

MAX_INPUT = 16 * 1024 * 1024


class InputTimeout(Exception):
    """The input did not end before the deadline."""


def read_input(deadline: float, fd: int = 0, limit: int = MAX_INPUT) -> bytes:
    """Everything on ``fd`` until end of input, or :class:`InputTimeout` at ``deadline`` (monotonic).
    More than ``limit`` bytes are cut there (the JSON will not parse: a deny)."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise InputTimeout
        chunk = read(fd, min(1 << 20, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
