"""The subtask workflow: one activity that runs the agent, retried on another worker when its lease (the
heartbeat) is lost. Deterministic: no I/O, no clock, nothing but Temporal and the standard library."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy

WORKFLOW = "acteon.subtask"
ACTIVITY = "acteon.run_subtask"
# An engine that cannot start the agent fails the same way on every machine: not retried.
NOT_RETRIED = ["EngineError", "Superseded", "MintRefused"]


@workflow.defn(name=WORKFLOW)
class SubtaskWorkflow:
    @workflow.run
    async def run(self, spec: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = await workflow.execute_activity(
            ACTIVITY, spec, task_queue=spec["queue"],
            # The agent's own timeout is enforced by the activity (its whole group killed); this only
            # bounds a worker that never answers at all.
            start_to_close_timeout=timedelta(seconds=float(spec["timeout_s"]) + 60),
            heartbeat_timeout=timedelta(seconds=float(spec["heartbeat_timeout_s"])),
            retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=200), backoff_coefficient=1.0,
                                     maximum_attempts=int(spec["max_attempts"]),
                                     non_retryable_error_types=NOT_RETRIED),
            # A cancel returns only once the activity has killed the agent's group and said so.
            cancellation_type=workflow.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
        )
        return result
