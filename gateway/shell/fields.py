"""How the words of a simple command come out of expansion, where tree-sitter's nodes are not bash's words.

- ``glue``: two argument nodes with nothing between them are one word (tree-sitter-bash splits
  `A=`cmd`:0` in two);
- ``split_fields``: after `IFS=:` an unquoted expansion splits on `:` too (`c=rm:-rf:/x; $c` runs `rm`);
- ``substituted``: a command substitution whose output is known before anything runs (`$(dirname "$0")`,
  `$(mktemp -d)`, `$(echo x)`) is replaced by it, as bash does.
"""

from __future__ import annotations

import re
from dataclasses import replace

from tree_sitter import Node

from gateway.shell.flow import Flow
from gateway.shell.syntax import text_of
from gateway.shell.words import Word


def glue(first: Word, second: Word) -> Word:
    """Two pieces of one shell word (no blank between them), as the word they make."""
    if first.target is not None or second.target is not None:
        return second if first.value == "" else first
    wild = first.wild if first.wild >= 0 else (len(first.value) + second.wild if second.wild >= 0 else -1)
    return Word(first.value + second.value, literal=first.literal and second.literal, wild=wild,
                subs=first.subs + second.subs, flow=first.flow.merge(second.flow),
                variables=first.variables + second.variables)


def unquoted_expansion(node: Node) -> bool:
    """A word that is (or starts with) an unquoted `$x`, `${x}` or `$(…)`: the shell splits its value on IFS."""
    if node.type == "command_name" and node.named_children:
        node = node.named_children[0]
    return node.type in ("simple_expansion", "expansion", "command_substitution")


def split_fields(word: Word, ifs: str) -> list[Word]:
    """A known value split on the non-blank characters of a changed IFS (blank ones split as usual)."""
    if not word.literal:
        return [word]
    fields = [f for f in re.split("[" + re.escape(ifs) + "]", word.value) if f]
    return [replace(word, value=f) for f in fields] or [word]


def substituted(word: Word, outputs: list[Flow]) -> Word | None:
    """The word with its command substitutions replaced by their output, when every output is text known
    before anything runs (`"$(dirname /a/b)/.."` → `/a/..`), like bash does; else None."""
    if word.variables or not word.subs or len(outputs) != len(word.subs):
        return None
    value = word.value
    for node, out in zip(word.subs, outputs, strict=True):
        text = out.script
        if node.type != "command_substitution" or text is None or out.opaque or out.payload or out.local_data \
                or out.secrets or out.processes:
            return None
        source = text_of(node)
        if source not in value or len(text) > 4096:
            return None
        value = value.replace(source, text.rstrip("\n"), 1)
    wild = min((i for i in (value.find(c) for c in "*?[") if i >= 0), default=-1)
    return replace(word, value=value, literal=True, wild=wild, subs=())
