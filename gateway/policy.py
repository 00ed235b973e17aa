"""Which rules are in force: the global pack and each run's own rules, compiled and cached.

There is one global pack in force for every gateway process, and it lives in the store (hash
``keys.GLOBAL_RULES``: rules, version, source, serial; gateway/store/packs.py). Each process compiles it once
and caches it; every decision passes the cached version and serial to the decision script, which refuses a
stale one (``decide.lua``, against the run's copy of which pack is in force),
so a change made through any process — or a store that lost the pack — is noticed on the very next
call, never after it. Pub/sub and a periodic version check only make the refresh happen earlier.

Where the pack comes from:

- ``files``: a gateway's rules directory. At start-up it is installed when the store holds no pack,
  or holds an older ``files`` pack (the operator edited the files and restarted).
- ``api``: ``PUT /v1/rules``. It stays in force across gateway restarts. If the store loses it (a
  Redis restarted without persistence), the gateway does **not** fall back to its files, which may
  be looser: it refuses every dispatch (503) until an operator uploads a pack again or restarts the
  gateway with ``--rules-from-file``. A marker in the state directory remembers, across restarts of
  the gateway itself, that an API pack was in force.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from gateway.errors import RulesUnavailable
from gateway.rules import Pack, RuleError, load_dir, load_rules, merge
from gateway.store import packs, runs
from gateway.store.backend import Backend

log = logging.getLogger("acteon.gateway.policy")

MARKER = "rules-in-force.json"
LOST = (
    "the rule pack uploaded through the API is no longer in the store (did Redis restart without "
    "persistence?); upload it again with PUT /v1/rules, or restart the gateway with --rules-from-file "
    "to enforce the rules directory instead"
)


@dataclass
class Policy:
    backend: Backend
    rules_dir: Path
    state_dir: Path | None = None
    global_pack: Pack = field(init=False)
    global_source: str = "files"
    global_serial: int = 0
    # True once an API pack was in force (here or, per the marker, in an earlier life of this gateway):
    # losing it from the store then stops dispatches instead of loosening the policy.
    api_pack_in_force: bool = False
    lost: bool = False
    _run_packs: dict[str, tuple[str, Pack]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A bad bundled pack is fatal at start-up: a gateway that starts with no rules would deny
        # everything silently (or, worse, a half-loaded pack would allow too much).
        self.file_pack = load_dir(self.rules_dir)
        self.global_pack = self.file_pack
        self.api_pack_in_force = self._read_marker()

    @property
    def global_version(self) -> str:
        return self.global_pack.version

    # -- the global pack ---------------------------------------------------------------------------

    async def start(self, *, rules_from_file: bool = False) -> None:
        """Settle the pack in force at start-up (see the module docstring)."""
        if self.backend.cluster and self.file_pack.cluster_problems():
            raise RuleError(self.file_pack.cluster_problems())
        if rules_from_file:
            await self._install_files(force=True)
            return
        stored = await packs.get_global_rules(self.backend)
        if stored is None:
            if self.api_pack_in_force:
                self._mark_lost()
                return
            await self._install_files(force=False)
        elif stored.source == "files" and stored.version != self.file_pack.version:
            await self._install_files(force=True)
        else:
            self._adopt(stored)

    async def refresh_global(self) -> None:
        """Adopt the pack in force in the store (after a change, or a 'stale_global' verdict)."""
        stored = await packs.get_global_rules(self.backend)
        if stored is None:
            await self.store_lost()
            return
        if stored.version != self.global_pack.version or self.lost:
            self._adopt(stored)  # takes its serial too, when it loads
        else:
            self.global_serial = stored.serial  # the same pack installed again

    async def check_global_version(self) -> None:
        found = await packs.in_force(self.backend)
        if found != (self.global_pack.version, self.global_serial) or self.lost:
            await self.refresh_global()

    async def copy_to_run(self, run_id: str) -> None:
        """A run holds no copy of the pack in force (created while the store had none, or by an older gateway):
        copy it, or, when the store has no pack either, act as :meth:`store_lost` does."""
        found = await packs.in_force(self.backend)
        if found is None:
            await self.store_lost()
            return
        await self.backend.durable(packs.copy_to_run(self.backend, run_id, *found))
        await self.refresh_global()

    async def store_lost(self) -> None:
        """The store holds no pack in force. Reinstall the files' pack, unless an API pack was in force:
        then nothing is decided until an operator acts (raises :class:`RulesUnavailable`)."""
        if self.api_pack_in_force:
            self._mark_lost()
            raise RulesUnavailable(LOST)
        await self._install_files(force=False)

    async def uploaded(self, items: list[dict[str, object]], pack: Pack) -> None:
        """``PUT /v1/rules``: make an API pack the one in force."""
        await packs.install_global_rules(self.backend, items, pack.version, "api", force=True)
        self._remember_api(True)
        await self.refresh_global()

    async def require_rules(self) -> None:
        """Before deciding while the pack is lost: look again (another process or an operator may have
        put one in force since); raises :class:`RulesUnavailable` if there is still none."""
        if self.lost:
            await self.refresh_global()

    async def _install_files(self, *, force: bool) -> None:
        in_force, serial = await packs.install_global_rules(
            self.backend, self.file_pack.to_items(), self.file_pack.version, "files", force=force)
        if force:
            self._remember_api(False)
        if in_force == self.file_pack.version:
            self.global_pack, self.global_source, self.lost = self.file_pack, "files", False
            self.global_serial = serial
        else:  # another process installed a pack first: use that one
            await self.refresh_global()

    def _adopt(self, stored: packs.StoredPack) -> None:
        try:
            # The stored version names the pack (a files pack's version hashes its files, not the list).
            pack = dataclasses.replace(load_rules(stored.rules, stored.source), version=stored.version)
        except RuleError as e:  # validated before it was stored; keep what is in force regardless
            log.error("stored global pack does not load, keeping the current one: %s", e)
            return
        if self.backend.cluster and pack.cluster_problems():  # stored before the store became a cluster
            log.error("stored global pack cannot be enforced on a cluster, keeping the current one: %s",
                      "; ".join(pack.cluster_problems()))
            return
        self.global_pack, self.global_source, self.lost = pack, stored.source, False
        self.global_serial = stored.serial
        if stored.source == "api":
            self._remember_api(True)

    def _mark_lost(self) -> None:
        if not self.lost:
            log.error("refusing dispatches: %s", LOST)
        self.lost = True

    # -- the marker --------------------------------------------------------------------------------

    def _read_marker(self) -> bool:
        if self.state_dir is None:
            return False
        try:
            return bool(json.loads((self.state_dir / MARKER).read_text()).get("api_pack_in_force"))
        except (OSError, ValueError, AttributeError):
            return False

    def _remember_api(self, in_force: bool) -> None:
        if self.api_pack_in_force == in_force:
            return
        self.api_pack_in_force = in_force
        if self.state_dir is None:
            return
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
            tmp = self.state_dir / (MARKER + ".tmp")
            tmp.write_text(json.dumps({"api_pack_in_force": in_force}))
            tmp.replace(self.state_dir / MARKER)
        except OSError as e:  # the in-memory flag still protects this process
            log.warning("cannot record the rule pack's source in %s: %s", self.state_dir, e)

    # -- run packs ---------------------------------------------------------------------------------

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
