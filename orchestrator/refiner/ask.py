"""Asking the refiner model one question and getting its raw answer (docs/swarm.md).

The refiner is an agent session like any other, started the way the engines start theirs (its own
gated settings file, its own process group, its run-scoped key, agent id ``refiner``, role
``planner``), but it is given no tools at all where the CLI allows it: it only has to read a prompt and
write one line. Every way the answer can fail to arrive (missing binary, an ungated configuration, a
timeout — the whole process group is killed —, a non-zero exit, unreadable output) is one exception,
:class:`RefinerUnavailable`, which the caller turns into CONTINUE.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from acteon_core.settings import claude_settings
from orchestrator.config import RefinerSection
from orchestrator.engines import claude, gemini
from orchestrator.engines.base import EngineError, gate_options, identity_env, tail
from orchestrator.engines.usage import from_claude, from_gemini
from orchestrator.process import ProcResult, run_in_group

AGENT_ID = "refiner"
ROLE = "planner"  # read-only; with no tools offered it is not even used
DEFAULT_MODELS = {"claude": "haiku", "gemini": "gemini-2.5-flash"}
MAX_OUTPUT_BYTES = 1 << 20  # a JSON envelope or a command's stdout; the answer itself is bounded later


class RefinerUnavailable(Exception):
    """No usable answer came back; ``reason`` says why, for the journal."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def refiner_engine(cfg: RefinerSection, run_engine: str) -> str | None:
    """The engine that answers for this run: ``[refiner] engine``, else the run's own. None when there is
    nothing to ask (the run's engine is ``command`` and no refiner command is configured), so a runner
    can leave the refiner out instead of journaling the same fallback after every task."""
    engine = cfg.engine or run_engine
    if engine == "command" and cfg.command is None:
        return None
    return engine


async def ask(cfg: RefinerSection, **kwargs: Any) -> str:
    """The refiner's raw answer to ``prompt`` (:func:`ask_with_usage` without the usage)."""
    text, _ = await ask_with_usage(cfg, **kwargs)
    return text


async def ask_with_usage(
    cfg: RefinerSection,
    *,
    engine: str,
    prompt: str,
    workdir: Path,
    agent_dir: Path,
    env: dict[str, str],
    gateway_url: str,
    agent_key: str,
    run_id: str,
    agent_id: str = AGENT_ID,
    pass_env: tuple[str, ...] = (),
) -> tuple[str, dict[str, Any]]:
    """The refiner's raw answer to ``prompt`` and the usage its CLI reported (``Usage.fields()``).
    ``engine`` is the run's engine (``[refiner] engine`` overrides it); ``env`` the user's environment, to
    which the agent identity is added; ``agent_dir`` receives the prompt, settings, output and stderr.
    Raises :class:`RefinerUnavailable`. ``plan gather`` asks its planner the same way, as agent
    ``planner``."""
    chosen = refiner_engine(cfg, engine)
    agent_env = identity_env(env, gateway_url=gateway_url, agent_key=agent_key, run_id=run_id,
                             agent_id=agent_id, role=ROLE, pass_env=pass_env)
    try:
        _prepare(agent_dir, prompt)
        if chosen is None:
            raise RefinerUnavailable("no refiner command configured ([refiner] command) for the command engine")
        if chosen == "command":
            assert cfg.command is not None  # refiner_engine returned None otherwise
            return await _ask_command(cfg, cfg.command, prompt, workdir, agent_dir, agent_env), {}
        if chosen == "claude":
            return await _ask_claude(cfg, prompt, workdir, agent_dir, agent_env, gateway_url)
        if chosen == "gemini":
            return await _ask_gemini(cfg, prompt, workdir, agent_dir, agent_env, gateway_url)
        raise RefinerUnavailable(f"unknown refiner engine {chosen!r} (engines: command, claude, gemini)")
    except EngineError as e:
        raise RefinerUnavailable(str(e)) from None
    except OSError as e:
        raise RefinerUnavailable(f"cannot run the refiner: {e}") from None


async def _ask_command(cfg: RefinerSection, command: str, prompt: str, workdir: Path, agent_dir: Path,
                       env: dict[str, str]) -> str:
    out = agent_dir / "stdout.log"
    result = await run_in_group(["/bin/sh", "-c", command], cwd=workdir, env=env, stdout_path=out,
                                stderr_path=agent_dir / "stderr.log", timeout_s=cfg.timeout_seconds,
                                stdin=prompt.encode("utf-8"))
    _check_exit(cfg, result, agent_dir)
    return _read_text(out)


async def _ask_claude(cfg: RefinerSection, prompt: str, workdir: Path, agent_dir: Path, env: dict[str, str],
                      gateway_url: str) -> tuple[str, dict[str, Any]]:
    # No built-in tools, no MCP servers, no skills: the refiner only reads its prompt and answers.
    result, data = await claude.run_session(
        prompt=prompt, settings=claude_settings({}, gate_options(gateway_url, cfg.timeout_seconds)),
        agent_dir=agent_dir, workdir=workdir, env=env, timeout_s=cfg.timeout_seconds,
        extra_args=["--model", cfg.model or DEFAULT_MODELS["claude"], "--tools", "", "--strict-mcp-config",
                    "--disable-slash-commands"], max_output_bytes=MAX_OUTPUT_BYTES)
    _check_exit(cfg, result, agent_dir)
    _check_size(agent_dir / "output.json")
    if not data:
        raise RefinerUnavailable(f"the CLI's output is not JSON (an object): {_head(agent_dir / 'output.json')!r}")
    if data.get("is_error"):
        raise RefinerUnavailable(f"claude reported an error: {str(data.get('result', ''))[:300]}")
    answer = data.get("result")
    if not isinstance(answer, str):
        raise RefinerUnavailable("claude's output has no 'result' text")
    return answer, from_claude(data).fields()


async def _ask_gemini(cfg: RefinerSection, prompt: str, workdir: Path, agent_dir: Path, env: dict[str, str],
                      gateway_url: str) -> tuple[str, dict[str, Any]]:
    # tools.core = []: no built-in tool is registered (an empty list, unlike a missing one, is "none").
    # No --yolo: headless Gemini then registers no tool that needs confirmation either.
    result, data = await gemini.run_session(
        prompt=prompt, hook=gate_options(gateway_url, cfg.timeout_seconds), agent_dir=agent_dir, workdir=workdir,
        env=env, timeout_s=cfg.timeout_seconds, base_settings={"tools": {"core": []}},
        extra_args=["-m", cfg.model or DEFAULT_MODELS["gemini"], "--approval-mode", "default"],
        max_output_bytes=MAX_OUTPUT_BYTES)
    _check_exit(cfg, result, agent_dir)
    _check_size(agent_dir / "output.json")
    if not data:
        raise RefinerUnavailable(f"the CLI's output is not JSON (an object): {_head(agent_dir / 'output.json')!r}")
    if data.get("error"):
        raise RefinerUnavailable(f"gemini reported an error: {str(data.get('error'))[:300]}")
    answer = data.get("response")
    if not isinstance(answer, str):
        raise RefinerUnavailable("gemini's output has no 'response' text")
    return answer, from_gemini(data).fields()


def _check_size(path: Path) -> None:
    with contextlib.suppress(OSError):
        size = path.stat().st_size
        if size > MAX_OUTPUT_BYTES:
            raise RefinerUnavailable(f"output too large ({size} bytes, at most {MAX_OUTPUT_BYTES})")


def _head(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[:200]
    except OSError:
        return ""


def _prepare(agent_dir: Path, prompt: str) -> None:
    """The session's directory (owner-only: Gemini skips settings below a shared one) with its prompt."""
    agent_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    (agent_dir / "prompt.md").write_text(prompt, encoding="utf-8")


def _check_exit(cfg: RefinerSection, result: ProcResult, agent_dir: Path) -> None:
    if result.timed_out:
        raise RefinerUnavailable(f"timed out after {cfg.timeout_seconds} s")
    if result.returncode != 0:
        raise RefinerUnavailable(f"exit {result.returncode}: {tail(agent_dir / 'stderr.log', 300) or 'no stderr'}")


def _read_text(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_OUTPUT_BYTES:
            raise RefinerUnavailable(f"output too large ({size} bytes, at most {MAX_OUTPUT_BYTES})")
        return path.read_bytes().decode("utf-8")
    except OSError as e:
        raise RefinerUnavailable(f"cannot read the refiner's output: {e}") from None
    except UnicodeDecodeError:
        raise RefinerUnavailable("the refiner's output is not UTF-8") from None
