"""Turn an evaluation into a decision with exactly one EVALSHA (``lua/decide.lua``)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson

from acteon_core import contract as c
from gateway.normalize import Call
from gateway.rules.engine import DEFAULT_DENY_REASON, Evaluation
from gateway.rules.model import Rule
from gateway.store import agents, keys
from gateway.store.backend import Backend
from gateway.store.decide_args import DecideArgs, DecideKeys, GateArgs, key_list

APPROVAL_RETENTION_MS = 24 * 3600 * 1000  # resolved approvals stay readable this long after expiry
WRITTEN_RETENTION_MS = 7 * 24 * 3600 * 1000  # a run's written paths, from its last write


async def provenance(backend: Backend, run_id: str, paths: list[str]) -> tuple[set[str], set[str]]:
    """Which of ``paths`` the run's agents wrote — the file, or a directory it is in (`tar -x -C dir`, `git
    clone … dir`); all of them once an agent wrote somewhere the analysis could not tell — and which of those
    they downloaded (`curl -o x.sh URL`). One round trip: (written, downloaded)."""
    if not paths:
        return set(), set()
    probes: dict[str, list[str]] = {}
    for path in paths[:64]:
        parts = path.rstrip("/").split("/")
        probes[path] = [path, *("/".join(parts[:i]) + suffix for i in range(len(parts) - 1, 1, -1)
                                for suffix in ("", "/"))][:64]
    members = ["?", *dict.fromkeys(m for ms in probes.values() for m in ms)]
    exact = list(probes)
    pipe = backend.redis.pipeline(transaction=False)  # both keys are the run's: one slot, one round trip
    pipe.smismember(keys.written(run_id), members)
    pipe.smismember(keys.fetched(run_id), exact)
    flags, downloaded = await backend.call(pipe.execute())
    hits = {m for m, hit in zip(members, flags, strict=True) if int(hit)}
    fetched = {p for p, hit in zip(exact, downloaded, strict=True) if int(hit)}
    if "?" in hits:
        return set(paths), fetched
    return {p for p, ms in probes.items() if hits.intersection(ms)}, fetched


@dataclass(frozen=True, slots=True)
class Recheck:
    """The script decided nothing: what this process evaluated with is out of date. ``why``:

    - ``stale_rules``: the run's own rules changed (``version`` is the new one);
    - ``stale_global``: the global pack in force changed (another process, or a restart);
    - ``no_global_rules``: the store holds no pack in force (Redis restarted empty);
    - ``unknown_run``: the run does not exist (or the store lost it).
    """

    why: str
    version: str = ""


@dataclass(frozen=True, slots=True)
class Decision:
    outcome: str
    rule: str
    reason: str
    retry_after_ms: int | None
    approval_id: str | None
    quota_warning: bool
    now_ms: int


def fingerprint(call: Call) -> str:
    """The identity of a call for approvals: same run, agent, action type, target and input. The input
    counts: an approval shown as one edit of a file must not let a different edit of it through."""
    shown_input = orjson.dumps(call.input, option=orjson.OPT_SORT_KEYS, default=str).decode()
    blob = "\x1f".join((call.run_id, call.agent_id, call.action_type, call.target, shown_input))
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _dedup_value(rule: Rule, call: Call) -> str:
    if rule.key == "path":
        return "\x1f".join(call.paths) or call.target
    if rule.key == "input":
        return orjson.dumps(call.input, option=orjson.OPT_SORT_KEYS, default=str).decode()
    return call.target


def _gate(rule: Rule, call: Call, action_id: str) -> GateArgs:
    if rule.action == "throttle":
        who = call.agent_id if rule.per == "agent" else (call.role or "-") if rule.per == "role" else "-"
        return GateArgs(key=keys.throttle(call.run_id, rule.name, rule.per, who), kind="t", limit=rule.limit,
                        span_ms=max(1, round(rule.window_s * 1000)), scope="-", member=action_id, name=rule.name,
                        reason=rule.default_reason)
    digest = hashlib.sha256(_dedup_value(rule, call).encode()).hexdigest()[:32]
    return GateArgs(key=keys.dedup(call.run_id, rule.name, digest), kind="d", limit=0,
                    span_ms=max(1, round(rule.ttl_s * 1000)), scope="any" if rule.scope == "any" else "agent",
                    member=action_id, name=rule.name, reason=rule.default_reason)


async def decide(
    backend: Backend,
    *,
    call: Call,
    evaluation: Evaluation,
    action_id: str,
    approval_id: str,
    rules_version: str,
    global_version: str,
    global_serial: int,
    dry_run: bool,
    audit: dict[str, Any],
    claim_key: str = "",
    fence: str = "",
    attempt: int = 0,
    spawn: str = "",
    depth: int = 1,
    instead: str | None = None,
) -> Decision | Recheck:
    """``instead``: an allowed alternative, added to the reason of a refusal by the rule itself (the agent is
    told it and the audit records it; a gate, the quota or the run deciding gives its own reason)."""
    terminal = evaluation.terminal
    if terminal is None or terminal.action == "suppress":
        kind = "suppress"
    elif terminal.action == "request_approval":
        kind = "approval"
    else:
        kind = "allow"
    rule_name = evaluation.rule_name
    reason = terminal.default_reason if terminal else DEFAULT_DENY_REASON
    if instead and kind != "allow":
        reason = f"{reason}. Instead: {instead}"
    run_id = call.run_id
    # A gate only matters when the call may run; otherwise skip the keys altogether.
    gates = tuple(_gate(g, call, action_id) for g in evaluation.gates) if kind != "suppress" else ()
    approval_fields: tuple[str, ...] = ()
    timeout_ms = 0
    fp_key = keys.approval_fingerprint(run_id, "-")
    if kind == "approval" and terminal is not None:
        timeout_ms = max(1, round(terminal.timeout_s * 1000))
        fp_key = keys.approval_fingerprint(run_id, fingerprint(call))
        approval_fields = (
            "run_id", run_id, "agent_id", call.agent_id, "role", call.role or "",
            "provider", call.provider, "tool", call.tool, "action_type", call.action_type,
            "target", call.target, "rule", rule_name, "reason", reason,
            # Whole, never cut: a person approves the full input (the body limit bounds its size).
            "input", orjson.dumps(call.input, default=str).decode(),
        )
    args = DecideArgs(
        now_override=backend.now_arg(), dry=dry_run, kind=kind, expected_rules_version=rules_version,
        outcome_if_allowed=c.REROUTED if terminal is not None and terminal.action == "reroute" else c.EXECUTED,
        new_approval_id=approval_id, approval_timeout_ms=timeout_ms, approval_prefix=keys.approval_prefix(run_id),
        approval_retention_ms=APPROVAL_RETENTION_MS, notify_channel=keys.NOTIFY_CHANNEL,
        rule=rule_name, reason=reason, call_json=orjson.dumps(audit).decode(),
        agent=call.agent_id, expected_global_version=global_version, expected_global_serial=global_serial,
        fence=fence,
        spawn=spawn, depth=depth, default_max_live=agents.DEFAULT_MAX_LIVE,
        default_max_depth=agents.DEFAULT_MAX_DEPTH, spawn_lease_ms=agents.LEASE_MS,
        key_attempt=str(attempt) if attempt else "",
        writes="\n".join(call.facts.writes[:256]), written_retention_ms=WRITTEN_RETENTION_MS,
        fetched="\n".join(call.facts.fetched[:256]),
        approval_fields=approval_fields, gates=gates,
    )
    fixed_keys = DecideKeys(
        run_key=keys.run(run_id), stats_key=keys.stats(run_id), audit_key=keys.audit(run_id),
        approvals_key=keys.approvals_index(run_id), fingerprint_key=fp_key,
        approval_key=keys.approval(run_id, approval_id),
        # The run's copy of the claim (gateway/store/claims.py); any key of the run when there is none: not read.
        claim_key=keys.claim_copy(run_id, claim_key) if claim_key else keys.run(run_id),
        live_agents_key=keys.live_agents(run_id), attempts_key=keys.attempts(run_id),
        written_key=keys.written(run_id), fetched_key=keys.fetched(run_id),
    )
    result: list[Any] = await backend.call(
        backend.script("decide.lua")(keys=key_list(fixed_keys, gates), args=args.argv()))
    if len(result) <= 2:
        return Recheck(str(result[0]), str(result[1]) if len(result) > 1 else "")
    outcome, _failed, retry, appr, rule_out, reason_out, warn, now = result
    retry_ms = int(retry)
    return Decision(
        outcome=str(outcome),
        rule=str(rule_out),
        reason=str(reason_out),
        retry_after_ms=retry_ms if outcome in (c.THROTTLED, c.QUOTA_EXCEEDED, c.DEDUPLICATED) else None,
        approval_id=str(appr) or None,
        quota_warning=bool(int(warn)),
        now_ms=int(now),
    )
