"""The twin's vocabulary: one stable namespace, every term with its kind, place in PROV-O and meaning.

``TERMS`` is the single source of the vocabulary: the projection uses its names, ``graph vocab`` prints
it, the README's table is generated from it and a test checks the two agree. Plain strings only (no
rdflib here): printing the vocabulary must stay as cheap as ``--help``.

Modelling choices, in one place:

* Runs, tasks and subtasks are ``prov:Activity``; an agent session is a ``prov:SoftwareAgent``.
* Everything recorded *about* the work (tool calls, completions, approvals, refiner decisions, findings,
  alerts) is a ``prov:Entity`` with ``prov:generatedAtTime``. A ``ToolCall`` node is the gateway's
  decision record, so it is typed both ``swarm:ToolCall`` and ``swarm:EpisodicMemory`` (PROV keeps
  activities and entities disjoint, which is why a call is a record and not an activity).
* ``swarm:performed`` and ``swarm:discovered`` are sub-properties of ``swarm:produced``; the projection
  writes only the most specific one (no reasoner is assumed): an agent's whole episodic memory is
  ``?agent swarm:performed|swarm:produced ?m``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

NS = "https://w3id.org/acteon-swarm/ns#"
PREFIX = "swarm"
PROV = "http://www.w3.org/ns/prov#"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"

# Instance IRIs live under this URN (not under NS: the namespace names terms, not things).
URN = "urn:acteon-swarm:"

Kind = Literal["class", "object", "datatype"]


@dataclass(frozen=True)
class Term:
    name: str
    kind: Kind
    parent: str  # CURIE of the PROV-O superclass / super-property, or of the range for datatype properties
    domain: str  # CURIE(s) of the subject's class, "" for classes
    description: str
    sub_property_of: str = ""  # CURIE, properties only


def _c(name: str, parent: str, description: str) -> Term:
    return Term(name, "class", parent, "", description)


def _o(name: str, domain: str, rng: str, description: str, sub_of: str = "") -> Term:
    return Term(name, "object", rng, domain, description, sub_of)


def _d(name: str, domain: str, rng: str, description: str, sub_of: str = "") -> Term:
    return Term(name, "datatype", rng, domain, description, sub_of)


_TERMS = [
    # --- classes ---
    _c("SwarmRun", "prov:Activity", "One execution of a plan. Its IRI also names the run's named graph."),
    _c("SwarmTask", "prov:Activity", "A task of the plan as run: role, dependencies, status, timing."),
    _c("Subtask", "prov:Activity", "A step of a task, run by one agent session."),
    _c("AgentSession", "prov:SoftwareAgent", "One agent process (Claude Code, Gemini CLI or a command) for one "
                                             "subtask; its id is unique within the run."),
    _c("Role", "prov:Role", "A role tasks are assigned to (coder, reviewer, …)."),
    _c("Rule", "prov:Entity", "A gateway policy rule that decided tool calls."),
    _c("EpisodicMemory", "prov:Entity", "What an agent did: every tool call and tool completion."),
    _c("ToolCall", "swarm:EpisodicMemory", "One gateway decision on an agent's tool call (tool, target, outcome, "
                                           "rule). Also typed swarm:EpisodicMemory."),
    _c("ToolCompletion", "swarm:EpisodicMemory", "A tool's completion, reported by the agent's hook. Also typed "
                                                 "swarm:EpisodicMemory."),
    _c("Approval", "prov:Entity", "The human approval a tool call waits for (outcome pending_approval)."),
    _c("RefinerDecision", "prov:Entity", "What the refiner decided after a task, as applied."),
    _c("SemanticMemory", "prov:Entity", "A finding: something an agent (or a human) found, with topics; later "
                                        "runs use it."),
    _c("Alert", "prov:Entity", "A monitor alert (stuck, runaway, deadline) and the action taken."),
    _c("Synthesis", "prov:Entity", "The parents' outputs condensed for a task where branches of the plan meet."),
    _c("LensReport", "prov:Entity", "The merged report of a lens swarm task: its quorum and counted findings."),
    _c("Challenge", "prov:Entity", "What the adversarial loop's challenger found wrong with the finished work."),
    _c("Fix", "prov:Activity", "A recovery agent's fix of one challenge, judged by the eval (merged or kept "
                               "unmerged)."),
    # --- object properties ---
    _o("hasTask", "swarm:SwarmRun", "swarm:SwarmTask", "The run's tasks (the plan's and any the refiner added)."),
    _o("assignedTo", "swarm:SwarmTask", "swarm:Role", "The role the task is assigned to."),
    _o("dependsOn", "swarm:SwarmTask", "swarm:SwarmTask", "A task that must be done first."),
    _o("hasSubtask", "swarm:SwarmTask", "swarm:Subtask", "The task's subtasks."),
    _o("hasAgent", "swarm:SwarmRun", "swarm:AgentSession", "The run's agent sessions."),
    _o("hasRole", "swarm:AgentSession", "swarm:Role", "The role the session plays (its task's role)."),
    _o("forTask", "swarm:AgentSession swarm:EpisodicMemory swarm:SemanticMemory swarm:Alert", "swarm:SwarmTask",
       "The task an agent session, memory or alert belongs to."),
    _o("performed", "swarm:AgentSession", "swarm:ToolCall", "A tool call the agent made (sub-property of "
                                                             "swarm:produced).", "swarm:produced"),
    _o("produced", "swarm:AgentSession", "swarm:EpisodicMemory", "An episodic memory of the agent; written for "
                                                                  "completions (calls use swarm:performed)."),
    _o("decidedBy", "swarm:ToolCall", "swarm:Rule", "The rule that decided the call (none: the default)."),
    _o("needsApproval", "swarm:ToolCall", "swarm:Approval", "The approval the call waits for (or was retried "
                                                             "under)."),
    _o("discovered", "swarm:AgentSession", "swarm:SemanticMemory", "A finding the agent recorded (sub-property "
                                                                    "of swarm:produced).", "swarm:produced"),
    _o("used", "swarm:AgentSession", "swarm:SemanticMemory", "A finding put into the agent's prompt, from this "
                                                              "run or an earlier one (lineage)."),
    _o("hasFinding", "swarm:SwarmRun", "swarm:SemanticMemory", "A finding recorded during the run."),
    _o("hasDecision", "swarm:SwarmRun", "swarm:RefinerDecision", "A refiner decision of the run."),
    _o("afterTask", "swarm:RefinerDecision", "swarm:SwarmTask", "The task whose end the refiner judged."),
    _o("skipped", "swarm:RefinerDecision", "swarm:SwarmTask", "A task the refiner skipped."),
    _o("reprioritized", "swarm:RefinerDecision", "swarm:SwarmTask", "A task the refiner gave a new priority."),
    _o("added", "swarm:RefinerDecision", "swarm:SwarmTask", "A task the refiner added."),
    _o("synthesisFor", "swarm:Synthesis", "swarm:SwarmTask", "The task that received the synthesis."),
    _o("synthesizedFrom", "swarm:Synthesis", "swarm:SwarmTask", "A parent task whose output fed the synthesis "
                                                                 "(lineage)."),
    _o("lensFor", "swarm:LensReport", "swarm:SwarmTask", "The lens task the report merges."),
    _o("answeredBy", "swarm:LensReport", "swarm:AgentSession", "A member whose answer counted (failed, timed-out "
                                                                 "and invalid answers never do)."),
    _o("hasChallenge", "swarm:SwarmRun", "swarm:Challenge", "A challenge of the run's adversarial loop."),
    _o("challengesTask", "swarm:Challenge", "swarm:SwarmTask", "The task whose work the challenge is about."),
    _o("fixes", "swarm:Fix", "swarm:Challenge", "The challenge the fix answers (lineage)."),
    _o("fixedBy", "swarm:Fix", "swarm:AgentSession", "The recovery agent's session."),
    _o("hasAlert", "swarm:SwarmRun", "swarm:Alert", "A monitor alert of the run."),
    _o("aboutAgent", "swarm:Alert", "swarm:AgentSession", "The agent session an alert is about."),
    # --- datatype properties ---
    _d("id", "any", "xsd:string", "The id of a run, task, subtask, agent session, role, rule, approval or "
                                  "finding, as in the journal and plan."),
    _d("auditId", "swarm:ToolCall", "xsd:string", "The gateway's audit stream entry id (unique per run). Not "
                                                  "swarm:id: keeping the hundred thousand calls out of swarm:id "
                                                  "keeps every join on it fast."),
    _d("eventId", "swarm:ToolCompletion", "xsd:string", "The hook's completion event id."),
    _d("name", "swarm:SwarmTask swarm:Subtask", "xsd:string", "The human-readable name from the plan."),
    _d("status", "swarm:SwarmRun swarm:SwarmTask", "xsd:string", "Last status in the journal (a run without "
                                                                 "run_finished is 'running')."),
    _d("statusReason", "swarm:SwarmTask", "xsd:string", "Why the task got its last status."),
    _d("priority", "swarm:SwarmTask", "xsd:integer", "The plan's priority (lower runs first)."),
    _d("engine", "swarm:SwarmRun swarm:AgentSession", "xsd:string", "command, claude, gemini, codex or opencode."),
    _d("planId", "swarm:SwarmRun", "xsd:string", "The id of the plan run."),
    _d("startedAt", "swarm:SwarmRun swarm:SwarmTask swarm:Subtask swarm:AgentSession", "xsd:dateTime",
       "Journal time it started (also written as prov:startedAtTime).", "prov:startedAtTime"),
    _d("endedAt", "swarm:SwarmRun swarm:SwarmTask swarm:Subtask swarm:AgentSession", "xsd:dateTime",
       "Journal time it ended (also written as prov:endedAtTime).", "prov:endedAtTime"),
    _d("inputTokens", "swarm:AgentSession", "xsd:integer", "Input tokens the session's CLI reported (summed "
       "over its subtask; absent when it reported none)."),
    _d("outputTokens", "swarm:AgentSession", "xsd:integer", "Output tokens the session's CLI reported."),
    _d("costUsd", "swarm:AgentSession", "xsd:double", "Cost in US dollars the session's CLI reported (Claude "
       "Code does; never estimated)."),
    _d("durationSeconds", "swarm:SwarmTask swarm:Subtask", "xsd:double", "Task: wall time of its last attempt; "
                                                                         "subtask: as measured by the engine."),
    _d("ok", "swarm:Subtask swarm:ToolCompletion", "xsd:boolean", "Whether it succeeded."),
    _d("returncode", "swarm:Subtask", "xsd:integer", "The process's exit code."),
    _d("timedOut", "swarm:Subtask", "xsd:boolean", "Whether the subtask hit its timeout."),
    _d("detail", "swarm:Subtask swarm:ToolCompletion swarm:Alert", "xsd:string", "Free-text detail."),
    _d("tool", "swarm:ToolCall swarm:ToolCompletion", "xsd:string", "The tool name as the CLI reports it."),
    _d("actionType", "swarm:ToolCall", "xsd:string", "The gateway's normalised action (execute_command, "
                                                      "write_file…)."),
    _d("target", "swarm:ToolCall", "xsd:string", "The command, path or URL (truncated)."),
    _d("resolvedBy", "swarm:Approval", "xsd:string", "Who approved or rejected it (an operator's name)."),
    _d("shownSha256", "swarm:Approval", "xsd:string", "SHA-256 of what the deciding human was shown."),
    _d("resolutionReason", "swarm:Approval", "xsd:string", "What the person who decided wrote as the reason."),
    _d("outcome", "swarm:ToolCall", "xsd:string", "executed, suppressed, throttled, deduplicated, "
                                                   "pending_approval, quota_exceeded, rerouted, cancelled or "
                                                   "superseded."),
    _d("reason", "swarm:ToolCall swarm:RefinerDecision", "xsd:string", "Why (the gateway's or the refiner's "
                                                                        "words)."),
    _d("text", "swarm:SemanticMemory", "xsd:string", "What was found."),
    _d("topic", "swarm:SemanticMemory", "xsd:string", "One topic of the finding (repeated)."),
    _d("action", "swarm:RefinerDecision swarm:Alert", "xsd:string", "Refiner: continue, skip, reprioritize, "
                                                                     "add; alert: warn, throttle, kill."),
    _d("fallback", "swarm:RefinerDecision swarm:Synthesis swarm:LensReport", "xsd:boolean", "True: the refiner's "
       "answer was unusable and CONTINUE was applied; a synthesis passed the parents' outputs through; a lens "
       "report has no merger's prose (none asked, or it failed)."),
    _d("kind", "swarm:Alert", "xsd:string", "stuck, runaway or deadline."),
    _d("quorum", "swarm:LensReport", "xsd:string", "ok, degraded, below_quorum or insufficient_data."),
    _d("round", "swarm:Challenge", "xsd:integer", "The adversarial round the challenge was made in."),
    _d("severity", "swarm:Challenge", "xsd:double", "The challenger's severity, 0 (cosmetic) to 1 (broken)."),
    _d("category", "swarm:Challenge", "xsd:string", "correctness, security, performance, tests, docs…"),
    _d("description", "swarm:Challenge", "xsd:string", "What is wrong, in the challenger's words."),
    _d("actionable", "swarm:Challenge", "xsd:boolean", "Severity at or above the threshold: a fix was tried."),
    _d("result", "swarm:Fix", "xsd:string", "merged, or not_merged (its branch kept)."),
    _d("scoreBefore", "swarm:Fix", "xsd:double", "The integration head's eval score the fix was judged against."),
    _d("scoreAfter", "swarm:Fix", "xsd:double", "The eval score of the fix merged onto that head."),
    _d("branch", "swarm:Fix", "xsd:string", "The fix's branch (kept when not merged)."),
    _d("clusterCount", "swarm:LensReport", "xsd:integer", "Finding clusters in the report (votes counted)."),
    _d("seq", "swarm:RefinerDecision swarm:SemanticMemory swarm:Alert", "xsd:integer",
       "The journal sequence number of the event."),
    _d("onCriticalPath", "swarm:SwarmTask", "xsd:boolean", "True on the tasks of the run's critical path, "
                                                           "computed at projection time from task durations."),
    _d("criticalPathPosition", "swarm:SwarmTask", "xsd:integer", "1-based place on the critical path."),
    _d("criticalPathSeconds", "swarm:SwarmRun", "xsd:double", "Length of the critical path."),
]

TERMS: dict[str, Term] = {t.name: t for t in _TERMS}
PREFIXES: dict[str, str] = {PREFIX: NS, "prov": PROV, "xsd": XSD, "rdfs": RDFS}
SPARQL_PREFIXES = "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items())


def iri(name: str) -> str:
    """The full IRI of a vocabulary term (KeyError for a name not in the vocabulary: no typos)."""
    return NS + TERMS[name].name


def table_rows() -> list[tuple[str, str, str, str]]:
    """(term, kind, PROV-O parent or range, description) for every term, in vocabulary order."""
    kinds = {"class": "class", "object": "object property", "datatype": "datatype property"}
    rows = []
    for t in _TERMS:
        where = t.parent if t.kind == "class" else f"{t.domain} → {t.parent}"
        rows.append((f"{PREFIX}:{t.name}", kinds[t.kind], where, t.description))
    return rows


def markdown_table() -> str:
    """The README's vocabulary table (a test checks the README contains exactly this)."""
    lines = ["| term | kind | PROV-O parent / domain → range | meaning |", "|---|---|---|---|"]
    lines += [f"| `{t}` | {k} | {w} | {d} |" for t, k, w, d in table_rows()]
    return "\n".join(lines) + "\n"
