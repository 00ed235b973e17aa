"""Every ready query against the journals of conftest.write_runs, on both stores: the actual rows."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from rdflib import Literal, Variable
from rdflib.query import Result

from acteon_core import contract as c
from orchestrator import events as E
from orchestrator.graph.queries import READY, QueryError, run_query
from orchestrator.graph.twin import load_all
from tests.graph.conftest import T0, Journal, task


def python_rows(result: Result) -> list[dict[str, Any]]:
    """Rows as plain Python values (numbers, booleans, strings) keyed by variable name."""
    names = [str(v) for v in result.vars or []]
    out = []
    for row in result.bindings:
        values: dict[str, Any] = {}
        for n in names:
            t = row.get(Variable(n))
            values[n] = None if t is None else (t.toPython() if isinstance(t, Literal) else str(t))
        out.append(values)
    return out


def ready(state: Path, store: str, name: str, runs: list[str] | None = None) -> list[dict[str, Any]]:
    return python_rows(run_query(load_all(state, store, runs=runs), READY[name].sparql))


def at(second: float) -> Any:
    return T0 + timedelta(seconds=second)


def test_most_throttled_agents(state: Path, store: str) -> None:
    assert ready(state, store, "most-throttled-agents") == [
        {"run": "r1", "agent": "b.b1", "role": "coder", "throttled": 4},
        {"run": "r1", "agent": "a.a1", "role": "coder", "throttled": 2},
        {"run": "r2", "agent": "x.x1", "role": "coder", "throttled": 1},
    ]
    assert ready(state, store, "most-throttled-agents", ["r2"]) == [
        {"run": "r2", "agent": "x.x1", "role": "coder", "throttled": 1}]


def test_finding_lineage_across_runs(state: Path, store: str) -> None:
    assert ready(state, store, "finding-lineage") == [
        {"finding": "r1/1", "discoveredIn": "r1", "discoveredBy": "b.b1", "usedIn": "r2", "usedBy": "x.x1",
         "text": "test_io is flaky under load"},
        # a human's finding: nobody discovered it, an agent of a later run used it
        {"finding": "r1/2", "discoveredIn": None, "discoveredBy": None, "usedIn": "r2", "usedBy": "x.x1",
         "text": "CI runners have 2 cores"},
    ]


def test_finding_lineage_of_one_run_sees_only_that_run(state: Path, store: str) -> None:
    # r2's graph knows the findings it used (their ids), not who discovered them in r1.
    assert ready(state, store, "finding-lineage", ["r2"]) == [
        {"finding": f, "discoveredIn": None, "discoveredBy": None, "usedIn": "r2", "usedBy": "x.x1", "text": None}
        for f in ("r1/1", "r1/2")
    ]
    assert [(r["finding"], r["usedBy"]) for r in ready(state, store, "finding-lineage", ["r1"])] == [
        ("r1/1", None), ("r1/2", None)]


def test_critical_path(state: Path, store: str) -> None:
    assert ready(state, store, "critical-path") == [
        {"run": "r1", "position": 1, "task": "a", "seconds": 10.0, "status": "done", "pathSeconds": 50.0},
        {"run": "r1", "position": 2, "task": "b", "seconds": 30.0, "status": "done", "pathSeconds": 50.0},
        {"run": "r1", "position": 3, "task": "d", "seconds": 10.0, "status": "done", "pathSeconds": 50.0},
        {"run": "r2", "position": 1, "task": "x", "seconds": 7.0, "status": "done", "pathSeconds": 7.0},
    ]


def test_refiner_skipped(state: Path, store: str) -> None:
    # The fallback CONTINUE after a skipped nothing, so it is not listed.
    assert ready(state, store, "refiner-skipped") == [
        {"run": "r1", "afterTask": "c", "skipped": "e", "reason": "e is covered by c", "fallback": False,
         "at": at(15.5)}]


def test_blocked_calls_by_rule(state: Path, store: str) -> None:
    assert ready(state, store, "blocked-calls-by-rule") == [
        {"rule": "throttle-shell", "outcome": "throttled", "calls": 7, "agents": 3, "example": "make"},
        {"rule": "(no rule)", "outcome": "quota_exceeded", "calls": 1, "agents": 1, "example": "echo y > g"},
        {"rule": "approve-push", "outcome": "pending_approval", "calls": 1, "agents": 1, "example": "git push"},
        {"rule": "block-rm-rf", "outcome": "suppressed", "calls": 1, "agents": 1, "example": "rm -rf /"},
        {"rule": "dedup-writes", "outcome": "deduplicated", "calls": 1, "agents": 1, "example": "echo x > f"},
    ]


def test_approvals(state: Path, store: str) -> None:
    assert ready(state, store, "approvals") == [
        # who decided and why is kept with the approval (from the journal: the gateway may be gone)
        {"run": "r1", "agent": "c.c1", "approval": "ap-1", "outcome": "pending_approval", "decider": "alice",
         "why": "release day", "target": "git push", "at": at(12)},
        {"run": "r1", "agent": "c.c1", "approval": "ap-1", "outcome": "executed", "decider": "alice",
         "why": "release day", "target": "git push", "at": at(14)},
    ]


def test_alerts(state: Path, store: str) -> None:
    assert ready(state, store, "alerts") == [
        {"run": "r1", "kind": "runaway", "action": "throttle", "agent": "b.b1", "detail": "24 actions in a minute",
         "at": at(25)}]


def test_empty_groups_give_no_rows_on_either_store(tmp_path: Path, store: str) -> None:
    quiet = Journal(tmp_path, "quiet", [task("a", "coder")])
    quiet.at(0, E.RunStarted, run_id="quiet", plan_id="p", engine="command", pid=1)
    for name in ("most-throttled-agents", "blocked-calls-by-rule", "critical-path", "refiner-skipped"):
        assert ready(tmp_path, store, name) == [], name


def test_refused_outcomes_are_the_gateways() -> None:
    # blocked-calls-by-rule lists the refusals: a new gateway outcome must be added there too.
    body = READY["blocked-calls-by-rule"].body
    listed = set(re.findall(r'"(\w+)"', body.split("VALUES ?outcome {")[1].split("}")[0]))
    assert listed == set(c.OUTCOMES) - set(c.ALLOWED_OUTCOMES)


def test_every_ready_query_is_documented_in_the_readme() -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs" / "sparql.md").read_text()
    for q in READY.values():
        assert q.body.strip() in readme, f"docs/sparql.md lacks the SPARQL of {q.name}"


@pytest.mark.parametrize("bad", ["", "SELECT * WHERE { ?s ?p }", "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
                                 "DROP ALL", "SELECT (1/0 AS ?x) WHERE { FILTER(?undefined()) }"])
def test_bad_queries_and_updates_are_one_line_errors(state: Path, store: str, bad: str) -> None:
    ds = load_all(state, store)
    with pytest.raises(QueryError) as e:
        run_query(ds, bad)
    assert "\n" not in str(e.value) and len(str(e.value)) < 400
    assert len(ds) > 0  # nothing was dropped


def test_graph_and_default_graph(state: Path, store: str) -> None:
    ds = load_all(state, store)
    per_graph = python_rows(run_query(ds, "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } "
                                          "GROUP BY ?g ORDER BY ?g"))
    assert [r["g"] for r in per_graph] == ["urn:acteon-swarm:run:r1", "urn:acteon-swarm:run:r2"]
    # The default graph is the union: a run is found without naming its graph.
    ask = run_query(ds, "ASK { ?r a swarm:SwarmRun ; swarm:id \"r2\" }")
    assert ask.askAnswer is True


def test_critical_path_seconds_are_milliseconds_not_float_noise(tmp_path: Path, store: str) -> None:
    j = Journal(tmp_path, "r3", [task("a", "coder"), task("b", "coder", ["a"]), task("c", "coder", ["b"])])
    j.at(0, E.RunStarted, run_id="r3", plan_id="plan-r3", engine="command", pid=300)
    j.task(0, 0.1, "a")
    j.task(0.1, 0.3, "b")
    j.task(0.3, 0.6, "c")
    rows = ready(tmp_path, store, "critical-path", ["r3"])
    assert {r["pathSeconds"] for r in rows} == {0.6}
