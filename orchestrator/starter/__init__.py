"""``acteon-swarm init``: a commented swarm.toml and an example plan to start from.

The files next to this module are the templates (data a person edits, so they live as files rather than
strings in code): ``swarm.toml.j2`` with the chosen engine filled in, and an example plan for it —
``plan.json`` (agents that write code) for claude and gemini, ``plan-command.json`` (plain commands, no agent
CLI needed) for the command engine.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from jinja2 import Environment, StrictUndefined

from acteon_core.vocabulary import ENGINES

FILES = ("swarm.toml", "plan.json")


def _template(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def starter_files(engine: str) -> dict[str, str]:
    """File name -> content of the starter for ``engine``."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} (engines: {', '.join(ENGINES)})")
    # TOML, not HTML, and the only value is one of ENGINES: nothing to escape
    env = Environment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)  # noqa: S701
    return {"swarm.toml": env.from_string(_template("swarm.toml.j2")).render(engine=engine),
            "plan.json": _template("plan-command.json" if engine == "command" else "plan.json")}


def write_starter(directory: Path, *, force: bool = False, engine: str = "claude") -> list[Path]:
    """Write the starter into ``directory``; returns their paths. Raises FileExistsError naming the first
    file that exists (nothing is written then) unless ``force``."""
    files = starter_files(engine)
    targets = [directory / name for name in FILES]
    if not force:
        for target in targets:
            if target.exists():
                raise FileExistsError(str(target))
    directory.mkdir(parents=True, exist_ok=True)
    for target in targets:
        target.write_text(files[target.name], encoding="utf-8")
    return targets
