"""Rule packs are input too: a misspelt value, a hostile YAML document or a deeply nested
body is a clear load-time error (422 over the API, with a body under 4 KB), never a 500, a blow-up, or
a rule that loads and silently never matches."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from gateway.rules import RuleError, load_text
from gateway.rules.vocabulary import VOCABULARY
from tests.conftest import ADMIN, call

MISSPELT = [
    ("category: destructive_delet", "did you mean 'destructive_delete'?"),
    ("category: [remote_code, reverse-shell]", "did you mean 'reverse_shell'?"),
    ("action_type: exec_command", "did you mean 'execute_command'?"),
    ("action_type: {ne: write-file}", "did you mean 'write_file'?"),
    ("path_class: {in: [systm]}", "did you mean 'system'?"),
    ("provider: claude", "did you mean 'claude-code'?"),
    ("tool: Bsh", "did you mean 'Bash'?"),
    ("tool: {glob: 'Bsh*'}", "matches no value the gateway produces"),
    ("category: {starts_with: destructiv_}", "matches no value the gateway produces"),
]


@pytest.mark.parametrize(("when", "hint"), MISSPELT)
def test_a_value_the_gateway_never_produces_is_a_load_time_error(when: str, hint: str) -> None:
    with pytest.raises(RuleError) as e:
        load_text(f"rules:\n- name: block-it\n  priority: 1\n  action: suppress\n  when: {{{when}}}\n", "pack.yaml")
    assert e.value.errors[0].startswith("pack.yaml: rule 'block-it': when: field")
    assert hint in e.value.errors[0]


def test_known_values_and_mcp_tools_load() -> None:
    pack = load_text(
        "rules:\n"
        "- {name: a, priority: 1, action: suppress, when: {category: [destructive_delete, gateway_state]}}\n"
        "- {name: b, priority: 2, action: allow, when: {tool: [mcp__crm__lookup, mcp_crm_lookup, Read]}}\n"
        "- {name: c, priority: 3, action: allow, when: {tool: {starts_with: mcp__crm__}}}\n"
        "- {name: d, priority: 4, action: allow, when: {category: {glob: 'destructive_*'}, path_class: home}}\n",
        "pack.yaml")
    assert [r.name for r in pack.rules] == ["a", "b", "c", "d"]


def test_the_default_pack_uses_only_known_values() -> None:
    from gateway.rules import load_dir
    from tests.support import ROOT

    assert load_dir(ROOT / "rules").rules  # loads: every value in it is in the vocabulary


def test_the_vocabulary_and_schema_are_published(client: TestClient) -> None:
    vocab = client.get("/v1/vocabulary", headers=ADMIN).json()["fields"]
    assert vocab["category"] == list(VOCABULARY["category"]) and "gateway_state" in vocab["category"]
    assert set(vocab) == {"action_type", "category", "path_class", "provider", "tool"}
    schema = client.get("/v1/rules/schema", headers=ADMIN).json()
    category = schema["$defs"]["condition"]["properties"]["category"]["anyOf"][0]
    assert category["enum"] == vocab["category"]
    assert client.get("/v1/vocabulary").status_code == 401


DEEP_YAML = "rules:\n- name: a\n  priority: 1\n  action: allow\n  when: " + "{all: [" * 3000 + "{}" + "]}" * 3000
ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x]\n" + "".join(
    f"{n}: &{n} [{', '.join([f'*{p}'] * 8)}]\n" for p, n in zip("abcdefg", "bcdefgh", strict=True)
) + "rules:\n- {name: z, priority: 1, action: allow, when: {tool: {in: *h}}}\n"
MANY_ALIASES = "a: &a [x]\n" + "b: [" + ", ".join(["*a"] * 500) + "]\nrules: []\n"
HUGE = "rules:\n" + "- {name: r, priority: 1, action: allow}\n" * 20_000


@pytest.mark.parametrize(("text", "problem"), [
    (DEEP_YAML, "nested more than 32 levels deep"),
    (ALIAS_BOMB, "values once YAML aliases are expanded"),
    (MANY_ALIASES, "more than 64 YAML aliases"),
    (HUGE, "over the limit of 262,144"),
])
def test_hostile_yaml_is_a_422_with_a_small_body(client: TestClient, text: str, problem: str) -> None:
    started = time.perf_counter()
    r = client.put("/v1/rules", json={"yaml": text}, headers=ADMIN)
    assert r.status_code == 422 and problem in r.json()["error"]["message"]
    assert len(r.content) <= 4096
    assert time.perf_counter() - started < 2.0
    v = client.post("/v1/rules/validate", json={"yaml": text}, headers=ADMIN).json()
    assert v["valid"] is False and problem in v["errors"][0]


def test_deep_json_bodies_are_refused_cleanly(client: TestClient) -> None:
    when: dict[str, object] = {}
    for _ in range(200):
        when = {"not": when}
    r = client.put("/v1/rules", json={"rules": [{"name": "a", "priority": 1, "action": "allow", "when": when}]},
                   headers=ADMIN)
    assert r.status_code == 422 and "nested more than 32 levels deep" in r.json()["error"]["message"]
    raw = '{"rules": [' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "]}"
    r = client.put("/v1/rules", content=raw, headers={**ADMIN, "content-type": "application/json"})
    assert r.status_code in (400, 422) and len(r.content) <= 4096


def test_many_errors_are_listed_within_bounds(client: TestClient) -> None:
    rules = [{"name": f"r{i}", "priority": 1, "action": "allow", "when": {"category": "x" * 3000}} for i in range(100)]
    r = client.put("/v1/rules", json={"rules": rules}, headers=ADMIN)
    assert r.status_code == 422 and len(r.content) <= 4096
    assert "more problems" in r.json()["error"]["message"]
    # the pack in force did not change
    assert client.post("/v1/dispatch", json=call(command="rm -rf /etc"), headers=ADMIN).json()["allowed"] is False
