"""A replicated Redis for the high-availability tests: a password-protected master, its replicas and three
sentinels watching them, all real processes on loopback ports (docs/ha.md)."""

from __future__ import annotations

import secrets
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from tests.support import RedisServer, free_port, require, tls_files, tls_options, wait_until

SERVICE = "acteon"


class Sentinels:
    """``start()`` brings up the master, ``replicas`` replicas and ``count`` sentinels; ``url`` is the
    gateway's ``redis+sentinel://`` address. Everything (sentinels included) requires the one password."""

    def __init__(self, workdir: Path, *, replicas: int = 1, count: int = 3, down_after_ms: int = 1000,
                 tls: bool = False) -> None:
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.password = secrets.token_hex(12)
        self.tls = tls_files(workdir) if tls else None  # TLS everywhere: clients, replication, sentinels
        # Every data node has masterauth: a master that comes back after a failover syncs as a replica.
        self.master = RedisServer(password=self.password, extra=("--masterauth", self.password), tls=self.tls)
        self.replicas = [RedisServer(password=self.password, tls=self.tls, extra=(
            "--replicaof", "127.0.0.1", str(self.master.port), "--masterauth", self.password))
            for _ in range(replicas)]
        self.ports = [free_port() for _ in range(count)]
        self.down_after_ms = down_after_ms
        self.procs: list[subprocess.Popen[bytes]] = []
        self.killed = self.master

    @property
    def url(self) -> str:
        nodes = ",".join(f"127.0.0.1:{p}" for p in self.ports)
        if self.tls:
            return f"rediss+sentinel://:{self.password}@{nodes}/{SERVICE}?ssl_ca_certs={self.tls[0]}"
        return f"redis+sentinel://:{self.password}@{nodes}/{SERVICE}"

    def start(self) -> Sentinels:
        self.master.start()
        for replica in self.replicas:
            replica.start()
        wait_until(lambda: self.in_sync(self.master.port), timeout_s=20, what="replicas in sync")
        for index in range(len(self.ports)):
            self._start_sentinel(index)
        for port in self.ports:
            wait_until(lambda port=port: self._knows_all(port), timeout_s=30, what=f"sentinel {port} ready")
        return self

    def _start_sentinel(self, index: int) -> None:
        """Start sentinel ``index``; a port taken since it was chosen (by any outgoing connection) moves it to
        another, as tests/support.py's servers do."""
        for _attempt in range(3):
            proc = self._spawn_sentinel(self.ports[index])

            def answers(proc: subprocess.Popen[bytes] = proc, port: int = self.ports[index]) -> bool:
                if proc.poll() is not None:
                    return True
                try:
                    with self._client(port) as c:
                        return bool(c.ping())
                except redis.RedisError:
                    return False

            wait_until(answers, timeout_s=30, what=f"sentinel {self.ports[index]} up")
            if proc.poll() is None:
                self.procs.append(proc)
                return
            self.ports[index] = free_port()
        raise TimeoutError(f"sentinel {index} exited at start three times")

    def _spawn_sentinel(self, port: int) -> subprocess.Popen[bytes]:
        conf = self.workdir / f"sentinel-{port}.conf"
        listen = [f"port {port}"]
        if self.tls:
            options = tls_options(*self.tls)
            listen = ["port 0", f"tls-port {port}", *(f"{k[2:]} {v}" for k, v in zip(options[::2], options[1::2],
                                                                                  strict=True))]
        conf.write_text("\n".join([
            *listen, "bind 127.0.0.1", "daemonize no", f"dir {self.workdir}",
            f"requirepass {self.password}",
            f"sentinel monitor {SERVICE} 127.0.0.1 {self.master.port} 2",
            f"sentinel auth-pass {SERVICE} {self.password}",
            f"sentinel down-after-milliseconds {SERVICE} {self.down_after_ms}",
            f"sentinel failover-timeout {SERVICE} 5000",
            f"sentinel parallel-syncs {SERVICE} 1", ""]))
        return subprocess.Popen([str(self.master.binary), str(conf), "--sentinel"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def _client(self, port: int) -> redis.Redis:
        tls = {"ssl": True, "ssl_ca_certs": self.tls[0]} if self.tls else {}
        return redis.Redis(host="127.0.0.1", port=port, password=self.password, socket_timeout=1, decode_responses=True,
                           **tls)

    def _info(self, port: int) -> dict[str, object]:
        try:
            with self._client(port) as c:
                return dict(c.info("replication"))
        except redis.RedisError:
            return {}

    def in_sync(self, port: int) -> bool:
        """Every replica has synced with the master at ``port`` (WAIT counts only those)."""
        info = self._info(port)
        online = [v for k, v in info.items() if k.startswith("slave") and isinstance(v, dict)
                  and v.get("state") == "online"]
        return len(online) == len(self.replicas)

    def replication(self, port: int) -> tuple[int, int] | None:
        """(the master's replication offset, how many bytes of it the slowest replica has not processed yet).

        Each replica is asked for what it processed itself (`slave_repl_offset`), right after the master: the
        offsets the master reports for its replicas are their acknowledgements, sent only once a second."""
        master_info = self._info(port)
        if "master_repl_offset" not in master_info:
            return None
        master = int(str(master_info["master_repl_offset"]))
        processed = [int(str(info["slave_repl_offset"])) for info in (self._info(s.port) for s in self.replicas
                                                                      if s.port != port and s.proc is not None)
                     if "slave_repl_offset" in info]
        return (master, max(0, master - min(processed))) if processed else None

    def _knows_all(self, port: int) -> bool:
        try:
            with self._client(port) as c:
                state = c.sentinel_master(SERVICE)
        except redis.RedisError:
            return False
        return (int(state.get("num-other-sentinels", 0)) == len(self.ports) - 1
                and int(state.get("num-slaves", 0)) == len(self.replicas))

    def master_port(self) -> int:
        """The master's port as the sentinels name it now."""
        with self._client(self.ports[0]) as c:
            return int(c.sentinel_get_master_addr_by_name(SERVICE)[1])

    def kill_master(self) -> int:
        """kill -9 of the current master; returns its port."""
        port = self.master_port()
        server = next(s for s in (self.master, *self.replicas) if s.port == port)
        assert server.proc is not None
        server.proc.kill()
        server.proc.wait(timeout=10)
        server.stop()  # forgets the process and its directory: revived, it starts empty
        self.killed = server
        return port

    def freeze_master(self) -> int:
        """SIGSTOP of the current master (a master cut off: its connections stay open, nothing answers)."""
        port = self.master_port()
        server = next(s for s in (self.master, *self.replicas) if s.port == port)
        assert server.proc is not None
        server.proc.send_signal(signal.SIGSTOP)
        self.killed = server
        return port

    def revive(self) -> None:
        """Start the killed master again, empty (or let the frozen one go on); the sentinels make it a replica of
        the new master."""
        if self.killed.proc is not None:
            self.killed.proc.send_signal(signal.SIGCONT)
        else:
            self.killed.start()
        wait_until(lambda: self.in_sync(self.master_port()), timeout_s=30, what="the old master back as a replica")

    def wait_failover(self, old_port: int, timeout_s: float = 30) -> int:
        wait_until(lambda: self._moved(old_port), timeout_s=timeout_s, what="sentinel failover")
        return self.master_port()

    def _moved(self, old_port: int) -> bool:
        try:
            return self.master_port() != old_port
        except redis.RedisError:
            return False

    def stop(self) -> None:
        if self.killed.proc is not None:
            self.killed.proc.send_signal(signal.SIGCONT)  # a frozen process cannot act on SIGTERM
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=10)
        for server in (self.master, *self.replicas):
            server.stop()


@contextmanager
def running(workdir: Path, *, tls: bool = False) -> Iterator[Sentinels]:
    ha = Sentinels(workdir, tls=tls)
    require("redis-server on PATH", ha.master.binary is not None)
    ha.start()
    try:
        yield ha
    finally:
        ha.stop()
