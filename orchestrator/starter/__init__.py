"""``acteon-swarm init``: a commented swarm.toml and an example plan to start from.

The files next to this module are the templates, copied as they are (they are data a person edits, so
they live as files rather than strings in code).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

FILES = ("swarm.toml", "plan.json")


def write_starter(directory: Path, *, force: bool = False) -> list[Path]:
    """Write the templates into ``directory``; returns their paths. Raises FileExistsError naming the first
    file that exists (nothing is written then) unless ``force``."""
    targets = [directory / name for name in FILES]
    if not force:
        for target in targets:
            if target.exists():
                raise FileExistsError(str(target))
    directory.mkdir(parents=True, exist_ok=True)
    for name, target in zip(FILES, targets, strict=True):
        target.write_text(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"), encoding="utf-8")
    return targets
