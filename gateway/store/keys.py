"""Every Redis key and channel the gateway uses, in one place.

All keys of one run carry the hash tag ``{run_id}`` so that a decision touches a single Redis Cluster
slot. Run ids are validated (no braces) before they get here. What spans runs (the run index, agent and
operator keys, console sessions, the rule pack in force, scope claims) is never touched by the decision
script: the run holds copies of the two it needs (gateway/store/packs.py, gateway/store/claims.py). No command
ever names keys of two slots (tests/gateway/test_store_slots.py). The one exception, a ``per: global``
throttle, is refused on a cluster (gateway/policy.py).
"""

from __future__ import annotations

import hashlib

PREFIX = "acteon"
NOTIFY_CHANNEL = f"{PREFIX}:notify"  # pub/sub: "rules" and "approval:<id>" messages
RUNS_INDEX = f"{PREFIX}:runs"  # zset run_id -> created ms
GLOBAL_RULES = f"{PREFIX}:{{global}}:rules"  # hash: rules (JSON), version, source (files|api), updated_ms


def _run(run_id: str) -> str:
    return f"{PREFIX}:{{{run_id}}}"


def run(run_id: str) -> str:
    """Hash: status, created_ms, rules_version, quota fields, agent key hash."""
    return f"{_run(run_id)}:run"


def run_rules(run_id: str) -> str:
    """String: the run's own rules as JSON (the list of rule mappings)."""
    return f"{_run(run_id)}:rules"


def stats(run_id: str) -> str:
    return f"{_run(run_id)}:stats"


def audit(run_id: str) -> str:
    return f"{_run(run_id)}:audit"


def events(run_id: str) -> str:
    return f"{_run(run_id)}:events"


def approvals_index(run_id: str) -> str:
    return f"{_run(run_id)}:approvals"


def approval_prefix(run_id: str) -> str:
    return f"{_run(run_id)}:approval:"


def approval(run_id: str, approval_id: str) -> str:
    return approval_prefix(run_id) + approval_id


def approval_fingerprint(run_id: str, digest: str) -> str:
    return f"{_run(run_id)}:approval-fp:{digest}"


def throttle(run_id: str, rule: str, per: str, who: str) -> str:
    if per == "global":
        return f"{PREFIX}:{{global}}:throttle:{rule}"
    return f"{_run(run_id)}:throttle:{rule}:{per}:{who}"


def dedup(run_id: str, rule: str, digest: str) -> str:
    return f"{_run(run_id)}:dedup:{rule}:{digest}"


def agent_key(key_hash: str) -> str:
    """String: the run id an agent key (stored as its SHA-256) belongs to."""
    return f"{PREFIX}:agent-key:{key_hash}"


# Scope claims (gateway/store/claims.py) are per repository, across runs: their own hash tag. A decision reads
# the run's copy of a claim (claim_copy) to check a fencing token, never the claim itself (another slot).
def _claims(repo_digest: str) -> str:
    return f"{PREFIX}:{{claims}}:{repo_digest}"


def claim(repo_digest: str, claim_id: str) -> str:
    """Hash: owner, mode, globs (JSON), token, expires_ms, ttl_ms."""
    return f"{_claims(repo_digest)}:claim:{claim_id}"


def claims_index(repo_digest: str) -> str:
    """Set: the ids of the repository's claims."""
    return f"{_claims(repo_digest)}:index"


def claims_version(repo_digest: str) -> str:
    """Counter bumped by every grant and release: a grant is decided on a snapshot of this version."""
    return f"{_claims(repo_digest)}:version"


def claim_copies(repo_digest: str, claim_id: str) -> str:
    """Set: the runs holding a copy of the claim (:func:`claim_copy`), kept up to date by renew and release."""
    return f"{_claims(repo_digest)}:copies:{claim_id}"


def claim_copy(run_id: str, claim_key: str) -> str:
    """Hash: token, expires_ms — the run's copy of a claim its agents work under (``claim_key``: :func:`claim`)."""
    return f"{_run(run_id)}:claim:{hashlib.sha256(claim_key.encode()).hexdigest()[:32]}"


def claims_fence(repo_digest: str) -> str:
    """Counter: the fencing token, increased by every grant."""
    return f"{_claims(repo_digest)}:fence"


# Operators, workers and console sessions are global, like agent keys: never touched by a decision.
OPERATORS = f"{PREFIX}:operators"  # hash: operator or worker name -> the SHA-256 of its key


def operator(key_hash: str) -> str:
    """Hash: name, role, created_ms — the operator (or worker: role ``worker``) a key (stored as its
    SHA-256) belongs to."""
    return f"{PREFIX}:operator:{key_hash}"


def console_session(digest: str) -> str:
    """Hash: name, role, csrf — a console sign-in (the cookie's SHA-256); expires with the session."""
    return f"{PREFIX}:console-session:{digest}"


def webhook_sent(event_id: str) -> str:
    """String set once per delivered notification, so that only one gateway process sends it."""
    return f"{PREFIX}:webhook-sent:{event_id}"


def run_state(run_id: str) -> str:
    """Stream: the orchestrator's task state changes for the run (the console's run page)."""
    return f"{_run(run_id)}:state"


def live_agents(run_id: str) -> str:
    """Zset: the run's live sub-agents ("<agent>|<tool use id or action id>" -> lease end, ms)."""
    return f"{_run(run_id)}:live-agents"


def attempts(run_id: str) -> str:
    """Hash: agent id -> its current attempt. A key minted for an older attempt is superseded; read by every
    decision of a key that carries an attempt (gateway/store/workers.py)."""
    return f"{_run(run_id)}:attempts"


def written(run_id: str) -> str:
    """Set: the paths the run's agents wrote through allowed calls ("?" once one wrote somewhere the analysis
    could not tell). A program attached to a command is judged by its content only if it is here: the
    project's own files keep being judged by the command line alone (gateway/dispatch.py)."""
    return f"{_run(run_id)}:written"


def fetched(run_id: str) -> str:
    """Set: the paths among :func:`written` that an allowed call filled with bytes from the network (`curl -o
    x.sh URL`). A later command that runs one runs downloaded code, as `curl … | sh` does (gateway/dispatch.py)."""
    return f"{_run(run_id)}:fetched"
