"""The JSON object in a model's answer. Models wrap JSON in prose and fences, so the answer is read four
ways, in order: the whole text, each fenced ```json block (the last first: a model corrects itself), the
text between the outermost braces, and the first complete object (a sentence may follow it). The first
object the caller accepts wins."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL)


def _anything(data: dict[str, Any]) -> bool:
    return True


def json_object(text: str, accept: Callable[[dict[str, Any]], bool] = _anything) -> dict[str, Any] | None:
    """The first object in ``text`` that ``accept`` takes, or None."""
    for data in _objects(text):
        if accept(data):
            return data
    return None


def expect_object(text: str, accept: Callable[[dict[str, Any]], bool] = _anything,
                  wanted: str = "a JSON object") -> dict[str, Any]:
    """:func:`json_object`, or a ValueError saying what is wrong, worded for the model that answered (a
    caller sends it back with the next question)."""
    data = json_object(text, accept)
    if data is not None:
        return data
    body = text.strip()
    try:
        whole = json.loads(body)
    except (ValueError, RecursionError) as e:
        if "{" not in body:
            raise ValueError("the answer holds no JSON object") from None
        raise ValueError(f"invalid JSON: {e}"[:300]) from None
    if not isinstance(whole, dict):
        raise ValueError(f"expected a JSON object, got {type(whole).__name__}")
    raise ValueError(f"the answer's JSON object is not {wanted}")


def _objects(text: str) -> Iterator[dict[str, Any]]:
    for chunk in _candidates(text):
        try:
            data = json.loads(chunk)
        except (ValueError, RecursionError):  # RecursionError: JSON nested deeper than the parser goes
            continue
        if isinstance(data, dict):
            yield data
    first = text.find("{")
    if first >= 0:
        try:
            data, _ = json.JSONDecoder().raw_decode(text, first)
        except (ValueError, RecursionError):
            return
        if isinstance(data, dict):
            yield data


def _candidates(text: str) -> Iterator[str]:
    yield text.strip()
    yield from [m.group(1) for m in _FENCE.finditer(text)][::-1]
    first, last = text.find("{"), text.rfind("}")
    if 0 <= first < last:
        yield text[first:last + 1]
