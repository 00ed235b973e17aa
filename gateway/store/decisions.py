"""Turn an evaluation into a decision with exactly one EVALSHA (``lua/decide.lua``)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson

from gateway.normalize import Call
from gateway.rules.engine import DEFAULT_DENY_REASON, Evaluation
from gateway.rules.model import Rule
from gateway.store import agents, keys
from gateway.store.backend import Backend
from hook import contract as c

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


def _gate_args(rule: Rule, call: Call, action_id: str) -> tuple[str, list[str]]:
    """The gate's key and its seven script arguments (see ``decide.lua``)."""
    if rule.action == "throttle":
        who = call.agent_id if rule.per == "agent" else (call.role or "-") if rule.per == "role" else "-"
        key = keys.throttle(call.run_id, rule.name, rule.per, who)
        return key, ["t", str(rule.limit), str(max(1, round(rule.window_s * 1000))), "-", action_id, rule.name,
                     rule.default_reason]
    digest = hashlib.sha256(_dedup_value(rule, call).encode()).hexdigest()[:32]
    key = keys.dedup(call.run_id, rule.name, digest)
    scope = "any" if rule.scope == "any" else "agent"
    return key, ["d", "0", str(max(1, round(rule.ttl_s * 1000))), scope, action_id, rule.name, rule.default_reason]


async def decide(
    backend: Backend,
    *,
    call: Call,
    evaluation: Evaluation,
    action_id: str,
    approval_id: str,
    rules_version: str,
    global_version: str,
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
    gates = evaluation.gates if kind != "suppress" else ()
    gate_keys: list[str] = []
    gate_argv: list[str] = []
    for g in gates:
        k, a = _gate_args(g, call, action_id)
        gate_keys.append(k)
        gate_argv.extend(a)

    approval_pairs: list[str] = []
    timeout_ms = 0
    fp_key = keys.approval_fingerprint(run_id, "-")
    if kind == "approval" and terminal is not None:
        timeout_ms = max(1, round(terminal.timeout_s * 1000))
        fp_key = keys.approval_fingerprint(run_id, fingerprint(call))
        approval_pairs = [
            "run_id", run_id, "agent_id", call.agent_id, "role", call.role or "",
            "provider", call.provider, "tool", call.tool, "action_type", call.action_type,
            "target", call.target, "rule", rule_name, "reason", reason,
            # Whole, never cut: a person approves the full input (the body limit bounds its size).
            "input", orjson.dumps(call.input, default=str).decode(),
        ]

    outcome_if_allowed = c.REROUTED if terminal is not None and terminal.action == "reroute" else c.EXECUTED
    argv: list[str] = [
        backend.now_arg(), "1" if dry_run else "0", kind, rules_version, outcome_if_allowed,
        approval_id, str(timeout_ms), keys.approval_prefix(run_id), str(APPROVAL_RETENTION_MS),
        keys.NOTIFY_CHANNEL, str(len(approval_pairs) // 2), *approval_pairs,
        rule_name, reason, orjson.dumps(audit).decode(),
        str(len(gates)), *gate_argv,
        call.agent_id, global_version, fence,
        spawn, str(depth), str(agents.DEFAULT_MAX_LIVE), str(agents.DEFAULT_MAX_DEPTH), str(agents.LEASE_MS),
        str(attempt) if attempt else "",
        "\n".join(call.facts.writes[:256]), str(WRITTEN_RETENTION_MS), "\n".join(call.facts.fetched[:256]),
    ]
    script_keys = [
        keys.run(run_id), keys.stats(run_id), keys.audit(run_id), keys.approvals_index(run_id),
        fp_key, keys.approval(run_id, approval_id), *gate_keys, keys.GLOBAL_RULES,
        claim_key or keys.GLOBAL_RULES,  # read only when the agent holds a fencing token
        keys.live_agents(run_id),
        keys.attempts(run_id),  # read only when the agent's key was minted for an attempt
        keys.written(run_id),  # written only by an allowed call that writes
        keys.fetched(run_id),
    ]
    result: list[Any] = await backend.call(backend.script("decide.lua")(keys=script_keys, args=argv))
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
