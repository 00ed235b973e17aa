"""The README's demo excerpt is cut from a real run (scripts/readme_excerpts.py): when the demo prints
something else, this fails until the excerpt is regenerated."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _excerpts():  # a script, not a package module: loaded from its path
    spec = importlib.util.spec_from_file_location("readme_excerpts", ROOT / "scripts" / "readme_excerpts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_readme_shows_what_the_demo_prints() -> None:
    ex = _excerpts()
    assert ex.normal(ex.current()) == ex.normal(ex.excerpt(ex.run_demo()))


def test_the_comparison_would_see_a_changed_line() -> None:
    ex = _excerpts()
    shown = ex.current()
    assert ex.normal(shown.replace("Suppressed: 1", "Suppressed: 0")) != ex.normal(shown)
    assert ex.normal(shown.replace("demo-", "demo-1")) != ex.normal(shown)
