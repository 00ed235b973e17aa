"""File-scope globs: which paths of a repository a task may write, and when two scopes overlap.

Part of the wire contract, like ``contract.py``: the orchestrator declares scopes in these globs and
decides which tasks may run together; the gateway enforces the same scopes on every write. One
implementation (standard library only) so that the two can never disagree about what a glob covers.

A scope is a list of globs relative to the repository root. ``*`` matches within one path segment,
``?`` one character of a segment, and ``**`` as a whole segment any number of segments (zero too), so
``src/**`` covers ``src`` itself and everything below it. Nothing else is special: brackets and braces
are ordinary characters (a scope is a list, so alternatives are separate entries).

Two scopes overlap when one path could be matched by a glob of each. That is decided exactly, glob
against glob, by searching the product of the two globs' automata for a common path (the witness is
returned, so an error can name a file both tasks could write). The alphabet is finite for the search:
every character written literally in either glob, ``/``, and one stand-in for "any other character",
which both automata treat alike.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Transitions read one character class: a literal character, NOT_SLASH (``*``, ``?``) or ANYTHING.
NOT_SLASH = "\x00ns"
ANYTHING = "\x00any"
_OTHER = "\x00other"  # stands for every character no glob names
MAX_GLOB = 512
MAX_GLOBS = 256


class ScopeError(ValueError):
    """A glob that cannot be a file scope (absolute, escaping the repository, empty, too long)."""


def check_glob(glob: str) -> str | None:
    """Why ``glob`` is not a valid scope entry, or None."""
    if not glob or not glob.strip():
        return "is empty"
    if len(glob) > MAX_GLOB:
        return f"is longer than {MAX_GLOB} characters"
    if glob.startswith("/"):
        return "is absolute: scopes are relative to the repository root"
    if "\\" in glob or "\x00" in glob:
        return "contains a backslash or NUL"
    parts = glob.rstrip("/").split("/")
    if any(p in ("..", ".") for p in parts):
        return "contains '.' or '..'"
    if any(p == "" for p in parts):
        return "contains an empty segment ('//')"
    if any("**" in p and p != "**" for p in parts):
        return "uses '**' inside a segment: write it as a whole segment ('dir/**', '**/name')"
    return None


@dataclass(frozen=True)
class _Nfa:
    # moves[state] = ((class, next), ...); eps[state] = (next, ...); accepting state = len(moves) - 1
    moves: tuple[tuple[tuple[str, int], ...], ...]
    eps: tuple[tuple[int, ...], ...]
    literals: frozenset[str]

    @property
    def accept(self) -> int:
        return len(self.moves) - 1


@functools.lru_cache(maxsize=4096)
def _compile(glob: str) -> _Nfa:
    problem = check_glob(glob)
    if problem is not None:
        raise ScopeError(f"scope glob {glob!r} {problem}")
    moves: list[list[tuple[str, int]]] = [[]]
    eps: list[list[int]] = [[]]
    literals: set[str] = set()

    def new() -> int:
        moves.append([])
        eps.append([])
        return len(moves) - 1

    state = 0
    parts = glob.rstrip("/").split("/")
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            if last and i == 0:  # "**": anything at all
                loop = new()
                eps[state].append(loop)
                moves[loop].append((ANYTHING, loop))
                state = loop
            elif last:  # "dir/**": dir itself, or "/" and anything below it
                end, body = new(), new()
                eps[state].append(end)
                moves[state].append(("/", body))
                moves[body].append((ANYTHING, body))
                eps[body].append(end)
                state = end
            else:  # "**/x" or "a/**/x": zero or more whole segments, each followed by "/"
                if i > 0:
                    nxt = new()
                    moves[state].append(("/", nxt))
                    state = nxt
                end, body = new(), new()
                eps[state].append(end)
                moves[state].append((ANYTHING, body))
                moves[body].append((ANYTHING, body))
                moves[body].append(("/", end))
                state = end
            continue
        if i > 0 and parts[i - 1] != "**":
            nxt = new()
            moves[state].append(("/", nxt))
            literals.add("/")
            state = nxt
        for ch in part:
            if ch == "*":
                loop = new()
                eps[state].append(loop)
                moves[loop].append((NOT_SLASH, loop))
                state = loop
            else:
                nxt = new()
                moves[state].append((NOT_SLASH if ch == "?" else ch, nxt))
                if ch != "?":
                    literals.add(ch)
                state = nxt
    # Make the final state the last one, so `accept` needs no bookkeeping.
    if state != len(moves) - 1:
        final = new()
        eps[state].append(final)
    return _Nfa(tuple(tuple(m) for m in moves), tuple(tuple(e) for e in eps), frozenset(literals))


def _closure(nfa: _Nfa, states: Iterable[int]) -> frozenset[int]:
    seen = set(states)
    stack = list(seen)
    while stack:
        for nxt in nfa.eps[stack.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return frozenset(seen)


def _accepts(cls: str, ch: str) -> bool:
    if cls == ANYTHING:
        return True
    if cls == NOT_SLASH:
        return ch != "/"
    return cls == ch


def _step(nfa: _Nfa, states: frozenset[int], ch: str) -> frozenset[int]:
    return _closure(nfa, (nxt for s in states for cls, nxt in nfa.moves[s] if _accepts(cls, ch)))


def matches(glob: str, path: str) -> bool:
    """True when the repository-relative ``path`` is inside ``glob``."""
    nfa = _compile(glob)
    states = _closure(nfa, (0,))
    for ch in path.strip("/"):
        states = _step(nfa, states, ch)
        if not states:
            return False
    return nfa.accept in states


def overlap(a: str, b: str) -> str | None:
    """A path both globs match (the shortest), or None when no path can be in both."""
    x, y = _compile(a), _compile(b)
    alphabet = [*sorted(x.literals | y.literals | {"/"}), _OTHER]
    # The witness spells "any other character" as one that neither glob names.
    other = next(ch for ch in "xyzqjkXYZQJK0123456789_-" + "".join(map(chr, range(0xC0, 0x250)))
                 if ch not in x.literals and ch not in y.literals)
    # The search state also remembers whether the path so far ends in a segment character: a real path
    # neither starts nor ends with "/" nor holds "//", so "/" is only read after a segment character.
    start = (_closure(x, (0,)), _closure(y, (0,)), False)
    seen = {start}
    queue: deque[tuple[tuple[frozenset[int], frozenset[int], bool], str]] = deque([(start, "")])
    while queue:
        (sx, sy, in_segment), path = queue.popleft()
        if in_segment and x.accept in sx and y.accept in sy:
            return path
        for ch in alphabet:
            if ch == "/" and not in_segment:
                continue
            nx = _step(x, sx, ch)
            ny = _step(y, sy, ch) if nx else frozenset()
            state = (nx, ny, ch != "/")
            if nx and ny and state not in seen:
                seen.add(state)
                queue.append((state, path + (other if ch == _OTHER else ch)))
    return None


def scopes_overlap(a: Sequence[str], b: Sequence[str]) -> tuple[str, str, str] | None:
    """The first pair of globs (one of each scope) that overlap, with a path both match; None if disjoint."""
    for ga in a:
        for gb in b:
            witness = overlap(ga, gb)
            if witness is not None:
                return ga, gb, witness
    return None


def in_scope(scope: Sequence[str], path: str) -> bool:
    return any(matches(g, path) for g in scope)
