"""``plan gather``: turn a request in plain words into a validated plan by asking an engine (docs/swarm.md).

The engine answers with ONE JSON object: either a plan, or (only when a human is there to answer, on a
TTY) ``{"questions": [...]}`` — at most three clarifying questions. A plan is validated exactly like a
hand-written one (the pydantic models, then :func:`orchestrator.plan.model.validate_plan`); every problem is
sent back for the next answer, a few times at most, so a model's small mistakes get fixed by the model
and a person never receives an invalid plan. The working directory and the status are not the model's to
choose: the plan always targets the directory the user gave and comes back ``pending`` (unapproved).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2.sandbox import SandboxedEnvironment
from pydantic import ValidationError

from orchestrator.engines.answer_json import expect_object
from orchestrator.plan.model import Plan, PlanError, describe_error, validate_plan
from orchestrator.roles import Role

Ask = Callable[[str], Awaitable[str]]  # prompt -> the engine's answer text
AskHuman = Callable[[str], str]  # a clarifying question -> the person's answer

MAX_ANSWERS = 4  # engine answers per gather: the first try plus corrections and question rounds
MAX_QUESTIONS = 3  # per round, and rounds of questions at most two
MAX_QUESTION_ROUNDS = 2
MAX_LISTING = 60  # workspace entries shown to the engine


class GatherError(Exception):
    """No valid plan came out of the engine; the message says what was wrong last."""


@dataclass
class Gathered:
    plan: Plan
    questions: list[tuple[str, str]] = field(default_factory=list)  # (question, the person's answer)
    answers: int = 0  # engine answers it took


_ENV = SandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, autoescape=False)
_TEMPLATE = _ENV.from_string("""\
You are the planner of an acteon-swarm run: several AI coding agents will carry out your plan in
parallel, each task by one agent in one role, every tool call checked by a policy gateway.

The request:
{{ request }}

Working directory: {{ workdir }}
{% if listing %}
Its top-level entries: {{ listing | join(", ") }}
{% endif %}

Roles you can assign (assigned_role) and their tools:
{% for role in roles %}
- {{ role.name }}: {{ role.description }} (tools: {{ role.allowed_tools | join(", ") }})
{% endfor %}
{% if qa %}

Questions you asked and the answers:
{% for q, a in qa %}
Q: {{ q }}
A: {{ a }}
{% endfor %}
{% endif %}

Answer with exactly one JSON object and nothing else. The plan object:
{"id": "kebab-id", "objective": "...", "scope": {"max_agents": 4, "max_duration_minutes": 60},
 "success_criteria": ["..."], "estimated_actions": 120,
 "tasks": [{"id": "t1", "name": "...", "description": "...", "assigned_role": "coder", "priority": 100,
            "depends_on": [], "subtasks": [{"id": "t1-1", "name": "...", "prompt": "what the agent must do"}]}]}
Rules: ids are unique across tasks and subtasks (letters, digits, . _ -); depends_on names task ids;
no cycles; a lower priority starts first; each subtask has a "prompt" for its agent (or a "command" to run
as-is without an agent); estimated_actions is your estimate of the tool calls of the whole run;
keep tasks independent where you can so they run in parallel.
{% if may_ask %}
If, and only if, something essential is missing, answer {"questions": ["...", ...]} instead
(at most {{ max_questions }} questions).
{% else %}
Do not ask questions: where something is unclear, choose the reasonable option and say so in success_criteria.
{% endif %}
{% if problems %}

Your previous answer could not be used:
{% for p in problems %}
- {{ p }}
{% endfor %}
Answer again with the corrected JSON object.
{% endif %}
""")


def gather_prompt(request: str, *, roles: dict[str, Role], workdir: Path, qa: list[tuple[str, str]],
                  problems: list[str], may_ask: bool) -> str:
    return _TEMPLATE.render(request=request, roles=list(roles.values()), workdir=workdir, listing=_listing(workdir),
                            qa=qa, problems=problems, may_ask=may_ask, max_questions=MAX_QUESTIONS)


def _listing(workdir: Path) -> list[str]:
    try:
        names = sorted(p.name + ("/" if p.is_dir() else "") for p in workdir.iterdir() if not p.name.startswith("."))
    except OSError:
        return []
    return names[:MAX_LISTING] + ([f"… {len(names) - MAX_LISTING} more"] if len(names) > MAX_LISTING else [])


def _questions(obj: dict[str, Any]) -> list[str] | None:
    if set(obj) != {"questions"}:
        return None
    qs = obj["questions"]
    if not isinstance(qs, list) or not qs or not all(isinstance(q, str) and q.strip() for q in qs):
        raise ValueError('"questions" must be a non-empty list of strings')
    return [q.strip()[:500] for q in qs[:MAX_QUESTIONS]]


def _as_plan(obj: dict[str, Any], workdir: Path, roles: dict[str, Role]) -> Plan:
    data = dict(obj)
    scope = data.get("scope")
    # The user's directory, never the model's.
    data["scope"] = {**(scope if isinstance(scope, dict) else {}), "working_directory": str(workdir)}
    data["status"] = "pending"
    for key in ("approved_by", "approved_at", "sequence"):
        data.pop(key, None)
    data.setdefault("id", "gathered-plan")
    plan = Plan.model_validate(data)
    validate_plan(plan, set(roles))
    return plan


def _problems(e: Exception) -> list[str]:
    if isinstance(e, ValidationError):
        return [describe_error(err) for err in e.errors()[:20]]
    if isinstance(e, PlanError):
        return e.errors[:20]
    return [str(e)]


async def gather(request: str, *, ask: Ask, roles: dict[str, Role], workdir: Path,
                 ask_human: AskHuman | None = None) -> Gathered:
    """Ask until a valid plan comes back (at most MAX_ANSWERS answers). ``ask_human`` is set only when a
    person is at a terminal; without it the engine is told not to ask, and questions count as a mistake."""
    if not request.strip():
        raise GatherError("the request is empty")
    qa: list[tuple[str, str]] = []
    problems: list[str] = []
    question_rounds = 0
    for answers in range(1, MAX_ANSWERS + 1):
        may_ask = ask_human is not None and question_rounds < MAX_QUESTION_ROUNDS
        text = await ask(gather_prompt(request, roles=roles, workdir=workdir, qa=qa, problems=problems,
                                       may_ask=may_ask))
        try:
            obj = expect_object(text, wanted="a plan or questions")
            questions = _questions(obj)
            if questions is None:
                return Gathered(_as_plan(obj, workdir, roles), qa, answers)
        except (ValueError, PlanError) as e:  # ValidationError is a ValueError
            problems = _problems(e)
            continue
        if not may_ask or ask_human is None:
            problems = ["questions cannot be answered now: answer with the plan, choosing reasonable options"]
            continue
        question_rounds += 1
        qa += [(q, ask_human(q)) for q in questions]
        problems = []
    raise GatherError(f"no valid plan after {MAX_ANSWERS} answers; last problems: " + "; ".join(problems))
