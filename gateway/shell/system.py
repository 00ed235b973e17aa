"""Machine-level commands: power control, disk partitioning and formatting, shell history, cron."""

from __future__ import annotations

from gateway.shell import categories as cat
from gateway.shell.flow import EMPTY, OPAQUE, Flow
from gateway.shell.invocation import Call
from gateway.shell.options import scan, short_letters, spec

_POWER_VERBS = frozenset({"poweroff", "reboot", "halt", "suspend", "hibernate", "hybrid-sleep",
                          "suspend-then-hibernate", "kexec", "soft-reboot", "emergency", "rescue"})
_POWER_TARGETS = frozenset({"poweroff.target", "reboot.target", "halt.target", "kexec.target",
                            "rescue.target", "emergency.target"})


def power(call: Call) -> Flow:
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


def systemctl(call: Call) -> Flow:
    operands = [w.value for w in scan(call.args, _SYSTEMCTL).operands]
    if not operands:
        return OPAQUE
    if operands[0] in _POWER_VERBS or any(o in _POWER_TARGETS for o in operands[1:]):
        call.flag(cat.POWER)
    return OPAQUE


def loginctl(call: Call) -> Flow:
    operands = [w.value for w in scan(call.args, spec("HMpn")).operands]
    if operands and operands[0] in _POWER_VERBS:
        call.flag(cat.POWER)
    return OPAQUE


def init(call: Call) -> Flow:
    if any(w.value in ("0", "6") for w in call.args):
        call.flag(cat.POWER)
    return EMPTY


def kexec(call: Call) -> Flow:
    if any(w.value in ("-e", "--exec") for w in call.args):
        call.flag(cat.POWER)
    return EMPTY


def _inspect_targets(call: Call) -> None:
    for word in call.args:
        if not word.value.startswith("-"):
            call.inspect(word)


def disk_format(call: Call) -> Flow:
    """mkfs*, mkswap, wipefs -a, blkdiscard: destroy whatever file system is there."""
    _inspect_targets(call)
    call.flag(cat.DISK_WRITE)
    return EMPTY


def partitioner(call: Call) -> Flow:
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


def wipefs(call: Call) -> Flow:
    _inspect_targets(call)
    letters = short_letters(scan(call.args, spec("otO", ["--offset", "--types", "--output"])))
    if "a" in letters or any(w.value in ("--all", "-o", "--offset") for w in call.args) or "o" in letters:
        call.flag(cat.DISK_WRITE)
    return OPAQUE


def history(call: Call) -> Flow:
    values = [w.value for w in call.args]
    for i, value in enumerate(values):
        if value.startswith("-") and any(c in value[1:] for c in "cds"):
            call.flag(cat.HISTORY_TAMPER)  # clear, delete entries, insert fake ones
        elif value.startswith("-") and any(c in value[1:] for c in "wa") and values[i + 1:i + 2] == ["/dev/null"]:
            call.flag(cat.HISTORY_TAMPER)
    return OPAQUE


def crontab(call: Call) -> Flow:
    options = scan(call.args, spec("uc"))
    letters = short_letters(options)
    if "l" in letters:
        return OPAQUE
    if options.operands or "e" in letters or (not letters and call.stdin is not EMPTY):
        # Installing a crontab writes /var/spool/cron: persistence outside the workspace.
        for word in options.operands:
            if word.value != "-":
                call.read(word)
        call.flag(cat.SYSTEM_WRITE)
    return OPAQUE
