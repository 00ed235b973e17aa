"""Literal values of shell words, computed from tree-sitter nodes.

A word is built from segments: quoted literal text, unquoted literal text (where glob characters and
braces are active) and dynamic parts whose value cannot be known statically (``$X`` with X unknown,
``$(cmd)``, ``$((…))``). Quote removal, backslash escapes, ANSI-C ``$'…'`` strings, tilde and brace
expansion and variables with a statically known value are applied; everything else stays dynamic and
keeps its source text in ``Word.value`` so that a nested script (``bash -c "rm -rf $D"``) can be
re-parsed with the expansion still in place.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, replace

from tree_sitter import Node

from gateway.paths import resolve
from gateway.shell.flow import EMPTY, Flow
from gateway.shell.syntax import text_of
from gateway.shell.targets import ALL, SOME, UNKNOWN, Target

_QUOTED = 0
_UNQUOTED = 1
_DYNAMIC = 2
_GLOB = 3  # unquoted pattern syntax tree-sitter parses as its own node ({1..3}, extglobs)

_GLOB_CHARS = frozenset("*?[")
_SPECIAL = frozenset("\\~{*?[")
_MAX_BRACE_RESULTS = 32
_MAX_BRACE_WORD = 1024

Segment = tuple[str, int]


@dataclass(frozen=True, slots=True)
class Word:
    value: str  # literal value; dynamic parts keep their source text
    literal: bool = True  # no dynamic part
    wild: int = -1  # index where certainty ends (first glob char or dynamic part); -1: exact
    subs: tuple[Node, ...] = ()  # command/process substitutions inside (run by the walker)
    flow: Flow = EMPTY  # what those substitutions output
    target: Target | None = None  # for placeholders ({} of find -exec, xargs items)

    @property
    def exact(self) -> bool:
        """The value is fully known and names exactly one thing."""
        return self.wild < 0 and self.target is None

    @property
    def glob(self) -> bool:
        return self.literal and self.wild >= 0

    def tail(self, offset: int) -> Word:
        """The word without its first ``offset`` characters (``--out=FILE`` → ``FILE``)."""
        wild = self.wild - offset if self.wild >= offset else (-1 if self.wild < 0 else 0)
        return replace(self, value=self.value[offset:], wild=wild)


def literal_word(value: str) -> Word:
    return Word(value)


def placeholder(source: str, target: Target | None) -> Word:
    """A word standing for items produced at run time (find results, xargs input)."""
    return Word(source, literal=False, wild=0, target=target or UNKNOWN)


def join_words(words: list[Word]) -> Word:
    """Words joined by spaces, as eval and `watch` do before handing them to a shell."""
    if not words:
        return Word("")
    value = " ".join(w.value for w in words)
    literal = all(w.literal for w in words)
    flow = EMPTY
    subs: tuple[Node, ...] = ()
    for w in words:
        flow = flow.merge(w.flow)
        subs += w.subs
    return Word(value, literal, -1 if literal else 0, subs, flow)


# ---------------------------------------------------------------------------------------------
# Evaluation


def evaluate(node: Node, env: Mapping[str, str]) -> list[Word]:
    """The word(s) a node expands to (brace expansion can yield several)."""
    if node.type == "word":
        text = text_of(node)
        if not any(c in _SPECIAL for c in text):
            return [Word(text)]
    elif node.type == "number":
        return [Word(text_of(node))]
    segments: list[Segment] = []
    subs: list[Node] = []
    _collect(node, env, segments, subs, quoted=False)
    _expand_tilde(segments, env)
    return [_build(s, tuple(subs)) for s in _expand_braces(segments)]


def evaluate_assignment_value(node: Node | None, env: Mapping[str, str]) -> Word:
    if node is None:
        return Word("")
    words = evaluate(node, env)
    if len(words) == 1:
        return words[0]
    return join_words(words)


def _collect(node: Node, env: Mapping[str, str], out: list[Segment], subs: list[Node], quoted: bool) -> None:
    kind = node.type
    if kind == "word":
        _unquoted(text_of(node), out, quoted)
    elif kind == "number":
        out.append((text_of(node), _QUOTED if quoted else _UNQUOTED))
    elif kind == "raw_string":
        out.append((text_of(node)[1:-1], _QUOTED))
    elif kind == "ansi_c_string":
        out.append((decode_ansi_c(text_of(node)[2:-1]), _QUOTED))
    elif kind in ("string", "translated_string"):
        for child in node.children:
            ctype = child.type
            if ctype == '"':
                continue
            if ctype == "string_content":
                out.append((_unescape_double(text_of(child)), _QUOTED))
            elif child.is_named:
                _collect(child, env, out, subs, quoted=True)
            else:
                out.append((text_of(child), _QUOTED))
    elif kind == "concatenation":
        for child in node.children:
            _collect(child, env, out, subs, quoted)
    elif kind == "simple_expansion":
        _variable(node, _simple_name(node), env, out, quoted)
    elif kind == "expansion":
        _variable(node, _plain_expansion_name(node), env, out, quoted)
        _find_subs(node, subs)
    elif kind in ("command_substitution", "process_substitution"):
        subs.append(node)
        out.append((text_of(node), _DYNAMIC))
    elif kind in ("brace_expression", "extglob_pattern"):
        out.append((text_of(node), _GLOB))
    elif kind == "$":
        # `$"…"` (translated string): tree-sitter emits the `$` as its own token.
        return
    elif not node.is_named and not node.is_error:
        out.append((text_of(node), _QUOTED if quoted else _UNQUOTED))
    else:
        # arithmetic expansions, errors and anything unexpected: unknowable.
        _find_subs(node, subs)
        out.append((text_of(node), _DYNAMIC))


def _find_subs(node: Node, subs: list[Node]) -> None:
    for child in node.children:
        if child.type in ("command_substitution", "process_substitution"):
            subs.append(child)
        elif child.child_count:
            _find_subs(child, subs)


def _simple_name(node: Node) -> str | None:
    for child in node.children:
        if child.type == "variable_name":
            return text_of(child)
    return None


def _plain_expansion_name(node: Node) -> str | None:
    # Only `${NAME}`; operators (`${X:-…}`, `${#X}`, `${X/a/b}`) make the value unknowable.
    named = node.named_children
    if len(named) == 1 and named[0].type == "variable_name" and node.child_count == 3:
        return text_of(named[0])
    return None


def _variable(node: Node, name: str | None, env: Mapping[str, str], out: list[Segment], quoted: bool) -> None:
    value = env.get(name) if name is not None else None
    if value is None:
        out.append((text_of(node), _DYNAMIC))
    else:
        out.append((value, _QUOTED if quoted else _UNQUOTED))


def _unquoted(text: str, out: list[Segment], quoted: bool) -> None:
    if "\\" not in text:
        out.append((text, _QUOTED if quoted else _UNQUOTED))
        return
    buf: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if buf:
                out.append(("".join(buf), _QUOTED if quoted else _UNQUOTED))
                buf = []
            if nxt != "\n":  # backslash-newline is a line continuation
                out.append((nxt, _QUOTED))
            i += 2
            continue
        buf.append(c)
        i += 1
    if buf:
        out.append(("".join(buf), _QUOTED if quoted else _UNQUOTED))


def _unescape_double(text: str) -> str:
    # Inside double quotes a backslash only escapes $ ` " \ and newline.
    if "\\" not in text:
        return text
    buf: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                buf.append(text[i + 1])
            i += 2
            continue
        buf.append(c)
        i += 1
    return "".join(buf)


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


def _expand_tilde(segments: list[Segment], env: Mapping[str, str]) -> None:
    if not segments:
        return
    text, kind = segments[0]
    if kind != _UNQUOTED or not text.startswith("~"):
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
        segments[0] = (prefix, _DYNAMIC)
        if rest:
            segments.insert(1, (rest, _UNQUOTED))
    else:
        segments[0] = (value, _QUOTED)
        if rest:
            segments.insert(1, (rest, _UNQUOTED))


def _expand_braces(segments: list[Segment]) -> list[list[Segment]]:
    if not any(kind == _UNQUOTED and "{" in text for text, kind in segments):
        return [segments]
    if sum(len(text) for text, _ in segments) > _MAX_BRACE_WORD:
        return [_brace_as_glob(segments)]
    atoms: list[Segment] = []
    for text, kind in segments:
        if kind == _UNQUOTED:
            atoms.extend((c, _UNQUOTED) for c in text)
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
        if atoms[i] != ("{", _UNQUOTED):
            i += 1
            continue
        depth = 0
        commas: list[int] = []
        close = -1
        for j in range(i, n):
            if atoms[j][1] != _UNQUOTED:
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
                atoms = atoms[:i] + [("".join(t for t, _ in atoms[i : close + 1]), _GLOB)] + atoms[close + 1 :]
                n = len(atoms)
            i += 1
            continue
        bounds = [i, *commas, close]
        prefix, suffix = atoms[:i], atoms[close + 1 :]
        for a, b in zip(bounds, bounds[1:], strict=False):
            if not _brace(prefix + atoms[a + 1 : b] + suffix, i, results):
                return False
            if len(results) > _MAX_BRACE_RESULTS:
                return False
        return True
    results.append(atoms)
    return len(results) <= _MAX_BRACE_RESULTS


def _brace_as_glob(segments: list[Segment]) -> list[Segment]:
    return [(text, _GLOB if kind == _UNQUOTED and "{" in text else kind) for text, kind in segments]


def _build(segments: list[Segment], subs: tuple[Node, ...]) -> Word:
    parts: list[str] = []
    pos = 0
    wild = -1
    literal = True
    for text, kind in segments:
        if kind == _DYNAMIC:
            literal = False
            if wild < 0:
                wild = pos
        elif kind == _GLOB:
            if wild < 0:
                wild = pos
        elif kind == _UNQUOTED and wild < 0:
            for idx, c in enumerate(text):
                if c in _GLOB_CHARS:
                    wild = pos + idx
                    break
        parts.append(text)
        pos += len(text)
    return Word("".join(parts), literal, wild, subs)


# ---------------------------------------------------------------------------------------------
# Words as paths


def locate(word: Word, cwd: str | None, cwd_known: bool, home: str) -> str | None:
    """Absolute path for a word used as a file name (glob and dynamic parts kept as text), or None."""
    if word.target is not None:
        return word.target.path
    value = word.value
    if not value:
        return None
    if not word.literal and word.wild == 0:
        return None
    if not value.startswith("/") and not cwd_known:
        return None
    return resolve(value, cwd, home)


def target_of(word: Word, cwd: str | None, cwd_known: bool, home: str) -> Target:
    """What deleting ``word`` removes."""
    if word.target is not None:
        return word.target
    value = word.value
    if not value:
        return UNKNOWN
    absolute = value.startswith("/")
    if not absolute and not cwd_known:
        return UNKNOWN
    if word.wild < 0:
        return Target(resolve(value, cwd, home))
    known = value[: word.wild]
    slash = known.rfind("/")
    directory = known[: slash + 1] if slash >= 0 else ""
    partial = known[slash + 1 :]
    if not word.literal:
        # An expansion can hold anything, including `..` components; after a fixed directory we
        # assume it names an entry of that directory.
        if not directory or partial in (".", ".."):
            return UNKNOWN
        return Target(resolve(directory, cwd, home), SOME)
    rest = value[len(directory) :]
    component, _, after = rest.partition("/")
    base = resolve(directory or ".", cwd, home)
    # Like bash, a glob only matches a leading dot when the pattern starts with a literal dot.
    hits_git = component.startswith(".") and fnmatch.fnmatchcase(".git", component)
    matches_all = not after.strip("/") and component.strip("*") == ""
    if matches_all:
        return Target(base, ALL, hits_git)
    return Target(base, SOME, hits_git)


def basename(value: str) -> str:
    return posixpath.basename(value.rstrip("/")) or value
