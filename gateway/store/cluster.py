"""Redis Cluster: the client, and writes that wait for a replica on each node they land on.

redis-py's cluster client routes every command by its key's slot and follows ``MOVED``/``ASK`` and
``TRYAGAIN`` itself; scripts are loaded on a node the first time it answers ``NOSCRIPT``. What it cannot do
is a ``WAIT`` for particular writes: ``WAIT`` counts the writes of its own connection, and the client sends it
to every master. :func:`pipeline` does that part: it groups a few commands by the node that owns their slot
and sends each group, then ``WAIT``, down one connection of that node.

Every key a decision touches carries its run's hash tag, so a decision is one script call in one slot; what
spans runs is laid out so that no command crosses slots (gateway/store/keys.py, docs/ha.md).
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio.cluster import ClusterNode, PipelineCommand, RedisCluster
from redis.exceptions import AskError, MovedError, TryAgainError

from gateway.errors import StoreUnavailable
from gateway.store import topology


def client(t: topology.Topology, options: dict[str, Any]) -> RedisCluster:
    """The cluster client for a ``redis+cluster://`` topology; ``options`` are the single-server ones."""
    # ``options["retry"]`` (none) is the cluster client's own here: a failed node is not retried, the caller
    # answers 503 at once and the next command looks at the slots again. During a failover the gateway answers
    # 503 (the hook denies) until a replica has taken over; MOVED, ASK and TRYAGAIN are still followed.
    return RedisCluster(startup_nodes=[ClusterNode(host, port) for host, port in t.nodes], **t.data_kwargs(),
                        # MOVED patches the slot map; never the periodic full re-read on MOVED, which closes every
                        # node's connections, those in use by other calls included (they would fail mid-call).
                        reinitialize_steps=0, **options)


def first_key(command: tuple[Any, ...]) -> str:
    """The key a command is routed by: the first key of a script, else the command's first argument."""
    if str(command[0]).upper() in ("EVAL", "EVALSHA"):
        if int(command[2]) < 1:
            raise ValueError(f"a script sent to a cluster needs a key to route it by: {command[:3]!r}")
        return str(command[3])
    return str(command[1])


async def pipeline(redis: RedisCluster, commands: tuple[tuple[Any, ...], ...], acks: int, wait_ms: int) -> list[Any]:
    """Each command's reply, in order, followed by one ``WAIT`` reply per node written (when ``acks``)."""
    await redis.initialize()
    groups: dict[str, tuple[ClusterNode, list[PipelineCommand]]] = {}
    for i, command in enumerate(commands):
        node = redis.get_node_from_key(first_key(command))
        if node is None:  # pragma: no cover - get_node_from_key raises for an uncovered slot
            raise StoreUnavailable(f"no cluster node serves {first_key(command)!r}")
        groups.setdefault(node.name, (node, []))[1].append(PipelineCommand(i, *command))
    waits: list[PipelineCommand] = []
    for _, batch in groups.values():
        if acks:
            wait = PipelineCommand(len(commands) + len(waits), "WAIT", acks, wait_ms)
            batch.append(wait)
            waits.append(wait)
    await asyncio.gather(*(node.execute_pipeline(batch) for node, batch in groups.values()))
    replies: list[Any] = [None] * (len(commands) + len(waits))
    for _, batch in groups.values():
        for cmd in batch:
            if isinstance(cmd.result, (MovedError, AskError, TryAgainError)):
                # The slot moved (a failover, a resharding): look at the slots again before the next call.
                await redis.nodes_manager.initialize()
                raise StoreUnavailable(f"the cluster moved a slot while writing ({type(cmd.result).__name__}); "
                                       "try again")
            if isinstance(cmd.result, Exception):
                raise cmd.result
            replies[cmd.position] = cmd.result
    return replies
