"""File-scope globs: matching and glob-against-glob overlap, checked against an independent regex reading
of the same rules and against brute force over small paths."""

from __future__ import annotations

import itertools
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acteon_core.globs import ScopeError, check_glob, in_scope, matches, overlap, scopes_overlap


def as_regex(glob: str) -> re.Pattern[str]:
    """The glob as a regular expression: an independent statement of the rules acteon_core.globs implements
    with its own automaton, so the two can be checked against each other."""
    if (problem := check_glob(glob)) is not None:
        raise ScopeError(f"scope glob {glob!r} {problem}")
    parts = glob.rstrip("/").split("/")
    out = ""
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out += ".*" if (last and i == 0) else "(?:/.*)?" if last else ("/" if i > 0 else "") + "(?:.*/)?"
            continue
        if i > 0 and parts[i - 1] != "**":
            out += "/"
        out += "".join("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch) for ch in part)
    return re.compile(out)


@pytest.mark.parametrize(("glob", "path", "expected"), [
    ("src/**", "src", True),  # dir/** includes dir itself
    ("src/**", "src/a/b.py", True),
    ("src/**", "srcx/a.py", False),
    ("src/*", "src/a.py", True),
    ("src/*", "src/a/b.py", False),  # * stays within one segment
    ("a/**/b", "a/b", True),
    ("a/**/b", "a/x/y/b", True),
    ("a/**/b", "ab", False),
    ("**/*.py", "x.py", True),
    ("**/*.py", "deep/er/x.py", True),
    ("*.py", "d/x.py", False),
    ("s?c", "src", True),
    ("s?c", "s/c", False),  # ? never matches a separator
    ("**", "any/thing", True),
    ("docs/[a].md", "docs/[a].md", True),  # brackets are ordinary characters
    ("docs/[a].md", "docs/a.md", False),
])
def test_match(glob: str, path: str, expected: bool) -> None:
    assert matches(glob, path) is expected
    assert bool(as_regex(glob).fullmatch(path)) is expected


@pytest.mark.parametrize(("a", "b", "overlapping"), [
    ("src/**", "src/*.py", True),
    ("src/**", "docs/**", False),
    ("**/*.md", "docs/*", True),
    ("a/*", "a/b/c", False),
    ("*.py", "*.md", False),
    ("src/api/**", "src/**", True),
    ("src/a?.py", "src/*b.py", True),
    ("tests/test_*.py", "tests/conftest.py", False),
    ("**", "x", True),
    ("lib/**/util.py", "lib/x/**", True),
    ("a/**/z", "b/**/z", False),
])
def test_overlap_both_directions_with_a_witness(a: str, b: str, overlapping: bool) -> None:
    for x, y in ((a, b), (b, a)):
        witness = overlap(x, y)
        assert (witness is not None) is overlapping
        if witness is not None:  # the witness is a real path both match
            assert as_regex(x).fullmatch(witness) and as_regex(y).fullmatch(witness)


def test_scopes_name_the_overlapping_pair() -> None:
    assert scopes_overlap(["docs/**", "src/a.py"], ["src/*.py"]) == ("src/a.py", "src/*.py", "src/a.py")
    assert scopes_overlap(["docs/**"], ["src/**", "README.md"]) is None
    assert in_scope(["docs/**", "README.md"], "README.md") and not in_scope(["docs/**"], "src/x")


@pytest.mark.parametrize("bad", ["", "/etc/**", "../x", "a/../b", "a//b", "a/**b", "x\\y", "./a", "a" * 600])
def test_bad_globs_are_refused_with_a_reason(bad: str) -> None:
    assert check_glob(bad) is not None
    with pytest.raises(ScopeError):
        matches(bad, "a")


# Small alphabets make collisions likely, so both answers get exercised.
_SEGMENT = (st.lists(st.sampled_from(["a", "b", "*", "?"]), min_size=1, max_size=3).map("".join)
            .filter(lambda s: "**" not in s))
_GLOB = st.lists(st.one_of(_SEGMENT, st.just("**")), min_size=1, max_size=3).map("/".join)
_PATHS = ["/".join(p) for n in (1, 2, 3) for p in itertools.product(["a", "b", "ab", "ba", "aa", "c"], repeat=n)]


@settings(max_examples=300, deadline=None)
@given(_GLOB, _GLOB)
def test_overlap_agrees_with_brute_force(a: str, b: str) -> None:
    witness = overlap(a, b)
    ra, rb = as_regex(a), as_regex(b)
    if witness is not None:
        assert ra.fullmatch(witness) and rb.fullmatch(witness), witness
    else:
        assert not any(ra.fullmatch(p) and rb.fullmatch(p) for p in _PATHS)
    for p in _PATHS[:60]:
        assert matches(a, p) == bool(ra.fullmatch(p))


def test_pathological_globs_are_bounded() -> None:
    a = "/".join(["*a*"] * 40)[:500]
    b = "/".join(["**", "*b*"] * 20)[:500]
    started = time.perf_counter()
    overlap(a, b)
    assert time.perf_counter() - started < 5
