"""``acteon-swarm graph query|export|serve|ready|vocab``: the digital twin from the command line.

Imported when ``acteon-swarm`` starts, so only typer is imported at module level: rdflib, pyoxigraph,
Starlette and rich load inside the commands (a test checks ``--help`` loads none of them). Exit codes as
in the main CLI: 0 ok, 1 the action failed, 2 bad input (a bad query is bad input).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

app = typer.Typer(help="Query, export and serve the RDF twin of runs (SPARQL).", no_args_is_help=True)

StateDir = Annotated[Path | None, typer.Option("--state-dir", help="state directory (default $ACTEON_STATE_DIR "
                                                                    "or ./.acteon-swarm)")]
RunOpt = Annotated[list[str] | None, typer.Option("--run", help="a run id (repeat for more)")]
AllOpt = Annotated[bool, typer.Option("--all", help="every run in the state directory")]
StoreOpt = Annotated[str | None, typer.Option("--store", help="oxigraph | memory (default: [graph] store in "
                                                              "swarm.toml, else oxigraph)")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="swarm.toml (default ./swarm.toml if present)")]

_QUERY_FORMATS = ("table", "json", "xml", "csv", "tsv")
_EXPORT_FORMATS = {"turtle": "turtle", "nquads": "nquads", "json-ld": "json-ld"}


def fail(message: str, code: int = 2) -> typer.Exit:
    sys.stderr.write(f"acteon-swarm: {message}\n")
    return typer.Exit(code)


def _state(state_dir: Path | None) -> Path:
    from orchestrator.rundir import default_state_dir

    return state_dir.absolute() if state_dir else default_state_dir()


def _store(store: str | None, config: Path | None) -> Any:
    from orchestrator.graph.store import STORES

    if store is not None:
        if store not in STORES:
            raise fail(f"unknown store {store!r} (known: {', '.join(STORES)})")
        return store
    from orchestrator.config import ConfigError, load_config

    if config is None and Path("swarm.toml").exists():
        config = Path("swarm.toml")
    try:
        return load_config(config).graph.store
    except ConfigError as e:
        raise fail("\n  ".join(["invalid configuration:", *e.errors])) from None


def _dataset(state_dir: Path | None, runs: list[str] | None, all_runs: bool, store: str | None,
             config: Path | None) -> Any:
    """The dataset of the chosen runs: exactly one of ``--run`` (repeatable) and ``--all``."""
    from orchestrator.events import JournalError
    from orchestrator.graph.twin import load_all
    from orchestrator.rundir import RunDir, list_runs

    if bool(runs) == all_runs:
        raise fail("give --run ID (repeatable) or --all")
    state = _state(state_dir)
    if all_runs and not list_runs(state):
        raise fail(f"no runs in {state / 'runs'} (--state-dir, or $ACTEON_STATE_DIR, names another place?)")
    for run_id in runs or []:
        if not run_id or "/" in run_id or run_id in (".", ".."):
            raise fail(f"invalid run id {run_id!r}")
        if not RunDir(state, run_id).exists():
            raise fail(f"no run {run_id!r} in {state / 'runs'}")
    try:
        return load_all(state, _store(store, config), runs=runs or None)
    except JournalError as e:
        raise fail(str(e), 1) from None


@app.command("query")
def query(
    sparql: Annotated[str | None, typer.Argument(help="the SPARQL query ('-': read it from stdin)")] = None,
    ready: Annotated[str | None, typer.Option("--ready", help="a ready query by name (see `graph ready`)")] = None,
    run: RunOpt = None,
    all_runs: AllOpt = False,
    fmt: Annotated[str, typer.Option("--format", help="table | json | xml | csv | tsv (CONSTRUCT: Turtle)")] = "table",
    store: StoreOpt = None,
    config: ConfigOpt = None,
    state_dir: StateDir = None,
) -> None:
    """Run a SPARQL query over one run's graph (--run) or every run (--all)."""
    from orchestrator.graph.queries import READY, QueryError, run_query

    if fmt not in _QUERY_FORMATS:
        raise fail(f"unknown format {fmt!r} (known: {', '.join(_QUERY_FORMATS)})")
    if (sparql is None) == (ready is None):
        raise fail("give a SPARQL query or --ready NAME")
    if ready is not None:
        if ready not in READY:
            raise fail(f"no ready query {ready!r} (known: {', '.join(READY)})")
        text = READY[ready].sparql
    else:
        text = sys.stdin.read() if sparql == "-" else str(sparql)
    dataset = _dataset(state_dir, run, all_runs, store, config)
    try:
        result = run_query(dataset, text)
    except QueryError as e:
        raise fail(str(e)) from None
    _print_result(result, fmt)


def _print_result(result: Any, fmt: str) -> None:
    from orchestrator.graph import results

    if result.type in ("CONSTRUCT", "DESCRIBE"):
        sys.stdout.write(results.serialize(result, "turtle").decode())
        return
    if fmt != "table":
        if result.type == "ASK" and fmt not in results.BOOLEAN_FORMATS:
            fmt = "json"
        sys.stdout.buffer.write(results.serialize(result, fmt))
        sys.stdout.flush()
        return
    if result.type == "ASK":
        print("true" if result.askAnswer else "false")
        return
    from rdflib import Variable
    from rich.table import Table

    from orchestrator.show import terminal

    names = [str(v) for v in result.vars or []]
    table = Table(*names, show_lines=False)
    for row in result.bindings:
        table.add_row(*(results.cell(row.get(Variable(n))) for n in names))
    console = terminal.console()
    console.print(table)
    if not console.is_terminal:
        return
    console.print(f"[dim]{len(result.bindings)} row(s)[/]")


@app.command("export")
def export(
    run: RunOpt = None,
    all_runs: AllOpt = False,
    fmt: Annotated[str, typer.Option("--format", help="turtle | nquads | json-ld")] = "nquads",
    out: Annotated[Path | None, typer.Option("--out", help="write here (default: stdout)")] = None,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    state_dir: StateDir = None,
) -> None:
    """Export runs as N-Quads or JSON-LD (one named graph per run) or Turtle (their union)."""
    # Turtle has no named graphs; the union loses nothing, since every IRI names its run.
    if fmt not in _EXPORT_FORMATS:
        raise fail(f"unknown format {fmt!r} (known: {', '.join(_EXPORT_FORMATS)})")
    from orchestrator.graph.export import export_dataset

    data = export_dataset(_dataset(state_dir, run, all_runs, store, config), fmt)
    if out is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        out.write_bytes(data)


@app.command("serve")
def serve(
    host: Annotated[str, typer.Option(help="address to bind (loopback by default)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port")] = 7878,
    run: RunOpt = None,
    all_runs: AllOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    state_dir: StateDir = None,
) -> None:
    """Serve a read-only SPARQL 1.1 Protocol endpoint at http://HOST:PORT/sparql."""
    # The runs are loaded once, at start: restart to see runs finished since.
    from orchestrator.graph.serve import serve as serve_dataset

    dataset = _dataset(state_dir, run, all_runs, store, config)
    sys.stderr.write(f"acteon-swarm: SPARQL endpoint at http://{host}:{port}/sparql\n")
    serve_dataset(dataset, host, port)


@app.command("ready")
def ready_queries(
    name: Annotated[str | None, typer.Argument(help="print this query's SPARQL")] = None,
) -> None:
    """List the ready queries, or print one."""
    from orchestrator.graph.queries import READY

    if name is None:
        width = max(len(n) for n in READY)
        for q in READY.values():
            print(f"{q.name:<{width}}  {q.description}")
        return
    if name not in READY:
        raise fail(f"no ready query {name!r} (known: {', '.join(READY)})")
    sys.stdout.write(READY[name].sparql)


@app.command("vocab")
def vocab(
    fmt: Annotated[str, typer.Option("--format", help="table | markdown | turtle (the vocabulary as RDFS)")] = "table",
) -> None:
    """The twin's vocabulary: every class and property, its PROV-O parent and meaning."""
    from orchestrator.graph import vocab as V

    if fmt == "markdown":
        sys.stdout.write(V.markdown_table())
    elif fmt == "turtle":
        from rdflib import Graph

        from orchestrator.graph.ontology import ontology_triples

        g = Graph()
        for prefix, iri in V.PREFIXES.items():
            g.bind(prefix, iri)
        for t in ontology_triples():
            g.add(t)
        sys.stdout.write(g.serialize(format="turtle"))
    elif fmt == "table":
        print(f"namespace {V.PREFIX}: <{V.NS}>")
        width = max(len(r[0]) for r in V.table_rows())
        for term, kind, where, description in V.table_rows():
            print(f"{term:<{width}}  {kind:<17}  {where}\n{'':<{width}}  {description}")
    else:
        raise fail(f"unknown format {fmt!r} (known: table, markdown, turtle)")
