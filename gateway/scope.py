"""File scopes, enforced (docs/swarm.md, "Parallel writers").

An agent key minted for one agent may carry a *binding*: the agent's own worktree (``root``) and the globs
of its task's file scope (``acteon_core/globs.py``, relative to the worktree's top). A call of a bound agent is
suppressed, before any rule, when it writes outside them: the write/edit tools by their path, a shell
command by every path the analysis finds it writes or deletes (redirections, ``cp``/``mv``/``sed -i``/
``tee``, interpreter file APIs …), and a git command anywhere but inside the worktree (``-C``,
``--git-dir``, ``--work-tree``, ``GIT_DIR``, ``cd ..`` first). A write the analysis cannot place (a file
name built at run time) is refused too: no scope can vouch for it. Temporary directories and harmless
sinks (``/dev/null``) stay writable — nothing another agent works on lives there.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from acteon_core import contract as c
from acteon_core.globs import in_scope, overlap
from gateway.normalize import Call
from gateway.paths import TEMP, classify, is_within
from gateway.shell.targets import is_harmless_sink

RULE = "file-scope"
UNKNOWN = "?"


@dataclass(frozen=True, slots=True)
class Binding:
    """What an agent key is bound to, beyond its run (all optional: an unbound key is a plain run key)."""

    agent_id: str
    root: str | None = None  # the agent's worktree (absolute); None: no file scope enforced
    scope: tuple[str, ...] = ()  # globs under root; empty: anywhere in root
    claim_key: str = ""  # the scope claim (gateway/store/claims.py) whose fencing token the agent holds
    token: str = ""
    attempt: int = 0  # the subtask attempt the key was minted for (gateway/store/workers.py); 0: none


def violation(call: Call, binding: Binding, home: str) -> str | None:
    """Why the call breaks the agent's file scope, or None."""
    if binding.root is None or call.action_type not in (c.WRITE_FILE, c.EXECUTE_COMMAND):
        return None
    root = posixpath.normpath(binding.root)  # call paths are resolved the same way (gateway.paths.resolve)
    for path in call.facts.writes:
        why = _write_problem(path, root, binding.scope, home)
        if why is not None:
            return why
    for place in call.facts.git_dirs:
        if place == UNKNOWN:
            return "runs git in a directory the gateway cannot determine; git may only work in this agent's worktree"
        if not is_within(place, root):
            return f"runs git in {place}, outside this agent's worktree {root}"
    return None


def _write_problem(path: str, root: str, scope: tuple[str, ...], home: str) -> str | None:
    if path == UNKNOWN:
        return ("writes a file whose name the gateway cannot determine (built at run time); this agent may only "
                "write paths it names")
    directory = path.endswith("/") and path != "/"  # only created (`mkdir`): it may hold in-scope files
    path = path.rstrip("/") or "/"
    if not is_within(path, root):
        if is_harmless_sink(path) or classify(path, None, home) == TEMP:
            return None
        return f"writes {path}, outside this agent's worktree {root}"
    rel = path[len(root.rstrip("/")) + 1:] if path != root else ""  # relative to the worktree's top
    if rel == ".git" or rel.startswith(".git/"):
        return f"writes {path}: the worktree's git link is not the agent's to change"
    if directory and (not scope or not rel or any(overlap(g, f"{rel}/**") is not None for g in scope)):
        return None
    if scope and not (rel and in_scope(scope, rel)):
        return f"writes {rel or '.'}, outside the task's file scope ({', '.join(scope)})"
    return None
