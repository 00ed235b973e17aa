"""HashiCorp Boundary's `boundary connect KIND … -- ARGS`: a session through the access proxy, with ARGS
handed to the client it starts (`psql` for postgres, `mysql`, `ssh`, `kubectl`, `redis-cli`, `cqlsh`).

`boundary connect postgres -target-id t -- -c 'DELETE FROM x'` is `psql -c 'DELETE FROM x'` against the
target: judged as that. Boundary's own resource commands are read for their verbs like any resource CLI
(`boundary accounts create password …` creates a credential: ``gateway.shell.lexicon``).
"""

from __future__ import annotations

from gateway.shell import lexicon
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.generic import default_handler
from gateway.shell.invocation import Call
from gateway.shell.words import literal_word

_CLIENTS = {"postgres": "psql", "mysql": "mysql", "ssh": "ssh", "kube": "kubectl", "redis": "redis-cli",
            "cassandra": "cqlsh", "mongo": "mongosh", "http": "curl"}


def boundary(call: Call) -> Flow:
    words = [w.value for w in call.args]
    if words[:1] == ["connect"] and len(words) > 1 and words[1] in _CLIENTS:
        marker = words.index("--") if "--" in words else None
        client_args = call.args[marker + 1:] if marker is not None else []
        call.invoke([literal_word(_CLIENTS[words[1]]), *client_args])
        return OPAQUE
    lexicon.judge(call)
    return default_handler(call)
