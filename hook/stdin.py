"""Read the CLI's hook input within the hook's time budget.

The budget starts when the hook starts, not when the input has arrived: a CLI (or anything between it
and the hook) that holds stdin open without writing must not keep a tool call waiting past the budget
(before, `read()` waited for end of input however long that took: 20 s on a 5 s budget).

The deadline is a real-time interval timer (``_signal.setitimer``): ``_signal`` and ``time`` are built
into the interpreter, so this costs nothing to import on the hot path (``select`` would add half a
millisecond to every tool call). The timer's handler raises, which interrupts the blocking read.
"""

from __future__ import annotations

import time
from posix import read

TYPE_CHECKING = False
if TYPE_CHECKING:  # the stubs know the public module; at run time the built-in one is free to import
    import signal as _signal
else:
    import _signal

MAX_INPUT = 16 * 1024 * 1024


class InputTimeout(Exception):
    """The input did not end before the deadline."""


def _expired(_signum: int, _frame: object) -> None:
    raise InputTimeout


def read_input(deadline: float, fd: int = 0, limit: int = MAX_INPUT) -> bytes:
    """Everything on ``fd`` until end of input, or :class:`InputTimeout` at ``deadline`` (monotonic).
    More than ``limit`` bytes are cut there (the JSON will not parse: a deny)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise InputTimeout
    previous = _signal.signal(_signal.SIGALRM, _expired)
    _signal.setitimer(_signal.ITIMER_REAL, left)
    chunks: list[bytes] = []
    size = 0
    try:
        while size < limit:
            chunk = read(fd, min(1 << 20, limit - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        _signal.signal(_signal.SIGALRM, previous)
    return b"".join(chunks)
