"""The twin's vocabulary as RDFS (``graph vocab --format turtle``)."""

from __future__ import annotations

from rdflib import RDF, Literal, Namespace, URIRef

from orchestrator.graph import vocab as V
from orchestrator.graph.project import Triple


def ontology_triples() -> list[Triple]:
    """The vocabulary as RDFS (``graph vocab --format turtle``): classes, properties, PROV-O parents."""
    rdfs = Namespace(V.RDFS)
    owl = Namespace("http://www.w3.org/2002/07/owl#")

    def curie(c: str) -> URIRef:
        prefix, local = c.split(":", 1)
        return URIRef(V.PREFIXES[prefix] + local)

    out: list[Triple] = []
    for t in V.TERMS.values():
        term = URIRef(V.iri(t.name))
        out.append((term, rdfs.comment, Literal(t.description)))
        out.append((term, rdfs.label, Literal(t.name)))
        if t.kind == "class":
            out += [(term, RDF.type, rdfs.Class), (term, rdfs.subClassOf, curie(t.parent))]
            continue
        out.append((term, RDF.type, owl.ObjectProperty if t.kind == "object" else owl.DatatypeProperty))
        out.append((term, rdfs.range, curie(t.parent)))
        if t.sub_property_of:
            out.append((term, rdfs.subPropertyOf, curie(t.sub_property_of)))
        if t.domain != "any" and " " not in t.domain:
            out.append((term, rdfs.domain, curie(t.domain)))
    return out
