"""The bash parser: tree-sitter-bash behind one module-level Parser.

tree-sitter parsers keep internal state while parsing, so concurrent calls from the gateway's thread
pool are serialized; a parse takes microseconds, the lock is never contended for long.
"""

from __future__ import annotations

import threading

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

_LANGUAGE = Language(tree_sitter_bash.language())
_PARSER = Parser(_LANGUAGE)
_LOCK = threading.Lock()


def parse(text: str) -> Node:
    """Parse ``text`` as a bash script and return the root node (errors are marked, never raised)."""
    # Lone surrogates can arrive from JSON; keep them as bytes rather than failing the encode.
    source = text.encode("utf-8", "surrogatepass")
    with _LOCK:
        tree = _PARSER.parse(source)
    return tree.root_node


def text_of(node: Node) -> str:
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""
