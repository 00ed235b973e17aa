"""Compile a rule's ``when`` mapping into a predicate over a normalized call.

Everything that can be wrong with a condition is found here, at load time, so that evaluation can never
raise: a missing value simply does not match.

Grammar: a mapping of ``field: matcher`` pairs that must all hold, plus ``all: [...]``, ``any: [...]``
and ``not: {...}``. A matcher is a scalar (equals), a list (is one of; intersects for list fields) or a
mapping of operators. For list-valued fields (path, path_class, host, category, executable, command)
positive operators hold when *any* element satisfies them; ``ne``/``not_in`` hold when *no* element is
equal / in the list.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from typing import Any, Protocol

from gateway.rules import vocabulary


class _HasValue(Protocol):
    def value(self, name: str) -> str | tuple[str, ...] | None: ...


Predicate = Callable[[_HasValue], bool]

FIELDS = frozenset({
    "action_type", "tool", "provider", "role", "agent_id", "run_id", "target",
    "path", "path_class", "host", "category", "executable", "command",
})
OPERATORS = frozenset({
    "eq", "ne", "in", "not_in", "matches", "glob", "contains", "starts_with", "exists", "gt", "lt",
})
_MAX_REGEX = 2000


class ConditionError(ValueError):
    """A condition that cannot be compiled; the loader adds the file and rule name."""


def compile_condition(when: Any) -> Predicate:
    if when is None:
        return _always
    if not isinstance(when, dict):
        raise ConditionError(f"'when' must be a mapping, got {type(when).__name__}")
    if not when:
        return _always
    parts: list[Predicate] = []
    for key, spec in when.items():
        if key == "all":
            parts.append(_all(_sub_list(key, spec)))
        elif key == "any":
            parts.append(_any(_sub_list(key, spec)))
        elif key == "not":
            inner = compile_condition(spec)
            parts.append(lambda call, inner=inner: not inner(call))  # type: ignore[misc]
        elif key in FIELDS:
            parts.append(_field(key, spec))
        else:
            raise ConditionError(f"unknown field '{key}' (fields: {', '.join(sorted(FIELDS))})")
    return parts[0] if len(parts) == 1 else _all(parts)


def _always(_call: _HasValue) -> bool:
    return True


def _all(preds: list[Predicate]) -> Predicate:
    return lambda call: all(p(call) for p in preds)


def _any(preds: list[Predicate]) -> Predicate:
    return lambda call: any(p(call) for p in preds)


def _sub_list(key: str, spec: Any) -> list[Predicate]:
    if not isinstance(spec, list) or not spec:
        raise ConditionError(f"'{key}' takes a non-empty list of conditions")
    return [compile_condition(s) for s in spec]


def _scalar(field: str, v: Any) -> str | float:
    if isinstance(v, bool) or v is None or isinstance(v, dict | list):
        raise ConditionError(f"field '{field}': expected a string or number, got {v!r}")
    return v if isinstance(v, int | float) else str(v)


def _field(name: str, spec: Any) -> Predicate:
    if isinstance(spec, dict):
        if not spec:
            raise ConditionError(f"field '{name}': empty operator mapping")
        tests = [_operator(name, op, arg) for op, arg in spec.items()]
        return _all(tests) if len(tests) > 1 else tests[0]
    if isinstance(spec, list):
        return _operator(name, "in", spec)
    return _operator(name, "eq", spec)


def _operator(name: str, op: str, arg: Any) -> Predicate:
    if op not in OPERATORS:
        raise ConditionError(f"field '{name}': unknown operator '{op}' (operators: {', '.join(sorted(OPERATORS))})")
    if op == "exists":
        if not isinstance(arg, bool):
            raise ConditionError(f"field '{name}': 'exists' takes true or false")
        return lambda call: (call.value(name) is not None) is arg
    if op in ("in", "not_in"):
        if not isinstance(arg, list) or not arg:
            raise ConditionError(f"field '{name}': '{op}' takes a non-empty list")
        options = frozenset(str(_scalar(name, a)) for a in arg)
        _check_values(name, options)
        if op == "in":
            return _positive(name, lambda v: v in options)
        return _negative(name, lambda v: v in options)
    if op in ("gt", "lt"):
        if isinstance(arg, bool) or not isinstance(arg, int | float):
            raise ConditionError(f"field '{name}': '{op}' takes a number")
        bound = float(arg)
        return _positive(name, (lambda v: _num(v) > bound) if op == "gt" else (lambda v: _num(v) < bound))
    if op == "matches":
        pattern = str(_scalar(name, arg))
        if len(pattern) > _MAX_REGEX:
            raise ConditionError(f"field '{name}': regex longer than {_MAX_REGEX} characters")
        try:
            rx = re.compile(pattern)
        except re.error as e:
            raise ConditionError(f"field '{name}': bad regex {pattern!r}: {e}") from None
        _check_pattern(name, op, pattern)
        return _positive(name, lambda v: rx.search(v) is not None)
    if op == "glob":
        globs = arg if isinstance(arg, list) else [arg]
        if not globs:
            raise ConditionError(f"field '{name}': 'glob' takes a pattern or a non-empty list")
        rxs = [re.compile(fnmatch.translate(str(_scalar(name, g)))) for g in globs]
        for g in globs:
            _check_pattern(name, op, str(g))
        return _positive(name, lambda v: any(r.match(v) for r in rxs))
    text = str(_scalar(name, arg))
    if op in ("eq", "ne"):
        _check_values(name, (text,))
    else:
        _check_pattern(name, op, text)
    if op == "eq":
        return _positive(name, lambda v: v == text)
    if op == "ne":
        return _negative(name, lambda v: v == text)
    if op == "contains":
        return _positive(name, lambda v: text in v)
    return _positive(name, lambda v: v.startswith(text))  # starts_with


def _check_values(name: str, values: frozenset[str] | tuple[str, ...]) -> None:
    """Values of a closed field (category, action_type, …) must be ones the gateway produces."""
    if vocabulary.is_closed(name):
        for value in sorted(values):
            if not vocabulary.known(name, value):
                raise ConditionError(vocabulary.unknown_value(name, value))


def _check_pattern(name: str, op: str, pattern: str) -> None:
    if vocabulary.is_closed(name):
        problem = vocabulary.pattern_matches_nothing(name, op, pattern)
        if problem is not None:
            raise ConditionError(problem)


def _num(v: str) -> float:
    try:
        return float(v)
    except ValueError:
        return float("nan")  # compares false both ways: a non-number never matches gt/lt


def _positive(name: str, test: Callable[[str], bool]) -> Predicate:
    def pred(call: _HasValue) -> bool:
        v = call.value(name)
        if v is None:
            return False
        if isinstance(v, str):
            return test(v)
        return any(test(x) for x in v)

    return pred


def _negative(name: str, test: Callable[[str], bool]) -> Predicate:
    def pred(call: _HasValue) -> bool:
        v = call.value(name)
        if v is None:
            return False
        if isinstance(v, str):
            return not test(v)
        return not any(test(x) for x in v)

    return pred
