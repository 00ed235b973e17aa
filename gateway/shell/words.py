"""Literal values of shell words, computed from tree-sitter nodes.

Quote removal, backslash escapes, ANSI-C ``$'…'`` strings, tilde and brace expansion and variables
with a statically known value are applied (see ``expansions``); everything else (``$X`` with X unknown,
``$(cmd)``, ``$((…))``) stays dynamic and keeps its source text in ``Word.value`` so that a nested
script (``bash -c "rm -rf $D"``) can be re-parsed with the expansion still in place.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from tree_sitter import Node

from gateway.paths import resolve
from gateway.shell.expansions import (
    DYNAMIC,
    GLOB,
    QUOTED,
    UNQUOTED,
    Segment,
    decode_ansi_c,
    expand_braces,
    expand_tilde,
)
from gateway.shell.flow import EMPTY, Flow
from gateway.shell.syntax import text_of
from gateway.shell.targets import ALL, SOME, UNKNOWN, Target

_GLOB_CHARS = frozenset("*?[")
_SPECIAL = re.compile(r"[\\~{*?\[]")


# Not frozen: words are created for every argument and frozen dataclasses construct noticeably slower.
# Treat instances as immutable all the same (use ``dataclasses.replace``).
@dataclass(slots=True)
class Word:
    value: str  # literal value; dynamic parts keep their source text
    literal: bool = True  # no dynamic part
    wild: int = -1  # index where certainty ends (first glob char or dynamic part); -1: exact
    subs: tuple[Node, ...] = ()  # command/process substitutions inside (run by the walker)
    flow: Flow = EMPTY  # what those substitutions output
    target: Target | None = None  # for placeholders ({} of find -exec, xargs items)
    variables: tuple[str, ...] = ()  # variables with no static value the word expands

    @property
    def exact(self) -> bool:
        """The value is fully known and names exactly one thing."""
        return self.wild < 0 and self.target is None

    def tail(self, offset: int) -> Word:
        """The word without its first ``offset`` characters (``--out=FILE`` → ``FILE``)."""
        wild = self.wild - offset if self.wild >= offset else (-1 if self.wild < 0 else 0)
        return replace(self, value=self.value[offset:], wild=wild)


def literal_word(value: str) -> Word:
    return Word(value)


def placeholder(source: str, target: Target | None, flow: Flow | None = None) -> Word:
    """A word standing for items produced at run time (find results, xargs input: ``flow``)."""
    return Word(source, literal=False, wild=0, target=target or UNKNOWN, flow=flow or EMPTY)


def join_words(words: list[Word]) -> Word:
    """Words joined by spaces, as eval and `watch` do before handing them to a shell."""
    if not words:
        return Word("")
    value = " ".join(w.value for w in words)
    literal = all(w.literal for w in words)
    flow = EMPTY
    subs: tuple[Node, ...] = ()
    variables: tuple[str, ...] = ()
    for w in words:
        flow = flow.merge(w.flow)
        subs += w.subs
        variables += w.variables
    return Word(value, literal, -1 if literal else 0, subs, flow, variables=variables)


# ---------------------------------------------------------------------------------------------
# Evaluation


def evaluate(node: Node, env: Mapping[str, str]) -> list[Word]:
    """The word(s) a node expands to (brace expansion can yield several)."""
    if node.type == "word":
        text = text_of(node)
        if _SPECIAL.search(text) is None:
            return [Word(text)]
    elif node.type == "number":
        return [Word(text_of(node))]
    segments: list[Segment] = []
    subs: list[Node] = []
    names: list[str] = []
    _collect(node, env, segments, subs, names, quoted=False)
    expand_tilde(segments, env)
    return [_build(s, tuple(subs), tuple(names)) for s in expand_braces(segments)]


def evaluate_assignment_value(node: Node | None, env: Mapping[str, str]) -> Word:
    if node is None:
        return Word("")
    words = evaluate(node, env)
    if len(words) == 1:
        return words[0]
    return join_words(words)


def _collect(node: Node, env: Mapping[str, str], out: list[Segment], subs: list[Node], names: list[str],
             quoted: bool) -> None:
    kind = node.type
    if kind == "word":
        _unquoted(text_of(node), out, quoted)
    elif kind == "number":
        out.append((text_of(node), QUOTED if quoted else UNQUOTED))
    elif kind == "raw_string":
        out.append((text_of(node)[1:-1], QUOTED))
    elif kind == "ansi_c_string":
        out.append((decode_ansi_c(text_of(node)[2:-1]), QUOTED))
    elif kind in ("string", "translated_string"):
        for child in node.children:
            ctype = child.type
            if ctype == '"':
                continue
            if ctype == "string_content":
                out.append((_unescape_double(text_of(child)), QUOTED))
            elif child.is_named:
                _collect(child, env, out, subs, names, quoted=True)
            else:
                out.append((text_of(child), QUOTED))
    elif kind in ("concatenation", "command_name"):
        for child in node.children:
            _collect(child, env, out, subs, names, quoted)
    elif kind == "simple_expansion":
        _variable(node, _simple_name(node), True, env, out, names, quoted)
    elif kind == "expansion":
        _variable(node, _expansion_name(node), _is_plain_expansion(node), env, out, names, quoted)
        _find_subs(node, subs)
    elif kind in ("command_substitution", "process_substitution"):
        subs.append(node)
        out.append((text_of(node), DYNAMIC))
    elif kind in ("brace_expression", "extglob_pattern"):
        out.append((text_of(node), GLOB))
    elif kind == "$":
        # `$"…"` (translated string): tree-sitter emits the `$` as its own token.
        return
    elif not node.is_named and not node.is_error:
        out.append((text_of(node), QUOTED if quoted else UNQUOTED))
    else:
        # arithmetic expansions, errors and anything unexpected: unknowable.
        _find_subs(node, subs)
        out.append((text_of(node), DYNAMIC))


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


def _is_plain_expansion(node: Node) -> bool:
    # Only `${NAME}`; operators (`${X:-…}`, `${#X}`, `${X/a/b}`) make the value unknowable.
    named = node.named_children
    return len(named) == 1 and named[0].type == "variable_name" and node.child_count == 3


def _expansion_name(node: Node) -> str | None:
    for child in node.named_children:
        if child.type == "variable_name":
            return text_of(child)
    return None


def _variable(node: Node, name: str | None, plain: bool, env: Mapping[str, str], out: list[Segment],
              names: list[str], quoted: bool) -> None:
    value = env.get(name) if name is not None and plain else None
    if value is None:
        if name is not None:
            names.append(name)
        out.append((text_of(node), DYNAMIC))
    else:
        out.append((value, QUOTED if quoted else UNQUOTED))


def _unquoted(text: str, out: list[Segment], quoted: bool) -> None:
    if "\\" not in text:
        out.append((text, QUOTED if quoted else UNQUOTED))
        return
    buf: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if buf:
                out.append(("".join(buf), QUOTED if quoted else UNQUOTED))
                buf = []
            if nxt != "\n":  # backslash-newline is a line continuation
                out.append((nxt, QUOTED))
            i += 2
            continue
        buf.append(c)
        i += 1
    if buf:
        out.append(("".join(buf), QUOTED if quoted else UNQUOTED))


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


def _build(segments: list[Segment], subs: tuple[Node, ...], names: tuple[str, ...]) -> Word:
    parts: list[str] = []
    pos = 0
    wild = -1
    literal = True
    for text, kind in segments:
        if kind == DYNAMIC:
            literal = False
            if wild < 0:
                wild = pos
        elif kind == GLOB:
            if wild < 0:
                wild = pos
        elif kind == UNQUOTED and wild < 0:
            for idx, c in enumerate(text):
                if c in _GLOB_CHARS:
                    wild = pos + idx
                    break
        parts.append(text)
        pos += len(text)
    return Word("".join(parts), literal, wild, subs, variables=names)


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
    if word.flow.listing is not None and word.wild == 0 and len(word.subs) + len(word.variables) == 1:
        # `rm $(find . -name x)`, `for f in $(find …); do rm "$f"`: the names find prints.
        return word.flow.listing
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
    return value.rstrip("/").rsplit("/", 1)[-1] or value
