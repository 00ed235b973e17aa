"""The digital twin of each run (docs/sparql.md): an RDF projection of the run's journal and plan.

``vocab`` names the terms, ``project`` builds one named graph per run (and ``graph.nq``, written by
``nq``), ``store`` opens a Dataset on Oxigraph or rdflib's memory store, ``queries`` holds the ready
SPARQL queries, ``results`` writes answers in the SPARQL result formats, ``export`` writes graphs,
``serve`` is the SPARQL 1.1 Protocol endpoint and ``cli`` the ``acteon-swarm graph`` commands. Nothing
here is imported by the CLI's ``--help`` path: rdflib and pyoxigraph load only when a graph command runs.
"""
