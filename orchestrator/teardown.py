"""How the CLI's process ends once native threads Python cannot finalize around have started.

Temporal's SDK runs a Rust (Tokio) runtime whose threads outlive the event loop. When the interpreter then
finalizes, one of them can release a thread state it no longer owns, and the process dies with
``Fatal Python error: PyGILState_Release`` (SIGABRT) or SIGSEGV *after* the command has done its work and
printed its answer — so a refused worker exits -6 instead of 2 and a successful ``cancel`` -11 instead of
0 (an open SDK bug, temporalio/sdk-python#300). A process that started such a runtime therefore ends by
running its exit handlers, flushing its output and leaving with ``os._exit``, never through finalization.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import sys

_native_runtime = False


def native_runtime_started() -> None:
    """Say this process has started a native runtime (called before the first Temporal connect)."""
    global _native_runtime
    _native_runtime = True


def exit_process(code: int) -> None:
    """End the process with ``code``: a normal ``SystemExit`` unless a native runtime started, in which case
    exit handlers run, output is flushed and the interpreter is left without finalizing."""
    if not _native_runtime:
        raise SystemExit(code)
    # atexit's own runner: our handlers (e.g. the embedded gateway's analyzer children) must still run.
    atexit._run_exitfuncs()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing left to say to it
            stream.flush()
    os._exit(code)
