"""Gateway settings, read from the environment (docs/gateway.md) and overridable by the server's flags."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from acteon_core import contract as c
from gateway.paths import default_home

ENV_INSECURE_REDIS = "ACTEON_INSECURE_REDIS"  # set by --insecure-redis for the server's workers
ENV_RULES_FROM_FILE = "ACTEON_RULES_FROM_FILE"  # set by --rules-from-file
ENV_WEBHOOK_URL = "ACTEON_WEBHOOK_URL"  # notifications: a new approval, a run's end (gateway.webhooks)
ENV_WEBHOOK_SECRET = "ACTEON_WEBHOOK_SECRET"  # noqa: S105 (a variable name) — the HMAC-SHA256 key the receiver checks signatures with
ENV_CONSOLE_URL = "ACTEON_CONSOLE_URL"  # the console's address as people reach it, for links in notifications
ENV_CONSOLE_SESSION_S = "ACTEON_CONSOLE_SESSION_S"  # how long a console sign-in lasts (default 8 h)
# docs/ha.md: how many replicas confirm an approval's decision, a key, a rule pack or a cancel, and how long to wait
ENV_REPLICA_ACKS = "ACTEON_REDIS_REPLICA_ACKS"
ENV_REPLICA_WAIT_MS = "ACTEON_REDIS_REPLICA_WAIT_MS"


def bundled_rules_dir() -> Path:
    """The repository's ``rules/`` (next to the packages) or, when installed, the shared data copy."""
    here = Path(__file__).resolve().parent.parent / "rules"
    if here.is_dir():
        return here
    import sys

    return Path(sys.prefix) / "share" / "acteon-swarm" / "rules"


@dataclass
class Settings:
    redis_url: str | None = None
    rules_dir: Path = field(default_factory=bundled_rules_dir)
    state_dir: Path = field(default_factory=lambda: Path(c.DEFAULT_STATE_DIR))
    admin_key: str | None = None
    home: str = field(default_factory=default_home)
    redis_timeout_s: float = 1.0
    max_body_bytes: int = 1_048_576
    # Analyse shell commands in isolated child processes (gateway.analyzer); off only for tools
    # that measure the analysis in-process.
    isolate_analysis: bool = True
    # Serve even when Redis accepts unauthenticated commands (gateway.store.guard); off by default.
    insecure_redis: bool = False
    # Make the rules directory the pack in force at start-up, replacing one uploaded through the API
    # (the way back after the store lost an API pack; gateway.policy).
    rules_from_file: bool = False
    webhook_url: str | None = None
    webhook_secret: str | None = None
    console_url: str = c.DEFAULT_URL
    console_session_s: int = 8 * 3600
    replica_acks: int | None = None  # None: one whenever the store has a replica (Sentinel: always)
    replica_wait_ms: int = 500

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = os.environ if env is None else env
        s = cls()
        s.redis_url = e.get(c.ENV_REDIS_URL) or None
        if e.get(c.ENV_RULES_DIR):
            s.rules_dir = Path(e[c.ENV_RULES_DIR])
        if e.get(c.ENV_STATE_DIR):
            s.state_dir = Path(e[c.ENV_STATE_DIR])
        s.admin_key = e.get(c.ENV_ADMIN_KEY) or None
        s.insecure_redis = e.get(ENV_INSECURE_REDIS, "") in ("1", "true", "yes")
        s.rules_from_file = e.get(ENV_RULES_FROM_FILE, "") in ("1", "true", "yes")
        s.webhook_url = e.get(ENV_WEBHOOK_URL) or None
        s.webhook_secret = e.get(ENV_WEBHOOK_SECRET) or None
        s.console_url = e.get(ENV_CONSOLE_URL) or s.console_url
        if e.get(ENV_REPLICA_ACKS, "").isdigit():
            s.replica_acks = int(e[ENV_REPLICA_ACKS])
        if e.get(ENV_REPLICA_WAIT_MS, "").isdigit():
            s.replica_wait_ms = max(1, int(e[ENV_REPLICA_WAIT_MS]))
        if e.get(ENV_CONSOLE_SESSION_S, "").isdigit():
            s.console_session_s = max(60, int(e[ENV_CONSOLE_SESSION_S]))
        return s

    def check(self) -> None:
        """Settings that would silently do nothing or leak are errors (ValueError, for a message)."""
        if self.webhook_url is not None:
            if not self.webhook_url.startswith(("http://", "https://")):
                raise ValueError(f"{ENV_WEBHOOK_URL}: not an http(s) URL")
            if not self.webhook_secret or len(self.webhook_secret) < 16:
                raise ValueError(f"{ENV_WEBHOOK_URL} needs {ENV_WEBHOOK_SECRET} (16 characters or more) to sign with")
        elif self.webhook_secret:
            raise ValueError(f"{ENV_WEBHOOK_SECRET} is set but {ENV_WEBHOOK_URL} is not: nothing would be sent")
