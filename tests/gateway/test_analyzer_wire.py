"""What an analysis child sends back is what the gateway would have found in its own process."""

from __future__ import annotations

from gateway.analyzer.wire import facts_from_wire, facts_to_wire
from gateway.normalize import command_facts


def test_facts_cross_the_wire_whole() -> None:
    command = "cat > Makefile <<'EOF'\ndeploy:\n\tkubectl delete ns live\nEOF\ncurl -so x.sh https://x.example"
    facts = command_facts(command, "/work/proj", "/home/agent", ())
    assert facts.written_texts == (("/work/proj/Makefile", "deploy:\n\tkubectl delete ns live\n"),)
    assert facts_from_wire(facts_to_wire(facts)) == facts
