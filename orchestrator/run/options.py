"""What a run is started with, and what it reports when it ends."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class RunOptions:
    engine: str
    state_dir: Path
    gateway_url: str
    admin_key: str
    max_agents: int | None = None
    subtask_timeout_s: float = 900.0
    resume: bool = False
    extra_rules: list[dict[str, Any]] = field(default_factory=list)  # more per-run rules (the demo's)
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)  # config flags given to `run`, kept in run.json


@dataclass
class RunReport:
    run_id: str
    status: str
    tasks: dict[str, str]
    stats: dict[str, Any]
    peak_running: int
