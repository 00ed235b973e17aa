"""The rule language: YAML packs, compiled conditions and the evaluation walk (docs/rules.md)."""

from gateway.rules.engine import Evaluation, evaluate
from gateway.rules.loader import Pack, RuleError, load_dir, load_rules, load_text, merge, parse
from gateway.rules.model import Rule

__all__ = [
    "Evaluation", "Pack", "Rule", "RuleError", "evaluate", "load_dir", "load_rules", "load_text", "merge", "parse",
]
