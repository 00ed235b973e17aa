"""Helpers shared by the shell-analysis test modules."""

from __future__ import annotations

from gateway.runnable import run_equivalent
from gateway.shell import ALL_CATEGORIES, ShellAnalysis, analyze

CWD = "/work/proj"
HOME = "/home/agent"
# Everything the default pack blocks or sends to approval; permission_change alone is normal work.
DANGEROUS = ALL_CATEGORIES - {"permission_change"}


def run(command: str, cwd: str | None = CWD) -> ShellAnalysis:
    return analyze(command, cwd, HOME)


# The workspace of the sealed corpora's agent (docs/security.md#measuring-generalisation), for the tests that
# close the classes they showed.
SHOP = "/home/agent/work/shop"


def shop_categories(command: str, files: tuple[tuple[str, str], ...] = ()) -> frozenset[str]:
    """The categories of ``command`` run in the corpora's workspace, with ``files`` as the hook attaches them."""
    return analyze(command, SHOP, HOME, files=files).categories


def written_categories(path: str, text: str) -> frozenset[str]:
    """What writing ``text`` to ``path`` (absolute) amounts to when it runs: the categories of the command that
    stands for running it (gateway/runnable.py), in the corpora's workspace. The file must be one that runs."""
    found = run_equivalent(path, text)
    assert found is not None, path
    return analyze(found[0], SHOP, HOME, files=found[1]).categories
