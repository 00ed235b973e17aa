"""A canonical N-Quads writer for the twin's own terms (IRIs and literals; the twin has no blank nodes).

Canonical means: one line per quad, sorted, ``xsd:string`` literals written plain, the same escapes
everywhere. So ``graph.nq`` and ``graph export --format nquads`` are the same bytes whichever store the
triples went through, and rebuilding a run's graph rewrites its file identically. Also the fast way
into Oxigraph: its native parser loads these lines faster than Python can hand it quad objects.
"""

from __future__ import annotations

from collections.abc import Iterable

from rdflib import Literal, URIRef
from rdflib.term import Node

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
# N-Triples' ECHARs, and \uXXXX for the other control characters (legal raw, but fragile in tools).
_ESCAPES = {ord("\\"): "\\\\", ord('"'): '\\"', ord("\n"): "\\n", ord("\r"): "\\r"}
_ESCAPES.update({c: f"\\u{c:04X}" for c in [*range(0x20), 0x7F] if c not in _ESCAPES})


def term(t: Node) -> str:
    """One term in N-Triples syntax."""
    if isinstance(t, Literal):
        text = '"' + str(t).translate(_ESCAPES) + '"'
        if t.language:
            return f"{text}@{t.language}"
        dt = t.datatype
        return text if dt is None or str(dt) == _XSD_STRING else f"{text}^^<{dt}>"
    if isinstance(t, URIRef):
        # The twin's IRIs are percent-encoded ids and vocabulary constants: nothing here needs escaping.
        return f"<{t}>"
    raise ValueError(f"the twin has no blank nodes: {t!r}")


def lines(graph: URIRef, triples: Iterable[tuple[Node, Node, Node]]) -> list[str]:
    """One N-Quads line per triple, in the given order. Each distinct term object is written once: the
    projection shares one object per repeated term (predicates, types, agents, outcomes)."""
    cache: dict[int, str] = {}
    keep: list[Node] = []  # ids are only unique among live objects

    def w(t: Node) -> str:
        s = cache.get(id(t))
        if s is None:
            s = cache[id(t)] = term(t)
            keep.append(t)
        return s

    g = f" {term(graph)} .\n"
    return [f"{w(s)} {w(p)} {w(o)}{g}" for s, p, o in triples]


def nquads(graph: URIRef, triples: Iterable[tuple[Node, Node, Node]]) -> str:
    """Canonical N-Quads of one named graph: sorted lines."""
    return "".join(sorted(lines(graph, triples)))
