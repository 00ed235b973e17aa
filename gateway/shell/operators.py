"""This product's own commands, run by an agent: what only a person may do is ``gate_tamper``.

An agent's shell runs as the same user as the operator, so ``acteon-swarm approvals approve`` typed by an
agent would find the admin key file and approve its own call. Whatever the gateway cannot see the CLI
read, it sees the command: approving or rejecting, parking decisions, cancelling, merging, cleaning up,
starting runs or gateways, installing or removing hooks are the operator's. Looking is allowed
(status, runs, audit, plan show, graph query …). Anything not recognised as looking — including options
before the subcommand it cannot place — is the operator's too: fail closed.
"""

from __future__ import annotations

from gateway.shell import categories as cat
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.invocation import Invocation
from gateway.shell.words import Word

# subcommand -> its read-only sub-subcommands (None: the subcommand itself only looks)
_SWARM_LOOKS: dict[str, frozenset[str] | None] = {
    "status": None, "runs": None, "audit": None, "doctor": None,
    "plan": frozenset({"show", "validate", "schema"}), "graph": frozenset({"query", "export"}),
    "memory": frozenset({"search"}), "approvals": frozenset({"list"}), "park": frozenset({"list"}),
}
_HOOK_RUNS = frozenset({"gate", "complete"})  # the hook itself: it only asks the gateway, as the agent
_HELP = frozenset({"--help", "--version"})
SWARM = "acteon-swarm"
GATEWAY = "acteon-gateway"
HOOK = "acteon-swarm-hook"
# `python -m MODULE` forms of the same programs
MODULES = {"orchestrator.cli": SWARM, "orchestrator": SWARM, "gateway.cli": GATEWAY, "gateway": GATEWAY,
           "hook": HOOK, "hook.__main__": HOOK}


def _words(args: list[Word]) -> list[str]:
    return [w.value if w.literal else "\x00dynamic" for w in args]


def looks_only(program: str, args: list[Word]) -> bool:
    words = _words(args)
    if not words or words[0] in _HELP:
        return True
    # `… --help` prints help, unless an option before it takes "--help" as its value (`--reason --help`)
    if words[-1] == "--help" and not any(w.startswith("-") for w in words[:-1]):
        return True
    if program == HOOK:
        return words[0] in _HOOK_RUNS
    if program == GATEWAY:
        return False
    looks = _SWARM_LOOKS.get(words[0], frozenset())
    if looks is None:
        return True
    return len(words) > 1 and words[1] in looks


def operator_command(program: str, call: Invocation) -> Flow:
    if not looks_only(program, call.args):
        call.flag(cat.GATE_TAMPER)
    return OPAQUE


def swarm(call: Invocation) -> Flow:
    return operator_command(SWARM, call)


def gateway(call: Invocation) -> Flow:
    return operator_command(GATEWAY, call)


def hook(call: Invocation) -> Flow:
    return operator_command(HOOK, call)


HANDLERS = {SWARM: swarm, GATEWAY: gateway, HOOK: hook}
