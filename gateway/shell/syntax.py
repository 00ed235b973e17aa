"""The bash parser: tree-sitter-bash behind one module-level Parser, hardened against its known bugs.

tree-sitter parsers keep internal state while parsing, so concurrent calls from the gateway's thread
pool are serialized; a parse takes microseconds, the lock is never contended for long.

Two upstream defects are worked around here (tree-sitter-bash 0.25):

* Its external scanner passes the lookahead code point to ``isdigit``/``isalpha``, which index a
  256-entry table: a character such as U+E0000 after ``{`` reads far out of bounds and crashes the
  process (tree-sitter-bash issue 337). Non-ASCII bytes are therefore replaced by ``x`` before
  parsing. Bash itself treats every non-ASCII character as an ordinary word character, so the tree has
  the same shape and the same byte offsets; node text is read from the original bytes instead.
* A command can run on past a newline (issue 347): ``a | b | c\nrm -rf /`` parses as ``c`` with the
  arguments ``rm -rf /``. See ``_swallowed_newlines``.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

_LANGUAGE = Language(tree_sitter_bash.language())
_PARSER = Parser(_LANGUAGE)
_LOCK = threading.Lock()

_MAX_REPAIRS = 16
# Nodes whose children are the words of one command: an unescaped newline between two of them ends
# the command in bash.
_COMMAND_NODES = frozenset({"command", "declaration_command", "unset_command", "redirected_statement"})
_MASK_NON_ASCII = bytes(range(128)) + b"x" * 128

# The unmasked source of the tree being walked (None when it was pure ASCII and node.text is exact).
_ORIGINAL: ContextVar[bytes | None] = ContextVar("gateway_shell_original_source", default=None)


@dataclass(frozen=True, slots=True)
class Parsed:
    root: Node
    original: bytes | None  # the source before masking; None when nothing was masked


def parse(text: str) -> Parsed:
    """Parse ``text`` as a bash script (errors are marked in the tree, never raised)."""
    # Lone surrogates can arrive from JSON; keep them as bytes rather than failing the encode.
    original = text.encode("utf-8", "surrogatepass")
    multiline = b"\n" in original
    if not original.endswith(b"\n"):
        # A pipeline of three or more stages that ends the input sends tree-sitter-bash into a slow
        # search (~100 µs instead of ~8 µs); a final newline, which bash ignores, avoids it.
        original += b"\n"
    was_masked = not original.isascii()
    masked = original.translate(_MASK_NON_ASCII) if was_masked else original
    with _LOCK:
        tree = _PARSER.parse(masked)
        if multiline:
            # tree-sitter-bash can let a command swallow the next line; such a newline is a command
            # separator in bash, and making it explicit with `;` gives bash's reading.
            for _ in range(_MAX_REPAIRS):
                newlines = _swallowed_newlines(tree.root_node, masked)
                if not newlines:
                    break
                for offset in sorted(newlines, reverse=True):
                    masked = masked[:offset] + b";" + masked[offset:]
                    original = original[:offset] + b";" + original[offset:]
                tree = _PARSER.parse(masked)
    return Parsed(tree.root_node, original if was_masked else None)


@contextmanager
def reading(parsed: Parsed) -> Iterator[Node]:
    """Make ``text_of`` return the original text of ``parsed``'s nodes while walking it."""
    token = _ORIGINAL.set(parsed.original)
    try:
        yield parsed.root
    finally:
        _ORIGINAL.reset(token)


def _swallowed_newlines(root: Node, source: bytes) -> list[int]:
    found: list[int] = []
    pending = [root]
    while pending:
        node = pending.pop()
        children = node.children
        if node.type in _COMMAND_NODES:
            for left, right in itertools.pairwise(children):
                start = left.end_byte
                gap = source[start : right.start_byte]
                index = gap.find(b"\n")
                while index >= 0:
                    if index == 0 or gap[index - 1 : index] != b"\\":
                        found.append(start + index)
                    index = gap.find(b"\n", index + 1)
        pending.extend(c for c in children if c.child_count)
    return found


def text_of(node: Node) -> str:
    original = _ORIGINAL.get()
    if original is not None:
        return original[node.start_byte : node.end_byte].decode("utf-8", "replace")
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""


def calls_itself_in_parallel(body: Node, name: str) -> bool:
    """A function body that runs the function itself in a pipeline or in the background."""

    def search(node: Node, parallel: bool) -> bool:
        children = node.children
        in_pipeline = node.type == "pipeline"
        for index, child in enumerate(children):
            backgrounded = index + 1 < len(children) and children[index + 1].type == "&"
            child_parallel = parallel or in_pipeline or backgrounded
            if child.type == "command":
                name_node = child.child_by_field_name("name")
                if child_parallel and name_node is not None and text_of(name_node) == name:
                    return True
            if child.child_count and search(child, child_parallel):
                return True
        return False

    return search(body, False)


def only_redirects(node: Node) -> bool:
    """A node made only of file redirections (`$(<file)`)."""
    children = node.named_children
    return bool(children) and all(c.type == "file_redirect" for c in children)
