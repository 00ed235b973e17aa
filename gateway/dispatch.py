"""The dispatch pipeline: normalize → evaluate the rules → one atomic decision in Redis."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from gateway.analyzer import Analyzer
from gateway.errors import NotFound
from gateway.metrics import Metrics
from gateway.models import DispatchRequest
from gateway.normalize import Facts, is_shell_tool, normalize, shell_command
from gateway.paths import agent_home
from gateway.policy import Policy
from gateway.rules.engine import Evaluation, evaluate, rewrite_input
from gateway.rules.model import Rule
from gateway.scope import RULE as SCOPE_RULE
from gateway.scope import Binding, violation
from gateway.store import agents, approvals, runs
from gateway.store.backend import Backend
from gateway.store.decisions import Recheck, decide
from hook import contract as c


@dataclass
class Dispatcher:
    backend: Backend
    policy: Policy
    metrics: Metrics
    home: str
    secret_paths: tuple[str, ...] = ()
    # Shell commands are analysed in isolated child processes; None analyses in this process
    # (embedded tools and benchmarks that measure the analysis itself).
    analyzer: Analyzer | None = None

    async def dispatch(self, req: DispatchRequest, *, dry_run: bool, binding: Binding | None = None) -> dict[str, Any]:
        """Decide one call; returns the answer (the shape of ``DispatchResponse``, None fields left out).
        ``binding``: the caller's key is one agent's: its identity is the key's, and its file scope holds."""
        started = time.perf_counter()
        if binding is not None and req.agent_id != binding.agent_id:
            req = req.model_copy(update={"agent_id": binding.agent_id})  # who calls is the key's, not the body's
        # `~` and home paths are the agent's: its hook reports its HOME (the gateway's own is a fallback,
        # and wrong for a gateway in a container or agents homed under a temp directory).
        home = agent_home(req.home) or self.home
        shell_facts: Facts | None = None
        if self.analyzer is not None and is_shell_tool(req.tool):
            command, workdir = shell_command(req.input, req.cwd, home)
            shell_facts = await self.analyzer.afacts(command, workdir, home, self.secret_paths)
        call = normalize(
            run_id=req.run_id, agent_id=req.agent_id, role=req.role, provider=req.provider,
            tool=req.tool, input=req.input, cwd=req.cwd, home=home,
            secret_paths=self.secret_paths, mcp_server=req.mcp_server, shell_facts=shell_facts,
        )
        action_id = "act-" + secrets.token_hex(10)
        approval_id = approvals.new_id(secrets.token_hex(8), req.run_id)
        await self.policy.require_rules()
        breach = violation(call, binding, home) if binding is not None else None
        for _attempt in range(4):
            pack = self.policy.pack_for(req.run_id)
            evaluation = evaluate(pack, call) if breach is None else _scope_refusal(breach)
            audit = self._audit_fields(req, call.action_type, call.target, action_id, started)
            verdict = await decide(
                self.backend, call=call, evaluation=evaluation, action_id=action_id,
                approval_id=approval_id, rules_version=self.policy.cached_run_version(req.run_id),
                global_version=self.policy.global_version, dry_run=dry_run, audit=audit,
                claim_key=binding.claim_key if binding else "", fence=binding.token if binding else "",
                attempt=binding.attempt if binding else 0,
                spawn=agents.member(req.agent_id, req.tool_use_id or action_id)
                if call.action_type == c.SPAWN_AGENT else "",
                # A call from inside a Claude sub-agent carries its agent_type: the caller is one level down.
                depth=2 if req.agent_type else 1,
            )
            if not isinstance(verdict, Recheck):
                decision = verdict
                break
            await self._recheck(verdict, req.run_id)
        else:  # pragma: no cover - only if rules change four times within one call
            raise NotFound(f"run '{req.run_id}' rules keep changing; try again")

        updated: dict[str, Any] | None = None
        if decision.outcome == c.REROUTED and evaluation.terminal is not None:
            updated = rewrite_input(evaluation.terminal, req.input)
        reason = decision.reason
        if decision.retry_after_ms is not None:
            reason = f"{reason} (retry in {decision.retry_after_ms / 1000:.1f}s)"
        elif decision.outcome == c.PENDING_APPROVAL:
            reason = f"waiting for human approval ({decision.approval_id or 'dry run'}): {reason}"
        if call.facts.limit is not None and decision.outcome not in c.ALLOWED_OUTCOMES:
            reason = f"{reason} (not analysed: {call.facts.limit})"
        if not dry_run:
            self.metrics.decisions.labels(decision.outcome, call.action_type).inc()
            self.metrics.decision_seconds.observe(time.perf_counter() - started)
        answer: dict[str, Any] = {
            "action_id": action_id,
            "allowed": decision.outcome in c.ALLOWED_OUTCOMES,
            "outcome": decision.outcome,
            "action_type": call.action_type,
            "target": call.target,
            "rule": decision.rule,
            "reason": reason,
            "dry_run": dry_run,
        }
        # Same shape as DispatchResponse with exclude_none (a test checks it against the model).
        if decision.retry_after_ms is not None:
            answer["retry_after_ms"] = decision.retry_after_ms
        if decision.approval_id:
            answer["approval_id"] = decision.approval_id
        if updated is not None:
            answer["updated_input"] = updated
        return answer

    async def _recheck(self, verdict: Recheck, run_id: str) -> None:
        """Bring what this process evaluated with up to date; the caller evaluates again."""
        if verdict.why == "stale_rules":
            await self.policy.reload_run(run_id)
            self.metrics.rule_reloads.labels("run").inc()
        elif verdict.why == "stale_global":
            await self.policy.refresh_global()
            self.metrics.rule_reloads.labels("global").inc()
        elif verdict.why == "no_global_rules":
            await self.policy.store_lost()  # raises RulesUnavailable when an API pack was lost
        elif run_id != c.DEFAULT_RUN_ID:
            raise NotFound(f"run '{run_id}' not found")
        else:  # Redis was flushed or restarted empty: the default run always exists.
            await runs.ensure_default(self.backend)

    @staticmethod
    def _audit_fields(
        req: DispatchRequest, action_type: str, target: str, action_id: str, started: float
    ) -> dict[str, Any]:
        return {
            "action_id": action_id, "run_id": req.run_id, "agent_id": req.agent_id,
            "role": req.role, "provider": req.provider, "tool": req.tool,
            "action_type": action_type, "target": target,
            "session_id": req.session_id, "cwd": req.cwd,
            "tool_use_id": req.tool_use_id, "agent_type": req.agent_type,
            # Gateway-side time until the decision script ran (the script itself is the rest).
            "latency_us": int((time.perf_counter() - started) * 1_000_000),
        }


def _scope_refusal(reason: str) -> Evaluation:
    """The verdict on a write outside the agent's file scope: suppressed before any rule of the pack."""
    rule = Rule(name=SCOPE_RULE, priority=0, action="suppress", source="gateway", predicate=lambda _call: True,
                reason=f"outside this agent's file scope: {reason}")
    return Evaluation(rule, ())
