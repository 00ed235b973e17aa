"""Strict parsing of the refiner's answer (docs/swarm.md).

The answer comes from a cheap model that has just read untrusted agent output, so it is parsed as a tiny
formal language, never interpreted: it must be exactly one directive, alone, and anything else is an
error that makes the run CONTINUE unchanged. The grammar (whitespace around the whole answer and one
surrounding ``` code fence, with an optional language tag, are tolerated)::

    CONTINUE
    SKIP: id, id, ...                 one line, at least one id, no duplicates
    REPRIORITIZE: id=N, id=N, ...     one line, N an integer in [-1_000_000, 1_000_000], no duplicate ids
    ADD: {task json}                  the rest of the answer is one JSON object (it may span lines)
    RETRY: id                         one task id (the task that just ended conflict or verify_failed)

Keywords are matched case-insensitively (``Skip:`` is as unambiguous as ``SKIP:``, and refusing it would
only lose a clear decision); everything else is exact. Negative priorities are allowed because the plan
model allows them (lower runs first). This module checks only the form of the answer; whether the ids
exist and may be changed is :mod:`orchestrator.refiner.validate`'s job.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from orchestrator.plan.model import ID_PATTERN

MAX_ANSWER_CHARS = 20_000
MAX_PRIORITY = 1_000_000

Action = Literal["continue", "skip", "reprioritize", "add", "retry"]


class RefinerAnswerError(ValueError):
    """An answer that is not exactly one valid directive; the message is a short reason for humans."""


@dataclass(frozen=True)
class Directive:
    """A well-formed directive, not yet checked against the plan."""

    action: Action
    skip: tuple[str, ...] = ()
    priorities: tuple[tuple[str, int], ...] = ()  # (task id, new priority), in the answer's order
    task: MappingProxyType[str, Any] | None = None  # the ADD JSON object as parsed (read-only view)
    retry: str = ""  # RETRY: the task to run again

    def priority_map(self) -> dict[str, int]:
        return dict(self.priorities)


_ID = re.compile(ID_PATTERN)
_LANG = re.compile(r"[a-z][a-z0-9_+-]{0,19}|")  # a fence's language tag (```json), or none
_KEYWORD = re.compile(r"\A(?P<kw>[A-Za-z]+)(?P<after>.*)\Z", re.DOTALL)
_COLON = re.compile(r"\A[ \t]*:[ \t]*(?P<rest>.*)\Z", re.DOTALL)
_PRIORITY_ITEM = re.compile(r"\A(?P<id>[^=\s]+)[ \t]*=[ \t]*(?P<n>[+-]?[0-9]+)\Z")
_GRAMMAR = "CONTINUE, SKIP: ids, REPRIORITIZE: id=N, ..., ADD: {task json} or RETRY: id"


def parse_answer(text: str) -> Directive:
    """The one directive in ``text``; :class:`RefinerAnswerError` naming the problem otherwise."""
    if len(text) > MAX_ANSWER_CHARS:
        raise RefinerAnswerError(f"answer too long ({len(text)} characters, at most {MAX_ANSWER_CHARS})")
    body = _unfence(text.strip())
    if not body:
        raise RefinerAnswerError("empty answer")
    m = _KEYWORD.match(body)
    keyword, after = (m.group("kw").upper(), m.group("after")) if m else ("", body)
    if keyword == "CONTINUE":
        if after:
            raise RefinerAnswerError(f"CONTINUE must be the whole answer, got {_snippet(body)}")
        return Directive("continue")
    if keyword not in ("SKIP", "REPRIORITIZE", "ADD", "RETRY"):
        raise RefinerAnswerError(f"expected exactly one directive ({_GRAMMAR}) and nothing else, got {_snippet(body)}")
    colon = _COLON.match(after)
    if colon is None:
        raise RefinerAnswerError(f"{keyword} must be followed by ':' and its arguments, got {_snippet(body)}")
    rest = colon.group("rest")
    if keyword == "ADD":
        return Directive("add", task=MappingProxyType(_task_json(rest)))
    if "\n" in rest or "\r" in rest:
        raise RefinerAnswerError(f"{keyword} must be a single line (one directive only, nothing after it)")
    if keyword == "SKIP":
        return Directive("skip", skip=tuple(_ids(rest, keyword)))
    if keyword == "RETRY":
        ids = _ids(rest, keyword)
        if len(ids) != 1:
            raise RefinerAnswerError("RETRY names exactly one task")
        return Directive("retry", retry=ids[0])
    return Directive("reprioritize", priorities=tuple(_priorities(rest)))


def _unfence(body: str) -> str:
    """The inside of one code fence around the whole answer (its language tag dropped), or ``body``
    unchanged. A fence that opens but does not close, or a second fence, is an error rather than text
    for the directive parser to trip over."""
    if not (body.startswith("```") or body.endswith("```")):
        return body
    if len(body) < 6 or not (body.startswith("```") and body.endswith("```")):
        raise RefinerAnswerError("unbalanced code fence: one fence around the whole directive is allowed")
    inner = body[3:-3]
    if "```" in inner:
        raise RefinerAnswerError("more than one code fence: one fence around the whole directive is allowed")
    first, newline, after = inner.partition("\n")
    tag = first.strip()
    if newline and _LANG.fullmatch(tag) and tag.upper() != "CONTINUE":
        inner = after
    return inner.strip()


def _items(rest: str, keyword: str) -> list[str]:
    items = [x.strip() for x in rest.split(",")]
    if items == [""]:
        raise RefinerAnswerError(f"{keyword} names no task")
    if "" in items:
        raise RefinerAnswerError(f"{keyword}: empty item in the comma-separated list")
    return items


def _check_id(task_id: str, keyword: str) -> str:
    if not _ID.fullmatch(task_id):
        raise RefinerAnswerError(f"{keyword}: {_snippet(task_id)} is not a task id")
    return task_id


def _ids(rest: str, keyword: str) -> list[str]:
    ids = [_check_id(x, keyword) for x in _items(rest, keyword)]
    _no_duplicates(ids, keyword)
    return ids


def _priorities(rest: str) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for item in _items(rest, "REPRIORITIZE"):
        m = _PRIORITY_ITEM.match(item)
        if m is None:
            raise RefinerAnswerError(f"REPRIORITIZE: expected id=N (N an integer), got {_snippet(item)}")
        task_id = _check_id(m.group("id"), "REPRIORITIZE")
        digits = m.group("n").lstrip("+-").lstrip("0")
        if len(digits) > 7 or abs(int(m.group("n"))) > MAX_PRIORITY:
            raise RefinerAnswerError(f"REPRIORITIZE: priority of '{task_id}' must be between "
                                     f"-{MAX_PRIORITY} and {MAX_PRIORITY}")
        out.append((task_id, int(m.group("n"))))
    _no_duplicates([tid for tid, _ in out], "REPRIORITIZE")
    return out


def _no_duplicates(ids: list[str], keyword: str) -> None:
    twice = sorted({x for x in ids if ids.count(x) > 1})
    if twice:
        raise RefinerAnswerError(f"{keyword} names {', '.join(repr(x) for x in twice)} more than once")


def _task_json(rest: str) -> dict[str, Any]:
    text = rest.strip()
    if not text.startswith("{"):
        raise RefinerAnswerError("ADD must be followed by one JSON object ({...})")
    try:
        data, end = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_no_constant).raw_decode(text)
    except json.JSONDecodeError as e:
        raise RefinerAnswerError(f"ADD: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    except (ValueError, RecursionError) as e:  # duplicate keys, NaN, huge numbers, absurd nesting
        raise RefinerAnswerError(f"ADD: invalid JSON: {str(e)[:200] or type(e).__name__}") from None
    if text[end:].strip():
        raise RefinerAnswerError(f"ADD: unexpected text after the task JSON: {_snippet(text[end:].strip())}")
    if not isinstance(data, dict):  # raw_decode of text starting with '{' is an object, but be sure
        raise RefinerAnswerError("ADD must be followed by one JSON object ({...})")
    return data


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def _snippet(text: str, limit: int = 60) -> str:
    one_line = " ".join(text.split())
    return repr(one_line if len(one_line) <= limit else one_line[:limit] + "…")
