"""Read rule-pack YAML with bounds: size, nesting depth and aliases are checked before PyYAML builds
anything, so a hostile or broken pack is a clear error, never a 500 or a blow-up.

PyYAML's parser is recursive (a deeply nested flow collection exhausts the interpreter's stack) and it
expands aliases by reference (a "billion laughs" document is small until something walks it — the
version hash, validation, an error message echoing it). Its *scanner* is an iterative state machine,
so one pass over the tokens measures depth and counts aliases cheaply and safely first.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_YAML_BYTES = 256 * 1024
MAX_DEPTH = 32  # collections inside one another (a rule is ~4 deep; conditions add a few)
MAX_ALIASES = 64  # `*anchor` references: reuse is fine, amplification is not
MAX_VALUES = 50_000  # values in the document once aliases are expanded (a 1,000-rule pack is ~20,000)

_OPEN = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken, yaml.FlowMappingStartToken,
         yaml.FlowSequenceStartToken)
_CLOSE = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)


class YamlLimit(ValueError):
    """The text is over one of this module's bounds; the message says which."""


def load(text: str) -> Any:
    """``yaml.safe_load`` within the bounds above. Raises :class:`YamlLimit` or ``yaml.YAMLError``."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_YAML_BYTES:
        raise YamlLimit(f"YAML is {size:,} bytes, over the limit of {MAX_YAML_BYTES:,}")
    depth = aliases = 0
    for token in yaml.scan(text, Loader=yaml.SafeLoader):
        if isinstance(token, _OPEN):
            depth += 1
            if depth > MAX_DEPTH:
                raise YamlLimit(f"YAML nested more than {MAX_DEPTH} levels deep (line {token.start_mark.line + 1})")
        elif isinstance(token, _CLOSE):
            depth -= 1
        elif isinstance(token, yaml.AliasToken):
            aliases += 1
            if aliases > MAX_ALIASES:
                raise YamlLimit(f"more than {MAX_ALIASES} YAML aliases (line {token.start_mark.line + 1})")
    doc = yaml.safe_load(text)
    problem = shape_problem(doc)
    if problem is not None:
        raise YamlLimit(problem)
    return doc


def shape_problem(value: Any) -> str | None:
    """What is wrong with the shape of parsed data (YAML, or a JSON body): nested deeper than
    ``MAX_DEPTH`` or, counting every alias expanded, more than ``MAX_VALUES`` values. Iterative, and
    stops at the budget, so a bomb costs at most ``MAX_VALUES`` steps."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    seen = 0
    while pending:
        item, level = pending.pop()
        seen += 1
        if seen > MAX_VALUES:
            return f"more than {MAX_VALUES:,} values once YAML aliases are expanded"
        if level > MAX_DEPTH:
            return f"nested more than {MAX_DEPTH} levels deep"
        if isinstance(item, dict):
            pending.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            pending.extend((v, level + 1) for v in item)
    return None
