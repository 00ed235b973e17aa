"""The refiner's answer grammar (docs/swarm.md): exactly one directive, parsed strictly; anything else is a
RefinerAnswerError with a reason a person can act on — and nothing else is ever raised."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.plan.model import ID_PATTERN
from orchestrator.refiner.answer import MAX_ANSWER_CHARS, Directive, RefinerAnswerError, parse_answer

ADD_JSON = '{"name": "check", "assigned_role": "reviewer",\n "subtasks": [{"name": "r", "prompt": "look"}]}'

VALID: list[tuple[str, Directive]] = [
    ("CONTINUE", Directive("continue")),
    ("  CONTINUE \n\n", Directive("continue")),
    ("continue", Directive("continue")),  # keywords are case-insensitive
    ("```\nCONTINUE\n```", Directive("continue")),
    ("```text\nCONTINUE\n```", Directive("continue")),
    ("```CONTINUE```", Directive("continue")),
    ("SKIP: a", Directive("skip", skip=("a",))),
    ("SKIP:a,b-2", Directive("skip", skip=("a", "b-2"))),
    ("Skip :  a ,  b.c  ", Directive("skip", skip=("a", "b.c"))),
    ("REPRIORITIZE: a=1, b=-5, c = +7", Directive("reprioritize", priorities=(("a", 1), ("b", -5), ("c", 7)))),
    ("reprioritize: a=1000000", Directive("reprioritize", priorities=(("a", 1_000_000),))),
    ("REPRIORITIZE: a=-0001000000", Directive("reprioritize", priorities=(("a", -1_000_000),))),
]


@pytest.mark.parametrize(("text", "expected"), VALID)
def test_valid_answers(text: str, expected: Directive) -> None:
    assert parse_answer(text) == expected


@pytest.mark.parametrize("text", [f"ADD: {ADD_JSON}", f"ADD:{ADD_JSON}\n", f"```json\nADD: {ADD_JSON}\n```",
                                  f"add:\n{ADD_JSON}"])
def test_add_takes_one_json_object_that_may_span_lines(text: str) -> None:
    d = parse_answer(text)
    assert d.action == "add" and d.task is not None
    assert d.task["assigned_role"] == "reviewer" and d.task["subtasks"][0]["prompt"] == "look"


INVALID: list[tuple[str, str]] = [
    ("", "empty answer"),
    ("  \n\t", "empty answer"),
    ("```\n\n```", "empty answer"),
    ("I think we should CONTINUE", "expected exactly one directive"),
    ("Sure! SKIP: a", "expected exactly one directive"),
    ("STOP", "expected exactly one directive"),
    ("CONTINUE.", "CONTINUE must be the whole answer"),
    ("CONTINUE because all is well", "CONTINUE must be the whole answer"),
    ("CONTINUE\nSKIP: a", "CONTINUE must be the whole answer"),
    ("SKIP: a\nCONTINUE", "single line"),
    ("SKIP: a\nREPRIORITIZE: b=1", "single line"),
    ("SKIP a", "must be followed by ':'"),
    ("SKIP", "must be followed by ':'"),
    ("SKIP:", "SKIP names no task"),
    ("SKIP: a,,b", "empty item"),
    ("SKIP: a,", "empty item"),
    ("SKIP: a, a", "names 'a' more than once"),
    ("SKIP: a b", "is not a task id"),
    ("SKIP: -a", "is not a task id"),
    ("SKIP: a; b", "is not a task id"),
    ("SKIP: " + "x" * 65, "is not a task id"),
    ("REPRIORITIZE: a", "expected id=N"),
    ("REPRIORITIZE: a=1.5", "expected id=N"),
    ("REPRIORITIZE: a=high", "expected id=N"),
    ("REPRIORITIZE: a=1_0", "expected id=N"),
    ("REPRIORITIZE: a=\u0661", "expected id=N"),  # an Arabic-Indic digit: int() would take it, we do not
    ("REPRIORITIZE: a=1000001", "between -1000000 and 1000000"),
    ("REPRIORITIZE: a=" + "9" * 5000, "between -1000000 and 1000000"),
    ("REPRIORITIZE: a=1, a=2", "names 'a' more than once"),
    ("REPRIORITIZE: =1", "expected id=N"),
    ("ADD: []", "one JSON object"),
    ("ADD: the reviewer should look", "one JSON object"),
    ("ADD:", "one JSON object"),
    ("ADD: {bad", "invalid JSON at line 1"),
    ('ADD: {"name": "x"} and also SKIP: a', "unexpected text after the task JSON"),
    ('ADD: {"name": "x"}\n{"name": "y"}', "unexpected text after the task JSON"),
    ('ADD: {"name": "x", "name": "y"}', "duplicate key 'name'"),
    ('ADD: {"priority": NaN}', "NaN is not allowed"),
    ('ADD: {"priority": Infinity}', "Infinity is not allowed"),
    ('ADD: {"a": ' + "[" * 9000 + "]" * 9000 + "}", "invalid JSON"),  # nesting beyond the recursion limit
    ("```\nCONTINUE", "unbalanced code fence"),
    ("CONTINUE\n```", "unbalanced code fence"),
    ("```", "unbalanced code fence"),
    ("```\nCONTINUE\n```\n```\nSKIP: a\n```", "more than one code fence"),
    ("````\nCONTINUE\n````", "expected exactly one directive"),
    ("x" * (MAX_ANSWER_CHARS + 1), "answer too long"),
]


@pytest.mark.parametrize(("text", "reason"), INVALID)
def test_invalid_answers_say_why(text: str, reason: str) -> None:
    with pytest.raises(RefinerAnswerError) as e:
        parse_answer(text)
    assert reason in str(e.value)
    assert len(str(e.value)) < 300  # short enough for the journal and the status view


def test_the_bound_applies_before_any_parsing() -> None:
    # A valid directive padded past the bound is still refused: the size check comes first.
    with pytest.raises(RefinerAnswerError, match="too long"):
        parse_answer("CONTINUE" + " " * MAX_ANSWER_CHARS)


def test_decision_is_frozen_and_its_task_read_only() -> None:
    d = parse_answer(f"ADD: {ADD_JSON}")
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.action = "skip"  # type: ignore[misc]
    with pytest.raises(TypeError):
        d.task["name"] = "other"  # type: ignore[index]
    assert parse_answer("REPRIORITIZE: a=3, b=4").priority_map() == {"a": 3, "b": 4}


# --- properties -----------------------------------------------------------------------------------

KEYWORDS = st.sampled_from(["CONTINUE", "SKIP", "REPRIORITIZE", "ADD", "skip", "Add", "```", "```json\n", ""])
SEPARATORS = st.sampled_from([":", " : ", "", "\n", ": {", ":[", "="])
JUNK = st.text(alphabet=st.characters(codec="utf-8"), max_size=200) | st.text(alphabet="{}[]\":,=-+0123456789 \n`aA",
                                                                               max_size=200)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=300), st.builds(lambda k, s, j, t: k + s + j + t, KEYWORDS, SEPARATORS, JUNK,
                                                  st.sampled_from(["", "\n```", "}", "```"]))))
def test_arbitrary_text_only_ever_raises_refiner_answer_error(text: str) -> None:
    try:
        d = parse_answer(text)
    except RefinerAnswerError:
        return
    assert d.action in ("continue", "skip", "reprioritize", "add")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.from_regex(ID_PATTERN, fullmatch=True), min_size=1, max_size=8, unique=True),
       st.sampled_from([",", ", ", " ,  "]), st.booleans())
def test_any_valid_id_list_round_trips(ids: list[str], sep: str, fenced: bool) -> None:
    text = "SKIP: " + sep.join(ids)
    if fenced:
        text = f"```\n{text}\n```"
    assert parse_answer(text).skip == tuple(ids)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.from_regex(ID_PATTERN, fullmatch=True), st.integers(-1_000_000, 1_000_000),
                       min_size=1, max_size=8))
def test_any_valid_priority_list_round_trips(prios: dict[str, int]) -> None:
    text = "REPRIORITIZE: " + ", ".join(f"{k}={v}" for k, v in prios.items())
    assert parse_answer(text).priority_map() == prios
