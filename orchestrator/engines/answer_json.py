"""The JSON object in a model's answer. Models wrap JSON in prose and fences, so the answer is read three
ways, in order: the whole text, each fenced ```json block (the last first: a model corrects itself), and the
text between the outermost braces. The first object the caller accepts wins."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL)


def json_object(text: str, accept: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
    for chunk in _candidates(text):
        try:
            data = json.loads(chunk)
        except (ValueError, RecursionError):  # RecursionError: JSON nested deeper than the parser goes
            continue
        if isinstance(data, dict) and accept(data):
            return data
    return None


def _candidates(text: str) -> Iterator[str]:
    yield text.strip()
    yield from [m.group(1) for m in _FENCE.finditer(text)][::-1]
    first, last = text.find("{"), text.rfind("}")
    if 0 <= first < last:
        yield text[first:last + 1]
