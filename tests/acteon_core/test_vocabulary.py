"""One owner for every vocabulary: the Literal types of acteon_core.vocabulary agree with the wire contract's
strings, and no module of the gateway or the orchestrator spells one of them out again (a copy drifts: a
new task state added in one place and not the other was a real bug class)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import get_args

from acteon_core import contract as c
from acteon_core import vocabulary as v
from tests.support import ROOT

VOCABULARIES = {
    "TaskStatus": set(get_args(v.TaskStatus)),
    "RunStatus": set(get_args(v.RunStatus)),
    "ActionType": set(get_args(v.ActionType)),
    "Outcome": set(get_args(v.Outcome)),
    "ApprovalStatus": set(get_args(v.ApprovalStatus)),
}


def test_the_literal_types_are_the_contracts_strings() -> None:
    assert get_args(v.ActionType) == c.ACTION_TYPES
    assert get_args(v.Outcome) == c.OUTCOMES
    assert get_args(v.ApprovalStatus) == c.APPROVAL_STATUSES
    assert set(c.OUTCOMES) >= c.ALLOWED_OUTCOMES
    assert v.DEAD_ENDS | {"done"} == v.TERMINAL and "parked" not in v.TERMINAL
    assert set(get_args(v.TaskEnd)) <= v.TERMINAL
    assert set(get_args(v.ReportedState)) == VOCABULARIES["TaskStatus"] | VOCABULARIES["RunStatus"] | {"started"}


def test_every_tool_name_belongs_to_one_group_of_a_known_action() -> None:
    names = Counter(name for _, group in v.TOOL_GROUPS for name in group)
    assert [n for n, k in names.items() if k > 1] == []
    assert {action for action, _ in v.TOOL_GROUPS} <= set(c.ACTION_TYPES)
    assert {n for n, a in v.TOOL_ACTIONS.items() if a == c.EXECUTE_COMMAND} == set(c.SHELL_TOOLS)
    assert {"Write", "Edit", "write_file", "replace"} <= v.FILE_WRITING_TOOLS
    assert not v.FILE_WRITING_TOOLS & {"Bash", "Read", "run_shell_command"}


def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _copies(path: Path) -> list[str]:
    """Literal types that share three or more members with a vocabulary, and collections that are exactly one."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
            members = _strings(node.slice)
            found += [f"{path.relative_to(ROOT)}:{node.lineno}: Literal copies {name}"
                      for name, vocab in VOCABULARIES.items() if len(members & vocab) >= 3]
        elif isinstance(node, ast.Tuple | ast.Set | ast.List) and len(node.elts) >= 3:
            members = _strings(node)
            if len(members) == len(node.elts):
                found += [f"{path.relative_to(ROOT)}:{node.lineno}: a collection copies {name}"
                          for name, vocab in VOCABULARIES.items() if members == vocab]
    return found


def test_no_module_spells_a_vocabulary_out_again() -> None:
    sources = [p for pkg in ("gateway", "orchestrator", "hook") for p in (ROOT / pkg).rglob("*.py")]
    assert sources
    copies = [line for path in sources for line in _copies(path)]
    assert copies == [], "use acteon_core.vocabulary instead:\n" + "\n".join(copies)


def test_the_scan_finds_a_copy() -> None:
    """The check above can fail: a module that re-declares task states is caught."""
    probe = ROOT / "tests" / "acteon_core" / "_probe_copy.py"
    probe.write_text('from typing import Literal\nState = Literal["pending", "running", "done", "weird"]\n')
    try:
        assert _copies(probe) == ["tests/acteon_core/_probe_copy.py:2: Literal copies TaskStatus"]
    finally:
        probe.unlink()
