"""SaltStack: `salt TARGET FUNCTION ARGS…` runs an execution-module function on every minion matched,
`salt-call FUNCTION ARGS…` on this one, `salt-run RUNNER …` on the master, `salt-key` manages minion keys.

Judged by the function, like `ansible -m` (``gateway.shell.ansible``): `cmd.run`/`cmd.shell`/`cmd.script`
run their argument as a command (analysed like one run here); functions that only look (`test.ping`,
`grains.*`, `pillar.get`, `*.list*`, `status.*`, `state.show_*`, any call with `test=True`) change nothing;
scheduling and cron functions are ``persistence``; `ssh.set_auth_key` is ``credential_creation``; removing
keys (`salt-key -d/-D`) is ``infra_destroy``; anything else (`state.apply`, `pkg.upgrade`,
`service.restart`, `salt-run state.orchestrate`) changes the machines: ``infra_change``.
"""

from __future__ import annotations

from gateway.shell import categories as cat
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.invocation import Invocation
from gateway.shell.words import Word

_VALUE_OPTIONS = frozenset({"-t", "--timeout", "-G", "-E", "-L", "-N", "-R", "-I", "-C", "--grain", "--pcre",
                            "--list", "--nodegroup", "--range", "--pillar", "--compound", "-c", "--config-dir",
                            "--out", "--output", "-b", "--batch-size", "--return", "-s", "--state-output",
                            "--log-level", "-l"})
# Target-type flags: the next word is the target expression, not the function.
_TARGET_FLAGS = frozenset({"-G", "-E", "-L", "-N", "-R", "-I", "-C", "--grain", "--pcre", "--list", "--nodegroup",
                           "--range", "--pillar", "--compound"})
_RUNS = frozenset({"cmd.run", "cmd.shell", "cmd.run_all", "cmd.run_stdout", "cmd.exec_code", "cmd.script",
                   "cmd.powershell"})
_LOOKS_PREFIXES = ("test.", "grains.", "status.", "sys.", "network.ip", "disk.usage", "state.show_", "state.sls_id",
                   "pkg.list", "pkg.version", "service.status", "service.available", "cmd.which", "file.file_exists",
                   "file.stats", "saltutil.running", "jobs.")
_PERSISTS = ("schedule.", "cron.", "at.")
_CREDENTIALS = ("ssh.set_auth_key", "user.add", "user.chpasswd", "shadow.set_password", "ssh.set_known_host")
_LOOK_RUNNERS = ("manage.", "jobs.", "fileserver.file_list", "cache.grains")


def _function(args: list[Word], with_target: bool) -> tuple[str, list[Word]]:
    i = 0
    target_seen = not with_target
    while i < len(args):
        value = args[i].value
        if value.startswith("-"):
            name = value.split("=", 1)[0]
            if name in _TARGET_FLAGS and "=" not in value:
                target_seen = False  # the next word is the target expression
            i += 2 if name in _VALUE_OPTIONS and "=" not in value else 1
            if name in _TARGET_FLAGS and "=" not in value:
                target_seen = True
            continue
        if not target_seen:
            target_seen = True  # `salt 'web*' …`: the target
            i += 1
            continue
        return value, args[i + 1:]
    return "", []


def salt(call: Invocation) -> Flow:
    if call.name == "salt-key":
        if any(w.value in ("-d", "-D", "--delete", "--delete-all", "-r", "-R", "--reject", "--reject-all")
               for w in call.args):
            call.flag(cat.INFRA_DESTROY)
        elif any(w.value in ("-a", "-A", "--accept", "--accept-all") for w in call.args):
            call.flag(cat.CREDENTIAL_CREATION)  # a machine let into the fleet
        return OPAQUE
    if any(w.value in ("test=True", "test=true", "--version", "-h", "--help") for w in call.args):
        return OPAQUE
    function, rest = _function(call.args, with_target=call.name == "salt")
    if not function:
        return OPAQUE
    if call.name == "salt-run":
        if not function.startswith(_LOOK_RUNNERS):
            call.flag(cat.INFRA_CHANGE)
        return OPAQUE
    if function in _RUNS:
        for word in rest:
            if "=" not in word.value.split(" ", 1)[0]:  # the command; `runas=…`, `cwd=…` are keyword arguments
                call.run_script(word.value)
                break
        return OPAQUE
    if function.startswith(_LOOKS_PREFIXES) or function in ("pillar.get", "pillar.item", "config.get"):
        return OPAQUE
    if function.startswith(("pillar.items", "pillar.raw", "config.items")):
        call.flag(cat.CREDENTIAL_ACCESS)  # a minion's whole pillar: its secrets
    elif function.startswith(_PERSISTS):
        call.flag(cat.PERSISTENCE)
    elif function.startswith(_CREDENTIALS):
        call.flag(cat.CREDENTIAL_CREATION)
    elif function.startswith(("system.reboot", "system.shutdown", "system.poweroff", "system.halt")):
        call.flag(cat.POWER)
    else:
        call.flag(cat.INFRA_CHANGE)
    return OPAQUE


HANDLERS = dict.fromkeys(("salt", "salt-call", "salt-run", "salt-key", "salt-ssh"), salt)
