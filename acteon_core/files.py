"""Writing a file so that a reader, or a crash, never sees half of it.

Every settings file, plan, snapshot and report the project writes goes through here: the hook's installer
and the orchestrator's run folders alike.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any


def write_atomic(path: Path, data: Any, *, new_mode: int = 0o600) -> None:
    """Write JSON atomically (see :func:`write_text_atomic`)."""
    write_text_atomic(path, json.dumps(data, indent=2, default=str) + "\n", new_mode=new_mode)


def write_text_atomic(path: Path, text: str, *, new_mode: int = 0o600) -> None:
    """UTF-8 text, atomically (see :func:`write_bytes_atomic`)."""
    write_bytes_atomic(path, text.encode("utf-8"), new_mode=new_mode)


def write_bytes_atomic(path: Path, data: bytes, *, new_mode: int = 0o600) -> None:
    """A temp file in the same directory, fsync'd, then renamed over the target. An existing file keeps its
    mode; a new one gets ``new_mode`` (owner-only by default: run folders hold agents' keys and answers)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else new_mode
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
