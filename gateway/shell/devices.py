"""What another machine is told to run: commands sent over ssh (or to many hosts at once), and the command
lines of network devices and their controllers (docs/rules.md#commands-run-on-another-machine).

A remote command is analysed as if it ran here (`ssh db1 'psql -c "DROP …"'`), which judges the programs the
analysis knows. Two kinds of remote command it cannot know are everyday in operations work: a network device's
command line, which is not a shell (`configure; set interfaces xe-0/0/3 disable; commit`), and a host's own
scripts and tools (`ssh app1 ./rotate-logs.sh`). On the agent's own machine a program nobody described is
judged by its few unmistakable verbs, because its everyday ones (add, set, start, stop) are chores in the
workspace. On another machine they change that machine. So each statement of such a command is judged by what
it is:

- a read (`show …`, `display …`, `ping`, `traceroute`, a Linux diagnostic without a change word: `free -m`,
  `ip addr`, `ss -tlnp`) changes nothing, unless it asks for the secrets in the configuration (`show
  running-config | include secret|password`): ``credential_access``;
- wiping the device (`request system zeroize`, `write erase`, `format flash:`, `factory-reset`):
  ``infra_destroy``;
- creating a login, a key or a community (`username ops secret …`, `set system login user …`,
  `snmp-server community … rw`): ``credential_creation``;
- anything else (`configure`, `commit`, `reload`, a host's deploy script): ``infra_change``.

Device CLIs run here (`vtysh -c …`, `ncs_cli`, `sr_cli`, `clish`) read every statement this way; given their
commands from a file nobody can see, or left interactive, what they will be told is unknowable:
``dynamic_command``.
"""

from __future__ import annotations

import re

from gateway.shell import categories as cat
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.invocation import Invocation
from gateway.shell.words import basename

_MAX_TEXT = 16_384  # the statements read; a longer command is judged on its start (the shell walk reads it all)
_MAX_STATEMENTS = 64

# First words that only read: network operating systems' show and display modes, reachability tests, and the
# words that set up a session (`terminal length 0`, Cisco's `enable` into privileged mode, `exit`).
_READS = frozenset({"show", "sh", "display", "dis", "ping", "ping6", "traceroute", "traceroute6", "tracert", "mtr",
                    "help", "?", "terminal", "term", "enable", "exit", "end", "quit", "logout", "screen-length",
                    "environment", "info", "monitor"})
# Linux diagnostics with no table of their own: they read unless a change word is among their arguments.
_DIAGNOSTICS = frozenset({"free", "top", "htop", "atop", "vmstat", "iostat", "mpstat", "sar", "pidstat", "lsblk",
                          "lscpu", "lsmod", "lspci", "lsusb", "lsof", "lsns", "lsipc", "lsattr", "dmesg", "w", "who",
                          "last", "lastlog", "ss", "netstat", "nstat", "ip", "ifconfig", "route", "arp", "ethtool",
                          "iw", "iwconfig", "bridge", "tc", "nft", "sysctl", "getent", "timedatectl", "hostnamectl",
                          "loginctl", "nvidia-smi", "findmnt", "blkid", "numactl", "chronyc", "ntpq", "nmcli",
                          "resolvectl", "conntrack", "ipvsadm", "lldpctl", "lldpcli", "birdc", "gobgp", "smartctl",
                          "sensors", "iotop", "perf", "strace", "tcpdump", "tshark", "mii-tool", "multipath", "pvs",
                          "vgs", "lvs", "mdadm", "zpool", "zfs", "ceph", "ovs-vsctl", "ovs-ofctl", "ovs-appctl",
                          "ipmitool", "dmidecode", "uptime", "nproc",
                          # batch schedulers' queue and accounting views
                          "squeue", "sinfo", "sacct", "sstat", "sprio", "sshare", "sdiag", "qstat", "pbsnodes",
                          "bjobs", "bqueues", "bhosts", "showq", "lsload"})
# A host's own tool asked for a report (`ssh app1 'myctl status'`, `supervisorctl status`, `pm2 ls`): the
# first word after the program that says it only reads, with no change word after it.
_READ_SUBCOMMANDS = frozenset({"status", "list", "ls", "show", "get", "info", "describe", "version", "--version",
                               "-v", "-V", "--help", "-h", "help", "logs", "log", "health", "healthcheck", "ping",
                               "whoami", "members", "stats", "inspect", "top", "ps", "check", "verify", "validate",
                               "diff", "query", "history", "summary", "report", "env", "config-check",
                               "configtest"})
# Words that make a diagnostic change something (`ip link set eth0 down`, `zpool destroy`, `ipmitool power off`,
# `ovs-vsctl del-br`, `hostnamectl set-hostname`), and the options that do for the tools changed by option.
_CHANGE_WORD = re.compile(r"^(?:set|add|del|delete|flush|down|up|change|replace|append|insert|remove|rm|reset"
                          r"|restart|reload|reboot|off|on|cycle|power|connect|disconnect|modify|makestep|destroy"
                          r"|create|clear|offline|online|detach|attach|import|export|fail|(?:add|del|set|mod)-[\w-]+"
                          r"|[\w-]+-(?:add|del|set|delete|remove))$")
_CHANGE_OPTIONS = {
    "sysctl": {"-w", "--write", "-p", "--load", "--system"},
    "dmesg": {"-C", "-c", "--clear", "--read-clear", "-D", "-E", "-n", "--console-off", "--console-on",
              "--console-level"},
    "ethtool": {"-s", "-K", "-A", "-G", "-L", "-C", "-E", "-f", "-r", "-W", "--change", "--features", "--offload",
                "--pause", "--set-ring", "--set-channels", "--coalesce", "--change-eeprom", "--flash", "--reset",
                "--set-eee", "--set-fec", "--set-priv-flags"},
    "arp": {"-s", "-d", "--set", "--delete", "-f", "--file"},
    "conntrack": {"-D", "-F", "-U", "-I", "--delete", "--flush", "--update", "--create"},
    "ipvsadm": {"-A", "-E", "-D", "-C", "-a", "-e", "-d", "-R", "--add-service", "--edit-service",
                "--delete-service", "--clear", "--restore", "--add-server", "--edit-server", "--delete-server"},
    "mdadm": {"--stop", "-S", "--remove", "-r", "--fail", "-f", "--zero-superblock", "--create", "-C", "--grow",
              "-G", "--add", "-a", "--manage"},
    "multipath": {"-F", "-f", "-w", "-W", "-r"},
    "smartctl": {"-s", "--smart", "-t", "--test", "-X", "--abort", "-o", "--offlineauto", "-S", "--saveauto"},
}
_CONFIGURATION = re.compile(r"^(?:run(?:ning)?(?:-config)?|config(?:uration)?|startup-config|current-configuration"
                            r"|saved-configuration|display-config|full-configuration)$")
# Wiping what the device holds.
_WIPES = re.compile(r"\b(?:zeroize|factory[-_ ]?(?:reset|default)|erase|format|reimage|wipe)\b")
# A login, a key or an SNMP community created.
_CREDENTIAL = re.compile(r"\busername\s+\S+\s+(?:privilege\s+\d+\s+)?(?:secret|password)\b|\blogin\s+user\b"
                         r"|\bssh-(?:rsa|ed25519|dss)\b|\becdsa-sha2-|\blocal-user\b|\b(?:snmp-server|snmp)\s+"
                         r"community\b|\busers?\s+user\b|\bauthentication-key\b|\bapi-key\b")
# What a configuration's secrets are called (passwords, keys, SNMP communities, TACACS+ and RADIUS keys).
_SECRET_WORD = re.compile(r"secret|passw|pre-shared|\bpsk\b|\bkey\b|\bkeys\b|key-string|communit|credential"
                          r"|tacacs|radius|\bauth(?:entication)?\b")


def judge_remote(call: Invocation, text: str) -> None:
    """Judge ``text``, a command another machine runs, statement by statement: those whose program the
    analysis describes are left to the shell walk that also reads ``text``."""
    for words in statements(text):
        program = basename(words[0])
        # `set system login user …` is Junos, not the shell's builtin (`set -e`, `set -o pipefail`, `set +x`)
        device_set = program == "set" and len(words) > 1 and words[1][:1] not in "-+"
        if device_set or not call.runner.described(program):
            judge_statement(call, words)


def judge_device_text(call: Invocation, text: str) -> None:
    """Judge ``text`` as a device's command lines: every statement, whatever its first word."""
    for words in statements(text):
        judge_statement(call, words)


def judge_statement(call: Invocation, words: list[str]) -> None:
    lowered = [w.lower() for w in words]
    line = " ".join(lowered)
    first = basename(lowered[0])
    if first in _READS or (first in ("admin", "run", "do") and len(lowered) > 1 and lowered[1] in _READS):
        # A read that asks for the secrets: filtered for them (`show running-config | include secret|password`),
        # or the configuration's part that holds them (`show run | section tacacs`).
        filters = lowered[lowered.index("|") + 1:] if "|" in lowered else []
        configuration = any(_CONFIGURATION.match(w) for w in lowered[1:])
        if any(_SECRET_WORD.search(w) for w in (lowered[1:] if configuration else filters)):
            call.flag(cat.CREDENTIAL_ACCESS)
        return
    changes = any(_CHANGE_WORD.match(w) or w in _CHANGE_OPTIONS.get(first, ()) or
                  w.split("=", 1)[0] in _CHANGE_OPTIONS.get(first, ()) for w in words[1:])
    operands = [w for w in lowered[1:] if not w.startswith("-") or w in _READ_SUBCOMMANDS]
    if not changes and (first in _DIAGNOSTICS or (operands and operands[0] in _READ_SUBCOMMANDS)):
        return
    if _WIPES.search(line):
        call.flag(cat.INFRA_DESTROY)
    elif _CREDENTIAL.search(line):
        call.flag(cat.CREDENTIAL_CREATION)
    else:
        call.flag(cat.INFRA_CHANGE)


def statements(text: str) -> list[list[str]]:
    """The words of each statement in ``text``: split at new lines, `;`, `&&` and `||` outside quotes (a `|`
    stays: on a device it filters output). Leading `sudo`, `doas`, `nohup`, `exec` and variable assignments
    are dropped; they say nothing about what runs."""
    out: list[list[str]] = []
    for raw in _split(text[:_MAX_TEXT])[:_MAX_STATEMENTS]:
        words = _words(raw)
        while words and (words[0] in _PREFIXES or re.match(r"^[A-Za-z_]\w*=", words[0])):
            prefix, words = words[0], words[1:]
            while prefix in ("sudo", "doas") and words and words[0].startswith("-"):
                option, words = words[0], words[1:]
                if option in _SUDO_VALUE_OPTIONS and words:
                    words = words[1:]  # `sudo -u postgres psql`
        if words:
            out.append(words)
    return out


_PREFIXES = frozenset({"sudo", "doas", "nohup", "exec", "command", "builtin"})
_SUDO_VALUE_OPTIONS = frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-c"})


def _split(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
            current.append(ch)
        elif ch in "'\"":
            quote = ch
            current.append(ch)
        elif ch in "\n;" or text.startswith(("&&", "||"), i):
            parts.append("".join(current))
            current = []
            i += 2 if ch in "&|" else 1
            continue
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip() and not p.strip().startswith("#")]


def _words(statement: str) -> list[str]:
    return [w.strip("'\"") for w in statement.split() if w.strip("'\"")]


# -- device CLIs run here --------------------------------------------------------------------------------------

_COMMAND_OPTIONS = frozenset({"-c", "--command", "-C"})


def device_cli(call: Invocation) -> Flow:
    """`vtysh -c 'conf t' -c '…'`, `sr_cli 'show version'`, `ncs_cli -C -u admin <<< 'devices sync-to'`: the
    commands a device's or controller's CLI is given, as statements of that device."""
    given: list[str] = []
    args = call.args
    for i, word in enumerate(args):
        if word.value in _COMMAND_OPTIONS and call.name != "ncs_cli" and i + 1 < len(args):
            given.append(args[i + 1].value)  # (`ncs_cli -C` selects Cisco-style syntax: a flag)
    if call.name == "sr_cli":
        given += [w.value for w in args if not w.value.startswith("-")]
    if given:
        judge_device_text(call, "\n".join(given))
    elif call.stdin.script is not None and not call.stdin.opaque:
        judge_device_text(call, call.stdin.script)
    else:
        call.flag(cat.DYNAMIC_COMMAND)  # commands from a file nobody can see, or typed into a session later
    return OPAQUE


DEVICE_CLIS = ("vtysh", "ncs_cli", "sr_cli", "clish", "imish")
