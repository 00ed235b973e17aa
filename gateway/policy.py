"""Which rules are in force: the global pack and each run's own rules, compiled and cached.

Decisions never wait on a rules read: the global pack is held in memory and refreshed when another
process publishes a change (plus a periodic version check, in case a pub/sub message was lost); a run's
own rules are cached by version, and the decision script refuses a stale version (see ``decide.lua``),
so a change made through any gateway process takes effect on the very next call.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from gateway.rules import Pack, RuleError, load_dir, load_rules, merge
from gateway.store import runs
from gateway.store.backend import Backend

log = logging.getLogger("acteon.gateway.policy")


@dataclass
class Policy:
    backend: Backend
    rules_dir: Path
    global_pack: Pack = field(init=False)
    global_source: str = "files"
    _run_packs: dict[str, tuple[str, Pack]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A bad bundled pack is fatal at start-up: a gateway that starts with no rules would deny
        # everything silently (or, worse, a half-loaded pack would allow too much).
        self.file_pack = load_dir(self.rules_dir)
        self.global_pack = self.file_pack

    async def refresh_global(self) -> None:
        """Adopt the pack uploaded through the API, if any and if it changed."""
        stored = await runs.get_global_rules(self.backend)
        if stored is None:
            if self.global_source != "files":
                self.global_pack, self.global_source = self.file_pack, "files"
            return
        version, items = stored
        if self.global_source == "api" and self.global_pack.version == version:
            return
        try:
            self.global_pack = load_rules(items, "api")
            self.global_source = "api"
        except RuleError as e:  # validated before it was stored; keep what is in force regardless
            log.error("stored global pack does not load, keeping the current one: %s", e)

    async def check_global_version(self) -> None:
        version = await runs.global_rules_version(self.backend)
        current = self.global_pack.version if self.global_source == "api" else None
        if version != current:
            await self.refresh_global()

    def cached_run_version(self, run_id: str) -> str:
        cached = self._run_packs.get(run_id)
        return cached[0] if cached else "0"

    def pack_for(self, run_id: str) -> Pack:
        cached = self._run_packs.get(run_id)
        return merge(self.global_pack, cached[1]) if cached else self.global_pack

    async def reload_run(self, run_id: str) -> None:
        version, items = await runs.get_run_rules(self.backend, run_id)
        if version == "0" or not items:
            self._run_packs.pop(run_id, None)
            return
        try:
            pack = load_rules(items, f"run:{run_id}")
        except RuleError as e:
            log.error("rules of run %s do not load: %s", run_id, e)
            raise
        self._run_packs[run_id] = (version, pack)
        if len(self._run_packs) > 10_000:  # bounded: drop the oldest cached run
            self._run_packs.pop(next(iter(self._run_packs)))
