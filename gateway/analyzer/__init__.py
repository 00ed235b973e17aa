"""Shell analysis in isolated child processes (docs/rules.md: "runs off the event loop and isolated from
the worker").

The bash parser is native code and an agent chooses its input. A crash in it (a segfault), a runaway
(quadratic error recovery) or a memory blow-up must cost one call, not the gateway worker that serves
every other agent. So the worker never parses a command itself: ``Analyzer`` hands each command to one
of a few long-lived child processes (``child.py``), waits off the event loop with a deadline, and kills
and replaces a child that overruns, dies or runs out of its memory cap. Every such failure is a
decision — the command is ``unparseable`` with the reason — never an allow.

    worker (event loop) ──await──▶ thread ──frame──▶ child: parse + walk ──frame──▶ Facts
                                       └─ deadline: kill, respawn, "analysis took longer than …"
"""

from gateway.analyzer.pool import Analyzer, shared_analyzer

__all__ = ["Analyzer", "shared_analyzer"]
