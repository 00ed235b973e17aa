"""``acteon-swarm graph serve`` as a real process on a free port, queried over HTTP by SPARQLWrapper (a
standard SPARQL client) and by raw requests for the protocol's error cases. Both stores."""

from __future__ import annotations

import csv
import inspect
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from rdflib import Graph
from SPARQLWrapper import CSV, JSON, POST, POSTDIRECTLY, TSV, TURTLE, XML, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import QueryBadFormed

from orchestrator.graph.queries import READY
from tests.graph.conftest import write_runs
from tests.support import ROOT, free_port, wait_until

THROTTLED = READY["most-throttled-agents"].sparql
EXPECTED = [("r1", "b.b1", "4"), ("r1", "a.a1", "2"), ("r2", "x.x1", "1")]


def _up(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture(scope="module", params=["oxigraph", "memory"])
def endpoint(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    state = tmp_path_factory.mktemp(f"serve-{request.param}")
    write_runs(state)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "orchestrator.cli", "graph", "serve", "--port", str(port), "--all",
         "--state-dir", str(state), "--store", request.param],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: proc.poll() is not None or _up(f"http://127.0.0.1:{port}/"), timeout_s=30,
                   what="graph serve")
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        yield f"http://127.0.0.1:{port}/sparql"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def client(url: str, query: str, fmt: str, method: str = "GET", direct: bool = False) -> Any:
    sw = SPARQLWrapper(url)
    sw.setQuery(query)
    sw.setReturnFormat(fmt)
    if method == "POST":
        sw.setMethod(POST)
        if direct:
            sw.setRequestMethod(POSTDIRECTLY)
    return sw.query()


VIAS = [("GET", False), ("POST", False), ("POST", True)]


@pytest.mark.parametrize(("method", "direct"), VIAS, ids=["get", "post-form", "post-direct"])
def test_json(endpoint: str, method: str, direct: bool) -> None:
    res = client(endpoint, THROTTLED, JSON, method, direct)
    assert res.response.headers["Content-Type"].startswith("application/sparql-results+json")
    data = res.convert()
    assert data["head"]["vars"] == ["run", "agent", "role", "throttled"]
    rows = [(b["run"]["value"], b["agent"]["value"], b["throttled"]["value"]) for b in data["results"]["bindings"]]
    assert rows == EXPECTED
    assert data["results"]["bindings"][0]["throttled"]["datatype"] == "http://www.w3.org/2001/XMLSchema#integer"
    assert "datatype" not in data["results"]["bindings"][0]["agent"]  # plain strings on both stores


@pytest.mark.parametrize(("method", "direct"), VIAS, ids=["get", "post-form", "post-direct"])
def test_xml(endpoint: str, method: str, direct: bool) -> None:
    res = client(endpoint, THROTTLED, XML, method, direct)
    assert res.response.headers["Content-Type"].startswith("application/sparql-results+xml")
    doc = res.convert()
    rows = []
    for result in doc.getElementsByTagName("result"):
        values = {b.getAttribute("name"): b.getElementsByTagName("literal")[0].firstChild.data
                  for b in result.getElementsByTagName("binding")}
        rows.append((values["run"], values["agent"], values["throttled"]))
    assert rows == EXPECTED


@pytest.mark.parametrize(("method", "direct"), VIAS, ids=["get", "post-form", "post-direct"])
def test_csv(endpoint: str, method: str, direct: bool) -> None:
    res = client(endpoint, THROTTLED, CSV, method, direct)
    assert res.response.headers["Content-Type"].startswith("text/csv")
    table = list(csv.reader(io.StringIO(res.convert().decode())))
    assert table[0] == ["run", "agent", "role", "throttled"]
    assert [(r[0], r[1], r[3]) for r in table[1:]] == EXPECTED


@pytest.mark.parametrize(("method", "direct"), VIAS, ids=["get", "post-form", "post-direct"])
def test_tsv(endpoint: str, method: str, direct: bool) -> None:
    res = client(endpoint, THROTTLED, TSV, method, direct)
    assert res.response.headers["Content-Type"].startswith("text/tab-separated-values")
    lines = res.convert().decode().splitlines()
    assert lines[0] == "?run\t?agent\t?role\t?throttled"
    integer = "^^<http://www.w3.org/2001/XMLSchema#integer>"
    assert lines[1:] == [f'"{run}"\t"{agent}"\t"coder"\t"{n}"{integer}' for run, agent, n in EXPECTED]


def test_every_ready_query_answers_over_http(endpoint: str) -> None:
    for q in READY.values():
        assert "results" in client(endpoint, q.sparql, JSON).convert(), q.name
    lineage = client(endpoint, READY["finding-lineage"].sparql, JSON).convert()["results"]["bindings"]
    assert [(b["finding"]["value"], b["usedIn"]["value"]) for b in lineage] == [("r1/1", "r2"), ("r1/2", "r2")]


def test_named_graphs_ask_and_construct(endpoint: str) -> None:
    graphs = client(endpoint, "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g", JSON).convert()
    assert [b["g"]["value"] for b in graphs["results"]["bindings"]] == ["urn:acteon-swarm:run:r1",
                                                                       "urn:acteon-swarm:run:r2"]
    assert client(endpoint, 'ASK { ?r <https://w3id.org/acteon-swarm/ns#id> "r2" }', JSON).convert()["boolean"]
    res = client(endpoint, "CONSTRUCT { ?t a <urn:x:T> } WHERE { ?t a <https://w3id.org/acteon-swarm/ns#SwarmTask> }",
                 TURTLE)
    assert res.response.headers["Content-Type"].startswith("text/turtle")
    assert len(Graph().parse(data=res.convert(), format="turtle")) == 6  # a-e and x


def test_a_bad_query_is_a_400_with_a_short_message(endpoint: str) -> None:
    with pytest.raises(QueryBadFormed):
        client(endpoint, "SELECT * WHERE { ?s ?p }", JSON)
    for r in (httpx.get(endpoint, params={"query": "SELEC nothing"}),
              httpx.post(endpoint, data={"query": "SELECT * WHERE {"}),
              httpx.post(endpoint, content=b"\xff\xfe", headers={"Content-Type": "application/sparql-query"})):
        assert r.status_code == 400 and r.headers["content-type"].startswith("text/plain")
        assert len(r.text.splitlines()) == 1 and "Traceback" not in r.text


def test_protocol_errors(endpoint: str) -> None:
    assert httpx.get(endpoint).status_code == 400  # no query
    assert httpx.post(endpoint, data={"other": "x"}).status_code == 400
    assert httpx.get(endpoint, params=[("query", "ASK {}"), ("query", "ASK {}")]).status_code == 400
    assert httpx.put(endpoint, content="ASK {}").status_code == 405
    assert httpx.delete(endpoint).status_code == 405
    assert httpx.post(endpoint, content="ASK {}", headers={"Content-Type": "text/plain"}).status_code == 415


def test_updates_are_refused_and_change_nothing(endpoint: str) -> None:
    update = "DROP ALL"
    assert httpx.post(endpoint, data={"update": update}).status_code == 403
    direct = httpx.post(endpoint, content=update, headers={"Content-Type": "application/sparql-update"})
    assert direct.status_code == 403
    assert httpx.get(endpoint, params={"update": update}).status_code == 403
    assert httpx.get(endpoint, params={"query": update}).status_code == 400  # not a query either
    count = client(endpoint, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", JSON).convert()
    assert int(count["results"]["bindings"][0]["n"]["value"]) > 100


def test_accept_negotiation_defaults_and_q_values(endpoint: str) -> None:
    q = {"query": "SELECT ?x WHERE { VALUES ?x { 1 } }"}

    def answer(accept: str | None) -> httpx.Response:
        return httpx.get(endpoint, params=q, headers={"Accept": accept} if accept else {})

    assert answer(None).headers["content-type"].startswith("application/sparql-results+json")
    r = answer("text/csv;q=0.5, text/tab-separated-values;q=0.9, */*;q=0.1")
    assert r.headers["content-type"].startswith("text/tab-separated-values") and r.headers["vary"] == "Accept"
    assert r.text == '?x\n"1"^^<http://www.w3.org/2001/XMLSchema#integer>\n'
    assert answer("image/png").headers["content-type"].startswith("application/sparql-results+json")


def test_loopback_by_default() -> None:
    from orchestrator.cli.graph import serve

    assert inspect.signature(serve).parameters["host"].default == "127.0.0.1"


def test_state_dir_default_is_not_required(tmp_path: Path) -> None:
    # an empty state directory serves an empty dataset (a valid, if dull, endpoint) — here through the app
    from starlette.testclient import TestClient

    from orchestrator.graph.serve import create_app
    from orchestrator.graph.twin import load_all

    with TestClient(create_app(load_all(tmp_path))) as tc:
        r = tc.get("/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o }"})
        assert r.status_code == 200 and r.json()["results"]["bindings"] == []
