"""The dispatch pipeline: normalize → evaluate the rules → one atomic decision in Redis."""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from acteon_core import contract as c
from acteon_core.attachments import BINARY, attach
from gateway.analyzer import Analyzer
from gateway.errors import NotFound
from gateway.metrics import Metrics
from gateway.models import DispatchRequest
from gateway.normalize import (
    Call,
    Facts,
    cached_command_facts,
    is_shell_tool,
    is_write_tool,
    normalize,
    shell_command,
)
from gateway.paths import agent_home
from gateway.policy import Policy
from gateway.rules.engine import Evaluation, evaluate, rewrite_input
from gateway.rules.model import Rule
from gateway.runnable import CARRIED, patch_equivalents, shell_written, write_equivalent
from gateway.scope import RULE as SCOPE_RULE
from gateway.scope import Binding, violation
from gateway.shell.analysis import FETCHED, Attached
from gateway.store import agents, approvals, runs
from gateway.store.backend import Backend
from gateway.store.decisions import Recheck, decide, provenance
from gateway.suggestions import suggestion_for


async def attached(files: Mapping[str, str | None] | None, command: str, workdir: str | None, home: str) -> Attached:
    """The local programs a command may run: as the command hook attached them, or — for callers that
    attach nothing (Claude's http hook, the orchestrator) — read here, where the gateway shares the agent's
    filesystem (acteon_core/attachments.py; elsewhere nothing is found and the command line alone is judged)."""
    if files is not None:
        return tuple(sorted(files.items()))
    if workdir is None or not os.path.isdir(workdir):  # noqa: PTH112, ASYNC240 - one stat, no thread hop
        return ()
    # In this thread: a few stats and at most 512 KiB of reads cost less than the hop to a worker thread
    # (measured ~30 µs against ~200 µs on the development machine, docs/performance.md).
    return tuple(sorted(attach(command, workdir, home).items()))


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

    async def _facts(self, command: str, workdir: str | None, home: str, files: Attached) -> Facts:
        if self.analyzer is not None:
            return await self.analyzer.afacts(command, workdir, home, self.secret_paths, files)
        return cached_command_facts(command, workdir, home, self.secret_paths, files)

    async def _with_written(self, facts: Facts, workdir: str | None, home: str) -> Facts:
        """The command's facts, with what the files it writes out in full will do (``runnable.shell_written``)."""
        found, equivalents = shell_written(facts.written_texts)
        for command, files in equivalents:
            found |= set((await self._facts(command, workdir, home, files)).categories) & CARRIED
        if found <= set(facts.categories):
            return facts
        return replace(facts, categories=tuple(sorted(found.union(facts.categories))))

    async def dispatch(self, req: DispatchRequest, *, dry_run: bool, binding: Binding | None = None) -> dict[str, Any]:
        """Decide one call; returns the answer (the shape of ``DispatchResponse``, None fields left out).
        ``binding``: the caller's key is one agent's: its identity is the key's, and its file scope holds."""
        started = time.perf_counter()
        if binding is not None and req.agent_id != binding.agent_id:
            req = req.model_copy(update={"agent_id": binding.agent_id})  # who calls is the key's, not the body's
        home, call = await self.normalized(req)
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
                global_version=self.policy.global_version, global_serial=self.policy.global_serial,
                dry_run=dry_run, audit=audit,
                claim_key=binding.claim_key if binding else "", fence=binding.token if binding else "",
                attempt=binding.attempt if binding else 0,
                spawn=agents.member(req.agent_id, req.tool_use_id or action_id)
                if call.action_type == c.SPAWN_AGENT else "",
                # A call from inside a Claude sub-agent carries its agent_type: the caller is one level down.
                depth=2 if req.agent_type else 1,
                instead=suggestion_for(call) if breach is None else None,
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

    async def normalized(self, req: DispatchRequest) -> tuple[str, Call]:
        """The call as the rules see it: the shell analysis with the programs the command runs, and for a
        write what the written file will do (gateway/runnable.py). Returns (the agent's home, the call)."""
        # `~` and home paths are the agent's: its hook reports its HOME (the gateway's own is a fallback,
        # and wrong for a gateway in a container or agents homed under a temp directory).
        home = agent_home(req.home) or self.home
        shell_facts: Facts | None = None
        content_facts: Facts | None = None
        if is_shell_tool(req.tool):
            command, workdir = shell_command(req.input, req.cwd, home)
            files = await attached(req.files, command, workdir, home)
            if files:
                # Only what the run's agents wrote is judged by its content; the project's own files are
                # judged by the command line alone, as they always were. What they downloaded runs as
                # downloaded code, whatever it holds now (docs/rules.md#what-runs-is-judged).
                written, fetched = await provenance(self.backend, req.run_id, [p for p, _ in files])
                files = tuple((p, FETCHED if p in fetched else t) for p, t in files
                              if p in fetched or (p in written and t != BINARY))
            shell_facts = await self._facts(command, workdir, home, files)
            if shell_facts.written_texts:
                shell_facts = await self._with_written(shell_facts, workdir, home)
        elif is_write_tool(req.tool):
            # One file for a Write or Edit; each file a patch adds lines to for an apply_patch.
            single = write_equivalent(req.input, req.cwd, home)
            found = [single] if single is not None else patch_equivalents(req.input, req.cwd, home)
            categories: set[str] = set()
            for command, files in found:
                categories.update((await self._facts(command, req.cwd, home, files)).categories)
            if found:
                content_facts = Facts(categories=tuple(sorted(categories)))
        return home, normalize(
            run_id=req.run_id, agent_id=req.agent_id, role=req.role, provider=req.provider,
            tool=req.tool, input=req.input, cwd=req.cwd, home=home,
            secret_paths=self.secret_paths, mcp_server=req.mcp_server, shell_facts=shell_facts,
            content_facts=content_facts,
        )

    async def explain(self, req: DispatchRequest) -> dict[str, Any]:
        """What the analysis found and every rule of the pack in force that matches, in priority order: the
        first terminal one decides (nothing is consumed, nothing recorded) — `acteon-swarm explain`."""
        await self.policy.require_rules()
        _home, call = await self.normalized(req)
        pack = self.policy.pack_for(req.run_id)
        matched = [rule for rule in pack.rules if rule.predicate(call)]
        evaluation = evaluate(pack, call)
        deciding = evaluation.terminal
        verdict = {"allow": "allow", "reroute": "allow", "request_approval": "approval"}.get(
            deciding.action if deciding else "suppress", "suppress")
        facts = call.facts
        answer: dict[str, Any] = {
            "action_type": call.action_type,
            "target": call.target,
            "facts": {
                "categories": list(facts.categories), "executables": list(facts.executables),
                "commands": list(facts.commands[1:] if call.action_type == c.EXECUTE_COMMAND else facts.commands),
                "paths": [{"path": p.path, "class": p.path_class} for p in facts.path_facts],
                "hosts": list(facts.hosts), "writes": list(facts.writes), "limit": facts.limit,
            },
            # Gates after the deciding rule are never reached by the walk; they are listed so a pack's author
            # sees every rule the call matches.
            "matched": [{"name": r.name, "priority": r.priority, "action": r.action,
                         "kind": "terminal" if r.terminal else "gate", "source": r.source,
                         "decides": r is deciding, "reached": deciding is None or i <= matched.index(deciding)}
                        for i, r in enumerate(matched)],
            "decided_by": deciding.name if deciding else evaluation.rule_name,
            "verdict": verdict,
            "reason": (deciding.reason or "") if deciding else "no rule allows this call (deny by default)",
        }
        instead = suggestion_for(call) if verdict != "allow" else None
        if instead is not None:
            answer["instead"] = instead
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
            await self.policy.copy_to_run(run_id)  # raises RulesUnavailable when an API pack was lost
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
