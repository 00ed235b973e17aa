"""Asking a model one question and getting its raw answer: the refiner, a synthesis, a lens merger, the
adversarial challenger and ``plan gather``'s planner all ask this way (docs/swarm.md).

Each is an agent session like any other, started the way the engines start theirs (its own gated settings
file, its own process group, its run-scoped key, role ``planner``), but it is given no tools at all where the
CLI allows it: it only has to read a prompt and answer. Every way the answer can fail to arrive (missing
binary, an ungated configuration, a timeout — the whole process group is killed —, a non-zero exit,
unreadable output) is one exception, :class:`NoAnswer`, which the caller turns into its fallback.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from acteon_core.settings import claude_settings
from orchestrator.engines import claude, codex, gemini, opencode
from orchestrator.engines.base import EngineError, Seat, gate_options, tail
from orchestrator.engines.usage import from_claude, from_codex, from_gemini, from_opencode
from orchestrator.process import ProcResult, run_in_group

ROLE = "planner"  # read-only; with no tools offered it is not even used
DEFAULT_MODELS = {"claude": "haiku", "gemini": "gemini-2.5-flash"}
MAX_OUTPUT_BYTES = 1 << 20  # a JSON envelope or a command's stdout; the answer itself is bounded later


class NoAnswer(Exception):
    """No usable answer came back; ``reason`` says why, for the journal."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Asking:
    """Who answers: ``engine`` (None: the run's), ``model`` (None: the engine's cheap one), ``command`` (for the
    command engine: ``/bin/sh -c``, the prompt on stdin, the answer on stdout). ``purpose`` names the asker in
    errors, and its configuration section."""

    purpose: str
    timeout_seconds: float
    engine: str | None = None
    model: str | None = None
    command: str | None = None


class _Section(Protocol):
    engine: Any
    model: Any
    command: Any
    timeout_seconds: Any


def asking_of(purpose: str, section: _Section) -> Asking:
    """The asker a configuration section describes (``[refiner]``, ``[synthesis]``, a lens's merger)."""
    return Asking(purpose=purpose, timeout_seconds=section.timeout_seconds, engine=section.engine,
                  model=section.model, command=section.command)


def answering_engine(asking: Asking, run_engine: str) -> str | None:
    """The engine that answers: the configured one, else the run's own. None when there is nothing to ask (the
    run's engine is ``command`` and no command is configured), so a runner can leave the asker out instead of
    journaling the same fallback after every task."""
    engine = asking.engine or run_engine
    if engine == "command" and asking.command is None:
        return None
    return engine


async def ask(asking: Asking, **kwargs: Any) -> str:
    """The raw answer to ``prompt`` (:func:`ask_with_usage` without the usage)."""
    text, _ = await ask_with_usage(asking, **kwargs)
    return text


async def ask_with_usage(
    asking: Asking,
    *,
    engine: str,
    prompt: str,
    workdir: Path,
    agent_dir: Path,
    seat: Seat,
    agent_id: str,
) -> tuple[str, dict[str, Any]]:
    """The raw answer to ``prompt`` and the usage its CLI reported (``Usage.fields()``). ``engine`` is the
    run's engine (the asker's own overrides it); the session sits where ``seat`` says, as ``agent_id``;
    ``agent_dir`` receives the prompt, settings, output and stderr. Raises :class:`NoAnswer`."""
    cfg = asking
    chosen = answering_engine(asking, engine)
    agent_env = seat.agent_env(agent_id, ROLE)
    gateway_url = seat.gateway_url
    try:
        _prepare(agent_dir, prompt)
        if chosen is None:
            raise NoAnswer(f"no {cfg.purpose} command configured ([{cfg.purpose}] command) for the command engine")
        if chosen == "command":
            assert cfg.command is not None  # answering_engine returned None otherwise
            return await _ask_command(cfg, cfg.command, prompt, workdir, agent_dir, agent_env), {}
        if chosen == "claude":
            return await _ask_claude(cfg, prompt, workdir, agent_dir, agent_env, gateway_url)
        if chosen == "gemini":
            return await _ask_gemini(cfg, prompt, workdir, agent_dir, agent_env, gateway_url)
        if chosen == "codex":
            return await _ask_codex(cfg, prompt, workdir, agent_dir, agent_env, gateway_url)
        if chosen == "opencode":
            return await _ask_opencode(cfg, prompt, workdir, agent_dir, agent_env, gateway_url)
        raise NoAnswer(f"unknown {cfg.purpose} engine {chosen!r} (engines: command, claude, gemini, codex, "
                       "opencode)")
    except EngineError as e:
        raise NoAnswer(str(e)) from None
    except OSError as e:
        raise NoAnswer(f"cannot run the {cfg.purpose}: {e}") from None


async def _ask_command(cfg: Asking, command: str, prompt: str, workdir: Path, agent_dir: Path,
                       env: dict[str, str]) -> str:
    out = agent_dir / "stdout.log"
    result = await run_in_group(["/bin/sh", "-c", command], cwd=workdir, env=env, stdout_path=out,
                                stderr_path=agent_dir / "stderr.log", timeout_s=cfg.timeout_seconds,
                                stdin=prompt.encode("utf-8"))
    _check_exit(cfg, result, agent_dir)
    return _read_text(out)


async def _ask_claude(cfg: Asking, prompt: str, workdir: Path, agent_dir: Path, env: dict[str, str],
                      gateway_url: str) -> tuple[str, dict[str, Any]]:
    # No built-in tools, no MCP servers, no skills: the session only reads its prompt and answers.
    result, data = await claude.run_session(
        prompt=prompt, settings=claude_settings({}, gate_options(gateway_url, cfg.timeout_seconds)),
        agent_dir=agent_dir, workdir=workdir, env=env, timeout_s=cfg.timeout_seconds,
        extra_args=["--model", cfg.model or DEFAULT_MODELS["claude"], "--tools", "", "--strict-mcp-config",
                    "--disable-slash-commands"], max_output_bytes=MAX_OUTPUT_BYTES)
    error = data.get("result", "") if data.get("is_error") else None
    return _answer(cfg, result, agent_dir, data, "claude", error, "result"), from_claude(data).fields()


async def _ask_gemini(cfg: Asking, prompt: str, workdir: Path, agent_dir: Path, env: dict[str, str],
                      gateway_url: str) -> tuple[str, dict[str, Any]]:
    # tools.core = []: no built-in tool is registered (an empty list, unlike a missing one, is "none").
    # No --yolo: headless Gemini then registers no tool that needs confirmation either.
    result, data = await gemini.run_session(
        prompt=prompt, hook=gate_options(gateway_url, cfg.timeout_seconds), agent_dir=agent_dir, workdir=workdir,
        env=env, timeout_s=cfg.timeout_seconds, base_settings={"tools": {"core": []}},
        extra_args=["-m", cfg.model or DEFAULT_MODELS["gemini"], "--approval-mode", "default"],
        max_output_bytes=MAX_OUTPUT_BYTES)
    return (_answer(cfg, result, agent_dir, data, "gemini", data.get("error") or None, "response"),
            from_gemini(data).fields())


async def _ask_codex(cfg: Asking, prompt: str, workdir: Path, agent_dir: Path, env: dict[str, str],
                     gateway_url: str) -> tuple[str, dict[str, Any]]:
    return await _ask_event_cli(codex, "codex", from_codex, cfg, prompt, workdir, agent_dir, env, gateway_url)


async def _ask_opencode(cfg: Asking, prompt: str, workdir: Path, agent_dir: Path, env: dict[str, str],
                        gateway_url: str) -> tuple[str, dict[str, Any]]:
    return await _ask_event_cli(opencode, "opencode", from_opencode, cfg, prompt, workdir, agent_dir, env,
                                gateway_url)


async def _ask_event_cli(cli: Any, name: str, usage: Any, cfg: Asking, prompt: str, workdir: Path, agent_dir: Path,
                         env: dict[str, str], gateway_url: str) -> tuple[str, dict[str, Any]]:
    """Codex and OpenCode print JSON events: their engine module's ``run_session`` gives the final answer and
    the events, its ``failure`` what went wrong. Both offer their tools whatever the session is for; the
    asker's role may only read, at the gateway. No model named: the CLI's own default (the user's config)."""
    result, answer, events = await cli.run_session(
        prompt=prompt, hook=gate_options(gateway_url, cfg.timeout_seconds), agent_dir=agent_dir, workdir=workdir,
        env=env, timeout_s=cfg.timeout_seconds, extra_args=["--model", cfg.model] if cfg.model else ())
    _check_exit(cfg, result, agent_dir)
    problem = cli.failure(events)
    if problem is not None:
        raise NoAnswer(f"{name} reported an error: {problem[:300]}")
    _check_size(agent_dir / "events.jsonl")
    if not answer.strip():
        raise NoAnswer(f"{name} gave no final message")
    return str(answer), usage(events).fields()


def _answer(cfg: Asking, result: ProcResult, agent_dir: Path, data: dict[str, Any], cli: str, error: object,
            text_key: str) -> str:
    """The answer text in a CLI's JSON output, or why there is none (``error``: what the CLI reported)."""
    _check_exit(cfg, result, agent_dir)
    _check_size(agent_dir / "output.json")
    if not data:
        raise NoAnswer(f"the CLI's output is not JSON (an object): {_head(agent_dir / 'output.json')!r}")
    if error is not None:
        raise NoAnswer(f"{cli} reported an error: {str(error)[:300]}")
    answer = data.get(text_key)
    if not isinstance(answer, str):
        raise NoAnswer(f"{cli}'s output has no '{text_key}' text")
    return answer


def _check_size(path: Path) -> None:
    with contextlib.suppress(OSError):
        size = path.stat().st_size
        if size > MAX_OUTPUT_BYTES:
            raise NoAnswer(f"output too large ({size} bytes, at most {MAX_OUTPUT_BYTES})")


def _head(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[:200]
    except OSError:
        return ""


def _prepare(agent_dir: Path, prompt: str) -> None:
    """The session's directory (owner-only: Gemini skips settings below a shared one) with its prompt."""
    agent_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    (agent_dir / "prompt.md").write_text(prompt, encoding="utf-8")


def _check_exit(cfg: Asking, result: ProcResult, agent_dir: Path) -> None:
    if result.timed_out:
        raise NoAnswer(f"timed out after {cfg.timeout_seconds} s")
    if result.returncode != 0:
        raise NoAnswer(f"exit {result.returncode}: {tail(agent_dir / 'stderr.log', 300) or 'no stderr'}")


def _read_text(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_OUTPUT_BYTES:
            raise NoAnswer(f"output too large ({size} bytes, at most {MAX_OUTPUT_BYTES})")
        return path.read_bytes().decode("utf-8")
    except OSError as e:
        raise NoAnswer(f"cannot read the answer: {e}") from None
    except UnicodeDecodeError:
        raise NoAnswer("the answer is not UTF-8") from None
