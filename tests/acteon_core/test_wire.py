"""The hook's JSON codec over ``_json`` agrees with the standard ``json`` module."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acteon_core import wire

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@given(JSON)
def test_round_trip_matches_the_standard_module(value) -> None:
    text = wire.dumps(value)
    assert json.loads(text) == value
    assert wire.loads(text) == value
    assert wire.loads(json.dumps(value, indent=2)) == value


@pytest.mark.parametrize("bad", ["", "{bad", "[1,", '{"a":1} x', "nul", '"unterminated', "{'a': 1}", "\x00"])
def test_malformed_input_is_a_decode_error(bad) -> None:
    with pytest.raises(wire.DecodeError):
        wire.loads(bad)


@given(st.text())
def test_arbitrary_text_never_escapes_as_another_exception(text) -> None:
    with contextlib.suppress(wire.DecodeError):
        wire.loads(text)
