"""Scope claims between orchestrators of one machine that do not share a gateway.

The gateway's claims (Redis) are what keeps runs apart, but every embedded gateway — the default, one per
``acteon-swarm run`` — has a store of its own, so two runs started in two terminals on one repository
would never see each other's claims. This ledger closes that gap on the machine: a small JSON file in
the repository's common git directory (``.git/acteon-swarm/claims.json``, shared by every worktree,
ignored by git), read and written under an exclusive ``flock``. A claim lives as long as the process that
holds it (pid *and* start time, so a recycled pid never holds anything); a crashed orchestrator's claims
end with it, and its agents, whose embedded gateway died with it, can no longer do anything either.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from acteon_core.globs import scopes_overlap
from orchestrator.process import is_same_process, process_start_time


class LocalClaims:
    def __init__(self, git_common_dir: Path) -> None:
        self.dir = git_common_dir / "acteon-swarm"
        self.file = self.dir / "claims.json"
        self.lock = self.dir / "claims.lock"

    @contextlib.contextmanager
    def _locked(self) -> Iterator[list[dict[str, Any]]]:
        self.dir.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(self.lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                claims = json.loads(self.file.read_text(encoding="utf-8")) if self.file.exists() else []
            except ValueError:
                claims = []  # a torn file can only come from a crash mid-write of an older version: start over
            live = [c for c in claims if isinstance(c, dict) and is_same_process(int(c.get("pid", 0)),
                                                                                  int(c.get("start_time", 0)))]
            yield live
            tmp = self.file.with_suffix(".tmp")
            tmp.write_text(json.dumps(live), encoding="utf-8")
            tmp.replace(self.file)
        finally:
            os.close(fd)  # releases the lock

    def acquire(self, owner: str, globs: list[str]) -> str | None:
        """Claim ``globs`` for ``owner`` (this process); None when granted, else why not."""
        pid = os.getpid()
        with self._locked() as claims:
            for c in claims:
                if c["owner"] == owner:
                    continue
                hit = scopes_overlap(globs, c["globs"])
                if hit is not None:
                    return (f"{hit[0]!r} overlaps {hit[1]!r} claimed (write) by {c['owner']} (both could write "
                            f"{hit[2]}), a run of process {c['pid']} on this machine")
            claims.append({"owner": owner, "globs": list(globs), "pid": pid, "start_time": process_start_time(pid)})
        return None

    def release(self, owner: str) -> None:
        pid = os.getpid()
        with self._locked() as claims:
            claims[:] = [c for c in claims if not (c["owner"] == owner and c["pid"] == pid)]
