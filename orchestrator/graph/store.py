"""Where the twin lives: an rdflib ``Dataset`` on rdflib's memory store or on Oxigraph (via oxrdflib).

Both keep the rdflib API (``addN``, ``query``, ``serialize``), so everything else is store-agnostic.
``bench/graph.py`` measures the two on a 2,000-task, 100,000-call run (2 million triples): Oxigraph builds
the graph in 0.45 of the time, loads ``graph.nq`` 15x faster and answers every ready query faster, from
1.2x to 40x (its SPARQL engine is native code, rdflib's is Python), so it is the default;
``[graph] store = "memory"`` in swarm.toml picks the pure-Python store.

The default graph of every Dataset opened here is the union of the named graphs (one per run): a
query without ``GRAPH`` sees every loaded run, one with ``GRAPH ?g`` can tell them apart.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, get_args

from rdflib import XSD, Dataset, URIRef
from rdflib import Literal as RdfLiteral
from rdflib.term import Node

from orchestrator.graph import nq
from orchestrator.graph import vocab as V

StoreName = Literal["oxigraph", "memory"]
STORES: tuple[str, ...] = get_args(StoreName)
DEFAULT_STORE: StoreName = "oxigraph"  # see bench/graph.py and the README's figures

_XSD_STRING = XSD.string
# The pyoxigraph store under each Oxigraph-backed rdflib store we opened: bulk adds go to it directly.
_NATIVE: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def open_dataset(store: StoreName | None = None) -> Dataset:
    """An empty Dataset on ``store`` (default :data:`DEFAULT_STORE`), with the vocabulary's prefixes
    bound so that ad-hoc queries may leave out their ``PREFIX`` lines."""
    name = store or DEFAULT_STORE
    if name not in STORES:
        raise ValueError(f"unknown graph store {name!r} (known: {', '.join(STORES)})")
    if name == "oxigraph":
        import pyoxigraph

        native = pyoxigraph.Store()
        rdf_store = _oxigraph_store_class()(store=native)
        _NATIVE[rdf_store] = native
        dataset = Dataset(store=rdf_store, default_union=True)
    else:
        dataset = Dataset(store="Memory", default_union=True)
    for prefix, iri in V.PREFIXES.items():
        dataset.bind(prefix, iri, override=True)
    return dataset


def plain(term: Any) -> Any:
    """``"x"^^xsd:string`` as the plain ``"x"``: the same RDF 1.1 term, but not the same rdflib term."""
    if isinstance(term, RdfLiteral) and term.datatype == _XSD_STRING and not term.language:
        return RdfLiteral(str(term))
    return term


_OX_CLASS: Any = None


def _oxigraph_store_class() -> Any:
    """oxrdflib's store, giving strings back as rdflib writes them. Oxigraph follows RDF 1.1 and hands
    back every simple literal as ``"x"^^xsd:string``; rdflib keeps ``"x"`` and ``"x"^^xsd:string`` apart,
    so without this a triple added to the memory store and to Oxigraph would read back differently, and
    ``(s, p, Literal("x")) in dataset`` would depend on the store."""
    global _OX_CLASS
    if _OX_CLASS is not None:
        return _OX_CLASS
    from oxrdflib import OxigraphStore

    class PlainStringOxigraphStore(OxigraphStore):  # type: ignore[misc]
        def triples(self, triple_pattern: Any, context: Any = None) -> Any:
            for (s, p, o), contexts in super().triples(triple_pattern, context):
                yield (s, p, plain(o)), contexts

        def query(self, query: Any, initNs: Any, initBindings: Any, queryGraph: Any,
                  **kwargs: Any) -> Any:
            result = super().query(query, initNs, initBindings, queryGraph, **kwargs)
            if result.type == "SELECT":
                result.bindings = [{v: plain(t) for v, t in row.items()} for row in result.bindings]
            return result

    _OX_CLASS = PlainStringOxigraphStore
    return _OX_CLASS


def store_name(dataset: Dataset) -> StoreName:
    return "oxigraph" if dataset.store in _NATIVE or type(dataset.store).__name__ == "OxigraphStore" else "memory"


def parse_nquads(dataset: Dataset, path: Path) -> None:
    """Load an N-Quads file: natively on Oxigraph, through rdflib's parser on the memory store."""
    native = _NATIVE.get(dataset.store)
    if native is None:
        dataset.parse(str(path), format="nquads")
        return
    import pyoxigraph as ox

    native.load(path=str(path), format=ox.RdfFormat.N_QUADS)


def add_triples(dataset: Dataset, graph: URIRef, triples: Iterable[tuple[Node, Node, Node]]) -> None:
    """Add triples to the named graph ``graph``. On Oxigraph they go in as N-Quads text through its native
    parser: 200,000 triples load in a third of the time that rdflib's ``addN`` (or building pyoxigraph
    quad objects in Python) takes. On the memory store this is ``addN``."""
    native = _NATIVE.get(dataset.store)
    if native is None:
        ctx = dataset.graph(graph)
        dataset.addN([(s, p, o, ctx) for s, p, o in triples])
        return
    import pyoxigraph as ox

    native.load(input="".join(nq.lines(graph, triples)).encode(), format=ox.RdfFormat.N_QUADS)
