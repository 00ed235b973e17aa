"""Files a subtask's agent is pointed at by its environment, carried to the worker machine.

On the coordinator some variables name files there: the synthesis of a task's parents, a retried task's
failed-attempt report, the challenge a recovery agent fixes, the merged reports of lens tasks. A worker
cannot open the coordinator's paths, so their contents travel with the subtask (bounded) and the worker
writes them into the attempt's directory and points the same variables there.
"""

from __future__ import annotations

import os
from pathlib import Path

FILE_VARS = ("ACTEON_SYNTHESIS", "ACTEON_RETRY_REPORT", "ACTEON_CHALLENGE", "ACTEON_LENS_REPORT")
MAX_BYTES = 1 << 20  # per file: these are reports, not data sets


def pack(extra_env: dict[str, str]) -> tuple[dict[str, str], dict[str, list[tuple[str, str]]]]:
    """``extra_env`` without the file variables, and the files' contents by variable (name, text)."""
    env = dict(extra_env)
    files: dict[str, list[tuple[str, str]]] = {}
    for var in FILE_VARS:
        value = env.pop(var, None)
        if not value:
            continue
        carried = []
        for i, path in enumerate(p for p in value.split(os.pathsep) if p):
            try:
                with open(path, "rb") as f:
                    text = f.read(MAX_BYTES).decode("utf-8", "replace")
            except OSError:
                continue  # a file that is not there: the agent sees no file either
            carried.append((f"{i}-{Path(path).name}", text))
        if carried:
            files[var] = carried
    return env, files


def unpack(files: dict[str, list[list[str]]], into: Path) -> dict[str, str]:
    """Write the carried files under ``into``; the variables that point at them."""
    env: dict[str, str] = {}
    for var, carried in files.items():
        if var not in FILE_VARS:
            continue  # only what this module packs: a spec never chooses another variable
        where = into / "inputs" / var.lower()
        where.mkdir(parents=True, exist_ok=True)
        paths = []
        for name, text in carried:
            target = where / Path(name).name  # a bare name: nothing outside ``where``
            target.write_text(text, encoding="utf-8")
            paths.append(str(target))
        env[var] = os.pathsep.join(paths)
    return env
