"""``graph export``: a loaded dataset as N-Quads, Turtle or JSON-LD.

N-Quads goes through the projection's canonical writer (sorted lines), so an export of the same runs is
the same bytes on either store. Turtle has no named graphs: it gets the union of the runs' triples.
JSON-LD keeps one named graph per run (``@graph`` objects with the run's IRI as ``@id``).
"""

from __future__ import annotations

from rdflib import Dataset, Graph, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

from orchestrator.graph import vocab as V
from orchestrator.graph.nq import nquads
from orchestrator.graph.store import plain


def named_graphs(dataset: Dataset) -> list[URIRef]:
    """The run graphs in the dataset, sorted (the empty default graph is not one of them)."""
    names = {g.identifier for g in dataset.graphs()}
    return sorted(n for n in names if isinstance(n, URIRef) and n != DATASET_DEFAULT_GRAPH_ID)


def export_dataset(dataset: Dataset, fmt: str) -> bytes:
    if fmt == "nquads":
        # nquads() writes xsd:string literals plain, as the projection does: same bytes on both stores.
        return "".join(nquads(name, dataset.graph(name)) for name in named_graphs(dataset)).encode()
    if fmt == "turtle":
        union = Graph()
        for prefix, iri in V.PREFIXES.items():
            union.bind(prefix, iri)
        for name in named_graphs(dataset):
            for s, p, o in dataset.graph(name):
                union.add((s, p, plain(o)))
        return union.serialize(format="turtle", encoding="utf-8")
    if fmt == "json-ld":
        out = Dataset()
        for name in named_graphs(dataset):
            g = out.graph(name)
            for s, p, o in dataset.graph(name):
                g.add((s, p, plain(o)))
        return out.serialize(format="json-ld", encoding="utf-8", context=dict(V.PREFIXES))
    raise ValueError(f"unknown export format {fmt!r}")
