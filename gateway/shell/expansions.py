"""Word expansions that need no shell state: ANSI-C strings, tilde and brace expansion.

A word is handled as a list of segments ``(text, kind)``: quoted literal text, unquoted literal text
(where `~`, braces and glob characters are active), dynamic text whose value is unknowable (kept as
its source), and glob syntax tree-sitter parses as its own node.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

QUOTED = 0
UNQUOTED = 1
DYNAMIC = 2
GLOB = 3  # unquoted pattern syntax tree-sitter parses as its own node ({1..3}, extglobs)

Segment = tuple[str, int]

# Brace expansion is bounded: `{a,b}{a,b}…` grows exponentially, and eval can re-expand the result.
_MAX_BRACE_RESULTS = 32
_MAX_BRACE_WORD = 1024

_ANSI_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
                "e": "\x1b", "E": "\x1b", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def decode_ansi_c(body: str) -> str:
    """Decode the body of a bash ``$'…'`` string."""
    buf: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            buf.append(c)
            i += 1
            continue
        e = body[i + 1]
        i += 2
        if e in _ANSI_SIMPLE:
            buf.append(_ANSI_SIMPLE[e])
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            digits = ""
            while i < n and len(digits) < width and body[i] in "0123456789abcdefABCDEF":
                digits += body[i]
                i += 1
            if digits:
                code = int(digits, 16)
                buf.append(chr(code) if code <= 0x10FFFF else "\ufffd")
            else:
                buf.append("\\" + e)
        elif e in "01234567":
            digits = e
            while i < n and len(digits) < 3 and body[i] in "01234567":
                digits += body[i]
                i += 1
            buf.append(chr(int(digits, 8) & 0xFF))
        elif e == "c" and i < n:
            buf.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            buf.append("\\" + e)
    return "".join(buf)


def expand_tilde(segments: list[Segment], env: Mapping[str, str]) -> None:
    if not segments:
        return
    text, kind = segments[0]
    if kind != UNQUOTED or not text.startswith("~"):
        return
    slash = text.find("/")
    if slash < 0 and len(segments) > 1 and not segments[1][0].startswith("/"):
        return  # `~"x"`: quoted characters in the tilde-prefix disable expansion
    prefix = text if slash < 0 else text[:slash]
    rest = "" if slash < 0 else text[slash:]
    if prefix == "~":
        value = env.get("HOME")
    elif prefix == "~+":
        value = env.get("PWD")
    else:
        value = None  # ~user, ~-: unknowable here
    if value is None:
        segments[0] = (prefix, DYNAMIC)
        if rest:
            segments.insert(1, (rest, UNQUOTED))
    else:
        segments[0] = (value, QUOTED)
        if rest:
            segments.insert(1, (rest, UNQUOTED))


def expand_braces(segments: list[Segment]) -> list[list[Segment]]:
    for text, kind in segments:
        if kind == UNQUOTED and "{" in text:
            break
    else:
        return [segments]
    if sum(len(text) for text, _ in segments) > _MAX_BRACE_WORD:
        return [_brace_as_glob(segments)]
    atoms: list[Segment] = []
    for text, kind in segments:
        if kind == UNQUOTED:
            atoms.extend((c, UNQUOTED) for c in text)
        else:
            atoms.append((text, kind))
    results: list[list[Segment]] = []
    if not _brace(atoms, 0, results):
        return [_brace_as_glob(segments)]
    return results


def _brace(atoms: list[Segment], start: int, results: list[list[Segment]]) -> bool:
    """Append the brace expansions of ``atoms`` to ``results``; False when there are too many."""
    i = start
    n = len(atoms)
    while i < n:
        if atoms[i] != ("{", UNQUOTED):
            i += 1
            continue
        depth = 0
        commas: list[int] = []
        close = -1
        for j in range(i, n):
            if atoms[j][1] != UNQUOTED:
                continue
            ch = atoms[j][0]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    close = j
                    break
            elif ch == "," and depth == 1:
                commas.append(j)
        if close < 0:
            break
        if not commas:
            inner = "".join(t for t, _ in atoms[i + 1 : close])
            if ".." in inner:  # {a..z} sequence: unknowable without evaluating it
                sequence = "".join(t for t, _ in atoms[i : close + 1])
                atoms = [*atoms[:i], (sequence, GLOB), *atoms[close + 1 :]]
                n = len(atoms)
            i += 1
            continue
        bounds = [i, *commas, close]
        prefix, suffix = atoms[:i], atoms[close + 1 :]
        for a, b in itertools.pairwise(bounds):
            if not _brace(prefix + atoms[a + 1 : b] + suffix, i, results):
                return False
            if len(results) > _MAX_BRACE_RESULTS:
                return False
        return True
    results.append(atoms)
    return len(results) <= _MAX_BRACE_RESULTS


def _brace_as_glob(segments: list[Segment]) -> list[Segment]:
    return [(text, GLOB if kind == UNQUOTED and "{" in text else kind) for text, kind in segments]
