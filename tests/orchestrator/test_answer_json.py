"""The one reader of a JSON object in a model's answer (the planner, lens members and mergers, the
challenger all go through it)."""

from __future__ import annotations

import time

import pytest

from orchestrator.engines.answer_json import expect_object, json_object


@pytest.mark.parametrize("text", [
    '{"plan": 1}',
    'Here it is:\n```json\n{"plan": 1}\n```\nThanks.',
    'Sure! {"plan": 1} Let me know if you need more.',
    'Sure! {"plan": 1} and by the way {"other": 2}',  # the first complete object
    '```json\n{"draft": 0}\n```\nCorrected:\n```json\n{"plan": 1}\n```',  # the last fence first
])
def test_the_object_is_found_wherever_the_model_put_it(text: str) -> None:
    assert json_object(text, lambda d: "plan" in d) == {"plan": 1}


def test_an_object_the_caller_does_not_accept_is_no_answer() -> None:
    assert json_object('{"questions": []}', lambda d: "findings" in d) is None
    with pytest.raises(ValueError, match="is not a findings list"):
        expect_object('{"questions": []}', lambda d: "findings" in d, wanted="a findings list")


@pytest.mark.parametrize(("text", "error"), [
    ("", "no JSON object"), ("I cannot do that.", "no JSON object"), ("[1, 2]", "expected a JSON object, got list"),
    ('{"a": ', "invalid JSON"),
])
def test_expect_object_says_what_is_wrong(text: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        expect_object(text)


def test_pathological_answers_are_refused_in_bounded_time() -> None:
    deep = "[" * 200_000 + "]" * 200_000
    braces = "{" * 100_000
    started = time.process_time()
    assert json_object(deep) is None and json_object(braces) is None
    with pytest.raises(ValueError):
        expect_object(deep)
    assert time.process_time() - started < 5.0
