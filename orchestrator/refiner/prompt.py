"""The refiner's prompt (docs/swarm.md): the objective, the finished task and its result, the plan as it
stands, what may be delegated, and the exact answer grammar.

The result is written by an agent that may have read anything (a web page, a hostile file), so it is
untrusted: it goes into the same fenced block as injected findings (:func:`orchestrator.roles.fence_findings`,
bounded, every fence-like spelling neutralized) and the rest of the prompt, which holds model-written
task names and descriptions, is neutralized too, so the prompt holds exactly one fence pair. The
template is rendered in Jinja2's sandbox like the role prompts.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping

from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from orchestrator.plan.model import Plan, Task
from orchestrator.roles import Role, _neutralize, fence_findings

MAX_RESULT_CHARS = 4000
MAX_PLAN_LINES = 200

_TEMPLATE = """\
You are the refiner of an acteon-swarm run: after each task you decide whether the rest of the plan
should change. Most of the time it should not, and the answer is CONTINUE.

Objective of the run: {{ plan.objective }}
{% if plan.success_criteria %}

The run succeeds when:
{% for criterion in plan.success_criteria %}
- {{ criterion }}
{% endfor %}
{% endif %}

Task just finished: {{ task.name }} (id {{ task.id }}, role {{ task.assigned_role }}, status {{ status }})
{% if task.description %}
{{ task.description }}
{% endif %}

What its agent reported:
{{ result }}

The plan now, one task per line (id | name | role | status | priority | depends on):
{% for t in rows %}
- {{ t.id }} | {{ t.name }} | {{ t.role }} | {{ t.status }} | {{ t.priority }} | {{ t.deps }}
{% endfor %}
{% if hidden %}
({{ hidden }} more task(s) not shown)
{% endif %}

Only tasks that have not started (status pending or ready) can be skipped or reprioritized. Among ready
tasks a lower priority starts first. A skipped task never counts as done: tasks that depend on it are
blocked, not run.
{% if delegates %}
A task may be added for one of these roles only: {{ delegates | join(", ") }}.
{% else %}
No task may be added after this one: its role may not delegate to any other role.
{% endif %}

Answer with exactly one of these directives and nothing else: no explanation, no second directive.
CONTINUE
    keep the plan as it is
SKIP: id, id
    do not run these tasks
REPRIORITIZE: id=N, id=N
    give these tasks a new priority N (an integer; lower runs first)
{% if retryable %}
RETRY: {{ task.id }}
    run {{ task.id }} again on a fresh branch from the current integration head, told what conflicted or
    failed (only this task, only once)
{% endif %}
{% if delegates %}
ADD: {task as JSON}
    add one task: keys "name", "description", "assigned_role", "priority", "depends_on" (ids of tasks
    that must be done first; empty to start now) and "subtasks" (a list of {"name", "prompt"}); the
    orchestrator assigns the ids
{% endif %}

Examples (the ids are illustrations: use the ids of the plan above):
CONTINUE
SKIP: t3, t4
REPRIORITIZE: t5=10, t6=200
{% if delegates %}
ADD: {{ add_example }}
{% endif %}
"""

# The template is ours, but it is rendered with model-written data: the sandbox keeps that data away
# from Python internals, as for the role prompts.
_ENV = SandboxedEnvironment(autoescape=False, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
_COMPILED = _ENV.from_string(_TEMPLATE)


def refiner_prompt(
    plan: Plan,
    finished_task: Task,
    result_text: str,
    statuses: Mapping[str, str],
    *,
    roles: Mapping[str, Role],
    max_result_chars: int = MAX_RESULT_CHARS,
) -> str:
    """The prompt asking the refiner what to do after ``finished_task``; ``result_text`` is its agent's
    report (untrusted, fenced, truncated to about ``max_result_chars``)."""
    parent = roles.get(finished_task.assigned_role)
    delegates = list(parent.can_delegate_to) if parent is not None else []
    if plan.agent_roles:
        delegates = [d for d in delegates if d in plan.agent_roles]
    rows = [
        {"id": t.id, "name": _one_line(t.name), "role": t.assigned_role, "status": statuses.get(t.id, "unknown"),
         "priority": t.priority, "deps": ", ".join(t.depends_on) or "-"}
        for t in plan.tasks
    ]
    block = fence_findings([result_text], max_result_chars)
    slot = f"@@result-{secrets.token_hex(8)}@@"
    text = _COMPILED.render(
        plan=plan, task=finished_task, status=statuses.get(finished_task.id, "unknown"),
        result=slot if block else "(nothing)", rows=rows[:MAX_PLAN_LINES],
        hidden=max(0, len(rows) - MAX_PLAN_LINES), delegates=delegates, add_example=_add_example(
            delegates, finished_task), retryable=statuses.get(finished_task.id) in ("conflict", "verify_failed"),
    )
    # Task names and descriptions may be model-written: no fence-like text outside the one block.
    return _neutralize(text).replace(slot, block)


def _add_example(delegates: list[str], finished_task: Task) -> str:
    role = delegates[0] if delegates else "reviewer"
    return (
        '{"name": "Follow up", "description": "Why this task is needed", '
        f'"assigned_role": "{role}", "priority": 50, "depends_on": ["{finished_task.id}"], '
        '"subtasks": [{"name": "do it", "prompt": "What the agent should do, precisely"}]}'
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())
