"""Compose files: what `docker compose up` (and `run`, `create`, `start`) gives its containers of the host.

A service that bind-mounts the host's root or system folders, runs privileged or in the host's namespaces
can change the host like root — the same as `docker run -v /:/host --privileged` (``gateway.shell.operations``),
written in a file instead of on the command line. The files are those named with `-f`, else the default
names in the folder, as the command hook attached them or an earlier write put them.
"""

from __future__ import annotations

from typing import Any

import yaml

from acteon_core.attachments import MANIFESTS
from gateway.shell import categories as cat
from gateway.shell.invocation import Invocation
from gateway.shell.tasks import manifest
from gateway.shell.words import Word

# The files compose reads when none is named, overrides merged over them: the ones the command hook sends.
DEFAULT_NAMES = MANIFESTS["compose"]
_STARTS = frozenset({"up", "run", "create", "start", "restart", "watch"})
_HOST_MODES = ("host",)
_CAPABILITIES = frozenset({"ALL", "SYS_ADMIN", "SYS_PTRACE", "SYS_MODULE", "DAC_READ_SEARCH"})


def judge(call: Invocation, words: list[str]) -> None:
    """`docker compose [-f FILE]… up …`: the host access of every service in the files."""
    if not _STARTS & set(words[:3]):
        return
    args = call.args
    named = [args[i + 1] for i, w in enumerate(args[:-1]) if w.value in ("-f", "--file")]
    texts = [call.file_content(w) for w in named] if named else [
        found[1] if (found := manifest(call, (name,))) is not None else None for name in DEFAULT_NAMES]
    for flow in texts[:8]:
        if flow is not None and flow.script is not None:
            _services(call, flow.script)


def _services(call: Invocation, text: str) -> None:
    try:
        data = yaml.safe_load(text[: 1 << 16])
    except yaml.YAMLError:
        return
    services = data.get("services") if isinstance(data, dict) else None
    for service in list(services.values())[:64] if isinstance(services, dict) else []:
        if isinstance(service, dict):
            _service(call, service)


def _service(call: Invocation, service: dict[str, Any]) -> None:
    if service.get("privileged") is True or service.get("pid") in _HOST_MODES or service.get("ipc") in _HOST_MODES \
            or service.get("userns_mode") in _HOST_MODES or _CAPABILITIES & {str(c) for c in service.get("cap_add", [])
                                                                              if isinstance(c, str | int)}:
        call.flag(cat.SYSTEM_WRITE)
    for volume in service.get("volumes", [])[:64] if isinstance(service.get("volumes"), list) else []:
        source = volume.split(":", 1)[0] if isinstance(volume, str) else \
            volume.get("source") if isinstance(volume, dict) and volume.get("type", "bind") == "bind" else None
        if isinstance(source, str) and source.startswith(("/", "~")):
            call.write(Word(source))  # a bind mount of / or /etc is a write there
