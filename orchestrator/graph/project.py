"""The projection: a run's journal and plan.json → the run's named graph (docs/sparql.md).

The graph is a pure function of ``events.jsonl`` and ``plan.json``: IRIs come from ids (never blank
nodes), the only times are journal timestamps and gateway times copied into the journal. Deleting
``graph.nq`` and rebuilding gives the same bytes. ``graph.nq`` is a cache: it carries a digest of its
sources in its first line, and ``twin.load_all`` projects the journal again when they changed (a resumed
run) or when the file is missing (a run still going).

Instance IRIs (every id percent-encoded, so an id can never forge another node's IRI)::

    urn:acteon-swarm:run:<run>                        the run, and the name of its graph
    urn:acteon-swarm:run:<run>/task/<task>            .../subtask/<id>  .../agent/<id>  .../call/<audit id>
    urn:acteon-swarm:run:<run>/completion/<event id>  .../approval/<id>  .../decision/<seq>  .../alert/<seq>
    urn:acteon-swarm:run:<run>/role/<name>            .../rule/<name>
    urn:acteon-swarm:finding:<finding id>             global: later runs refer to it (lineage)

Only findings are shared between run graphs: every other node lives in exactly one, so a query over the
union of runs never sees a triple twice (rdflib's union default graph would repeat it once per graph).
"""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from rdflib import RDF, XSD, Literal, URIRef
from rdflib.namespace import PROV
from rdflib.term import Node

from acteon_core.vocabulary import TERMINAL
from orchestrator import events as E
from orchestrator.graph import vocab as V
from orchestrator.plan.model import Plan, PlanError, Task, critical_path

if TYPE_CHECKING:
    pass

# Bump when the projection changes: a graph.nq written by another version is rebuilt, not trusted.
PROJECTION_VERSION = 1

# Only the vocabulary's terms: a misspelt one is an AttributeError, never a silent new IRI. A plain
# namespace object rather than rdflib's ClosedNamespace, whose lookups cost a fifth of a big projection.
SW: Any = SimpleNamespace(**{name: URIRef(V.NS + name) for name in V.TERMS})
Triple = tuple[Node, Node, Node]

_TRUE, _FALSE = Literal(True), Literal(False)


def _q(local_id: str) -> str:
    # Only unreserved characters survive: '/', ':' or '#' in an id cannot reach into another IRI.
    return quote(local_id, safe="-._~")


def run_iri(run_id: str) -> URIRef:
    return URIRef(f"{V.URN}run:{_q(run_id)}")


def finding_iri(finding_id: str) -> URIRef:
    return URIRef(f"{V.URN}finding:{_q(finding_id)}")


def _clean(text: str) -> str:
    """A JSON string may hold a lone surrogate, which no RDF serialisation can carry."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def _ms_time(at_ms: int) -> Literal:
    # Integer arithmetic: at_ms / 1000 as a float could round to a neighbouring microsecond.
    return Literal(datetime.fromtimestamp(at_ms // 1000, UTC).replace(microsecond=at_ms % 1000 * 1000))


class Projector:
    """One pass over the journal collecting what each node ends up as, then the triples."""

    def __init__(self, run_id: str, plan: Plan | None) -> None:
        self.run_id = run_id
        self.run = run_iri(run_id)
        self.base = str(self.run)
        self.plan = plan
        self.out: list[Triple] = []
        self._lit: dict[tuple[type, object], Literal] = {}
        self._nodes: dict[tuple[str, str], URIRef] = {}
        self.tasks: dict[str, dict[str, Any]] = {}  # insertion order: plan order, then first mention
        self.agents: dict[str, URIRef] = {}
        self.agent_subtask: dict[str, URIRef] = {}
        self.agent_task: dict[str, str] = {}
        self.task_role: dict[str, URIRef] = {}
        self.finished: dict[URIRef, E.SubtaskFinished] = {}  # subtask -> its last finish
        self.finished_agent: dict[URIRef, str] = {}  # agent -> when its subtask last finished
        self.started: dict[URIRef, str] = {}  # subtask or agent -> first start
        self.rules: set[URIRef] = set()
        self.used: list[tuple[str, str, list[str]]] = []  # (agent, task, finding ids), resolved at the end
        self.added: list[Task] = []
        self.run_started: str | None = None
        self.run_ended: str | None = None
        self.run_status = "running"
        self.plan_id: str | None = plan.id if plan else None
        self.engine: str | None = None

    # --- terms (cached: a big run repeats the same tools, outcomes and rules a hundred thousand times) ---
    def lit(self, value: str | int | float) -> Literal:
        key = (type(value), value)  # the type too: 1 == 1.0 == True, but their literals differ
        cached = self._lit.get(key)
        if cached is None:
            cached = self._lit[key] = Literal(_clean(value) if isinstance(value, str) else value)
        return cached

    def when(self, ts: str) -> Literal:
        # From a datetime: rdflib's canonical lexical form (microseconds), the one a term read back from
        # Oxigraph gets too, so both stores hold, export and answer the very same literal. (Parsing the
        # journal's string through rdflib would give the same, ten times slower.)
        try:
            return Literal(datetime.fromisoformat(ts))
        except ValueError:  # not a timestamp after all: keep it, as an ill-typed literal says so
            return Literal(ts, datatype=XSD.dateTime)

    def node(self, kind: str, local_id: str) -> URIRef:
        key = (kind, local_id)
        cached = self._nodes.get(key)
        if cached is None:
            cached = self._nodes[key] = URIRef(f"{self.base}/{kind}/{_q(local_id)}")
        return cached

    def add(self, s: Node, p: Node, o: Node) -> None:
        self.out.append((s, p, o))

    def task(self, task_id: str) -> dict[str, Any]:
        t = self.tasks.get(task_id)
        if t is None:
            t = self.tasks[task_id] = {"iri": self.node("task", task_id), "status": "pending", "reason": "",
                                       "started": None, "ended": None, "attempt": None, "duration": None}
        return t

    def agent(self, agent_id: str) -> URIRef:
        a = self.agents.get(agent_id)
        if a is None:
            a = self.agents[agent_id] = self.node("agent", agent_id)
            self.add(a, RDF.type, SW.AgentSession)
            self.add(a, SW.id, self.lit(agent_id))
            self.add(self.run, SW.hasAgent, a)
        return a

    # --- events ------------------------------------------------------------------------------------
    def feed(self, ev: Any) -> None:
        if isinstance(ev, E.ToolCall):  # by far the most frequent event: first
            self.tool_call(ev)
        elif isinstance(ev, E.ToolCompleted):
            self.tool_completed(ev)
        elif isinstance(ev, E.TaskStatusChanged):
            self.task_status(ev)
        elif isinstance(ev, E.SubtaskStarted):
            sub, agent = self.node("subtask", ev.subtask_id), self.agent(ev.agent_id)
            t = self.task(ev.task_id)
            self.add(t["iri"], SW.hasSubtask, sub)
            self.add(sub, RDF.type, SW.Subtask)
            self.add(sub, SW.id, self.lit(ev.subtask_id))
            self.add(sub, PROV.wasAssociatedWith, agent)
            self.add(agent, SW.forTask, t["iri"])
            self.add(agent, SW.engine, self.lit(ev.engine))
            self.agent_subtask[ev.agent_id] = sub
            self.agent_task[ev.agent_id] = ev.task_id
            # A re-run after a resume starts again: the first start is when the work began.
            self.first_start(sub, ev.ts)
            self.first_start(agent, ev.ts)
        elif isinstance(ev, E.SubtaskFinished):
            sub, agent = self.node("subtask", ev.subtask_id), self.agent(ev.agent_id)
            self.finished[sub] = ev
            self.finished_agent[agent] = ev.ts
            self.usage(agent, ev)
        elif isinstance(ev, E.Finding):
            self.finding(ev)
        elif isinstance(ev, E.FindingsUsed):
            self.used.append((ev.agent_id, ev.task_id, list(ev.finding_ids)))
        elif isinstance(ev, E.RefinerDecision):
            self.refiner(ev)
        elif isinstance(ev, E.SynthesisMade):
            self.synthesis(ev)
        elif isinstance(ev, E.LensMerged):
            self.lens(ev)
        elif isinstance(ev, E.ChallengeRound):
            self.challenges(ev)
        elif isinstance(ev, E.FixFinished):
            self.fix(ev)
        elif isinstance(ev, E.Alert):
            self.alert(ev)
        elif isinstance(ev, E.RunStarted):
            self.run_started = self.run_started or ev.ts
            self.plan_id, self.engine, self.run_status = ev.plan_id, ev.engine, "running"
            self.run_ended = None  # resumed: it has not ended again yet
        elif isinstance(ev, E.RunFinished):
            self.run_ended, self.run_status = ev.ts, ev.status
        # AgentStarted (pids) and Note carry nothing the twin models.

    def first_start(self, node: URIRef, ts: str) -> None:
        self.started.setdefault(node, ts)

    def task_status(self, ev: E.TaskStatusChanged) -> None:
        t = self.task(ev.task_id)
        t["status"], t["reason"] = ev.status, ev.reason
        if ev.status == "running":
            t["started"] = t["started"] or ev.ts
            t["attempt"] = ev.ts
        elif ev.status in TERMINAL and t["attempt"] is not None:
            t["ended"] = ev.ts
            t["duration"] = (datetime.fromisoformat(ev.ts) - datetime.fromisoformat(t["attempt"])).total_seconds()
            t["attempt"] = None

    def tool_call(self, ev: E.ToolCall) -> None:
        call, agent, lit, add = self.node("call", ev.audit_id), self.agent(ev.agent_id), self.lit, self.add
        add(call, RDF.type, SW.ToolCall)
        add(call, RDF.type, SW.EpisodicMemory)
        add(call, SW.auditId, lit(ev.audit_id))
        add(agent, SW.performed, call)
        add(call, PROV.wasAttributedTo, agent)
        add(call, SW.tool, lit(ev.tool))
        add(call, SW.outcome, lit(ev.outcome))
        add(call, PROV.generatedAtTime, _ms_time(ev.at_ms))
        if ev.action_type:
            add(call, SW.actionType, lit(ev.action_type))
        if ev.target:
            add(call, SW.target, lit(ev.target))
        if ev.task_id:
            add(call, SW.forTask, self.task(ev.task_id)["iri"])
        if ev.rule:
            rule = self.node("rule", ev.rule)
            add(call, SW.decidedBy, rule)
            if rule not in self.rules:
                self.rules.add(rule)
                add(rule, RDF.type, SW.Rule)
                add(rule, SW.id, lit(ev.rule))
        if ev.reason:
            add(call, SW.reason, lit(ev.reason))
        if ev.approval_id:
            approval = self.node("approval", ev.approval_id)
            add(call, SW.needsApproval, approval)
            add(approval, RDF.type, SW.Approval)
            add(approval, SW.id, lit(ev.approval_id))
            if ev.decided_by:
                add(approval, SW.resolvedBy, lit(ev.decided_by))
            if ev.shown_sha256:
                add(approval, SW.shownSha256, lit(ev.shown_sha256))
            if ev.decision_reason:
                add(approval, SW.resolutionReason, lit(ev.decision_reason))

    def tool_completed(self, ev: E.ToolCompleted) -> None:
        done, agent, lit, add = self.node("completion", ev.event_id), self.agent(ev.agent_id), self.lit, self.add
        add(done, RDF.type, SW.ToolCompletion)
        add(done, RDF.type, SW.EpisodicMemory)
        add(done, SW.eventId, lit(ev.event_id))
        add(agent, SW.produced, done)
        add(done, PROV.wasAttributedTo, agent)
        add(done, SW.tool, lit(ev.tool))
        add(done, SW.ok, _TRUE if ev.ok else _FALSE)
        add(done, PROV.generatedAtTime, _ms_time(ev.at_ms))
        if ev.detail:
            add(done, SW.detail, lit(ev.detail))
        if ev.task_id:
            add(done, SW.forTask, self.task(ev.task_id)["iri"])

    def finding(self, ev: E.Finding) -> None:
        f, lit, add = finding_iri(ev.finding_id), self.lit, self.add
        add(f, RDF.type, SW.SemanticMemory)
        add(f, SW.id, lit(ev.finding_id))
        add(f, SW.text, lit(ev.text))
        add(f, SW.seq, lit(ev.seq))
        add(f, PROV.generatedAtTime, self.when(ev.ts))
        add(self.run, SW.hasFinding, f)
        for topic in ev.topics:
            add(f, SW.topic, lit(topic))
        if ev.agent_id:
            agent = self.agent(ev.agent_id)
            add(agent, SW.discovered, f)
            add(f, PROV.wasAttributedTo, agent)
        if ev.task_id:
            add(f, SW.forTask, self.task(ev.task_id)["iri"])

    def refiner(self, ev: E.RefinerDecision) -> None:
        d, lit, add = self.node("decision", str(ev.seq)), self.lit, self.add
        add(d, RDF.type, SW.RefinerDecision)
        add(self.run, SW.hasDecision, d)
        add(d, SW.seq, lit(ev.seq))
        add(d, SW.action, lit(ev.action))
        add(d, SW.fallback, _TRUE if ev.fallback else _FALSE)
        add(d, PROV.generatedAtTime, self.when(ev.ts))
        add(d, SW.afterTask, self.task(ev.after_task)["iri"])
        if ev.reason:
            add(d, SW.reason, lit(ev.reason))
        for tid in ev.skipped:
            add(d, SW.skipped, self.task(tid)["iri"])
        for tid in sorted(ev.priorities):
            add(d, SW.reprioritized, self.task(tid)["iri"])
        if ev.added_task is not None:
            try:
                task = Task.model_validate(ev.added_task)
            except ValueError:
                return  # the runner refused it too; the decision node still says what was asked
            self.added.append(task)
            add(d, SW.added, self.task(task.id)["iri"])

    def synthesis(self, ev: E.SynthesisMade) -> None:
        node, add = self.node("synthesis", str(ev.seq)), self.add
        add(node, RDF.type, SW.Synthesis)
        add(node, SW.synthesisFor, self.task(ev.task_id)["iri"])
        add(node, SW.fallback, _TRUE if ev.fallback else _FALSE)
        add(node, PROV.generatedAtTime, self.when(ev.ts))
        for parent in ev.parents:
            add(node, SW.synthesizedFrom, self.task(parent)["iri"])

    def usage(self, agent: URIRef, ev: Any) -> None:
        """Tokens and cost a session's CLI reported (a subtask's agent, a lens merger, a challenger)."""
        for value, prop in ((ev.input_tokens, SW.inputTokens), (ev.output_tokens, SW.outputTokens)):
            if value is not None:
                self.add(agent, prop, self.lit(value))
        if ev.cost_usd is not None:
            self.add(agent, SW.costUsd, Literal(ev.cost_usd, datatype=XSD.double))

    def lens(self, ev: E.LensMerged) -> None:
        node, add = self.node("lens", str(ev.seq)), self.add
        add(node, RDF.type, SW.LensReport)
        add(node, SW.lensFor, self.task(ev.task_id)["iri"])
        add(node, SW.quorum, self.lit(ev.result))
        add(node, SW.clusterCount, self.lit(ev.clusters))
        add(node, SW.fallback, _TRUE if ev.merger_fallback else _FALSE)
        add(node, PROV.generatedAtTime, self.when(ev.ts))
        for agent_id in ev.answered_by:
            add(node, SW.answeredBy, self.agent(agent_id))
        if ev.merger_engine:  # the merger was asked: its session, with what its CLI reported it used
            merger = self.agent(f"{ev.task_id}.merger")
            add(node, PROV.wasAttributedTo, merger)
            add(merger, SW.forTask, self.task(ev.task_id)["iri"])
            add(merger, SW.engine, self.lit(ev.merger_engine))
            self.usage(merger, ev)

    def challenges(self, ev: E.ChallengeRound) -> None:
        lit, add = self.lit, self.add
        challenger = None
        if ev.engine:
            challenger = self.agent(f"challenger.r{ev.round}")
            add(challenger, SW.engine, lit(ev.engine))
            self.usage(challenger, ev)
        for n, c in enumerate(ev.challenges, 1):
            node = self.node("challenge", f"r{ev.round}-c{n}")
            add(node, RDF.type, SW.Challenge)
            add(self.run, SW.hasChallenge, node)
            add(node, SW.round, lit(ev.round))
            add(node, SW.severity, lit(float(c.get("severity", 0.0))))
            add(node, SW.category, lit(str(c.get("category", ""))))
            add(node, SW.description, lit(str(c.get("description", ""))[:2000]))
            add(node, SW.actionable, _TRUE if n in ev.actionable else _FALSE)
            add(node, PROV.generatedAtTime, self.when(ev.ts))
            if challenger is not None:
                add(node, PROV.wasAttributedTo, challenger)
            if c.get("target_task"):
                add(node, SW.challengesTask, self.task(str(c["target_task"]))["iri"])

    def fix(self, ev: E.FixFinished) -> None:
        lit, add = self.lit, self.add
        node = self.node("fix", ev.fix_id)
        add(node, RDF.type, SW.Fix)
        add(node, SW.id, lit(ev.fix_id))
        add(node, SW.fixes, self.node("challenge", f"r{ev.round}-c{ev.challenge}"))
        add(node, SW.fixedBy, self.agent(f"{ev.fix_id}.{ev.fix_id}-1"))
        add(node, SW.result, lit(ev.result))
        add(node, SW.branch, lit(ev.branch))
        if ev.score_before is not None:
            add(node, SW.scoreBefore, lit(float(ev.score_before)))
        if ev.score_after is not None:
            add(node, SW.scoreAfter, lit(float(ev.score_after)))
        add(node, PROV.endedAtTime, self.when(ev.ts))

    def alert(self, ev: E.Alert) -> None:
        a, lit, add = self.node("alert", str(ev.seq)), self.lit, self.add
        add(a, RDF.type, SW.Alert)
        add(self.run, SW.hasAlert, a)
        add(a, SW.seq, lit(ev.seq))
        add(a, SW.kind, lit(ev.kind))
        add(a, SW.action, lit(ev.action))
        add(a, SW.detail, lit(ev.detail))
        add(a, PROV.generatedAtTime, self.when(ev.ts))
        if ev.agent_id:
            add(a, SW.aboutAgent, self.agent(ev.agent_id))
        if ev.task_id:
            add(a, SW.forTask, self.task(ev.task_id)["iri"])

    # --- the rest, once the journal is read --------------------------------------------------------
    def finish(self) -> list[Triple]:
        run, lit, add = self.run, self.lit, self.add
        add(run, RDF.type, SW.SwarmRun)
        add(run, SW.id, lit(self.run_id))
        add(run, SW.status, lit(self.run_status))
        if self.plan_id:
            add(run, SW.planId, lit(self.plan_id))
        if self.engine:
            add(run, SW.engine, lit(self.engine))
        self.span(run, self.run_started, self.run_ended)
        for sub, ev in self.finished.items():
            add(sub, SW.ok, _TRUE if ev.ok else _FALSE)
            add(sub, SW.timedOut, _TRUE if ev.timed_out else _FALSE)
            add(sub, SW.durationSeconds, lit(float(ev.duration_s)))
            if ev.returncode is not None:
                add(sub, SW.returncode, lit(ev.returncode))
            if ev.detail:
                add(sub, SW.detail, lit(ev.detail))
        for node, ts in self.started.items():
            ended = self.finished[node].ts if node in self.finished else self.finished_agent.get(node)
            self.span(node, ts, ended)
        self.plan_tasks()
        for agent_id, task_id in self.agent_task.items():
            if task_id in self.task_role:  # a direct link: "which role" is a two-hop question otherwise
                add(self.agents[agent_id], SW.hasRole, self.task_role[task_id])
        for agent_id, task_id, finding_ids in self.used:
            agent = self.agent(agent_id)
            add(agent, SW.forTask, self.task(task_id)["iri"])
            subtask = self.agent_subtask.get(agent_id)
            for fid in finding_ids:
                f = finding_iri(fid)
                # Typed here too: a finding of an earlier run is still a SemanticMemory in this graph.
                add(f, RDF.type, SW.SemanticMemory)
                add(f, SW.id, lit(fid))
                add(agent, SW.used, f)
                if subtask is not None:
                    add(subtask, PROV.used, f)
        for t_id, t in self.tasks.items():
            node = t["iri"]
            add(run, SW.hasTask, node)
            add(node, RDF.type, SW.SwarmTask)
            add(node, SW.id, lit(t_id))
            add(node, SW.status, lit(t["status"]))
            if t["reason"]:
                add(node, SW.statusReason, lit(t["reason"]))
            self.span(node, t["started"], t["ended"])
            if t["duration"] is not None:
                add(node, SW.durationSeconds, lit(float(t["duration"])))
        self.critical_path()
        # Deduplicated, first occurrence first: the same journal always gives the same sequence.
        return list(dict.fromkeys(self.out))

    def span(self, node: URIRef, started: str | None, ended: str | None) -> None:
        if started:
            self.add(node, SW.startedAt, self.when(started))
            self.add(node, PROV.startedAtTime, self.when(started))
        if ended:
            self.add(node, SW.endedAt, self.when(ended))
            self.add(node, PROV.endedAtTime, self.when(ended))

    def plan_tasks(self) -> None:
        lit, add = self.lit, self.add
        tasks = [*(self.plan.tasks if self.plan else []), *self.added]
        for task in tasks:
            node = self.task(task.id)["iri"]
            add(node, SW.name, lit(task.name))
            add(node, SW.priority, lit(task.priority))
            role = self.task_role[task.id] = self.node("role", task.assigned_role)
            add(node, SW.assignedTo, role)
            add(role, RDF.type, SW.Role)
            add(role, SW.id, lit(task.assigned_role))
            for dep in task.depends_on:
                add(node, SW.dependsOn, self.task(dep)["iri"])
            # A lens swarm's members are its subtasks (each one agent session, like a subtask's).
            named = [(s.id, s.name) for s in task.subtasks]
            named += [(m.id, f"lens member {m.id}") for m in (task.lens.members if task.lens else ())]
            for sub_id, sub_name in named:
                sub = self.node("subtask", sub_id)
                add(node, SW.hasSubtask, sub)
                add(sub, RDF.type, SW.Subtask)
                add(sub, SW.id, lit(sub_id))
                add(sub, SW.name, lit(sub_name))

    def critical_path(self) -> None:
        """Flag the longest chain of dependent tasks by duration (tasks that never ran count 0 s).
        SPARQL has no longest path; computing it here keeps the ready query a plain lookup."""
        if self.plan is None or not any(t["duration"] for t in self.tasks.values()):
            return
        plan = self.plan.model_copy(update={"tasks": [*self.plan.tasks, *self.added]})
        durations = {t.id: float(self.tasks[t.id]["duration"] or 0.0) for t in plan.tasks}
        try:
            length, path = critical_path(durations, plan)
        except (PlanError, ValueError, KeyError):
            return  # an added task that broke the DAG: no path is better than a wrong one
        # durations are journaled to the millisecond: a sum of floats is not (0.6000000000000001 s)
        self.add(self.run, SW.criticalPathSeconds, self.lit(round(length, 3)))
        for position, tid in enumerate(path, 1):
            node = self.tasks[tid]["iri"]
            self.add(node, SW.onCriticalPath, _TRUE)
            self.add(node, SW.criticalPathPosition, self.lit(position))
