"""Every input of ``lua/decide.lua``, by name: the script reads its fixed keys and arguments with one
``unpack`` each, in the order of the fields below (tests/gateway/test_decide_args.py keeps the two lists of
names equal), then the approval record's pairs and seven values per gate.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from operator import attrgetter


@dataclass(slots=True)
class GateArgs:
    """One throttle (``t``) or dedup (``d``) gate the call must pass."""

    key: str
    kind: str
    limit: int  # calls per window (throttle); 0 for dedup
    span_ms: int  # the throttle window or the dedup lease
    scope: str  # dedup: "agent" (another agent's same call) or "any"; "-" for throttle
    member: str  # the entry this call adds (its action id)
    name: str  # the rule, for the audit and the agent's reason
    reason: str

    def argv(self) -> list[str]:
        return [self.kind, str(self.limit), str(self.span_ms), self.scope, self.member, self.name, self.reason]


@dataclass(slots=True)
class DecideKeys:
    run_key: str
    stats_key: str
    audit_key: str
    approvals_key: str
    fingerprint_key: str
    approval_key: str
    claim_key: str  # the run's copy of the agent's scope claim: read only when the agent holds a fencing token
    live_agents_key: str
    attempts_key: str  # read only when the agent's key was minted for an attempt
    written_key: str  # written only by an allowed call that writes
    fetched_key: str


@dataclass(slots=True)
class DecideArgs:
    now_override: str  # "" = Redis TIME
    dry: bool
    kind: str  # suppress | allow | approval
    expected_rules_version: str
    outcome_if_allowed: str  # executed | rerouted
    new_approval_id: str
    approval_timeout_ms: int
    approval_prefix: str
    approval_retention_ms: int
    notify_channel: str
    rule: str
    reason: str
    call_json: str
    agent: str
    expected_global_version: str
    expected_global_serial: int
    fence: str  # "" = the agent holds no scope claim
    spawn: str  # "" = the call starts no sub-agent
    depth: int
    default_max_live: int
    default_max_depth: int
    spawn_lease_ms: int
    key_attempt: str  # "" = a key minted for no attempt
    writes: str  # newline-separated
    written_retention_ms: int
    fetched: str  # newline-separated: which of ``writes`` hold bytes from the network
    approval_fields: tuple[str, ...] = ()  # field, value, field, value, … of a new approval's record
    gates: tuple[GateArgs, ...] = ()

    def argv(self) -> list[str]:
        out = [_arg(value) for value in _fixed_args(self)]
        out += [str(len(self.approval_fields) // 2), str(len(self.gates)), *self.approval_fields]
        for gate in self.gates:
            out += gate.argv()
        return out


def key_list(keys: DecideKeys, gates: tuple[GateArgs, ...]) -> list[str]:
    """KEYS of the script: the fixed ones, then one per gate."""
    return [*_fixed_keys(keys), *(g.key for g in gates)]


def _arg(value: str | int | bool) -> str:
    if value.__class__ is str:
        return value  # type: ignore[return-value]
    if value.__class__ is bool:
        return "1" if value else "0"
    return str(value)


# Plain (not frozen) dataclasses and attrgetter: built on every decision, so each microsecond counts
# (bench/dispatch.py measures the gateway's CPU per request).
FIXED_KEYS = tuple(f.name for f in fields(DecideKeys))
FIXED_ARGS = (*(f.name for f in fields(DecideArgs) if f.name not in ("approval_fields", "gates")),
              "n_approval", "n_gates")
_fixed_keys = attrgetter(*FIXED_KEYS)
_fixed_args = attrgetter(*FIXED_ARGS[:-2])
