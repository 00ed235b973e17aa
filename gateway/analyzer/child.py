"""An analysis child: ``python -m gateway.analyzer.child MEMORY_BYTES``.

Reads request frames on stdin, answers each with the command's facts on stdout, and exits at end of
input — so a child never outlives its worker. Its address space is capped with ``RLIMIT_AS``: a
parser blow-up ends in MemoryError (answered as unparseable, then the child exits to start clean) or
in the kernel refusing memory, never in the worker's memory.
"""

from __future__ import annotations

import resource
import signal
import sys


def main(argv: list[str]) -> int:
    # Ctrl-C in the gateway's terminal reaches the whole process group; the worker decides when a
    # child ends (it closes our stdin), so a child does not print a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    memory = int(argv[1]) if len(argv) > 1 else 0
    if memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    from gateway.analyzer.wire import facts_to_wire, parse_request, read_frame, write_frame
    from gateway.normalize import command_facts, unparseable_facts
    from gateway.shell.limits import OUT_OF_MEMORY

    inp, out = sys.stdin.buffer, sys.stdout.buffer
    write_frame(out, b"ready")
    while True:
        body = read_frame(inp)
        if body is None:
            return 0
        command, workdir, home, secret_paths, files = parse_request(body)
        try:
            facts = command_facts(command, workdir, home, secret_paths, files)
        except MemoryError:
            facts = None
        if facts is None or facts.limit == OUT_OF_MEMORY:
            write_frame(out, facts_to_wire(unparseable_facts(command, OUT_OF_MEMORY)))
            return 3  # the heap may be in a poor state: let the worker start a fresh child
        write_frame(out, facts_to_wire(facts))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
