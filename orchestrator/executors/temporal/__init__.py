"""The Temporal executor (optional extra ``acteon-swarm[distributed]``).

    workflow.py  the subtask workflow: one heartbeating activity per attempt (deterministic, sandboxed)
    activity.py  the activity, on a worker machine: mints the attempt's agent key, runs the engine in a
                 process group, heartbeats host/pid/pgid, kills the group when cancelled or superseded
    worker.py    ``acteon-swarm worker``: serves a task queue with N slots; reaps its orphans at start
    executor.py  the coordinator's side: starts (or re-attaches to) ``acteon/<run>/<agent>`` and awaits it
    connect.py   one way to reach Temporal (address, namespace, TLS / mTLS, API key)

Why Temporal and not a queue of our own: an activity's heartbeat is the lease, a retried activity is the
next attempt, and cancellation reaches the activity through its heartbeat — the fencing of stale workers
is the gateway's (a newer attempt's key supersedes the old one's, gateway/store/workers.py).
"""
