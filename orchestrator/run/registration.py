"""The run as the gateway knows it: its rules (each role's tools, the blocked commands), its quota and its
sub-agent limits, created at the start — or again on resume when the gateway no longer knows the run (a fresh
embedded one), with what is left of the quota."""

from __future__ import annotations

from typing import Any

from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.config import SwarmConfig
from orchestrator.gatewayclient import GatewayClient, NotFound
from orchestrator.plan.model import Plan, estimated_actions
from orchestrator.roles import Role, blocked_command_rules, quota_for, role_rules

# Outcomes that use up the run's quota (a call that passed every gate), when a resume recounts it.
_QUOTA_OUTCOMES = frozenset({"executed", "rerouted"})


class Registration:
    def __init__(self, client: GatewayClient, run_id: str, *, plan: Plan, cfg: SwarmConfig, roles: dict[str, Role],
                 extra_rules: list[dict[str, Any]]) -> None:
        self.client, self.run_id, self.plan, self.cfg, self.roles = client, run_id, plan, cfg, roles
        self.extra_rules = extra_rules

    async def create(self) -> str:
        """A new run: its agent key."""
        return await self.client.create_run(self.run_id, self._rules(), self._quota(0), self._agent_limits())

    async def resume(self, run_dir: R.RunDir, past: list[Any], gateway_url: str) -> str:
        """A new agent key for a resumed run. A fresh (embedded) gateway knows nothing of it: it is created again
        with the same rules and what is left of its quota. Calls that were waiting for approval are asked again
        when their tasks run again."""
        try:
            return await self.client.mint_key(self.run_id)
        except NotFound:
            used = sum(1 for e in past if isinstance(e, E.ToolCall) and e.outcome in _QUOTA_OUTCOMES)
            key = await self.client.create_run(self.run_id, self._rules(), self._quota(used), self._agent_limits())
            run_dir.record(E.Note, kind="run_recreated", data={"gateway_url": gateway_url, "quota_used": used})
            return key

    def _rules(self) -> list[dict[str, Any]]:
        return (role_rules(self.roles, self.run_id) + blocked_command_rules(self.cfg.safety.blocked_commands)
                + self.extra_rules)

    def _quota(self, used: int) -> dict[str, Any]:
        quota = quota_for(estimated_actions(self.plan), self.plan.scope.max_duration_minutes,
                          self.cfg.defaults.quota_max_actions)
        quota["max_actions"] = max(1, quota["max_actions"] - used)
        return quota

    def _agent_limits(self) -> dict[str, int]:
        safety = self.cfg.safety
        live = safety.max_subagents if safety.max_subagents is not None else self.plan.scope.max_agents
        return {"max_live": live, "max_depth": safety.max_subagent_depth}
