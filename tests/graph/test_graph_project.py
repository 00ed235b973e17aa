"""The projection: what a journal becomes, and that rebuilding gives the same graph on either store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rdflib import RDF, Dataset, Graph, Literal, URIRef
from rdflib.compare import to_isomorphic
from rdflib.namespace import PROV

from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.graph import project as P
from orchestrator.graph import twin as T
from orchestrator.graph import vocab as V
from orchestrator.graph.export import export_dataset, named_graphs
from orchestrator.graph.store import open_dataset
from tests.graph.conftest import Journal, task

SW = P.SW
R1 = URIRef("urn:acteon-swarm:run:r1")


def run_graph(ds: Dataset, run_id: str) -> Graph:
    g = Graph()
    g += ds.graph(P.run_iri(run_id))
    return g


def node(kind: str, local: str) -> URIRef:
    return URIRef(f"{R1}/{kind}/{local}")


def test_nodes_links_and_prov(state: Path, store: str) -> None:
    g = run_graph(T.load_all(state, store), "r1")
    agent, call = node("agent", "b.b1"), next(iter(g.subjects(SW.target, Literal("rm -rf /"))))
    assert (R1, RDF.type, SW.SwarmRun) in g and (R1, SW.status, Literal("done")) in g
    assert (R1, SW.hasTask, node("task", "b")) in g and (R1, SW.hasAgent, agent) in g
    assert (node("task", "b"), SW.assignedTo, node("role", "coder")) in g
    assert (node("task", "d"), SW.dependsOn, node("task", "b")) in g
    assert (node("task", "b"), SW.hasSubtask, node("subtask", "b1")) in g
    assert (node("subtask", "b1"), PROV.wasAssociatedWith, agent) in g
    # a tool call: typed as both, performed by its agent, decided by its rule
    assert {(call, RDF.type, SW.ToolCall), (call, RDF.type, SW.EpisodicMemory)} <= set(g)
    assert (agent, SW.performed, call) in g and (call, PROV.wasAttributedTo, agent) in g
    assert (call, SW.decidedBy, node("rule", "block-rm-rf")) in g
    assert (call, SW.outcome, Literal("suppressed")) in g
    # a completion is an episodic memory the agent produced
    done = node("completion", "done-1")
    assert (node("agent", "a.a1"), SW.produced, done) in g and (done, RDF.type, SW.EpisodicMemory) in g
    # findings are semantic memories with global IRIs; approvals and refiner decisions are nodes
    finding = URIRef("urn:acteon-swarm:finding:r1%2F1")
    assert (agent, SW.discovered, finding) in g and (finding, RDF.type, SW.SemanticMemory) in g
    assert set(g.objects(finding, SW.topic)) == {Literal("tests"), Literal("flaky")}
    assert (node("approval", "ap-1"), RDF.type, SW.Approval) in g
    decision = next(iter(g.subjects(SW.skipped, node("task", "e"))))
    assert (decision, SW.afterTask, node("task", "c")) in g and (decision, SW.action, Literal("skip")) in g
    # times are xsd:dateTime; durations and the critical path come from the journal
    started = g.value(node("task", "b"), SW.startedAt)
    assert isinstance(started, Literal) and started.datatype == URIRef(V.XSD + "dateTime")
    assert g.value(node("task", "b"), PROV.startedAtTime) == started
    assert g.value(node("task", "b"), SW.durationSeconds).toPython() == 30.0  # type: ignore[union-attr]
    assert {str(t).rsplit("/", 1)[1] for t in g.subjects(SW.onCriticalPath, Literal(True))} == {"a", "b", "d"}
    assert (node("task", "e"), SW.status, Literal("skipped")) in g


def test_no_blank_nodes_and_every_term_is_in_the_vocabulary(state: Path) -> None:
    ds = T.load_all(state, "memory")
    terms = {URIRef(V.NS + name) for name in V.TERMS}
    for s, p, o, _ in ds.quads((None, None, None, None)):
        assert isinstance(s, URIRef) and isinstance(p, URIRef) and not str(o).startswith("_:")
        if str(p).startswith(V.NS):
            assert p in terms, p
        if p == RDF.type and str(o).startswith(V.NS):
            assert o in terms, o


def test_ids_are_percent_encoded_into_iris(tmp_path: Path, store: str) -> None:
    odd = "a/b:c#d e>"
    j = Journal(tmp_path, "r:1 #x", [task("a", "coder")])
    j.call(1, "a.a1", "throttled", "rule with spaces")
    j.at(2, E.ToolCall, audit_id="1-1", agent_id=odd, tool="Bash", outcome="executed", at_ms=1)
    ds = T.load_all(tmp_path, store, runs=["r:1 #x"])
    iris = {str(t) for q in ds.quads((None, None, None, None)) for t in q[:3] if isinstance(t, URIRef)}
    assert "urn:acteon-swarm:run:r%3A1%20%23x/agent/a%2Fb%3Ac%23d%20e%3E" in iris
    assert "urn:acteon-swarm:run:r%3A1%20%23x/rule/rule%20with%20spaces" in iris
    assert all(" " not in i and ">" not in i for i in iris)


def test_rebuilding_gives_the_same_bytes_and_the_same_graph_on_both_stores(state: Path) -> None:
    rd = R.RunDir(state, "r1")
    first = T.write_run_graph(rd).read_bytes()
    T.graph_file(rd).unlink()
    assert T.write_run_graph(rd).read_bytes() == first
    graphs = {s: to_isomorphic(run_graph(T.load_all(state, s, use_cache=False), "r1")) for s in ("oxigraph", "memory")}
    assert graphs["oxigraph"] == graphs["memory"]
    # graph.nq parses back to the same graph
    back = Dataset()
    back.parse(T.graph_file(rd), format="nquads")
    assert to_isomorphic(run_graph(back, "r1")) == graphs["memory"]


def test_graph_nq_is_a_cache_checked_against_its_sources(state: Path) -> None:
    rd = R.RunDir(state, "r1")
    assert T.cached_graph(rd) is None
    T.write_run_graph(rd)
    assert T.cached_graph(rd) == T.graph_file(rd)
    cached = T.load_all(state, "oxigraph", runs=["r1"])
    assert to_isomorphic(run_graph(cached, "r1")) == to_isomorphic(run_graph(T.load_all(state, "memory"), "r1"))
    # the journal grows (a resume): the file is stale, and loading projects the journal again
    j_rd = R.RunDir(state, "r1")
    j_rd.record(E.TaskStatusChanged, task_id="e", status="cancelled", reason="late")
    assert T.cached_graph(rd) is None
    fresh = run_graph(T.load_all(state, "oxigraph", runs=["r1"]), "r1")
    assert (node("task", "e"), SW.status, Literal("cancelled")) in fresh


def test_a_run_still_going_and_a_run_without_plan(tmp_path: Path, store: str) -> None:
    rd = R.RunDir(tmp_path, "live")
    rd.create()
    rd.write_run(status="running")
    rd.record(E.RunStarted, run_id="live", plan_id="p", engine="command", pid=1)
    rd.record(E.TaskStatusChanged, task_id="a", status="running")
    g = run_graph(T.load_all(tmp_path, store), "live")
    run = P.run_iri("live")
    assert (run, SW.status, Literal("running")) in g
    assert (URIRef(f"{run}/task/a"), SW.status, Literal("running")) in g
    assert g.value(run, SW.endedAt) is None


def test_a_run_dataset_holds_one_named_graph_per_run(state: Path, store: str) -> None:
    ds = T.load_all(state, store)
    assert named_graphs(ds) == [P.run_iri("r1"), P.run_iri("r2")]
    assert named_graphs(T.load_all(state, store, runs=["r2"])) == [P.run_iri("r2")]
    with pytest.raises(E.JournalError, match="no run 'nope'"):
        T.load_all(state, store, runs=["nope"])


def test_exports_parse_back_in_all_three_formats(state: Path, store: str) -> None:
    ds = T.load_all(state, store)
    reference = {name: to_isomorphic(run_graph(ds, str(name).rsplit(":", 1)[1])) for name in named_graphs(ds)}

    nq = Dataset()
    nq.parse(data=export_dataset(ds, "nquads"), format="nquads")
    assert {n: to_isomorphic(run_graph(nq, str(n).rsplit(":", 1)[1])) for n in named_graphs(nq)} == reference

    jl = Dataset()
    jl.parse(data=export_dataset(ds, "json-ld"), format="json-ld")
    assert {n: to_isomorphic(run_graph(jl, str(n).rsplit(":", 1)[1])) for n in named_graphs(jl)} == reference

    ttl = Graph()
    ttl.parse(data=export_dataset(ds, "turtle"), format="turtle")
    union = Graph()
    for g in reference.values():
        union += g
    assert to_isomorphic(ttl) == to_isomorphic(union)
    assert len(ttl) > 100


def test_n_quads_export_is_the_same_bytes_on_both_stores(state: Path) -> None:
    assert export_dataset(T.load_all(state, "oxigraph"), "nquads") == export_dataset(
        T.load_all(state, "memory"), "nquads")


def test_odd_text_survives_every_format(tmp_path: Path, store: str) -> None:
    text = 'tab\there "quoted" back\\slash\nnew line \x01 é \U0001f600'
    j = Journal(tmp_path, "r", [task("a", "coder")])
    j.call(1, "a.a1", "suppressed", "r", target=text)
    rd = R.RunDir(tmp_path, "r")
    T.write_run_graph(rd)
    ds = open_dataset(store)
    T.load_run(ds, rd)
    assert Literal(text) in set(ds.objects(None, SW.target))
    back = Dataset(default_union=True)
    back.parse(data=export_dataset(ds, "json-ld"), format="json-ld")
    assert Literal(text) in set(back.objects(None, SW.target))


def test_the_plan_file_is_read_as_is(state: Path) -> None:
    # plan.json is the plan as run: the projection reads it without re-validating roles.
    data = json.loads(R.RunDir(state, "r2").plan_file.read_text())
    assert data["tasks"][0]["assigned_role"] == "coder"
    g = run_graph(T.load_all(state, "memory"), "r2")
    assert (P.run_iri("r2"), SW.planId, Literal("plan-r2")) in g
