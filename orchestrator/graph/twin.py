"""A run's named graph: projected from its journal, kept in ``graph.nq`` beside it as a cache that carries a
digest of its sources (rebuilt when they changed, or when it is missing), and loaded into a Dataset with the
other runs' (docs/sparql.md)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from rdflib import URIRef

from acteon_core.files import write_text_atomic
from orchestrator import events as E
from orchestrator import rundir as R
from orchestrator.graph import nq
from orchestrator.graph.project import PROJECTION_VERSION, Projector, Triple, run_iri
from orchestrator.graph.store import StoreName, add_triples, open_dataset, parse_nquads, store_name
from orchestrator.plan.model import Plan

if TYPE_CHECKING:
    from rdflib import Dataset

GRAPH_FILE = "graph.nq"
_HEADER = f"# acteon-swarm run graph v{PROJECTION_VERSION} source="


def _read_plan(run_dir: R.RunDir) -> Plan | None:
    try:
        return Plan.model_validate_json(run_dir.plan_file.read_bytes())
    except FileNotFoundError:
        return None
    except ValueError as e:
        raise E.JournalError(f"{run_dir.plan_file}: not a valid plan ({e})") from None


def run_triples(run_dir: R.RunDir) -> list[Triple]:
    """The triples of the run's graph, deduplicated, in an order fixed by the journal."""
    p = Projector(run_dir.run_id, _read_plan(run_dir))
    for ev in run_dir.read_events():
        p.feed(ev)
    return p.finish()


def build_run_graph(dataset: Dataset, run_dir: R.RunDir) -> URIRef:
    """Add the run's named graph to ``dataset`` (replacing an older one); returns the graph's IRI."""
    name = run_iri(run_dir.run_id)
    triples = run_triples(run_dir)
    dataset.remove_graph(name)
    dataset.graph(name)  # registered even if the run has no triples yet
    add_triples(dataset, name, triples)
    return name


# --- graph.nq ---------------------------------------------------------------------------------------
def _source_digest(run_dir: R.RunDir) -> str:
    h = hashlib.sha256()
    for path in (run_dir.plan_file, run_dir.journal_file):
        h.update(path.read_bytes() if path.exists() else b"")
        h.update(b"\0")
    return h.hexdigest()


def graph_file(run_dir: R.RunDir) -> Path:
    return run_dir.path / GRAPH_FILE


def write_run_graph(run_dir: R.RunDir) -> Path:
    """Project the run and write ``graph.nq`` into its directory (atomically); returns the path."""
    digest = _source_digest(run_dir)
    text = _HEADER + digest + "\n" + nq.nquads(run_iri(run_dir.run_id), run_triples(run_dir))
    write_text_atomic(graph_file(run_dir), text)  # a reader sees the old file or the new one, never half
    return graph_file(run_dir)


def cached_graph(run_dir: R.RunDir) -> Path | None:
    """``graph.nq`` when it was written from the journal and plan as they are now, else None."""
    path = graph_file(run_dir)
    try:
        with path.open(encoding="utf-8") as f:
            first = f.readline().rstrip("\n")
    except (FileNotFoundError, UnicodeDecodeError):
        return None
    return path if first == _HEADER + _source_digest(run_dir) else None


def load_run(dataset: Dataset, run_dir: R.RunDir, use_cache: bool = True) -> URIRef:
    """Put one run's graph into ``dataset``: on Oxigraph from an up-to-date ``graph.nq`` if there is one
    (its native parser loads it several times faster than projecting the journal again). rdflib's N-Quads
    parser is slower than the projection itself (bench/graph.py), so the memory store always projects."""
    path = cached_graph(run_dir) if use_cache and store_name(dataset) == "oxigraph" else None
    if path is None:
        return build_run_graph(dataset, run_dir)
    name = run_iri(run_dir.run_id)
    dataset.remove_graph(name)
    parse_nquads(dataset, path)
    return name


def load_all(state_dir: Path, store: StoreName | None = None, runs: list[str] | None = None,
             use_cache: bool = True) -> Dataset:
    """A Dataset holding one named graph per run (every run, or only ``runs``)."""
    dataset = open_dataset(store)
    if runs is None:
        chosen = sorted(R.list_runs(state_dir), key=lambda rd: rd.run_id)
    else:
        bad = [r for r in runs if not r or "/" in r or r in (".", "..")]
        if bad:
            raise E.JournalError(f"invalid run id(s): {', '.join(map(repr, bad))}")
        chosen = [R.RunDir(state_dir, run_id) for run_id in runs]
        missing = [rd.run_id for rd in chosen if not rd.journal_file.exists() and not rd.exists()]
        if missing:
            raise E.JournalError(f"no run {', '.join(map(repr, missing))} in {R.runs_root(state_dir)}")
    for rd in chosen:
        load_run(dataset, rd, use_cache)
    return dataset
