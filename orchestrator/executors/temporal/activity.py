"""The subtask activity, on a worker machine: one attempt of one subtask's agent session.

The attempt's agent key is minted here, with the worker's key, for ``(run, agent, attempt)``: no key ever
travels in a workflow's payload or history, and the gateway refuses a mint for an attempt that is not
newer than the agent's current one. While the agent runs, the activity heartbeats at least once a second
with where the agent is (host, pid, process group): the heartbeat is the lease. When the workflow is
cancelled, or this worker was silent past the heartbeat timeout (its attempt re-runs elsewhere and the
server answers its next heartbeat with a cancel), the agent's whole process group is killed before the
activity returns. Agent groups are recorded in a file so that a worker restarted after ``kill -9`` kills
the ones its previous life left behind (:class:`GroupLedger`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from orchestrator.engines import get_engine
from orchestrator.engines.base import MAX_OUTPUT, EngineError, Seat, SubtaskContext
from orchestrator.executors.temporal.inputs import unpack
from orchestrator.executors.temporal.workflow import ACTIVITY
from orchestrator.executors.temporal.workspace import Checkouts
from orchestrator.gatewayclient import Conflict, GatewayClient
from orchestrator.process import process_start_time, reap_orphan
from orchestrator.workspace.git import GitError

HEARTBEAT_S = 0.5  # well under a second: the SDK sends at most one per second (the worker's throttle)


class GroupLedger:
    """The process groups of the agents this worker runs, in a file that outlives the worker process."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)

    def _read(self) -> dict[int, int | None]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return {}
        groups: dict[int, int | None] = {}
        for line in lines:
            try:
                entry = json.loads(line)
                groups[int(entry["pgid"])] = entry.get("start_time")
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by the kill -9 that this ledger exists for
        return groups

    def _write(self, groups: dict[int, int | None]) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps({"pgid": g, "start_time": t}) + "\n" for g, t in groups.items()),
                       encoding="utf-8")
        tmp.replace(self.path)

    def add(self, pgid: int) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"pgid": pgid, "start_time": process_start_time(pgid)}) + "\n")

    def remove(self, pgid: int) -> None:
        groups = self._read()
        groups.pop(pgid, None)
        self._write(groups)

    def reap(self) -> list[int]:
        """Kill every recorded group still alive (the leader's start time checked: a recycled pid is not
        ours), and forget them all. Called when a worker starts, before it takes any work."""
        killed = [pgid for pgid, start in self._read().items() if reap_orphan(pgid, start)]
        self._write({})
        return killed


class SubtaskActivity:
    """What a worker process runs for each attempt. Holds the worker's key; its agents never see it."""

    def __init__(self, *, gateway_url: str, worker_key: str, state_dir: Path, base_env: dict[str, str]) -> None:
        self.gateway_url = gateway_url
        self._worker_key = worker_key
        self.state_dir = state_dir
        self.base_env = base_env
        self.ledger = GroupLedger(state_dir / "agent-groups.jsonl")
        self.host = socket.gethostname()
        self.client = GatewayClient(gateway_url, "")  # no admin key on a worker, ever
        self.checkouts = Checkouts(state_dir)

    @activity.defn(name=ACTIVITY)
    async def run_subtask(self, spec: dict[str, Any]) -> dict[str, Any]:
        info = activity.info()
        # Monotonic per agent across the runs of one agent id (a refiner's retry is a new workflow whose
        # activity counts from 1 again): the gateway accepts only a newer attempt.
        attempt = int(spec.get("attempt_base", 0)) + info.attempt
        run_id, agent_id = str(spec["run_id"]), str(spec["agent_id"])
        binding = dict(spec.get("binding") or {})
        workdir, base, top = Path(spec["workdir"]), "", None
        if spec.get("git"):  # a task in a git worktree: its head, checked out here for this attempt
            try:
                top, base = await self.checkouts.checkout(spec["git"], run_id, agent_id, attempt)
            except GitError as e:
                raise ApplicationError(f"cannot check out the task's head: {e}", type="CheckoutFailed") from None
            workdir = top / spec["git"]["subdir"] if spec["git"]["subdir"] else top
            if binding.get("root"):
                binding["root"] = str(top)  # the gateway holds the agent to this machine's worktree
        try:
            key = await self.client.mint_attempt(self._worker_key, run_id, agent_id, attempt, binding)
        except Conflict as e:  # a newer attempt exists already (this one is stale), or the run was cancelled
            raise ApplicationError(str(e), type="MintRefused", non_retryable=True) from None
        agent_dir = self.state_dir / "agents" / run_id / agent_id / str(attempt)
        agent_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        where: dict[str, Any] = {"host": self.host, "worker_pid": os.getpid(), "pgid": None, "attempt": attempt}

        def started(pid: int) -> None:
            where["pgid"] = pid
            self.ledger.add(pid)

        ctx = SubtaskContext(
            seat=Seat(gateway_url=self.gateway_url, agent_key=key, run_id=run_id, env=self.base_env,
                      pass_env=tuple(spec.get("pass_env") or ())),
            agent_id=agent_id, role=str(spec["role"]), task_id=str(spec["task_id"]),
            subtask_id=str(spec["subtask_id"]), prompt=spec.get("prompt"), command=spec.get("command"),
            workdir=workdir, agent_dir=agent_dir, timeout_s=float(spec["timeout_s"]), client=self.client,
            on_start=started,
            extra_env={**dict(spec.get("extra_env") or {}), **unpack(dict(spec.get("files") or {}), agent_dir)},
            model=spec.get("model"))
        started_at = time.monotonic()
        try:
            engine = get_engine(str(spec["engine"]))
        except EngineError as e:
            raise ApplicationError(str(e), type="EngineError", non_retryable=True) from None
        run = asyncio.create_task(engine.run_subtask(ctx))
        try:
            while True:
                done, _ = await asyncio.wait({run}, timeout=HEARTBEAT_S)
                if done:
                    break
                activity.heartbeat(where)
            result = run.result()
        except EngineError as e:
            raise ApplicationError(str(e), type="EngineError", non_retryable=True) from None
        finally:
            if not run.done():  # cancelled (the run's cancel, or this attempt lost its lease): kill the group
                run.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await run
            if where["pgid"] is not None:
                self.ledger.remove(int(where["pgid"]))
        landed = None
        if top is not None and result.ok:
            try:
                landed = await self.checkouts.give_back(spec["git"], top, base, run_id, agent_id, attempt)
            except GitError as e:
                return {"ok": False, "returncode": result.returncode, "timed_out": False, "detail":
                        f"the agent's commits could not be pushed: {e}"[:2000], "output": result.output[-MAX_OUTPUT:],
                        "duration_s": round(time.monotonic() - started_at, 3), "usage": result.usage,
                        "host": self.host, "attempt": attempt}
        return {
            "git": landed,
            "ok": result.ok, "returncode": result.returncode, "timed_out": result.timed_out,
            "duration_s": round(time.monotonic() - started_at, 3), "detail": result.detail[:2000],
            "output": result.output[-MAX_OUTPUT:], "usage": result.usage, "host": self.host, "attempt": attempt,
        }
