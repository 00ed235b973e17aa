"""Programs that run one command line on many hosts: pdsh, pssh (parallel-ssh), clush, dsh.

Each hands its command words, joined, to a shell on every host it names — `pdsh -w 'enc-[01-12]' 'sudo
systemctl stop transcoder'` stops the service twelve times. Like `ssh host CMD`, the command is judged as if
it ran here: a fleet's services and files matter more than the agent's own, not less. Host lists and files
of hosts are only addresses; the options that take a value are listed per program so that a value is never
mistaken for the command.
"""

from __future__ import annotations

from gateway.shell import devices
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.invocation import Invocation
from gateway.shell.options import Spec, scan, spec

_SPECS: dict[str, Spec] = {
    # pdsh -w HOSTS -x EXCLUDE -g GROUP -X GROUP -l USER -t/-u TIMEOUT -f FANOUT -R RCMD -e PATH CMD…
    "pdsh": spec("wxgXltufRe", stop=True),
    # pssh -h FILE -H HOST -l USER -p PAR -o DIR -e DIR -t TIMEOUT -x ARGS -X ARG -O OPT [-i -P -I -A] CMD…
    "pssh": spec("hHlpoetxXO", ["--hosts", "--host", "--user", "--par", "--outdir", "--errdir", "--timeout",
                                "--extra-args", "--extra-arg", "--option"], stop=True),
    # clush -w NODES -x NODES -g GROUP -X GROUP -l USER -f FANOUT -t/-u TIMEOUT -o OPTS -R WORKER CMD…
    "clush": spec("wxgXlftuoRE", ["--nodes", "--exclude", "--group", "--user", "--fanout", "--options",
                                  "--worker", "--connect_timeout", "--command_timeout", "--pick"], stop=True),
    # dsh -m HOST -g GROUP -r RSH -o OPT -F FORKS [-c -M -a] [--] CMD…
    "dsh": spec("mgroF", ["--machine", "--group", "--remoteshell", "--remoteshellopt", "--forklimit"],
                stop=True),
}
_ALIASES = {"parallel-ssh": "pssh", "pdsh.bin": "pdsh", "parallel-ssh.py": "pssh", "clush.py": "clush"}
PROGRAMS = (*_SPECS, *_ALIASES)


def fan_out(call: Invocation) -> Flow:
    options = scan(call.args, _SPECS[_ALIASES.get(call.name, call.name)])
    if options.operands:
        remote = " ".join(w.value for w in options.operands)
        call.run_script(remote)
        devices.judge_remote(call, remote)
    return OPAQUE
