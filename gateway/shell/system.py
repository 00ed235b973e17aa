"""Machine-level commands: power control, disk partitioning and formatting, shell history, and the
schedulers and service managers that run commands later (cron, at, systemd, launchd): `persistence`,
with the job itself analysed as the command it is when this command line gives it."""

from __future__ import annotations

import re

from gateway.shell import categories as cat
from gateway.shell import recipes, tasks
from gateway.shell.flow import EMPTY, OPAQUE, Flow
from gateway.shell.invocation import Invocation
from gateway.shell.options import scan, short_letters, spec
from gateway.shell.words import Word

_POWER_VERBS = frozenset({"poweroff", "reboot", "halt", "suspend", "hibernate", "hybrid-sleep",
                          "suspend-then-hibernate", "kexec", "soft-reboot", "emergency", "rescue"})
_POWER_TARGETS = frozenset({"poweroff.target", "reboot.target", "halt.target", "kexec.target",
                            "rescue.target", "emergency.target"})


def power(call: Invocation) -> Flow:
    """shutdown, reboot, halt, poweroff."""
    values = {w.value for w in call.args}
    # `shutdown -c` cancels a pending shutdown; --help only prints.
    if values & {"--help", "-h"} and len(values) == 1:
        return EMPTY
    if call.name == "shutdown" and "-c" in values:
        return EMPTY
    call.flag(cat.POWER)
    return EMPTY


_SYSTEMCTL = spec("tpHMnosP", ["--type", "--property", "--host", "--machine", "--lines", "--output",
                               "--signal", "--kill-whom", "--root", "--state", "--job-mode", "--what"])


def systemctl(call: Invocation) -> Flow:
    operands = [w.value for w in scan(call.args, _SYSTEMCTL).operands]
    if not operands:
        return OPAQUE
    if operands[0] in _POWER_VERBS or any(o in _POWER_TARGETS for o in operands[1:]):
        call.flag(cat.POWER)
    if operands[0] in ("enable", "link", "preset", "reenable", "add-wants", "add-requires", "edit", "set-property"):
        call.flag(cat.PERSISTENCE)  # starts on the next boot or login, on its own
    elif operands[0] in _SERVICE_CHANGES and not any(w.value == "--user" for w in call.args):
        call.flag(cat.SYSTEM_CONFIG)  # the machine's own services (an agent's `--user` units are its business)
    return OPAQUE


_SERVICE_CHANGES = frozenset({"start", "stop", "restart", "reload", "try-restart", "reload-or-restart", "mask",
                              "unmask", "kill", "isolate", "daemon-reload", "set-default", "disable", "revert",
                              "set-environment", "unset-environment", "import-environment"})


def loginctl(call: Invocation) -> Flow:
    operands = [w.value for w in scan(call.args, spec("HMpn")).operands]
    if operands and operands[0] in _POWER_VERBS:
        call.flag(cat.POWER)
    return OPAQUE


def init(call: Invocation) -> Flow:
    if any(w.value in ("0", "6") for w in call.args):
        call.flag(cat.POWER)
    return EMPTY


def kexec(call: Invocation) -> Flow:
    if any(w.value in ("-e", "--exec") for w in call.args):
        call.flag(cat.POWER)
    return EMPTY


def _inspect_targets(call: Invocation) -> None:
    for word in call.args:
        if not word.value.startswith("-"):
            call.inspect(word)


def disk_format(call: Invocation) -> Flow:
    """mkfs*, mkswap, wipefs -a, blkdiscard: destroy whatever file system is there."""
    _inspect_targets(call)
    call.flag(cat.DISK_WRITE)
    return EMPTY


def partitioner(call: Invocation) -> Flow:
    """fdisk, sfdisk, gdisk, parted, …: disk_write unless only listing."""
    _inspect_targets(call)
    values = [w.value for w in call.args]
    listing_flags = {"-l", "--list", "-d", "--dump", "-s", "--show-size", "-V", "--verify", "-p", "--print",
                     "--help", "-h", "--version", "-v"}
    if any(v in listing_flags for v in values):
        return OPAQUE
    operands = [v for v in values if not v.startswith("-")]
    if call.name == "parted" and operands[1:] in (["print"], ["p"], ["unit", "s", "print"]):
        return OPAQUE
    call.flag(cat.DISK_WRITE)
    return OPAQUE


def wipefs(call: Invocation) -> Flow:
    _inspect_targets(call)
    letters = short_letters(scan(call.args, spec("otO", ["--offset", "--types", "--output"])))
    if "a" in letters or any(w.value in ("--all", "-o", "--offset") for w in call.args) or "o" in letters:
        call.flag(cat.DISK_WRITE)
    return OPAQUE


def history(call: Invocation) -> Flow:
    values = [w.value for w in call.args]
    for i, value in enumerate(values):
        if value.startswith("-") and any(c in value[1:] for c in "cds"):
            call.flag(cat.HISTORY_TAMPER)  # clear, delete entries, insert fake ones
        elif value.startswith("-") and any(c in value[1:] for c in "wa") and values[i + 1:i + 2] == ["/dev/null"]:
            call.flag(cat.HISTORY_TAMPER)
    return OPAQUE


def crontab(call: Invocation) -> Flow:
    options = scan(call.args, spec("uc"))
    letters = short_letters(options)
    if "l" in letters:
        return OPAQUE
    if "r" in letters:
        call.flag(cat.DESTRUCTIVE_DELETE)  # the user's whole crontab, gone (no backup is kept)
        return OPAQUE
    if options.operands or "e" in letters or (not letters and call.stdin is not EMPTY):
        # Installing a crontab writes /var/spool/cron: persistence outside the workspace.
        content = call.stdin
        for word in options.operands:
            if word.value != "-":
                content = call.scope.files.get(call.read(word) or "", content)
        call.flag(cat.SYSTEM_WRITE)
        call.flag(cat.PERSISTENCE)
        if content.script is not None:
            for line in content.script.splitlines():
                job = _cron_command(line)
                if job:
                    call.run_script(job)
        elif content.opaque or content.payload:
            call.flag(cat.DYNAMIC_COMMAND)
    return OPAQUE


def _cron_command(line: str) -> str | None:
    """The command of a crontab line (`m h dom mon dow cmd` or `@reboot cmd`), None for others."""
    text = line.strip()
    if not text or text.startswith("#") or "=" in text.split(" ", 1)[0]:
        return None
    fields = text.split(None, 1 if text.startswith("@") else 5)
    return fields[-1] if len(fields) == (2 if text.startswith("@") else 6) else None


def at(call: Invocation) -> Flow:
    """at / batch: the job (stdin, or -f FILE) runs later on its own."""
    options = scan(call.args, spec("qfmMt", ["--queue", "--file", "--time"]))
    letters = short_letters(options)
    if (letters and set(letters) <= {"l", "r", "d", "c"}) or call.name in ("atq", "atrm"):
        return OPAQUE  # list, remove or show jobs
    call.flag(cat.PERSISTENCE)
    job = call.stdin
    for word in options.values("-f", "--file"):
        path = call.read(word)
        job = call.scope.files.get(path or "", OPAQUE)
    if job.script is not None:
        call.run_script(job.script)
    elif job.payload:
        call.flag(cat.REMOTE_CODE)
    elif job is EMPTY or job.opaque or job.local_data:
        call.flag(cat.DYNAMIC_COMMAND)  # a job nobody can see from here
    return OPAQUE


def systemd_run(call: Invocation) -> Flow:
    """systemd-run: a timer or a unit that outlives this command is persistence; its command is analysed."""
    options = scan(call.args, spec("pEuMHrGdq", ["--unit", "--property", "--description", "--slice", "--setenv",
                                                 "--on-active", "--on-boot", "--on-startup", "--on-unit-active",
                                                 "--on-unit-inactive", "--on-calendar", "--on-clock-change",
                                                 "--timer-property", "--working-directory", "--uid", "--gid",
                                                 "--nice", "--path-property", "--socket-property",
                                                 "--service-type", "--machine", "--host"]))
    if any(name.startswith("--on-") or name in ("--remain-after-exit", "-r") for name, _ in options.flags) or \
            not options.has("--wait", "--pty", "-P", "-t", "--scope"):
        call.flag(cat.PERSISTENCE)
    if options.operands:
        call.invoke(options.operands)
    return OPAQUE


def launchctl(call: Invocation) -> Flow:
    operands = [w.value for w in call.args if not w.value.startswith("-")]
    if operands[:1] and operands[0] in ("load", "bootstrap", "enable", "submit", "kickstart"):
        call.flag(cat.PERSISTENCE)
    return OPAQUE


_MAKE_SHELL = re.compile(r"\$[({]shell\s+((?:[^()]|\([^()]*\))*)[)}]")
_MAKE_FILE = re.compile(r"\$[({]file\s*(>>?|<)\s*([^,)}\s]+)")


def _make_functions(call: Invocation, text: str) -> None:
    """`$(shell CMD)` runs while the makefile is read; `$(file >F,…)` writes F, `$(file <F)` reads it."""
    text = text[: 1 << 16]
    for match in _MAKE_SHELL.finditer(text):
        call.run_script(match.group(1))
    for match in _MAKE_FILE.finditer(text):
        target = Word(match.group(2))
        if match.group(1) == "<":
            call.read(target)
        else:
            call.write(target)


def make(call: Invocation) -> Flow:
    """make -f - / -f FILE written here: the makefile's recipes are shell commands."""
    options = scan(call.args, spec("fCIjlowW", ["--file", "--makefile", "--directory", "--include-dir", "--jobs",
                                                 "--load-average", "--old-file", "--what-if", "--assume-new",
                                                 "--eval"]))
    sources = []
    if options.has("-f", "--file", "--makefile") and not options.values("-f", "--file", "--makefile"):
        sources.append(call.stdin)  # `make -f - <<EOF`: the parser may leave the lone `-` to the redirect
    for word in options.values("-f", "--file", "--makefile"):
        if word.value == "-":
            sources.append(call.stdin)
        else:
            content = call.file_content(word)
            if content is not None:
                sources.append(content)
    for word in options.values("--eval"):
        sources.append(Flow(script=word.value))
    if not options.has("-f", "--file", "--makefile") and not options.has("-n", "--dry-run", "--just-print",
                                                                          "--recon", "-q", "--question"):
        directories = options.values("-C", "--directory")
        text = tasks.make_targets(call, options.operands, directories[-1] if directories else None)
        if text is not None:
            _make_functions(call, text)  # `X := $(shell …)` runs while the makefile is read
    for flow in sources:
        if flow.script is not None:
            _make_functions(call, flow.script)
            for line in recipes.makefile(flow.script, None):  # every recipe, make's variables filled in
                call.run_script(line)
        elif flow.payload:
            call.flag(cat.REMOTE_CODE)
        elif flow.opaque or flow is EMPTY:
            call.flag(cat.DYNAMIC_COMMAND)
    return OPAQUE
