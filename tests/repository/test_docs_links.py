"""The README and the pages under docs/ link only to files inside the repository, and
every link (and #anchor) resolves."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(page: Path) -> set[str]:
    headings = re.findall(r"(?m)^#+ (.+)$", page.read_text(encoding="utf-8"))
    return {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in headings}


def test_every_link_stays_in_the_repository_and_resolves() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    assert len(pages) >= 7
    checked = 0
    for page in pages:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            assert not target.startswith(("http://", "https://", "/", "file:")), f"{page.name}: {target}"
            path_part, _, anchor = target.partition("#")
            resolved = (page.parent / path_part).resolve() if path_part else page
            assert resolved.is_relative_to(ROOT), f"{page.name} links outside the repository: {target}"
            assert resolved.exists(), f"{page.name}: {target} does not exist"
            if anchor:
                assert anchor in _anchors(resolved), f"{page.name}: no heading #{anchor} in {resolved.name}"
            checked += 1
    assert checked >= 10


def test_the_quick_starts_say_where_to_run_and_about_gemini_trust() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    claude = readme[readme.index("## Quick start: Claude Code"):readme.index("## Quick start: Gemini CLI")]
    gemini = readme[readme.index("## Quick start: Gemini CLI"):readme.index("## Configuration")]
    assert "in the" in claude and "project folder" in claude and "uninstall" in claude
    assert "project folder" in gemini and "trust" in gemini and "trustedFolders.json" in gemini
