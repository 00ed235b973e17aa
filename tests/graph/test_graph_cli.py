"""``acteon-swarm graph …`` through the real CLI app (typer's runner), and what its --help loads."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Dataset, Graph
from typer.testing import CliRunner

from orchestrator.cli.app import app
from orchestrator.graph import vocab as V
from orchestrator.graph.queries import READY
from tests.support import ROOT

runner = CliRunner()


def graph(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(app, ["graph", *args])
    return r.exit_code, r.stdout, r.stderr


def test_query_ready_as_json_csv_tsv_and_table(state: Path, store: str) -> None:
    base = ["query", "--ready", "most-throttled-agents", "--state-dir", str(state), "--store", store]
    code, out, _ = graph(*base, "--all", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["head"]["vars"] == ["run", "agent", "role", "throttled"]
    assert [(b["agent"]["value"], b["throttled"]["value"]) for b in data["results"]["bindings"]] == [
        ("b.b1", "4"), ("a.a1", "2"), ("x.x1", "1")]
    code, out, _ = graph(*base, "--run", "r2", "--format", "csv")
    assert code == 0 and list(csv.reader(io.StringIO(out))) == [["run", "agent", "role", "throttled"],
                                                               ["r2", "x.x1", "coder", "1"]]
    code, out, _ = graph(*base, "--run", "r1", "--run", "r2", "--format", "tsv")
    assert code == 0 and out.splitlines()[0] == "?run\t?agent\t?role\t?throttled"
    assert out.splitlines()[1] == '"r1"\t"b.b1"\t"coder"\t"4"^^<http://www.w3.org/2001/XMLSchema#integer>'
    code, out, _ = graph(*base, "--all")
    assert code == 0 and "b.b1" in out and "throttled" in out


def test_query_text_from_the_argument_and_stdin(state: Path) -> None:
    q = 'SELECT ?id WHERE { ?r a swarm:SwarmRun ; swarm:id ?id } ORDER BY ?id'  # prefixes are pre-bound
    code, out, _ = graph("query", q, "--all", "--state-dir", str(state), "--format", "csv")
    assert code == 0 and out.split() == ["id", "r1", "r2"]
    r = runner.invoke(app, ["graph", "query", "-", "--run", "r1", "--state-dir", str(state), "--format", "csv"],
                      input=q)
    assert r.exit_code == 0 and r.stdout.split() == ["id", "r1"]
    code, out, _ = graph("query", "ASK { ?r swarm:id \"r2\" }", "--run", "r1", "--state-dir", str(state))
    assert code == 0 and out.strip() == "false"
    code, out, _ = graph("query", "CONSTRUCT { ?r a swarm:SwarmRun } WHERE { ?r a swarm:SwarmRun }", "--all",
                         "--state-dir", str(state))
    assert code == 0 and len(Graph().parse(data=out, format="turtle")) == 2


@pytest.mark.parametrize(("args", "message"), [
    (["query", "--ready", "critical-path"], "give --run ID (repeatable) or --all"),
    (["query", "--ready", "critical-path", "--run", "r1", "--all"], "give --run ID (repeatable) or --all"),
    (["query", "--ready", "nope", "--all"], "no ready query 'nope'"),
    (["query", "--all"], "give a SPARQL query or --ready NAME"),
    (["query", "SELECT * WHERE { ?s }", "--all"], "invalid query"),
    (["query", "DELETE WHERE { ?s ?p ?o }", "--all"], "invalid query"),
    (["query", "--ready", "alerts", "--run", "ghost"], "no run 'ghost'"),
    (["query", "--ready", "alerts", "--run", "../r1"], "invalid run id"),
    (["query", "--ready", "alerts", "--all", "--format", "yaml"], "unknown format 'yaml'"),
    (["query", "--ready", "alerts", "--all", "--store", "postgres"], "unknown store 'postgres'"),
    (["export", "--all", "--format", "rdfxml"], "unknown format 'rdfxml'"),
])
def test_bad_input_exits_2_with_one_line(state: Path, args: list[str], message: str) -> None:
    code, out, err = graph(*args, "--state-dir", str(state))
    assert code == 2 and message in err and out == ""


def test_a_state_directory_without_runs_says_so(tmp_path: Path) -> None:
    code, out, err = graph("query", "--ready", "alerts", "--all", "--state-dir", str(tmp_path))
    assert code == 2 and "no runs in" in err and out == ""


def test_export_in_three_formats(state: Path, tmp_path: Path) -> None:
    code, out, _ = graph("export", "--all", "--format", "nquads", "--state-dir", str(state))
    ds = Dataset()
    ds.parse(data=out, format="nquads")
    assert code == 0 and {str(g.identifier) for g in ds.graphs()} >= {"urn:acteon-swarm:run:r1",
                                                                     "urn:acteon-swarm:run:r2"}
    target = tmp_path / "r1.ttl"
    code, out, _ = graph("export", "--run", "r1", "--format", "turtle", "--out", str(target), "--state-dir", str(state))
    assert code == 0 and out == "" and len(Graph().parse(target, format="turtle")) > 100
    code, out, _ = graph("export", "--run", "r2", "--format", "json-ld", "--state-dir", str(state))
    jl = Dataset()
    jl.parse(data=out, format="json-ld")
    assert code == 0 and "urn:acteon-swarm:run:r2" in {str(g.identifier) for g in jl.graphs()}


def test_the_store_comes_from_swarm_toml(state: Path, tmp_path: Path) -> None:
    cfg = tmp_path / "swarm.toml"
    cfg.write_text('[graph]\nstore = "memory"\n')
    code, _, _ = graph("query", "--ready", "alerts", "--all", "--config", str(cfg), "--state-dir", str(state))
    assert code == 0
    cfg.write_text('[graph]\nstore = "sqlite"\n')
    code, _, err = graph("query", "--ready", "alerts", "--all", "--config", str(cfg), "--state-dir", str(state))
    assert code == 2 and "graph.store" in err


def test_ready_lists_and_prints_queries() -> None:
    code, out, _ = graph("ready")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == list(READY)
    code, out, _ = graph("ready", "refiner-skipped")
    assert code == 0 and out == READY["refiner-skipped"].sparql


def test_vocab_table_matches_the_readme_and_turtle_parses() -> None:
    code, out, _ = graph("vocab", "--format", "markdown")
    assert code == 0 and out == V.markdown_table()
    assert V.markdown_table() in (ROOT / "docs" / "sparql.md").read_text()
    code, out, _ = graph("vocab", "--format", "turtle")
    g = Graph().parse(data=out, format="turtle")
    assert code == 0 and len(set(g.subjects())) == len(V.TERMS)
    code, out, _ = graph("vocab")
    assert code == 0 and V.NS in out and all(f"swarm:{name}" in out for name in V.TERMS)


def test_graph_help_loads_no_rdf_library() -> None:
    code = ("import sys; sys.argv=['acteon-swarm','graph','--help']\n"
            "from orchestrator import cli\n"
            "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
            "import json; print(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = {m.split(".")[0] for m in json.loads(out.stdout.strip().splitlines()[-1])}
    assert "query" in out.stdout
    assert not loaded & {"rdflib", "pyoxigraph", "oxrdflib", "starlette", "uvicorn", "SPARQLWrapper"}
