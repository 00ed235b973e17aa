"""A Redis Cluster for the high-availability tests: three masters and three replicas, all password-protected real
processes on loopback ports, joined by ``redis-cli --cluster create`` (docs/ha.md)."""

from __future__ import annotations

import secrets
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from tests.support import RedisServer, require, wait_until


class Cluster:
    """``start()`` brings up ``masters`` masters with one replica each; ``url`` is the gateway's
    ``redis+cluster://`` address (two seed nodes: the client discovers the rest)."""

    def __init__(self, *, masters: int = 3, node_timeout_ms: int = 1000) -> None:
        self.password = secrets.token_hex(12)
        # masterauth on every node: a replica (and a master that comes back as one) syncs with a password.
        self.nodes = [RedisServer(password=self.password, cluster=True, extra=(
            "--cluster-node-timeout", str(node_timeout_ms), "--masterauth", self.password))
            for _ in range(masters * 2)]
        self.masters = masters
        self.killed: RedisServer | None = None

    @property
    def url(self) -> str:
        seeds = ",".join(f"127.0.0.1:{n.port}" for n in self.nodes[:2])
        return f"redis+cluster://:{self.password}@{seeds}"

    def start(self) -> Cluster:
        for node in self.nodes:
            node.start()
        cli = shutil.which("redis-cli")
        assert cli
        subprocess.run(
            [cli, "-a", self.password, "--no-auth-warning", "--cluster", "create",
             *(f"127.0.0.1:{n.port}" for n in self.nodes), "--cluster-replicas", "1", "--cluster-yes"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
        wait_until(self.healthy, timeout_s=60, what="the cluster's slots covered and its replicas in sync")
        return self

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=port, password=self.password, socket_timeout=1,
                           decode_responses=True)

    def _ask(self, port: int, *command: str) -> str:
        try:
            with self.client(port) as c:
                return str(c.execute_command(*command))  # type: ignore[no-untyped-call]
        except redis.RedisError:
            return ""

    def roles(self) -> dict[int, str]:
        """Every live node's port -> 'master' or 'replica', as the nodes themselves say."""
        out = {}
        for node in self.nodes:
            if node.proc is None:
                continue
            info = self._ask(node.port, "ROLE")
            out[node.port] = "master" if info.startswith("['master'") else "replica"
        return out

    def healthy(self) -> bool:
        """Every live node sees all slots served, and each master has an online replica."""
        live = [n for n in self.nodes if n.proc is not None]
        if not all("cluster_state:ok" in self._ask(n.port, "CLUSTER", "INFO") for n in live):
            return False
        masters = [p for p, role in self.roles().items() if role == "master"]
        if len(masters) != self.masters:
            return False
        for port in masters:
            with self.client(port) as c:
                info = c.info("replication")
            if not any(isinstance(v, dict) and v.get("state") == "online" for k, v in info.items()
                       if k.startswith("slave")):
                return False
        return True

    def master_of(self, key: str) -> int:
        """The port of the master serving ``key``'s slot now."""
        slot = int(self._ask(self.nodes[0].port, "CLUSTER", "KEYSLOT", key) or -1)
        for node in self.nodes:
            if node.proc is None:
                continue
            with self.client(node.port) as c:
                for start, end, master, *_ in c.execute_command("CLUSTER", "SLOTS"):  # type: ignore[no-untyped-call]
                    if int(start) <= slot <= int(end):
                        return int(master[1])
        raise AssertionError(f"no node serves {key!r}")

    def move_slot(self, key: str, to_port: int) -> None:
        """Migrate ``key``'s slot, with every key in it, to the master at ``to_port``, as `redis-cli --cluster
        reshard` does (IMPORTING/MIGRATING, MIGRATE in batches, then the new owner announced): while it runs,
        clients get ASK for keys already moved, TRYAGAIN for a script whose keys are split, then MOVED."""
        source = self.master_of(key)
        with self.client(source) as src, self.client(to_port) as dst:
            slot = int(src.execute_command("CLUSTER", "KEYSLOT", key))  # type: ignore[no-untyped-call]
            src_id, dst_id = self._ask(source, "CLUSTER", "MYID"), self._ask(to_port, "CLUSTER", "MYID")
            dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", src_id)  # type: ignore[no-untyped-call]
            src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", dst_id)  # type: ignore[no-untyped-call]
            while True:
                keys = src.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 10)  # type: ignore[no-untyped-call]
                if not keys:
                    break
                src.execute_command("MIGRATE", "127.0.0.1", to_port, "", 0, 5000,  # type: ignore[no-untyped-call]
                                    "AUTH", self.password, "KEYS", *keys)
            for port in [p for p, role in self.roles().items() if role == "master"]:
                with self.client(port) as c:
                    c.execute_command("CLUSTER", "SETSLOT", slot, "NODE", dst_id)  # type: ignore[no-untyped-call]

    def kill(self, port: int) -> None:
        """kill -9 of the node at ``port``; revived, it starts empty."""
        node = next(n for n in self.nodes if n.port == port)
        assert node.proc is not None
        node.proc.kill()
        node.proc.wait(timeout=10)
        node.stop()
        self.killed = node

    def wait_promoted(self, old_port: int, key: str, timeout_s: float = 30) -> int:
        """Wait until another node serves ``key``'s slot; returns its port."""
        def moved() -> bool:
            try:
                return self.master_of(key) != old_port
            except (redis.RedisError, AssertionError):
                return False

        wait_until(moved, timeout_s=timeout_s, what="a replica promoted in the cluster")
        return self.master_of(key)

    def revive(self, master_port: int) -> None:
        """Start the killed node again, empty, and join it to the cluster as the replica of ``master_port``."""
        assert self.killed is not None
        self.killed.start()
        cli = shutil.which("redis-cli")
        assert cli
        master_id = self._ask(master_port, "CLUSTER", "MYID")
        subprocess.run(
            [cli, "-a", self.password, "--no-auth-warning", "--cluster", "add-node",
             f"127.0.0.1:{self.killed.port}", f"127.0.0.1:{master_port}", "--cluster-slave",
             "--cluster-master-id", master_id],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
        self.killed = None
        wait_until(self.healthy, timeout_s=60, what="the revived node in sync as a replica")

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


@contextmanager
def running(*, masters: int = 3) -> Iterator[Cluster]:
    cluster = Cluster(masters=masters)
    require("redis-server on PATH", cluster.nodes[0].binary is not None)
    require("redis-cli on PATH", shutil.which("redis-cli") is not None)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()
