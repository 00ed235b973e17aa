"""``graph serve``: a read-only SPARQL 1.1 Protocol endpoint at ``/sparql`` (Starlette, run by uvicorn).

Query operation only, in the three ways the protocol allows: ``GET ?query=``, ``POST`` of an
``application/x-www-form-urlencoded`` form with ``query=``, and ``POST`` of ``application/sparql-query``.
Answers are negotiated from ``Accept``: SPARQL results as JSON (the default), XML, CSV or TSV; graphs
(CONSTRUCT, DESCRIBE) as Turtle (the default), N-Triples, RDF/XML or JSON-LD.

The dataset is the one loaded at start: one named graph per run, the default graph their union.
``default-graph-uri`` and ``named-graph-uri`` are accepted and ignored (the protocol allows a service to
fix its dataset). Updates are refused with 403: the twin is a projection of the journal, and a change
made here would be silently lost at the next rebuild. Every client mistake is a 4xx with one line of
plain text, never a stack trace.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from orchestrator.graph import results
from orchestrator.graph.queries import QueryError, run_query

if TYPE_CHECKING:
    from rdflib import Dataset

MAX_QUERY_BYTES = 1 << 20
_FORM = "application/x-www-form-urlencoded"
_DIRECT = "application/sparql-query"
_UPDATE = "application/sparql-update"
_READ_ONLY = "this endpoint is read-only: SPARQL Update is not accepted\n"


def _text(status: int, message: str) -> Response:
    return PlainTextResponse(message.rstrip("\n") + "\n", status_code=status)


async def _query_text(request: Request) -> str | Response:
    """The query of a protocol request, or the error response explaining why there is none."""
    if request.method == "GET":
        if "update" in request.query_params:
            return _text(403, _READ_ONLY)
        queries = request.query_params.getlist("query")
    else:
        media = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media == _UPDATE:
            return _text(403, _READ_ONLY)
        body = await request.body()
        if len(body) > MAX_QUERY_BYTES:
            return _text(413, f"query larger than {MAX_QUERY_BYTES} bytes")
        if media == _DIRECT:
            try:
                return body.decode("utf-8")
            except UnicodeDecodeError:
                return _text(400, "the query is not UTF-8")
        if media != _FORM:
            return _text(415, f"POST a query as {_FORM} or {_DIRECT}")
        # Parsed here rather than by request.form(), which needs python-multipart for one content type.
        try:
            form = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
        except UnicodeDecodeError:
            return _text(400, "the form is not UTF-8")
        if "update" in form:
            return _text(403, _READ_ONLY)
        queries = form.get("query", [])
    if not queries:
        return _text(400, "missing 'query' parameter")
    if len(queries) > 1:
        return _text(400, "exactly one 'query' parameter is allowed")
    return queries[0]


def create_app(dataset: Dataset) -> Starlette:
    """The endpoint over ``dataset`` (read-only; safe to serve from several threads)."""

    async def sparql(request: Request) -> Response:
        query = await _query_text(request)
        if isinstance(query, Response):
            return query
        try:
            result = await run_in_threadpool(run_query, dataset, query)
        except QueryError as e:
            return _text(400, str(e))
        fmt = results.negotiate(request.headers.get("accept"), result.type)
        body = await run_in_threadpool(results.serialize, result, fmt)
        return Response(body, media_type=results.content_type(result.type, fmt), headers={"Vary": "Accept"})

    async def index(request: Request) -> Response:
        return _text(200, "acteon-swarm digital twin: SPARQL 1.1 Protocol endpoint at /sparql (read-only)")

    routes = [Route("/sparql", sparql, methods=["GET", "POST"]), Route("/", index, methods=["GET"])]
    return Starlette(routes=routes)


def serve(dataset: Dataset, host: str, port: int) -> None:
    """Serve until interrupted."""
    import uvicorn

    uvicorn.run(create_app(dataset), host=host, port=port, log_level="warning", access_log=False)
