"""The facts one analysis accumulates, and the path checks every command shares.

Handlers report what a command does to a path (reads, writes, deletes, merely inspects) and this
module turns that into path facts and categories, so that e.g. a write into a system path is judged
the same whether it comes from `>`, `tee`, `cp` or `dd of=`.
"""

from __future__ import annotations

import re

from gateway.credentials import is_agent_config, is_metadata_host, is_secret_path
from gateway.paths import PathFact, fact, in_other_project
from gateway.persistence import is_persistence_path
from gateway.shell import categories as cat
from gateway.shell import hosts as hostnames
from gateway.shell.flow import Flow, Scope
from gateway.shell.limits import MAX_COMMANDS, MAX_NODES
from gateway.shell.targets import (
    SYSRQ_TRIGGER,
    is_destructive,
    is_device,
    is_harmless_sink,
    is_history_file,
    is_network_pseudo_path,
    is_system_write,
)
from gateway.shell.words import Word, locate, target_of

# Total characters of nested scripts (bash -c, eval, here-documents) one analysis may parse: nested
# strings are substrings of their parent, but brace expansion and eval can multiply them.
_SCRIPT_BUDGET = 1 << 20

# Loop iterations one analysis may unroll (`for d in a b c`): nested loops multiply.
_LOOP_BUDGET = 64

# In ``writes`` and ``git_dirs``: a write (or a git command) whose place the analysis cannot determine.
UNKNOWN_PLACE = "?"

SHELL_READS_STDIN = "shell_stdin"  # a shell executing whatever arrives on its stdin
NETWORK_STREAM = "net_stream"  # a raw network connection (nc, telnet, socat, openssl s_client)


_EXPANSION = re.compile(r"\$\{[^}]*\}|\$\([^)]*\)|`[^`]*`|\$\w+")


_MAX_TEXTS, _MAX_TEXT = 16, 1 << 16  # files whose written text is kept, and how much of each

# A directory computed from Python's own site configuration: a `.pth` file there runs at every Python start.
_SITE_DIR = re.compile(r"getusersitepackages|getsitepackages|--user-site|USER_SITE|purelib|platlib|site-packages")

class Collector:
    """Mutable collector for one ``analyze`` call."""

    __slots__ = ("_commands", "_executables", "_facts", "_fetched", "_git_dirs", "_hosts", "_paths", "_secrets",
                 "_texts", "_writes", "budget", "categories", "commands_left", "home", "limit", "loop_budget",
                 "nesting", "nodes_left", "parsed", "roles", "secret_extra", "store_endpoints", "workspace")

    def __init__(self, workspace: str | None, home: str, secret_extra: tuple[str, ...]) -> None:
        self.workspace = workspace
        self.home = home
        self.secret_extra = secret_extra
        # `tcp:HOST:PORT` entries among the gateway's protected items: its own store (gateway.app).
        self.store_endpoints = tuple(_endpoint(e[4:]) for e in secret_extra if e.startswith("tcp:"))
        self.parsed = True
        self.budget = _SCRIPT_BUDGET
        self.loop_budget = _LOOP_BUDGET
        self.nodes_left = MAX_NODES
        self.commands_left = MAX_COMMANDS
        self.nesting = 0
        self.limit: str | None = None  # the first analysis limit hit, as a reason for humans
        self.categories: set[str] = set()
        self.roles: list[str] = []
        self._executables: dict[str, None] = {}
        self._commands: dict[str, None] = {}
        self._paths: dict[PathFact, None] = {}
        self._hosts: dict[str, None] = {}
        # Where the command writes or deletes, and where its git commands work (UNKNOWN_PLACE: somewhere the
        # analysis cannot tell): a file scope is enforced on these (gateway/scope.py).
        self._writes: dict[str, None] = {}
        self._git_dirs: dict[str, None] = {}
        # Files the command fills with bytes from the network: the gateway remembers them for the run, so a
        # later command that runs one is running downloaded code (gateway/dispatch.py).
        self._fetched: dict[str, None] = {}
        # What the command puts in files whose text it spells out (`cat > Makefile <<'EOF'`, `echo … > x.json`): a
        # write of a file that runs later is judged by its content, as an editor's write is (gateway/dispatch.py).
        self._texts: dict[str, str] = {}
        # The same path is usually looked at several times (locate, record, classify); memoize.
        self._facts: dict[str, PathFact] = {}
        self._secrets: dict[str, bool] = {}

    # -- simple facts --------------------------------------------------------------------------

    def flag(self, category: str) -> None:
        self.categories.add(category)

    def executable(self, name: str) -> None:
        self._executables[name] = None

    def command(self, text: str) -> None:
        self._commands[text] = None

    def host(self, raw: str | None) -> str | None:
        """Record a contacted host; returns the normalized name."""
        if raw is None:
            return None
        host = hostnames.normalize(raw)
        if host:
            self._hosts[host] = None
            if is_metadata_host(host):
                self.flag(cat.CREDENTIAL_ACCESS)  # the cloud's instance metadata: role credentials, tokens
        return host

    def connects(self, host: str | None, port: str | None) -> None:
        """A raw connection to ``host:port``: the gateway's own store is out of bounds (`gateway_state`), and so
        is any Redis on its well-known ports (a Redis client speaks to it, whatever its address)."""
        if port in REDIS_PORTS and (host is None or hostnames.is_local(host)):
            self.flag(cat.GATEWAY_STATE)  # a Redis on this machine: the gateway's store is one, wherever it listens
            return
        if not port or not self.store_endpoints:
            return
        for store_host, store_port in self.store_endpoints:
            if port == store_port and (host is None or host == store_host or (
                    hostnames.is_local(host) and hostnames.is_local(store_host))):
                self.flag(cat.GATEWAY_STATE)

    def unparseable(self, limit: str | None = None) -> None:
        """The command cannot be vouched for; ``limit`` names the analysis limit that was hit, if any."""
        self.parsed = False
        self.categories.add(cat.UNPARSEABLE)
        if limit is not None and self.limit is None:
            self.limit = limit

    @property
    def executables(self) -> tuple[str, ...]:
        return tuple(self._executables)

    @property
    def commands(self) -> tuple[str, ...]:
        return tuple(self._commands)

    @property
    def paths(self) -> tuple[PathFact, ...]:
        return tuple(self._paths)

    @property
    def hosts(self) -> tuple[str, ...]:
        return tuple(self._hosts)

    @property
    def writes(self) -> tuple[str, ...]:
        return tuple(self._writes)

    @property
    def git_dirs(self) -> tuple[str, ...]:
        return tuple(self._git_dirs)

    @property
    def fetched(self) -> tuple[str, ...]:
        return tuple(self._fetched)

    @property
    def written_texts(self) -> tuple[tuple[str, str], ...]:
        return tuple(self._texts.items())

    def keeps(self, scope: Scope, path: str, flow: Flow) -> None:
        """``path`` now holds ``flow`` (`curl -o x.sh URL`, `… > x.sh`, `tee x.sh`): running it later in the line
        runs what went in, and downloaded bytes stay downloaded for the rest of the run."""
        if path.startswith("/dev/"):
            return  # `-o /dev/null`, `> /dev/stderr`: nothing is kept there
        scope.files[path] = flow
        if flow.payload:
            self._fetched[path] = None
        else:
            self._fetched.pop(path, None)
        if flow.script is not None and (path in self._texts or len(self._texts) < _MAX_TEXTS):
            self._texts[path] = flow.script[:_MAX_TEXT]
        else:
            self._texts.pop(path, None)  # written again with what the analysis cannot read

    def writes_somewhere(self, path: str | None) -> None:
        """A write or delete at ``path`` (None: at a place the analysis cannot determine)."""
        self._writes[path if path is not None else UNKNOWN_PLACE] = None

    def git_works_in(self, path: str | None) -> None:
        """A git command working in (or on) ``path`` (None: somewhere the analysis cannot determine)."""
        self._git_dirs[path if path is not None else UNKNOWN_PLACE] = None

    # -- paths ---------------------------------------------------------------------------------

    def record(self, path: str) -> PathFact:
        """Record a resolved path and the categories every kind of access to it implies."""
        pf = self._facts.get(path)
        if pf is None:
            pf = self._facts[path] = fact(path, self.workspace, self.home)
        self._paths[pf] = None
        if is_network_pseudo_path(pf.path):
            self.flag(cat.REVERSE_SHELL)
            host = self.host(hostnames.dev_net_host(pf.path))
            self.connects(host, pf.path.rstrip("/").rsplit("/", 1)[-1])
        return pf

    def _locate(self, word: Word, scope: Scope) -> str | None:
        return locate(word, scope.cwd, scope.cwd_known, self.home)

    def is_secret(self, path: str) -> bool:
        secret = self._secrets.get(path)
        if secret is None:
            secret = self._secrets[path] = is_secret_path(path, self.home, self.secret_extra)
        return secret

    def inspect(self, word: Word, scope: Scope) -> str | None:
        """The command only looks at the path's metadata (ls, stat, cd, test)."""
        path = self._locate(word, scope)
        if path is not None:
            self.record(path)
        return path

    def read(self, word: Word, scope: Scope) -> str | None:
        path = self._locate(word, scope)
        if path is not None:
            self.record(path)
            if self.is_secret(path):
                self.flag(cat.CREDENTIAL_ACCESS)
        if not word.exact and _ANY_ENVIRON.match(word.value):
            self.flag(cat.CREDENTIAL_ACCESS)  # `/proc/$(pgrep gunicorn)/environ`: some process's whole environment
        return path

    def write(self, word: Word, scope: Scope, directory: bool = False) -> str | None:
        path = self._locate(word, scope)
        if path is not None:
            self.write_path(path, directory)
        else:
            self.writes_somewhere(None)
            # `"$(python -m site --user-site)/usercustomize.py"`: the place is computed, the file's name is not
            # … and so is the literal tail after it (`$CONDA_PREFIX/etc/conda/activate.d/x.sh`)
            tail = _EXPANSION.split(word.value)[-1]
            if "/" in word.value and tail.strip("/") and not set(tail) & set("$`*?[{") and (
                    is_persistence_path("/unknown/" + tail.lstrip("/"), "")
                    or (_SITE_DIR.search(word.value) and tail.endswith(".pth"))):
                self.flag(cat.PERSISTENCE)  # `> "$(python -c 'import site; print(site.getusersitepackages())')/x.pth"`
        return path

    def write_path(self, path: str, directory: bool = False) -> None:
        """A write of ``path``; ``directory``: it only creates the directory (`mkdir`), recorded in ``writes``
        with a trailing "/" — creating a parent of a file in a task's scope is not writing outside it."""
        pf = self.record(path)
        path = pf.path
        self.writes_somewhere(path.rstrip("/") + "/" if directory and path != "/" else path)
        if self.is_secret(path):
            self.flag(cat.CREDENTIAL_ACCESS)
        if is_agent_config(path):
            self.flag(cat.GATE_TAMPER)
        if is_persistence_path(path, self.home):
            self.flag(cat.PERSISTENCE)
        if is_history_file(path):
            self.flag(cat.HISTORY_TAMPER)
        if is_device(path):
            self.flag(cat.DISK_WRITE)
        elif path == SYSRQ_TRIGGER:
            self.flag(cat.POWER)
        elif not is_harmless_sink(path) and is_system_write(path, self.workspace, self.home):
            self.flag(cat.SYSTEM_WRITE)
        elif in_other_project(path, self.workspace, self.home):
            self.flag(cat.OTHER_PROJECT)

    def delete(self, word: Word, scope: Scope, recursive: bool) -> None:
        target = target_of(word, scope.cwd, scope.cwd_known, self.home)
        path = target.path if word.exact else self._locate(word, scope)
        self.writes_somewhere(path)
        if path is not None:
            self.record(path)
            if self.is_secret(path):
                self.flag(cat.CREDENTIAL_ACCESS)
            if is_agent_config(path):
                self.flag(cat.GATE_TAMPER)
            if is_history_file(path):
                self.flag(cat.HISTORY_TAMPER)
            if is_device(path):
                self.flag(cat.DISK_WRITE)
        if is_destructive(target, self.workspace, self.home, recursive):
            self.flag(cat.DESTRUCTIVE_DELETE)


_ANY_ENVIRON = re.compile(r"^/proc/[^/]+(?:/task/[^/]+)?/environ$")
REDIS_PORTS = frozenset({"6379", "6380", "26379", "16379"})


def _endpoint(text: str) -> tuple[str, str]:
    host, _, port = text.rpartition(":")
    return (hostnames.normalize(host) or host), port
