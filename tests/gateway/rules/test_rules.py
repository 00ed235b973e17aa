"""The rule language: condition grammar, load-time validation naming file and rule, walk order."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gateway.rules import RuleError, evaluate, load_dir, load_rules, load_text, merge
from gateway.rules.conditions import compile_condition
from tests.support import ROOT


@dataclass
class FakeCall:
    fields: dict[str, object] = field(default_factory=dict)

    def value(self, name: str):  # type: ignore[no-untyped-def]
        v = self.fields.get(name)
        return tuple(v) if isinstance(v, list) else v


CALL = FakeCall({"action_type": "execute_command", "tool": "Bash", "target": "rm -rf build",
                 "category": ["destructive_delete", "package_install"], "path": ["/w/build", "/w/dist"],
                 "executable": ["rm"], "role": "coder"})


@pytest.mark.parametrize(
    ("when", "expected"),
    [
        (None, True),
        ({}, True),
        ({"action_type": "execute_command"}, True),
        ({"action_type": "write_file"}, False),
        ({"action_type": ["write_file", "execute_command"]}, True),
        ({"category": "package_install"}, True),
        ({"category": ["git_push", "package_install"]}, True),
        ({"category": ["git_push"]}, False),
        ({"category": {"not_in": ["git_push"]}}, True),
        ({"category": {"not_in": ["package_install"]}}, False),
        ({"category": {"ne": "git_push"}}, True),
        ({"target": {"matches": "^rm\\b"}}, True),
        ({"target": {"starts_with": "rm"}, "tool": {"eq": "Bash"}}, True),
        ({"target": {"contains": "-rf"}}, True),
        ({"path": {"glob": "/w/*"}}, True),
        ({"path": {"glob": ["/etc/*", "/usr/*"]}}, False),
        ({"host": {"exists": True}}, False),
        ({"host": {"exists": False}}, True),
        ({"host": "example.com"}, False),
        ({"host": {"ne": "example.com"}}, False),  # a missing value never matches
        ({"role": {"in": ["coder", "reviewer"]}}, True),
        ({"not": {"role": "coder"}}, False),
        ({"any": [{"role": "x"}, {"tool": "Bash"}]}, True),
        ({"all": [{"role": "coder"}, {"tool": "Write"}]}, False),
        ({"target": {"gt": 5}}, False),  # not a number: no match, no error
    ],
)
def test_condition_grammar(when, expected) -> None:
    assert compile_condition(when)(CALL) is expected


def test_numeric_operators() -> None:
    call = FakeCall({"agent_id": "42"})
    assert compile_condition({"agent_id": {"gt": 41, "lt": 43}})(call)
    assert not compile_condition({"agent_id": {"gt": 42}})(call)


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({"name": "x", "priority": 1, "action": "allow", "when": {"colour": "red"}}, "unknown field 'colour'"),
        ({"name": "x", "priority": 1, "action": "allow", "when": {"tool": {"like": "B"}}}, "unknown operator 'like'"),
        ({"name": "x", "priority": 1, "action": "allow", "when": {"tool": {"matches": "("}}}, "bad regex"),
        ({"name": "x", "priority": "1", "action": "allow"}, "priority"),
        ({"name": "x", "priority": 1, "action": "explode"}, "action"),
        ({"name": "Not_Kebab", "priority": 1, "action": "allow"}, "kebab-case"),
        ({"name": "x", "priority": 1, "action": "throttle", "limit": 3}, "needs 'window_s'"),
        ({"name": "x", "priority": 1, "action": "allow", "limit": 3}, "'limit' does not apply"),
        ({"name": "x", "priority": 1, "action": "allow", "colour": 3}, "unknown key 'colour'"),
        ({"name": "x", "priority": 1, "action": "deduplicate", "ttl_s": 5, "scope": "galaxy"}, "scope"),
        ({"name": "x", "priority": 1, "action": "allow", "when": {"all": []}}, "non-empty list"),
        ({"name": "x", "priority": 1, "action": "allow", "when": {"tool": {"in": "Bash"}}}, "non-empty list"),
        ({"name": "x", "priority": 1, "action": "allow", "when": {"tool": {"exists": "yes"}}}, "true or false"),
        ({"name": "x", "priority": 1, "action": "reroute", "reroute": {}}, "at least one"),
        ("just a string", "a rule is a mapping"),
    ],
)
def test_load_errors_name_file_and_rule(rule, message) -> None:
    with pytest.raises(RuleError) as e:
        load_rules([rule], "pack.yaml")
    text = str(e.value)
    assert text.startswith("pack.yaml: ") and message in text


def test_all_errors_are_reported_at_once() -> None:
    with pytest.raises(RuleError) as e:
        load_rules([{"name": "a", "priority": 1, "action": "allow"}, {"name": "a", "priority": 2, "action": "allow"},
                    {"name": "b", "priority": 1, "action": "boom"}], "p.yaml")
    assert len(e.value.errors) == 2
    assert "rule 'a': duplicate rule name" in e.value.errors[0]


def test_yaml_syntax_error_names_the_line() -> None:
    with pytest.raises(RuleError) as e:
        load_text("rules:\n  - name: a\n    priority: [1\n", "bad.yaml")
    assert "bad.yaml" in str(e.value) and "line" in str(e.value)


def test_a_bad_file_fails_the_whole_directory(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("rules:\n  - {name: ok, priority: 1, action: allow}\n")
    (tmp_path / "b.yaml").write_text("rules:\n  - {name: bad, priority: 1, action: allow, when: {x: 1}}\n")
    with pytest.raises(RuleError) as e:
        load_dir(tmp_path)
    assert str(tmp_path / "b.yaml") in str(e.value) and "rule 'bad'" in str(e.value)


def test_duplicate_names_across_files_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("rules:\n  - {name: same, priority: 1, action: allow}\n")
    (tmp_path / "b.yaml").write_text("rules:\n  - {name: same, priority: 2, action: allow}\n")
    with pytest.raises(RuleError, match="duplicate rule name"):
        load_dir(tmp_path)


def test_priority_ties_keep_file_order_and_gates_are_collected() -> None:
    pack = load_rules([
        {"name": "second-allow", "priority": 5, "action": "allow"},
        {"name": "gate", "priority": 1, "action": "throttle", "limit": 1, "window_s": 1},
        {"name": "first-suppress", "priority": 5, "action": "suppress"},
        {"name": "late-gate", "priority": 9, "action": "throttle", "limit": 1, "window_s": 1},
    ], "p")
    ev = evaluate(pack, CALL)
    assert ev.terminal is not None and ev.terminal.name == "second-allow"
    assert [g.name for g in ev.gates] == ["gate"]  # gates after the terminal rule are not reached


def test_no_terminal_match_is_default_deny() -> None:
    only_writes = {"name": "only-writes", "priority": 1, "action": "allow", "when": {"action_type": "write_file"}}
    pack = load_rules([only_writes], "p")
    ev = evaluate(pack, CALL)
    assert ev.terminal is None and ev.rule_name == "default-deny"


def test_run_rules_replace_global_rules_by_name() -> None:
    base = load_rules([{"name": "t", "priority": 5, "action": "throttle", "limit": 1, "window_s": 1},
                       {"name": "allow", "priority": 9, "action": "allow"}], "base")
    run = load_rules([{"name": "t", "priority": 5, "action": "throttle", "limit": 100, "window_s": 1}], "run")
    merged = merge(base, run)
    assert [(r.name, r.limit) for r in merged.rules] == [("t", 100), ("allow", 0)]


def test_the_bundled_default_pack_loads_with_the_spec_rules() -> None:
    pack = load_dir(ROOT / "rules")
    names = [r.name for r in pack.rules]
    assert names[-1] == "default-deny" and "allow-normal-operations" in names
    by = {r.name: r for r in pack.rules}
    assert (by["throttle-agent-commands"].limit, by["throttle-agent-commands"].window_s) == (12, 60)
    assert (by["dedup-cross-agent-writes"].scope, by["dedup-cross-agent-writes"].ttl_s) == ("cross_agent", 120)
    assert (by["throttle-swarm-actions"].limit, by["throttle-swarm-actions"].per) == (30, "run")
