"""The refiner on the real ``claude`` and ``gemini`` binaries against a scripted fake model: the answer
comes back through each CLI's JSON output, and the model is offered no tool at all."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from orchestrator.config import RefinerSection
from orchestrator.engines.ask import ask, asking_of
from orchestrator.engines.base import Seat
from tests.e2e.fake_models import Script, fake_model
from tests.support import ROOT, require

pytestmark = pytest.mark.e2e

CLI_DIR = Path(os.environ.get("ACTEON_E2E_CLI_DIR", ROOT / ".e2e-cli")) / "node_modules" / ".bin"


def binary(name: str) -> str:
    path = CLI_DIR / name
    found = str(path) if path.exists() else shutil.which(name)
    require(f"the {name} CLI (scripts/test installs it into .e2e-cli)", found is not None)
    return str(found)


async def ask_real(engine: str, root: Path, model_url: str) -> str:
    home = root / "home"
    (home / ".gemini").mkdir(parents=True, mode=0o700)
    (home / ".gemini" / "settings.json").write_text(json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False}}))
    (root / "ws").mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "ANTHROPIC_BASE_URL": model_url,
           "ANTHROPIC_API_KEY": "sk-ant-fake", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
           "DISABLE_TELEMETRY": "1",
           "GOOGLE_GEMINI_BASE_URL": model_url, "GEMINI_API_KEY": "fake", "GEMINI_TELEMETRY_ENABLED": "false",
           "ACTEON_CLAUDE_BIN" if engine == "claude" else "ACTEON_GEMINI_BIN": binary(engine)}
    # No gateway is needed: with no tools there is no tool call for the hook to send anywhere.
    return await ask(asking_of("refiner", RefinerSection(timeout_seconds=120)), engine=engine,
                     prompt="Decide. MARKER-REFINER", workdir=root / "ws", agent_dir=root / "agent",
                     seat=Seat(gateway_url="http://127.0.0.1:9", agent_key="k", run_id="r1", env=env),
                     agent_id="refiner")


async def test_claude_refiner_answers_with_no_tools(private_tmp: Path) -> None:
    script = Script(steps=[], final_text="SKIP: t3, t4")
    with fake_model(script) as url:
        answer = await ask_real("claude", private_tmp, url)
    assert answer == "SKIP: t3, t4"
    assert script.requests and all(req.get("tools") == [] for req in script.requests)
    assert "haiku" in script.requests[0]["model"]
    assert "MARKER-REFINER" in json.dumps(script.requests[0]["messages"])


async def test_gemini_refiner_answers_with_no_tools(private_tmp: Path) -> None:
    script = Script(steps=[], final_text="CONTINUE")
    with fake_model(script) as url:
        answer = await ask_real("gemini", private_tmp, url)
    assert answer == "CONTINUE"
    assert script.requests
    for req in script.requests:
        assert [d for t in req.get("tools", []) for d in t.get("functionDeclarations", [])] == []
    assert "MARKER-REFINER" in json.dumps(script.requests[-1]["contents"])
