"""An analysis child that misbehaves on request, for the pool's isolation tests.

Speaks the real frame protocol (gateway.analyzer.wire). The command decides what it does:
CRASH → segfault, HANG → never answers, EXIT → exits, GARBAGE → answers nonsense, ENV → reports its
environment as the command's facts, anything else → empty facts.
"""

from __future__ import annotations

import os
import signal
import sys
import time

from gateway.analyzer.wire import facts_to_wire, parse_request, read_frame, write_frame
from gateway.normalize import Facts

inp, out = sys.stdin.buffer, sys.stdout.buffer
write_frame(out, b"ready")
while True:
    body = read_frame(inp)
    if body is None:
        sys.exit(0)
    command = parse_request(body)[0]
    if command == "CRASH":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif command == "HANG":
        time.sleep(3600)
    elif command == "EXIT":
        sys.exit(7)
    elif command == "GARBAGE":
        write_frame(out, b"{not json")
    elif command == "ENV":
        write_frame(out, facts_to_wire(Facts(target=command, commands=tuple(sorted(os.environ)))))
    else:
        write_frame(out, facts_to_wire(Facts(target=command)))
