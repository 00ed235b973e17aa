"""decide.lua reads its keys and arguments by name, in the order gateway/store/decide_args.py lays them out:
the two lists of names must be equal, or every decision would read the wrong values."""

from __future__ import annotations

import re

from gateway.store import decide_args as d
from tests.support import ROOT

LUA = (ROOT / "gateway" / "store" / "lua" / "decide.lua").read_text()


def _unpacked(table: str) -> tuple[list[str], int]:
    m = re.search(r"local ([\w,\s]+?) = unpack\(" + table + r", 1, (\d+)\)", LUA)
    assert m, f"decide.lua reads {table} with one unpack"
    return [n.strip() for n in m.group(1).split(",")], int(m.group(2))


def test_the_script_reads_the_keys_the_gateway_sends_in_the_same_order() -> None:
    names, count = _unpacked("KEYS")
    assert names == list(d.FIXED_KEYS) and count == len(names)
    assert f"FIXED_KEYS, FIXED_ARGS = {len(d.FIXED_KEYS)}, {len(d.FIXED_ARGS)}" in LUA


def test_the_script_reads_the_arguments_the_gateway_sends_in_the_same_order() -> None:
    names, count = _unpacked("ARGV")
    assert names == list(d.FIXED_ARGS) and count == len(names)


def test_variable_parts_follow_the_fixed_ones() -> None:
    gate = d.GateArgs(key="k", kind="t", limit=3, span_ms=1000, scope="-", member="a1", name="r", reason="why")
    args = d.DecideArgs(
        now_override="", dry=True, kind="allow", expected_rules_version="1", outcome_if_allowed="executed",
        new_approval_id="apr", approval_timeout_ms=0, approval_prefix="p", approval_retention_ms=5,
        notify_channel="n", rule="r", reason="x", call_json="{}", agent="a", expected_global_version="g",
        expected_global_serial=3,
        fence="", spawn="", depth=1, default_max_live=4, default_max_depth=2, spawn_lease_ms=9, key_attempt="",
        writes="", written_retention_ms=7, fetched="", approval_fields=("f", "v"), gates=(gate,))
    argv = args.argv()
    fixed = dict(zip(d.FIXED_ARGS, argv, strict=False))
    assert (fixed["dry"], fixed["depth"], fixed["n_approval"], fixed["n_gates"]) == ("1", "1", "1", "1")
    assert argv[len(d.FIXED_ARGS):] == ["f", "v", "t", "3", "1000", "-", "a1", "r", "why"]
    keys = d.DecideKeys(*(f"K{i}" for i in range(len(d.FIXED_KEYS))))
    assert d.key_list(keys, (gate,)) == [*(f"K{i}" for i in range(len(d.FIXED_KEYS))), "k"]
