"""``acteon-swarm-hook``: the executable agent CLIs run on every tool call (SPEC §4).

Until the full hook lands (issue 3) this entry point fails closed: exit code 2 with the reason on
stderr blocks the tool in both Claude Code and Gemini CLI, and nothing is printed on stdout.
Standard library only.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    sys.stderr.write("acteon-swarm-hook: not available in this build; blocking the tool call (fail closed)\n")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
