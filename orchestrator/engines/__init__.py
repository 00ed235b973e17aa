"""Engines run one subtask as one agent session (docs/swarm.md): ``command``, ``claude``, ``gemini``, ``codex``,
``opencode``."""

from __future__ import annotations

from orchestrator.engines.base import Engine, EngineError, SubtaskContext, SubtaskResult


def get_engine(name: str) -> Engine:
    if name == "command":
        from orchestrator.engines.command import CommandEngine

        return CommandEngine()
    if name == "claude":
        from orchestrator.engines.claude import ClaudeEngine

        return ClaudeEngine()
    if name == "gemini":
        from orchestrator.engines.gemini import GeminiEngine

        return GeminiEngine()
    if name == "codex":
        from orchestrator.engines.codex import CodexEngine

        return CodexEngine()
    if name == "opencode":
        from orchestrator.engines.opencode import OpenCodeEngine

        return OpenCodeEngine()
    raise EngineError(f"unknown engine {name!r} (engines: command, claude, gemini, codex, opencode)")


__all__ = ["Engine", "EngineError", "SubtaskContext", "SubtaskResult", "get_engine"]
