"""The run's eyes on the gateway (docs/swarm.md): while a run goes on, follow its audit stream and completion
events into the journal (the agents' episodic memories and the twin's tool calls), feed the monitor's
detector, and carry out what it asks for — warn, throttle the agent through a per-run gateway rule, or
kill the agent's process group.

The gateway is polled (every ``[monitor] poll_interval_seconds``) rather than subscribed to: a poll that
fails because the gateway is briefly away loses nothing (the cursors only move after a full read), and
the final drain at the end of the run makes the journal complete whatever the timing was.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.config import MonitorSection
from orchestrator.gatewayclient import GatewayClient, GatewayError
from orchestrator.watch.monitor import AlertFinding, Detector, throttle_rule, with_rule
from orchestrator.watch.tailer import Tailer

KillAgent = Callable[[str, str], Awaitable[bool]]  # (agent id, why) -> whether a live agent was killed
Note = Callable[[str], None]
# (task id, agent id, outcome, detail): what a task's agent is doing now, for the live view.
Activity = Callable[[str, str, str, str], None]


class Watcher:
    def __init__(self, *, run_dir: R.RunDir, past: list[Any], client: GatewayClient, run_id: str,
                 cfg: MonitorSection, task_ids: list[str], kill_agent: KillAgent, note: Note, max_duration_s: float,
                 unfinished: Callable[[], int], clock: Callable[[], float] = time.monotonic,
                 activity: Activity | None = None, on_cancelled: Callable[[str], None] | None = None) -> None:
        """``past``: the journal's events before this process started (a resume carries on after the last
        call journaled and never repeats an alert)."""
        self.dir, self.client, self.run_id, self.cfg = run_dir, client, run_id, cfg
        self.tailer = Tailer.from_journal(client, run_id, past, task_ids=task_ids)
        self.detector = Detector(cfg, alerted=[(e.kind, e.agent_id) for e in past if isinstance(e, E.Alert)])
        self.kill_agent, self.note, self.unfinished = kill_agent, note, unfinished
        self.clock, self.started, self.max_duration_s = clock, clock(), max_duration_s
        self._stop = asyncio.Event()
        # The runner also polls when a task ends (so its decisions show before it reads "done"); two polls at
        # once would read the same records from the same cursors and journal them twice.
        self._polling = asyncio.Lock()
        self.activity = activity
        self.on_cancelled = on_cancelled  # the run was cancelled at the gateway (the console, another CLI)

    async def run(self) -> None:
        """Poll until :meth:`stop`, then drain what is left."""
        while not self._stop.is_set():
            await self.poll_once()
            # Waiting on the stop event (not sleeping) so that the end of the run is seen at once.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self.cfg.poll_interval_seconds)
        await self.poll_once()

    def stop(self) -> None:
        self._stop.set()

    async def poll_once(self) -> int:
        """Journal new calls and completions, act on alerts; the number of records journaled."""
        async with self._polling:
            return await self._poll()

    async def _poll(self) -> int:
        try:
            calls, completions = await self.tailer.poll()
        except GatewayError:
            return 0  # the gateway is away for now; the cursors did not move, the next poll catches up
        for call in calls:
            self.dir.record(E.ToolCall, **call)
            if self.activity is not None and call.get("task_id"):
                self.activity(str(call["task_id"]), call["agent_id"], call["outcome"], _detail(call))
            if self.cfg.enabled:
                for finding in self.detector.observe(call):
                    await self._act(finding)
        for done in completions:
            self.dir.record(E.ToolCompleted, **done)
        await self._check_cancelled()
        if self.cfg.enabled:
            deadline = self.detector.check_deadline(elapsed_s=self.clock() - self.started,
                                                    max_s=self.max_duration_s, unfinished=self.unfinished())
            if deadline is not None:
                await self._act(deadline)
        return len(calls) + len(completions)

    async def _check_cancelled(self) -> None:
        """A run cancelled at the gateway (an operator in the console) stops here too: its agents are already
        refused every call, and their process groups are killed like on `acteon-swarm cancel`."""
        if self.on_cancelled is None:
            return
        try:
            run = await self.client.run(self.run_id)
        except GatewayError:
            return
        if run.get("status") == "cancelled":
            self.on_cancelled("cancelled at the gateway (the operator console or the API)")
            self.on_cancelled = None

    def add_task(self, task_id: str) -> None:
        self.tailer.add_task(task_id)

    async def _act(self, finding: AlertFinding) -> None:
        # Throttling or killing is about one agent; a deadline alert can only warn.
        action = self.cfg.action if finding.agent_id is not None else "warn"
        detail = finding.detail
        if action == "throttle" and finding.agent_id is not None:
            try:
                rules: list[dict[str, Any]] = await self.client.run_rules(self.run_id)
                await self.client.put_run_rules(self.run_id, with_rule(rules, throttle_rule(finding.agent_id,
                                                                                             self.run_id)))
            except GatewayError as e:
                action, detail = "warn", f"{detail} (throttle failed: {e})"
        elif action == "kill" and finding.agent_id is not None and not await self.kill_agent(
                finding.agent_id, f"killed by the monitor: {finding.kind}: {detail}"):
            action, detail = "warn", f"{detail} (the agent had already finished)"
        self.dir.record(E.Alert, kind=finding.kind, agent_id=finding.agent_id, task_id=finding.task_id,
                        detail=detail, action=action)
        self.note(f"monitor: {finding.kind}: {detail} -> {action}")


def _detail(call: Any) -> str:
    outcome, target = call["outcome"], call.get("target") or ""
    if outcome == "pending_approval":
        return f"approval {call.get('approval_id') or '?'}: {target}"
    if outcome in ("throttled", "quota_exceeded"):
        retry = call.get("retry_after_ms")
        when = f"retry in {-(-int(retry) // 1000)} s" if retry else (call.get("reason") or outcome)
        return f"{when}: {target}"
    return target
