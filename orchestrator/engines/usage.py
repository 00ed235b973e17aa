"""Token usage and cost of one agent session, read from the CLI's JSON output.

Claude Code's ``--output-format json`` result carries ``usage`` (input, output, cache creation and cache
read tokens) and ``total_cost_usd``. Gemini CLI's carries ``stats.models.<model>.tokens`` (prompt,
candidates, cached, …) and no cost; Codex CLI's ``--json`` events end each turn with ``turn.completed`` and its
``usage`` (input, cached input, output tokens), no cost; OpenCode's ``--format json`` a ``step_finish`` per
request with its tokens and cost. Fields a CLI does not report stay None: nothing is
estimated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Usage:
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None

    def fields(self) -> dict[str, Any]:
        """The journal's fields (only what was reported)."""
        return {k: v for k, v in (("input_tokens", self.input_tokens), ("output_tokens", self.output_tokens),
                                  ("cached_tokens", self.cached_tokens), ("cost_usd", self.cost_usd))
                if v is not None}


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _sum(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def from_claude(data: dict[str, Any]) -> Usage:
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    assert isinstance(usage, dict)
    cost = data.get("total_cost_usd")
    return Usage(
        input_tokens=_count(usage.get("input_tokens")),
        output_tokens=_count(usage.get("output_tokens")),
        cached_tokens=_sum([_count(usage.get("cache_read_input_tokens")),
                            _count(usage.get("cache_creation_input_tokens"))]),
        cost_usd=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) and cost >= 0 else None,
    )


def from_gemini(data: dict[str, Any]) -> Usage:
    stats = data.get("stats")
    models = stats.get("models") if isinstance(stats, dict) else None
    if not isinstance(models, dict):
        return Usage()
    tokens: list[dict[str, Any]] = [m["tokens"] for m in models.values()
                                    if isinstance(m, dict) and isinstance(m.get("tokens"), dict)]
    return Usage(
        input_tokens=_sum([_count(t.get("prompt")) for t in tokens]),
        output_tokens=_sum([_count(t.get("candidates")) for t in tokens]),
        cached_tokens=_sum([_count(t.get("cached")) for t in tokens]),
    )


def from_codex(events: list[dict[str, Any]]) -> Usage:
    turns = [e["usage"] for e in events if e.get("type") == "turn.completed" and isinstance(e.get("usage"), dict)]
    if not turns:
        return Usage()
    return Usage(
        input_tokens=_sum([_count(u.get("input_tokens")) for u in turns]),
        output_tokens=_sum([_count(u.get("output_tokens")) for u in turns]),
        cached_tokens=_sum([_count(u.get("cached_input_tokens")) for u in turns]),
    )


def from_opencode(events: list[dict[str, Any]]) -> Usage:
    """OpenCode's ``--format json``: a ``step_finish`` per model request with its ``tokens`` and ``cost``."""
    steps = [e["part"] for e in events if e.get("type") == "step_finish" and isinstance(e.get("part"), dict)]
    tokens = [s["tokens"] for s in steps if isinstance(s.get("tokens"), dict)]
    if not tokens:
        return Usage()
    costs = [c for c in (s.get("cost") for s in steps) if isinstance(c, int | float) and not isinstance(c, bool)]
    cache = [t.get("cache") if isinstance(t.get("cache"), dict) else {} for t in tokens]
    return Usage(
        input_tokens=_sum([_count(t.get("input")) for t in tokens]),
        output_tokens=_sum([_count(t.get("output")) for t in tokens]),
        cached_tokens=_sum([_count(c.get("read")) for c in cache]),
        cost_usd=round(sum(costs), 6) if costs else None,
    )
