"""Commands that change how the machine itself runs: ``system_config``.

A coding agent works in its workspace. Kernel parameters, firewall rules, system daemons started or
reconfigured by hand, services, mounts, kernel modules, users, time zones — and core dumps of other
processes — belong to whoever runs the machine. Many of these also take a program to run as root
(`sysctl kernel.core_pattern=|PROG`, `dnsmasq --conf-script=PROG`, `fail2ban-client … actionban PROG`,
`zic -y PROG`, a libvirt domain's `<script path=PROG>`), which is why the whole class needs a human.
Read-only forms (`sysctl -a`, `iptables -L`, `service --status-all`, `virsh list`) stay allowed.
"""

from __future__ import annotations

from collections.abc import Callable

from gateway.shell import categories as cat
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.generic import default_handler
from gateway.shell.invocation import Handler, Invocation


def _operands(call: Invocation) -> list[str]:
    return [w.value for w in call.args if not w.value.startswith("-")]


def _values(call: Invocation) -> list[str]:
    return [w.value for w in call.args]


def _sysctl(call: Invocation) -> bool:
    values = _values(call)
    return any("=" in v and not v.startswith("-") for v in values) or any(
        v in ("-w", "--write", "-p", "--load", "--system") or (v.startswith("-") and not v.startswith("--") and
                                                               ("w" in v or "p" in v)) for v in values)


_FIREWALL_QUERIES = frozenset({"-L", "--list", "-S", "--list-rules", "-n", "-v", "--numeric", "--verbose", "-x",
                               "--line-numbers", "-t", "--table", "-h", "--help", "--version", "-V", "-Z"})


def _iptables(call: Invocation) -> bool:
    options = [v for v in _values(call) if v.startswith("-")]
    return any(v not in _FIREWALL_QUERIES for v in options)


def _subcommand_changes(queries: frozenset[str]) -> Callable[[Invocation], bool]:
    def changes(call: Invocation) -> bool:
        words = _operands(call)
        return bool(words) and words[0] not in queries
    return changes


def _service(call: Invocation) -> bool:
    words = _operands(call)
    if any("/" in w for w in words):
        call.flag(cat.DYNAMIC_COMMAND)  # `service ../../bin/sh`: the "service" is any program
    if not words or "--status-all" in _values(call):
        return False
    return words[1:2] != ["status"]


def _always(call: Invocation) -> bool:
    return not any(v in ("--version", "-V", "--help", "-h") for v in _values(call))


def _gcore(call: Invocation) -> bool:
    call.flag(cat.CREDENTIAL_ACCESS)  # a process's memory holds its secrets
    return False


_JUDGES: dict[str, Callable[[Invocation], bool]] = {
    "sysctl": _sysctl,
    **dict.fromkeys(("iptables", "ip6tables", "iptables-legacy", "iptables-nft", "ebtables", "arptables"),
                    _iptables),
    **dict.fromkeys(("iptables-restore", "ip6tables-restore", "iptables-save", "ip6tables-save"),
                    lambda call: any(v.startswith("-") for v in _values(call)) or call.name.endswith("restore")),
    "nft": _subcommand_changes(frozenset({"list", "-a", "--help", "-v", "--version"})),
    "ufw": _subcommand_changes(frozenset({"status", "show", "version", "app"})),
    "firewall-cmd": lambda call: any(v.startswith(("--add", "--remove", "--set", "--reload", "--permanent",
                                                   "--new", "--delete", "--panic"))
                                     for v in _values(call)),
    "service": _service,
    "fail2ban-client": _subcommand_changes(frozenset({"status", "ping", "version", "get", "-h", "--help"})),
    "virsh": _subcommand_changes(frozenset({"list", "dominfo", "domstate", "dumpxml", "capabilities", "version",
                                            "nodeinfo", "net-list", "pool-list", "vol-list", "help", "uri"})),
    **dict.fromkeys(("dnsmasq", "rsyslogd", "syslogd", "sshd", "dhclient", "dhcpd", "named", "hostapd", "cupsd",
                     "zic", "modprobe", "insmod", "rmmod", "depmod", "swapoff", "useradd", "userdel",
                     "usermod", "groupadd", "groupdel", "groupmod", "chpasswd", "passwd", "chsh", "chfn",
                     "visudo", "vipw", "update-rc.d", "chkconfig", "ldconfig", "setcap"), _always),
    **dict.fromkeys(("timedatectl", "hostnamectl", "localectl"), _subcommand_changes(frozenset({
        "status", "show", "list-timezones", "timesync-status", "show-timesync", "list-locales", "list-keymaps",
        "list-x11-keymap-models", "list-x11-keymap-layouts", "hostname"}))),
    "swapon": lambda call: not any(v in ("--show", "-s", "--summary", "--version", "--help") or
                                   v.startswith("--show=") for v in _values(call)),
    "update-alternatives": lambda call: any(v in ("--install", "--set", "--remove", "--remove-all", "--auto",
                                                  "--config", "--all", "--set-selections") for v in _values(call)),
    "mount": lambda call: bool(_operands(call)),  # `mount` alone lists
    "umount": _always,
    "gcore": _gcore,
}
NAMES = frozenset(_JUDGES)


def _handler(judge: Callable[[Invocation], bool]) -> Handler:
    def handle(call: Invocation) -> Flow:
        if judge(call):
            call.flag(cat.SYSTEM_CONFIG)
        default_handler(call)
        return OPAQUE
    return handle


HANDLERS: dict[str, Handler] = {name: _handler(judge) for name, judge in _JUDGES.items()}
