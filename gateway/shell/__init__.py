"""Shell command analysis with a real bash parser (tree-sitter-bash), docs/rules.md."""

from __future__ import annotations

from gateway.shell.analysis import ShellAnalysis, analyze
from gateway.shell.categories import ALL_CATEGORIES

__all__ = ["ALL_CATEGORIES", "ShellAnalysis", "analyze"]
