"""Bearer-key authentication.

Keys are stored and compared as SHA-256 digests, in constant time. The admin key comes from
``ACTEON_ADMIN_KEY`` (or, in embedded mode, a generated file readable only by its owner); operator keys
are named, with a role (gateway.store.operators); worker keys (named too) only mint per-attempt agent
keys (gateway.store.workers); agent keys are minted per run and may act only for that run, and never
decide anything a human must. Agent keys are cached per process after the first
lookup so that a dispatch stays one Redis round trip.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from acteon_core import contract as c
from gateway.errors import Forbidden, Unauthorized
from gateway.scope import Binding
from gateway.store import operators, runs
from gateway.store.backend import Backend

ADMIN_KEY_FILE = "admin.key"


@dataclass(frozen=True, slots=True)
class Principal:
    kind: str  # "admin" | "operator" | "agent" | "worker"
    run_id: str | None = None
    name: str = "admin"
    binding: Binding | None = None  # an agent key minted for one agent: its identity and file scope
    role: str | None = "admin"  # of a person: viewer | operator | admin; None for an agent or a worker

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    @property
    def is_person(self) -> bool:
        return self.kind in ("admin", "operator")

    @property
    def is_worker(self) -> bool:
        return self.kind == "worker"

    def require(self, role: str) -> None:
        """The caller is a person whose role allows ``role`` (viewer < operator < admin)."""
        if self.role is None:
            raise Forbidden(f"this needs an operator key with the role '{role}'; an agent or worker key cannot "
                            "do it")
        if not operators.role_allows(self.role, role):
            raise Forbidden(f"operator '{self.name}' is a {self.role}; this needs the role '{role}'")

    def require_run(self, run_id: str) -> None:
        """May read ``run_id``'s approvals: any person, or an agent of that run."""
        if not self.is_person and self.run_id != run_id:
            raise Forbidden(f"this key is not valid for run '{run_id}'")

    def require_actor(self, run_id: str) -> None:
        """May act as an agent of ``run_id`` (dispatch, post events): its agents, or the admin."""
        if self.is_person:
            if not self.is_admin:
                raise Forbidden(f"operator '{self.name}' does not dispatch agent calls")
            return
        self.require_run(run_id)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def new_key(prefix: str) -> str:
    return f"{prefix}_{secrets.token_urlsafe(32)}"


def ensure_key_file(path: Path, prefix: str) -> str:
    """Read or create a key file (mode 0600, in a 0700 directory when we create it)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path.exists():
        key = new_key(prefix)
        try:
            # O_EXCL + 0600 from the start: the key is never readable by others, not even briefly.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another gateway process created it first
            pass
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(key + "\n")
            return key
    return path.read_text(encoding="utf-8").strip()


def ensure_admin_key(state_dir: Path) -> tuple[str, Path]:
    """The embedded-mode admin key, generated into the state dir on first start."""
    path = state_dir / ADMIN_KEY_FILE
    return ensure_key_file(path, "acteon_admin"), path


def ensure_default_agent_key(state_dir: Path) -> tuple[str, Path]:
    """The default run's agent key, for hooks of sessions outside any orchestrated run. The default pack
    keeps agents from reading it (the whole state dir is secret); the hook reads it itself."""
    path = state_dir / c.DEFAULT_AGENT_KEY_FILE
    return ensure_key_file(path, "acteon_agent"), path


class Authenticator:
    def __init__(self, backend: Backend, admin_key: str) -> None:
        if not admin_key:
            raise ValueError("an admin key is required")
        self._backend = backend
        self._admin_digest = bytes.fromhex(hash_key(admin_key))
        self._agents: dict[str, Principal] = {}  # key digest -> its principal (keys never change once minted)

    def remember(self, key: str, run_id: str) -> None:
        """Know an agent key without asking Redis (the default run's key, minted by this process)."""
        self._agents[hash_key(key)] = Principal("agent", run_id, name=f"agent-key:{run_id}", role=None)

    async def principal(self, authorization: str | None) -> Principal:
        if not authorization:
            raise Unauthorized("missing Authorization: Bearer <key>")
        scheme, _, key = authorization.partition(" ")
        key = key.strip()
        if scheme.lower() != "bearer" or not key or len(key) > 512:
            raise Unauthorized("expected Authorization: Bearer <key>")
        return await self.principal_of(hash_key(key))

    async def principal_of(self, digest: str) -> Principal:
        """The principal of a key given as its SHA-256 (the console session keeps only that)."""
        if hmac.compare_digest(bytes.fromhex(digest), self._admin_digest):
            return Principal("admin")
        principal = self._agents.get(digest)
        if principal is None:
            owner = await runs.agent_key_owner(self._backend, digest)
            if owner is None:
                # Operator keys are never cached: a revoked operator is refused at its next request.
                named = await operators.owner(self._backend, digest)
                if named is None:
                    raise Unauthorized("unknown key")
                if named[1] == operators.WORKER:
                    return Principal("worker", name=named[0], role=None)
                return Principal("operator", name=named[0], role=named[1])
            run_id, bound = owner
            binding = None if bound is None else Binding(
                agent_id=str(bound["agent_id"]), root=bound.get("root"), scope=tuple(bound.get("scope") or ()),
                claim_key=str(bound.get("claim_key") or ""), token=str(bound.get("token") or ""),
                attempt=int(bound.get("attempt") or 0))
            principal = Principal("agent", run_id, name=f"agent-key:{run_id}", binding=binding, role=None)
            if len(self._agents) > 100_000:
                self._agents.clear()
            self._agents[digest] = principal
        return principal
