"""The global rule pack in force, and each run's copy of which pack that is.

The pack lives in one hash (``keys.GLOBAL_RULES``: rules, version, source, serial). Every decision must
refuse a process that evaluated with another pack, but a decision touches only its run's slot (one script
call, in one slot of a Redis Cluster), so it cannot read that hash. Each run's hash holds a copy instead:
``g_serial`` and ``g_version`` of the pack in force.

- **The serial orders packs.** An install gives the pack ``max(previous serial + 1, now in ms)``: later
  installs get larger serials, even after the store lost the hash.
- **An install answers only once every run has its copy.** It writes the hash, then raises each indexed
  run's copy (never lowers it: two installs racing end on the later one). Only then does it publish.
- **A new run is indexed before it reads the pack.** An install whose write came after that read finds the
  run in the index and raises its copy.
- **A decision checks the copy** (``decide.lua``):
  - a caller with an older serial, or another version under the same serial, is ``stale_global``;
  - a caller with a newer one read it from the hash while the install was still copying, so its serial
    raises the copy at once;
  - a run without a copy was created while the store held no pack: ``no_global_rules``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gateway.store import keys
from gateway.store.backend import Backend, Command

FAN_OUT_BATCH = 500  # run copies raised per pipeline


@dataclass(frozen=True)
class StoredPack:
    """The rule pack in force, as the store holds it."""

    version: str
    rules: list[dict[str, Any]]
    source: str  # "files" (a gateway's rules directory) or "api" (PUT /v1/rules)
    serial: int = 0


async def get_global_rules(backend: Backend) -> StoredPack | None:
    raw = await backend.call(backend.redis.hgetall(keys.GLOBAL_RULES))
    if not raw or "version" not in raw:
        return None
    return StoredPack(str(raw["version"]), json.loads(raw.get("rules") or "[]"), str(raw.get("source") or "api"),
                      int(raw.get("serial") or 0))


async def in_force(backend: Backend) -> tuple[str, int] | None:
    """(version, serial) of the pack in force, or None."""
    version, serial = await backend.call(backend.redis.hmget(keys.GLOBAL_RULES, ["version", "serial"]))
    return (str(version), int(serial or 0)) if version else None


def copy_to_run(backend: Backend, run_id: str, version: str, serial: int) -> Command:
    """Raise a run's copy of the pack in force to (``version``, ``serial``), if it holds an older one."""
    return backend.eval_command("raise_pack_copy.lua", [keys.run(run_id)], [str(serial), version])


async def install_global_rules(
    backend: Backend, rules: list[dict[str, Any]], version: str, source: str, *, force: bool
) -> tuple[str, int]:
    """Make a pack the one in force for every gateway process (``force=False``: only if none is); returns the
    (version, serial) in force afterwards. Other processes hear of it by pub/sub, and every decision checks
    its run's copy anyway (``decide.lua``)."""
    fields = ["rules", json.dumps(rules), "version", version, "source", source]
    [(version_now, serial_now, installed)] = await backend.durable(backend.eval_command(
        "install_rules.lua", [keys.GLOBAL_RULES], ["force" if force else "absent", backend.now_arg(), *fields]))
    serial = int(serial_now)
    if int(installed):
        run_ids = [str(r) for r in await backend.call(backend.redis.zrange(keys.RUNS_INDEX, 0, -1))]
        for i in range(0, len(run_ids), FAN_OUT_BATCH):
            await backend.durable(*(copy_to_run(backend, r, str(version_now), serial)
                                    for r in run_ids[i:i + FAN_OUT_BATCH]))
        await backend.call(backend.redis.publish(keys.NOTIFY_CHANNEL, "rules"))
    return str(version_now), serial
