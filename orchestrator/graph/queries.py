"""Ready SPARQL queries over the twin, and running any query with errors turned into one short message.

Every ready query reads the default graph, which is the union of the loaded runs' graphs (see
``store``), so the same text answers for one run (``--run``) or all of them (``--all``). Each is written
out in full with its ``PREFIX`` lines: the README shows them verbatim and they paste into any SPARQL
client. Every ``ORDER BY`` is total, so the rows come back in the same order on both stores.

The critical path is computed at projection time (``swarm:onCriticalPath``, ``swarm:criticalPathPosition``,
``swarm:criticalPathSeconds``): SPARQL has no longest-path operator, and a query that pretended
otherwise would be wrong on any DAG with more than one branch.

The grouped queries guard against an rdflib quirk: it answers a grouped query over no solutions with
one empty row, Oxigraph (correctly) with none. ``HAVING (COUNT(?call) > 0)`` or ``FILTER(?throttled > 0)``
makes both answer none.

Each text was shaped by ``bench/graph.py`` (a 100,000-call run) to be fast on both stores, whose planners
differ: Oxigraph joins patterns in roughly the order written and pays dearly for ``?r swarm:hasAgent ?a .
?r swarm:id ?run`` where ``?r a swarm:SwarmRun ; swarm:id ?run ; swarm:hasAgent ?a`` is cheap (a 5x
difference for most-throttled-agents); rdflib is slow on deep ``OPTIONAL`` blocks and on ``FILTER`` over
a large scan. So the few rows that matter are found in a sub-select before labels are joined, refusals
are a ``VALUES`` list (the gateway's outcomes but executed and rerouted) rather than ``NOT IN``, and an
agent's role is one hop (``swarm:hasRole``), not three.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from orchestrator.graph.vocab import SPARQL_PREFIXES

if TYPE_CHECKING:
    from rdflib import Dataset
    from rdflib.query import Result


class QueryError(ValueError):
    """A query that does not parse or cannot be evaluated; the message is short and safe to show."""


@dataclass(frozen=True)
class ReadyQuery:
    name: str
    description: str
    body: str  # without the PREFIX lines

    @property
    def sparql(self) -> str:
        return SPARQL_PREFIXES + self.body


_READY = [
    ReadyQuery("most-throttled-agents", "Agents with the most throttled tool calls (run, agent, role, count).", """\
SELECT ?run ?agent ?role ?throttled WHERE {
  { SELECT ?a (COUNT(?call) AS ?throttled)
    WHERE { ?call swarm:outcome "throttled" . ?a swarm:performed ?call } GROUP BY ?a }
  FILTER(?throttled > 0)
  ?r a swarm:SwarmRun ; swarm:id ?run ; swarm:hasAgent ?a .
  ?a swarm:id ?agent .
  OPTIONAL { ?a swarm:hasRole/swarm:id ?role }
}
ORDER BY DESC(?throttled) ?run ?agent
LIMIT 20
"""),
    ReadyQuery("finding-lineage", "Who discovered each finding, in which run, and which agents of which runs "
                                  "used it since.", """\
SELECT DISTINCT ?finding ?discoveredIn ?discoveredBy ?usedIn ?usedBy ?text WHERE {
  ?f a swarm:SemanticMemory ; swarm:id ?finding .
  OPTIONAL { ?f swarm:text ?text }
  OPTIONAL { ?d swarm:discovered ?f ; swarm:id ?discoveredBy .
             ?dr a swarm:SwarmRun ; swarm:id ?discoveredIn ; swarm:hasAgent ?d }
  OPTIONAL { ?u swarm:used ?f ; swarm:id ?usedBy .
             ?ur a swarm:SwarmRun ; swarm:id ?usedIn ; swarm:hasAgent ?u }
}
ORDER BY ?finding ?usedIn ?usedBy
"""),
    ReadyQuery("critical-path", "The tasks on each run's critical path, in order, with their durations "
                                "(computed at projection time).", """\
SELECT ?run ?position ?task ?seconds ?status ?pathSeconds WHERE {
  ?t swarm:onCriticalPath true ; swarm:criticalPathPosition ?position ; swarm:id ?task ; swarm:status ?status .
  ?r a swarm:SwarmRun ; swarm:id ?run ; swarm:criticalPathSeconds ?pathSeconds ; swarm:hasTask ?t .
  OPTIONAL { ?t swarm:durationSeconds ?seconds }
}
ORDER BY ?run ?position
"""),
    ReadyQuery("refiner-skipped", "What the refiner skipped, after which task, and why.", """\
SELECT ?run ?afterTask ?skipped ?reason ?fallback ?at WHERE {
  ?d a swarm:RefinerDecision ; swarm:skipped ?s ; swarm:afterTask ?after ;
     swarm:fallback ?fallback ; prov:generatedAtTime ?at .
  ?s swarm:id ?skipped .
  ?after swarm:id ?afterTask .
  ?r a swarm:SwarmRun ; swarm:id ?run ; swarm:hasDecision ?d .
  OPTIONAL { ?d swarm:reason ?reason }
}
ORDER BY ?run ?at ?skipped
"""),
    ReadyQuery("blocked-calls-by-rule", "Refused tool calls (every outcome but executed and rerouted) grouped by "
                                        "the rule that decided them.", """\
SELECT ?rule ?outcome (COUNT(DISTINCT ?call) AS ?calls) (COUNT(DISTINCT ?a) AS ?agents) (MIN(?target) AS ?example)
WHERE {
  VALUES ?outcome { "suppressed" "throttled" "deduplicated" "pending_approval" "quota_exceeded" "cancelled"
                    "superseded" }
  ?call swarm:outcome ?outcome .
  ?a swarm:performed ?call .
  OPTIONAL { ?call swarm:decidedBy ?r . ?r swarm:id ?ruleId }
  OPTIONAL { ?call swarm:target ?target }
  BIND(COALESCE(?ruleId, "(no rule)") AS ?rule)
}
GROUP BY ?rule ?outcome
HAVING (COUNT(?call) > 0)
ORDER BY DESC(?calls) ?rule ?outcome
"""),
    ReadyQuery("approvals", "Tool calls that waited for a human approval, who decided it and why, and what became "
               "of each call.", """\
SELECT ?run ?agent ?approval ?outcome ?decider ?why ?target ?at WHERE {
  { SELECT ?call ?a ?approval ?ap
    WHERE { ?ap a swarm:Approval ; swarm:id ?approval . ?call swarm:needsApproval ?ap . ?a swarm:performed ?call } }
  ?r a swarm:SwarmRun ; swarm:id ?run ; swarm:hasAgent ?a .
  ?a swarm:id ?agent .
  ?call swarm:outcome ?outcome ; prov:generatedAtTime ?at .
  OPTIONAL { ?call swarm:target ?target }
  OPTIONAL { ?ap swarm:resolvedBy ?decider }
  OPTIONAL { ?ap swarm:resolutionReason ?why }
}
ORDER BY ?run ?at ?approval ?outcome
"""),
    ReadyQuery("alerts", "Monitor alerts: what was seen about which agent, and what was done.", """\
SELECT ?run ?kind ?action ?agent ?detail ?at WHERE {
  ?al a swarm:Alert ; swarm:kind ?kind ; swarm:action ?action ; swarm:detail ?detail ; prov:generatedAtTime ?at .
  ?r a swarm:SwarmRun ; swarm:id ?run ; swarm:hasAlert ?al .
  OPTIONAL { ?al swarm:aboutAgent ?ag . ?ag swarm:id ?agent }
}
ORDER BY ?run ?at
"""),
    ReadyQuery("fixes", "Adversarial fixes: each challenge a recovery agent took on, the eval before and after, "
               "and whether it landed.", """\
SELECT ?run ?round ?severity ?description ?fix ?result ?before ?after WHERE {
  ?r a swarm:SwarmRun ; swarm:id ?run ; swarm:hasChallenge ?c .
  ?c swarm:round ?round ; swarm:severity ?severity ; swarm:description ?description .
  ?f a swarm:Fix ; swarm:fixes ?c ; swarm:id ?fix ; swarm:result ?result .
  OPTIONAL { ?f swarm:scoreBefore ?before }
  OPTIONAL { ?f swarm:scoreAfter ?after }
}
ORDER BY ?run ?round DESC(?severity) ?fix
"""),
]

READY: dict[str, ReadyQuery] = {q.name: q for q in _READY}


def run_query(dataset: Dataset, sparql: str) -> Result:
    """Evaluate a SPARQL query (never an update) on the dataset. Solutions are materialised here, so an
    evaluation error surfaces as :class:`QueryError` and not half-way through writing an answer."""
    from orchestrator.graph.results import normalize

    text = sparql.strip()
    if not text:
        raise QueryError("empty query")
    try:
        return normalize(dataset.query(text))
    except QueryError:
        raise
    except Exception as e:  # parsers and both engines raise their own types; the caller needs one
        raise QueryError(_first_line(e)) from None


def _first_line(e: Exception) -> str:
    message = str(e).strip().splitlines()
    text = message[0] if message else type(e).__name__
    return f"invalid query: {text[:300]}"
