"""Getting access: HashiCorp Boundary's sessions and Kerberos tickets.

`boundary connect KIND … -- ARGS` is a session through the access proxy, with ARGS
handed to the client it starts (`psql` for postgres, `mysql`, `ssh`, `kubectl`, `redis-cli`, `cqlsh`).

`boundary connect postgres -target-id t -- -c 'DELETE FROM x'` is `psql -c 'DELETE FROM x'` against the
target: judged as that. Boundary's own resource commands are read for their verbs like any resource CLI
(`boundary accounts create password …` creates a credential: ``gateway.shell.lexicon``).
"""

from __future__ import annotations

from gateway.shell import lexicon
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.generic import default_handler
from gateway.shell.invocation import Invocation
from gateway.shell.words import literal_word

_CLIENTS = {"postgres": "psql", "mysql": "mysql", "ssh": "ssh", "kube": "kubectl", "redis": "redis-cli",
            "cassandra": "cqlsh", "mongo": "mongosh", "http": "curl"}


def boundary(call: Invocation) -> Flow:
    words = [w.value for w in call.args]
    if words[:1] == ["connect"] and len(words) > 1 and words[1] in _CLIENTS:
        marker = words.index("--") if "--" in words else None
        client_args = call.args[marker + 1:] if marker is not None else []
        call.invoke([literal_word(_CLIENTS[words[1]]), *client_args])
        return OPAQUE
    lexicon.judge(call)
    return default_handler(call)


def kinit(call: Invocation) -> Flow:
    """`kinit -kt FILE PRINCIPAL`: authenticates with the keytab, as `ssh -i KEY` does with a key — it does not
    disclose it (reading a keytab any other way is a credential read)."""
    args = call.args
    for i, word in enumerate(args):
        value = word.value
        if value.startswith("-") and not value.startswith("--") and "t" in value[1:]:
            attached = value.split("t", 1)[1]
            keytab = word.tail(value.index("t") + 1) if attached else args[i + 1] if i + 1 < len(args) else None
            if keytab is not None:
                call.inspect(keytab)
    return OPAQUE
