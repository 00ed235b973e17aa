"""What ``install`` found in a settings file, kept so that ``uninstall`` gives the file back byte for byte.

Merging our hooks in and taking them out again gives the same settings, but not the same bytes (key order,
indentation, a ``hooksConfig`` switched on for Gemini). So the first install into a file records the file's
bytes — or that there was no file — under the user's state folder, never beside the settings (a project's
``.claude/`` may be committed). Uninstall puts them back when the settings are otherwise as they were, and
forgets the record either way.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from acteon_core.files import write_atomic


@dataclass(frozen=True)
class Original:
    existed: bool
    data: bytes  # the file's bytes as install found them (empty when it did not exist)


def _store() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "acteon-swarm" / "hook-installs"


def _record(path: Path) -> Path:
    return _store() / (hashlib.sha256(str(path).encode()).hexdigest()[:32] + ".json")


def remember(path: Path) -> None:
    """Record ``path`` as it is now (call before the first install writes it)."""
    data = path.read_bytes() if path.exists() else b""
    write_atomic(_record(path), {"path": str(path), "existed": path.exists(),
                                 "data": base64.b64encode(data).decode("ascii")})


def recall(path: Path) -> Original | None:
    """What the first install found in ``path``; None when unknown (installed by an earlier version, or the
    record is unreadable)."""
    try:
        raw = json.loads(_record(path).read_text(encoding="utf-8"))
        if raw.get("path") != str(path):
            return None
        return Original(existed=bool(raw["existed"]), data=base64.b64decode(raw["data"], validate=True))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def forget(path: Path) -> None:
    _record(path).unlink(missing_ok=True)
