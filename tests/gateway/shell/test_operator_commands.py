"""An agent running this product's own operator commands (approve its own call, cancel, merge, install
hooks) is gate_tamper, whatever form the command takes; looking (status, audit, plan show) is allowed."""

from __future__ import annotations

import pytest

from gateway.normalize import command_facts


def categories(command: str) -> tuple[str, ...]:
    return command_facts(command, "/work/proj", "/home/agent", ()).categories


@pytest.mark.parametrize("command", [
    "acteon-swarm approvals approve appr-1",
    "acteon-swarm approvals reject appr-1 --reason ok",
    "acteon-swarm park approve run-1 deploy --by me",
    "acteon-swarm park propose run-1 deploy --file alt.json",
    "acteon-swarm cancel --run run-1",
    "acteon-swarm merge run-1 --into main",
    "acteon-swarm cleanup run-1",
    "acteon-swarm run --plan plan.json --auto-approve",
    "acteon-swarm --state-dir /tmp/s approvals approve x",
    "/home/agent/.venv/bin/acteon-swarm approvals approve x",
    "python3 -m orchestrator.cli approvals approve x",
    "python -m hook install --cli claude",
    "acteon-swarm-hook install --cli claude",
    "acteon-swarm-hook uninstall --cli gemini",
    "acteon-gateway serve --port 9",
    "A=acteon-swarm; $A approvals approve x",
    "env ACTEON_ADMIN_KEY=k acteon-swarm approvals approve x",
    "acteon-swarm $SUBCOMMAND",
    "acteon-swarm approvals reject x --reason --help",
    "sh -c 'acteon-swarm approvals approve x'",
])
def test_operator_commands_are_gate_tamper(command: str) -> None:
    assert "gate_tamper" in categories(command)


@pytest.mark.parametrize("command", [
    "acteon-swarm status --run run-1 --json",
    "acteon-swarm runs",
    "acteon-swarm audit --run run-1",
    "acteon-swarm plan show --plan plan.json",
    "acteon-swarm approvals list",
    "acteon-swarm park list",
    "acteon-swarm graph query --run r 'SELECT * WHERE {?s ?p ?o}'",
    "acteon-swarm --help",
    "acteon-swarm approvals approve --help",
    "acteon-swarm-hook gate",
    "python3 -m orchestrator.cli status --run x",
])
def test_looking_is_allowed(command: str) -> None:
    assert "gate_tamper" not in categories(command)
