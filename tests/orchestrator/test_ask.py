"""Asking a model one question (orchestrator/engines/ask.py), as the refiner does: the ``command`` engine
(prompt on stdin, answer on stdout), and the claude and gemini command lines (checked with stand-in binaries
that record what they were given). Every failure is NoAnswer with a reason; a slow answerer's whole process
group is killed at the timeout."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from orchestrator.config import ConfigError, RefinerSection, parse_config
from orchestrator.engines.ask import NoAnswer, answering_engine, ask, asking_of
from orchestrator.engines.base import Seat
from orchestrator.process import group_alive
from tests.orchestrator.test_process import gone

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "ACTEON_ADMIN_KEY": "admin-secret", "KEEP": "me"}


async def run_ask(tmp: Path, cfg: RefinerSection, *, engine: str = "command", prompt: str = "What now?",
                  env: dict[str, str] | None = None) -> str:
    seat = Seat(gateway_url="http://127.0.0.1:9", agent_key="agent-key", run_id="run-1",
                env=env if env is not None else ENV)
    return await ask(asking_of("refiner", cfg), engine=engine, prompt=prompt, workdir=tmp,
                     agent_dir=tmp / "agents" / "refiner-1", seat=seat, agent_id="refiner")


def cmd(command: str, timeout: int = 10) -> RefinerSection:
    return RefinerSection(engine="command", command=command, timeout_seconds=timeout)


# --- config ----------------------------------------------------------------------------------------

def test_refiner_section_defaults_and_the_command_engine() -> None:
    cfg = parse_config({}).refiner
    assert (cfg.engine, cfg.model, cfg.timeout_seconds, cfg.command) == (None, None, 60, None)
    cfg = parse_config({"refiner": {"engine": "command", "command": "./answer.sh", "timeout_seconds": 5}}).refiner
    assert (cfg.engine, cfg.command, cfg.timeout_seconds) == ("command", "./answer.sh", 5)
    with pytest.raises(ConfigError, match="'command' is required when the refiner engine is 'command'"):
        parse_config({"refiner": {"engine": "command"}})
    with pytest.raises(ConfigError, match=r"refiner\.engine"):
        parse_config({"refiner": {"engine": "gpt"}})


def test_which_engine_answers() -> None:
    def answering(section: RefinerSection, run_engine: str) -> str | None:
        return answering_engine(asking_of("refiner", section), run_engine)

    assert answering(RefinerSection(), "claude") == "claude"
    assert answering(RefinerSection(engine="gemini"), "claude") == "gemini"
    assert answering(RefinerSection(), "command") is None  # nothing to ask: the runner can skip the refiner
    assert answering(RefinerSection(command="echo CONTINUE"), "command") == "command"


async def test_no_command_for_the_command_engine_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(NoAnswer, match="no refiner command configured"):
        await run_ask(tmp_path, RefinerSection())


# --- the command engine ---------------------------------------------------------------------------------

async def test_command_gets_the_prompt_on_stdin_and_its_stdout_is_the_answer(tmp_path: Path) -> None:
    script = 'cat > seen.txt; env > env.txt; pwd > cwd.txt; printf "SKIP: t3\\n"'
    answer = await run_ask(tmp_path, cmd(script), prompt="Decide.\nLine two: ünïcode")
    assert answer == "SKIP: t3\n"
    assert (tmp_path / "seen.txt").read_text() == "Decide.\nLine two: ünïcode"
    assert (tmp_path / "cwd.txt").read_text().strip() == str(tmp_path)
    env = dict(line.split("=", 1) for line in (tmp_path / "env.txt").read_text().splitlines() if "=" in line)
    assert env["ACTEON_AGENT_ID"] == "refiner" and env["ACTEON_AGENT_ROLE"] == "planner"
    assert env["ACTEON_AGENT_KEY"] == "agent-key" and env["ACTEON_RUN_ID"] == "run-1"
    assert "ACTEON_ADMIN_KEY" not in env  # never the admin key
    assert "KEEP" not in env  # the agent environment is an allow-list ([safety] pass_env adds to it)
    assert (tmp_path / "agents" / "refiner-1" / "prompt.md").read_text() == "Decide.\nLine two: ünïcode"


async def test_a_slow_command_is_killed_with_its_whole_group_at_the_timeout(tmp_path: Path) -> None:
    script = "echo $$ > leader.pid; sleep 30 & echo $! > child.pid; sleep 30"
    started = time.monotonic()
    with pytest.raises(NoAnswer, match=r"^timed out after 1 s$"):
        await run_ask(tmp_path, cmd(script, timeout=1))
    assert time.monotonic() - started < 6
    leader, child = int((tmp_path / "leader.pid").read_text()), int((tmp_path / "child.pid").read_text())
    assert not group_alive(leader)
    assert gone(leader) and gone(child)


@pytest.mark.parametrize(("script", "reason"), [
    ("echo boom >&2; exit 3", "exit 3: boom"),
    ("exit 1", "exit 1: no stderr"),
    ("kill -9 $$", "exit -9"),
    ("printf '\\377\\376 CONTINUE'", "not UTF-8"),
    ("head -c 1100000 /dev/zero | tr '\\0' x", "output too large"),
])
async def test_command_failures_are_unavailable_with_a_reason(tmp_path: Path, script: str, reason: str) -> None:
    with pytest.raises(NoAnswer, match=reason):
        await run_ask(tmp_path, cmd(script))


async def test_a_missing_command_binary_is_a_non_zero_exit(tmp_path: Path) -> None:
    with pytest.raises(NoAnswer, match="exit 127"):
        await run_ask(tmp_path, cmd("/nonexistent/refiner-bin"))


# --- claude and gemini command lines, with stand-in binaries ------------------------------------------------

def stand_in(path: Path, output: dict[str, object], exit_code: int = 0) -> Path:
    """An executable that records its arguments (NUL-separated) and environment, then prints ``output``."""
    out = path.parent / f"{path.name}.out.json"
    out.write_text(json.dumps(output))
    path.write_text(f"#!/bin/sh\nprintf '%s\\0' \"$@\" > '{path}.args'\nenv > '{path}.env'\n"
                    f"cat '{out}'\nexit {exit_code}\n")
    path.chmod(0o755)
    return path


def recorded_args(binary: Path) -> list[str]:
    return Path(f"{binary}.args").read_text().split("\0")[:-1]


def recorded_env(binary: Path) -> dict[str, str]:
    lines = Path(f"{binary}.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def flag(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


async def test_claude_refiner_runs_gated_with_no_tools_and_a_cheap_model(tmp_path: Path) -> None:
    fake = stand_in(tmp_path / "claude", {"type": "result", "is_error": False, "result": "CONTINUE"})
    answer = await run_ask(tmp_path, RefinerSection(), engine="claude", prompt="P?",
                           env={**ENV, "ACTEON_CLAUDE_BIN": str(fake)})
    assert answer == "CONTINUE"
    args = recorded_args(fake)
    assert flag(args, "-p") == "P?" and flag(args, "--model") == "haiku" and flag(args, "--output-format") == "json"
    assert flag(args, "--tools") == "" and flag(args, "--setting-sources") == ""
    assert "--strict-mcp-config" in args and "--bare" not in args
    settings = json.loads(Path(flag(args, "--settings")).read_text())
    assert Path(flag(args, "--settings")).parent == tmp_path / "agents" / "refiner-1"
    gate = settings["hooks"]["PreToolUse"][-1]["hooks"][0]
    assert gate["onFailure"] == "block"
    env = recorded_env(fake)
    assert env["ACTEON_AGENT_ID"] == "refiner" and env["ACTEON_AGENT_ROLE"] == "planner"
    assert "ACTEON_ADMIN_KEY" not in env


async def test_claude_model_from_config(tmp_path: Path) -> None:
    fake = stand_in(tmp_path / "claude", {"result": "CONTINUE"})
    env = {**ENV, "ACTEON_CLAUDE_BIN": str(fake)}
    await run_ask(tmp_path, RefinerSection(model="sonnet"), engine="claude", env=env)
    assert flag(recorded_args(fake), "--model") == "sonnet"


@pytest.mark.parametrize(("output", "exit_code", "reason"), [
    ({"is_error": True, "result": "API Error: overloaded"}, 0, "claude reported an error: API Error: overloaded"),
    ({"is_error": False}, 0, "no 'result' text"),
    ({"result": "CONTINUE"}, 1, "exit 1"),
])
async def test_claude_failures(tmp_path: Path, output: dict[str, object], exit_code: int, reason: str) -> None:
    fake = stand_in(tmp_path / "claude", output, exit_code)
    with pytest.raises(NoAnswer, match=reason):
        await run_ask(tmp_path, RefinerSection(), engine="claude", env={**ENV, "ACTEON_CLAUDE_BIN": str(fake)})


async def test_claude_output_that_is_not_json(tmp_path: Path) -> None:
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\necho 'Hello, I am not JSON'\n")
    fake.chmod(0o755)
    with pytest.raises(NoAnswer, match="not JSON"):
        await run_ask(tmp_path, RefinerSection(), engine="claude", env={**ENV, "ACTEON_CLAUDE_BIN": str(fake)})


async def test_a_missing_cli_is_unavailable(tmp_path: Path) -> None:
    for engine, name in (("claude", "claude"), ("gemini", "gemini")):
        with pytest.raises(NoAnswer, match=f"the {name} CLI is not on PATH"):
            await run_ask(tmp_path, RefinerSection(), engine=engine, env={"PATH": str(tmp_path / "empty")})


async def test_gemini_refiner_runs_gated_with_no_tools(private_tmp: Path) -> None:
    fake = stand_in(private_tmp / "gemini", {"response": "REPRIORITIZE: t1=5", "stats": {}})
    answer = await run_ask(private_tmp, RefinerSection(engine="gemini"), engine="claude", prompt="P?",
                           env={**ENV, "ACTEON_GEMINI_BIN": str(fake)})
    assert answer == "REPRIORITIZE: t1=5"
    args = recorded_args(fake)
    assert flag(args, "-p") == "P?" and flag(args, "-m") == "gemini-2.5-flash"
    assert flag(args, "--output-format") == "json"
    assert "--yolo" not in args and flag(args, "--approval-mode") == "default"
    env = recorded_env(fake)
    settings = json.loads(Path(env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"]).read_text())
    assert settings["tools"] == {"core": []}  # an empty list registers no built-in tool at all
    assert settings["hooks"]["BeforeTool"] and settings["hooksConfig"]["enabled"] is True
    assert env["GEMINI_CLI_TRUST_WORKSPACE"] == "true" and env["ACTEON_AGENT_ID"] == "refiner"


async def test_gemini_refuses_a_settings_file_gemini_would_skip(tmp_path: Path) -> None:
    # pytest's tmp_path is below /tmp (world-writable): Gemini CLI would ignore the hook there.
    fake = stand_in(tmp_path / "gemini", {"response": "CONTINUE"})
    with pytest.raises(NoAnswer, match="refusing to start an ungated gemini agent"):
        await run_ask(tmp_path, RefinerSection(engine="gemini"), env={**ENV, "ACTEON_GEMINI_BIN": str(fake)})
    assert not Path(f"{fake}.args").exists()


async def test_gemini_error_output(private_tmp: Path) -> None:
    fake = stand_in(private_tmp / "gemini", {"error": {"message": "quota"}})
    with pytest.raises(NoAnswer, match="gemini reported an error"):
        await run_ask(private_tmp, RefinerSection(engine="gemini"), env={**ENV, "ACTEON_GEMINI_BIN": str(fake)})


async def test_a_command_that_ignores_a_large_prompt_still_answers(tmp_path: Path) -> None:
    # It exits without reading stdin: the broken pipe is not an error, the answer is what it printed.
    answer = await run_ask(tmp_path, cmd("echo CONTINUE"), prompt="x" * 500_000)
    assert answer == "CONTINUE\n"
