"""What a valid plan still needs to run here, with this engine: checked by ``plan validate`` and before a
run starts, so a plan that can only fail at run time fails at once with every problem listed.

A plan can be well formed (ids, dependencies, roles: :func:`orchestrator.plan.model.validate_plan`) and still
unable to run: a subtask's command given to a role that may not run commands (the gateway refuses every
shell call of that role), a prompt on the ``command`` engine (there is no agent to read it), or an agent
CLI that is not installed.
"""

from __future__ import annotations

from collections.abc import Mapping

from acteon_core.vocabulary import AGENT_ENGINES
from orchestrator.plan.model import Plan
from orchestrator.roles import Role, expand_tools

_SHOWN = 3  # what needs a missing CLI: the first few, then a count


def run_problems(plan: Plan, roles: Mapping[str, Role], engine: str, env: Mapping[str, str], *,
                 local: bool = True) -> list[str]:
    """Every reason ``plan`` cannot run on ``engine``. ``local``: agents run on this machine (a distributed
    run starts them on workers, whose CLIs this machine cannot see)."""
    errors: list[str] = []
    needs: dict[str, list[str]] = {}  # agent engine -> what needs it
    for t in plan.tasks:
        role = roles.get(t.assigned_role)
        for s in t.subtasks:
            where = f"subtask '{s.id}' of task '{t.id}'"
            if s.command is not None:
                if role is not None and "Bash" not in expand_tools(role.allowed_tools):
                    errors.append(f"{where} runs a command, but role '{role.name}' may not run shell commands "
                                  f"(its tools: {', '.join(role.allowed_tools)}); the gateway would refuse it: "
                                  "give the task a role with Bash, or the subtask a prompt")
            elif engine == "command":
                errors.append(f"{where} has a prompt, but the engine is 'command' (no agent reads it): use "
                              f"--engine {'|'.join(AGENT_ENGINES)}, or give the subtask a command")
            else:
                needs.setdefault(engine, []).append(where)
        if t.lens is None:
            continue
        for m in t.lens.members:
            chosen = m.engine or engine
            if m.command is not None:
                continue
            if chosen == "command":
                errors.append(f"lens member '{m.id}' of task '{t.id}' has no command, but its engine is "
                              "'command': give it a command or an engine")
            else:
                needs.setdefault(chosen, []).append(f"lens member '{m.id}' of task '{t.id}'")
        merger = t.lens.merger.engine or engine
        if merger != "command":
            needs.setdefault(merger, []).append(f"the lens merger of task '{t.id}'")
    if local:
        errors += _missing_clis(needs, env)
    return errors


def _missing_clis(needs: Mapping[str, list[str]], env: Mapping[str, str]) -> list[str]:
    from orchestrator.engines import EngineError, claude, codex, gemini, opencode

    binaries = {"claude": claude.binary, "gemini": gemini.binary, "codex": codex.binary, "opencode": opencode.binary}
    errors = []
    for engine, users in needs.items():
        find = binaries.get(engine)
        if find is None:
            continue
        try:
            find(dict(env))
        except EngineError as e:
            more = f" and {len(users) - _SHOWN} more" if len(users) > _SHOWN else ""
            errors.append(f"{e}: needed by {', '.join(users[:_SHOWN])}{more}")
    return errors
