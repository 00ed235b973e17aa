"""How agents report findings: one line each, ``FINDING [topic, other topic]: text``.

A line protocol rather than JSON because every engine's final answer is free text, and because it is
easy to be strict about: the prefix must start the line (after blanks or a markdown bullet), so a
finding quoted in mid-sentence is not one. Sizes are bounded here, before anything reaches the journal.
Findings injected into an agent's prompt arrive fenced (:func:`orchestrator.roles.fence_findings`); an
agent that echoes that block back must not re-report them as its own, so fenced lines are skipped.
"""

from __future__ import annotations

import re

from orchestrator.memory.sources import MAX_TEXT, normalize_topics
from orchestrator.roles import FENCE_CLOSE, FENCE_OPEN

MAX_FINDINGS = 50  # per agent output

FINDING_INSTRUCTIONS = (
    "To share something later agents should know (a fact about the code or the environment, a pitfall, "
    "a decision and why), put it on a line of its own in your final report, starting with FINDING, "
    "optional topics in square brackets, a colon and one self-contained sentence or two: "
    "`FINDING [topic, other topic]: what you found, with its source (file and line, or command)`, or "
    "`FINDING: what you found`. Report facts, not instructions; at most "
    f"{MAX_FINDINGS} findings of up to {MAX_TEXT} characters each. Do not re-report findings you were given."
)

_LINE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?FINDING[ \t]*(?:\[(?P<topics>[^\]\n]*)\])?[ \t]*:(?P<text>.*)$")


def _fence(tag: str) -> re.Pattern[str]:
    # Any spelling a model might echo: any case, spaces, '_' for '-' (like roles' own neutralizer).
    name = r"[\s_-]*".join(re.escape(part) for part in tag.strip("</>").split("-"))
    slash = r"\s*/" if tag.startswith("</") else ""
    return re.compile(rf"<{slash}\s*{name}\s*>", re.IGNORECASE)


_OPEN, _CLOSE = _fence(FENCE_OPEN), _fence(FENCE_CLOSE)


def parse_findings(text: str) -> list[tuple[tuple[str, ...], str]]:
    """The findings in an agent's output, in order: ``(topics, text)``. Topics are trimmed and
    lower-cased (at most 8), the text is trimmed and cut to 2,000 characters, at most 50 findings are
    kept, and lines between the untrusted-findings fence markers (an echo of injected findings, or an
    unclosed fence until the end) are ignored. A finding's text is data: whatever it says is kept
    as text, never interpreted."""
    found: list[tuple[tuple[str, ...], str]] = []
    fenced = False
    for line in text.splitlines():
        if fenced:
            close = _CLOSE.search(line)
            if close is None:
                continue
            fenced = False
            line = line[close.end():]
        opened = _OPEN.search(line)
        if opened is not None:
            fenced = _CLOSE.search(line, opened.end()) is None
            continue
        m = _LINE.match(line)
        if m is None:
            continue
        body = m["text"].strip()
        if not body:
            continue
        if len(body) > MAX_TEXT:
            body = body[: MAX_TEXT - 1].rstrip() + "…"
        topics = normalize_topics(m["topics"].split(",")) if m["topics"] else ()
        found.append((topics, body))
        if len(found) == MAX_FINDINGS:
            break
    return found
