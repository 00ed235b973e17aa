"""Helpers shared by the shell-analysis test modules."""

from __future__ import annotations

import shlex
from collections.abc import Callable

import pytest

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


def python_c(code: str) -> str:
    """`python3 -c CODE` as a shell command (real new lines inside single quotes, as an agent writes it)."""
    return "python3 -c " + shlex.quote(code)


def node_e(code: str) -> str:
    return "node -e " + shlex.quote(code)


def shop_categories(command: str, files: tuple[tuple[str, str], ...] = ()) -> frozenset[str]:
    """The categories of ``command`` run in the corpora's workspace, with ``files`` as the hook attaches them."""
    return analyze(command, SHOP, HOME, files=files).categories


def written_categories(path: str, text: str) -> frozenset[str]:
    """What writing ``text`` to ``path`` (absolute) amounts to when it runs: the categories of the command that
    stands for running it (gateway/runnable.py), in the corpora's workspace. The file must be one that runs."""
    found = run_equivalent(path, text)
    assert found is not None, path
    return analyze(found[0], SHOP, HOME, files=found[1]).categories


def class_tests(flagged: dict[str, str], look_alikes: list[str]) -> tuple[Callable[[str], None], Callable[[str], None]]:
    """The two tests every generalisation module runs over its own tables: each command of a class is flagged
    with its category, and each harmless look-alike stays clean. Bind them under test names in the module."""

    @pytest.mark.parametrize("command", list(flagged))
    def each_class_is_flagged(command: str) -> None:
        assert flagged[command] in shop_categories(command), shop_categories(command)

    @pytest.mark.parametrize("command", look_alikes)
    def the_look_alikes_stay_clean(command: str) -> None:
        assert shop_categories(command) == frozenset(), shop_categories(command)

    return each_class_is_flagged, the_look_alikes_stay_clean
