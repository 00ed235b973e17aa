"""Query results as the SPARQL 1.1 result formats (JSON, XML, CSV, TSV) or RDF, and content negotiation.

Shared by ``graph query`` and ``graph serve`` so both print exactly the same bytes. Results are first
*normalised*: Oxigraph returns ``"x"^^xsd:string`` where rdflib returns the plain ``"x"`` — the same RDF
1.1 term, but clients would see a ``datatype`` key on one store and not the other.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence

from rdflib import BNode, Graph, Literal, URIRef, Variable
from rdflib.query import Result
from rdflib.term import Node

from orchestrator.graph import vocab as V
from orchestrator.graph.nq import term as nt_term
from orchestrator.graph.store import plain

# media type -> our format name
SOLUTION_TYPES = {
    "application/sparql-results+json": "json",
    "application/json": "json",
    "application/sparql-results+xml": "xml",
    "application/xml": "xml",
    "text/xml": "xml",
    "text/csv": "csv",
    "text/tab-separated-values": "tsv",
}
BOOLEAN_FORMATS = ("json", "xml")
GRAPH_TYPES = {
    "text/turtle": "turtle",
    "application/x-turtle": "turtle",
    "application/turtle": "turtle",
    "application/n-triples": "nt",
    "text/plain": "nt",
    "application/rdf+xml": "xml",
    "application/ld+json": "json-ld",
}
CONTENT_TYPE = {
    "json": "application/sparql-results+json",
    "xml": "application/sparql-results+xml",
    "csv": "text/csv; charset=utf-8",
    "tsv": "text/tab-separated-values; charset=utf-8",
}
GRAPH_CONTENT_TYPE = {
    "turtle": "text/turtle; charset=utf-8",
    "nt": "application/n-triples",
    "xml": "application/rdf+xml",
    "json-ld": "application/ld+json",
}


def normalize(result: Result) -> Result:
    """A materialised copy of the result with xsd:string literals made plain and unbound variables
    absent (both stores then give identical results)."""
    out = Result(result.type)
    if result.type == "SELECT":
        out.vars = list(result.vars or [])
        out.bindings = [{v: plain(t) for v, t in row.items() if t is not None} for row in result.bindings]
    elif result.type == "ASK":
        out.askAnswer = bool(result.askAnswer)
    else:
        g = Graph()
        for prefix, iri in V.PREFIXES.items():
            g.bind(prefix, iri)
        g.addN((s, p, plain(o), g) for s, p, o in (result.graph or Graph()))
        out.graph = g
    return out


def negotiate(accept: str | None, kind: str) -> str:
    """The format to answer a ``kind`` (SELECT, ASK, CONSTRUCT, DESCRIBE) result in, from an Accept header
    (q-values honoured). Nothing acceptable, or a wildcard: the default (JSON, or Turtle for graphs)."""
    table = GRAPH_TYPES if kind in ("CONSTRUCT", "DESCRIBE") else SOLUTION_TYPES
    allowed = set(table.values()) if table is GRAPH_TYPES else (
        set(BOOLEAN_FORMATS) if kind == "ASK" else set(SOLUTION_TYPES.values()))
    best: tuple[float, int, str] | None = None
    for position, part in enumerate((accept or "").split(",")):
        fields = [f.strip() for f in part.split(";")]
        media, q = fields[0].lower(), 1.0
        for param in fields[1:]:
            if param.startswith("q="):
                try:
                    q = float(param[2:])
                except ValueError:
                    q = 0.0
        fmt = table.get(media)
        if fmt is None or fmt not in allowed or q <= 0:
            continue
        candidate = (q, -position, fmt)  # highest q, then the client's own order
        if best is None or candidate > best:
            best = candidate
    if best is not None:
        return best[2]
    return "turtle" if table is GRAPH_TYPES else "json"


def content_type(kind: str, fmt: str) -> str:
    return GRAPH_CONTENT_TYPE[fmt] if kind in ("CONSTRUCT", "DESCRIBE") else CONTENT_TYPE[fmt]


def serialize(result: Result, fmt: str) -> bytes:
    """The result in ``fmt`` (see :func:`negotiate`)."""
    if result.type in ("CONSTRUCT", "DESCRIBE"):
        assert result.graph is not None
        return result.graph.serialize(format=fmt, encoding="utf-8")
    if fmt == "xml":
        buf = io.BytesIO()
        result.serialize(buf, format="xml", encoding="utf-8")
        return buf.getvalue()
    if result.type == "ASK":
        return json.dumps({"head": {}, "boolean": bool(result.askAnswer)}).encode()
    names = [str(v) for v in result.vars or []]
    rows = [[row.get(Variable(n)) for n in names] for row in result.bindings]
    if fmt == "json":
        return _json(names, rows)
    if fmt == "csv":
        return _csv(names, rows)
    if fmt == "tsv":
        return _tsv(names, rows)
    raise ValueError(f"unknown result format {fmt!r}")


def _json_term(t: Node) -> dict[str, str]:
    if isinstance(t, URIRef):
        return {"type": "uri", "value": str(t)}
    if isinstance(t, BNode):
        return {"type": "bnode", "value": str(t)}
    assert isinstance(t, Literal)
    term = {"type": "literal", "value": str(t)}
    if t.language:
        term["xml:lang"] = t.language
    elif t.datatype is not None:
        term["datatype"] = str(t.datatype)
    return term


def _json(names: list[str], rows: Iterable[Sequence[Node | None]]) -> bytes:
    bindings = [{n: _json_term(t) for n, t in zip(names, row, strict=True) if t is not None} for row in rows]
    return json.dumps({"head": {"vars": names}, "results": {"bindings": bindings}}, ensure_ascii=False).encode()


def _csv(names: list[str], rows: Iterable[Sequence[Node | None]]) -> bytes:
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\r\n")  # RFC 4180, as SPARQL 1.1 CSV asks
    out.writerow(names)
    for row in rows:
        out.writerow(["" if t is None else (f"_:{t}" if isinstance(t, BNode) else str(t)) for t in row])
    return buf.getvalue().encode()


def _tsv_term(t: Node | None) -> str:
    if t is None:
        return ""
    if isinstance(t, BNode):
        return f"_:{t}"
    if isinstance(t, Literal) and t.language:
        return f"{nt_term(Literal(str(t)))}@{t.language}"
    return nt_term(t)  # N-Triples syntax escapes tabs and newlines, so a row stays one line


def _tsv(names: list[str], rows: Iterable[Sequence[Node | None]]) -> bytes:
    lines = ["\t".join(f"?{n}" for n in names)]
    lines += ["\t".join(_tsv_term(t) for t in row) for row in rows]
    return ("\n".join(lines) + "\n").encode()


def cell(term: Node | None) -> str:
    """A compact rendering for a terminal table: plain literal values, prefixed IRIs where possible."""
    if term is None:
        return ""
    if isinstance(term, URIRef):
        text = str(term)
        for prefix, iri in V.PREFIXES.items():
            if text.startswith(iri):
                return f"{prefix}:{text[len(iri):]}"
        return text
    return str(term)
