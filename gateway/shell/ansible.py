"""`ansible HOSTS -m MODULE -a ARGS`: an ad-hoc module run on many machines at once.

What it does is what its module does. `shell`, `command` and `raw` run their argument as a command on every
host matched: it is analysed like a command run here (`-m shell -a 'df -h /'` looks, `-a 'rm -rf /var/lib/x'`
destroys); `script` runs a local file there (judged as running it). Modules named for looking (`ping`,
`setup`, `*_facts`, `*_info`, `stat`, `debug`, `find`, `list_*`) change nothing. Any other module (`copy`,
`file`, `apt`, `service`, `user`, `systemd` …) changes the machines: ``infra_change``. `--check` rehearses.
Playbooks (`ansible-playbook`) are judged by their table (gateway/shell/cli_tables/infrastructure.yaml).
"""

from __future__ import annotations

from gateway.shell import categories as cat
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.invocation import Invocation
from gateway.shell.options import scan, spec
from gateway.shell.words import literal_word

_OPTIONS = spec("iemaulfBPMTt", ["--inventory", "--extra-vars", "--module-name", "--args", "--user", "--limit",
                                    "--forks", "--timeout", "--become-user", "--become-method", "--module-path",
                                    "--vault-password-file", "--private-key", "--connection", "--tags"])
_COMMANDS = frozenset({"shell", "command", "raw", "ansible.builtin.shell", "ansible.builtin.command",
                       "ansible.builtin.raw"})
_LOOKS = frozenset({"ping", "setup", "gather_facts", "stat", "debug", "find", "slurp_info", "win_ping", "assert",
                    "wait_for", "uri_info"})
_REHEARSALS = frozenset({"--check", "-C", "--list-hosts", "--syntax-check", "--version", "-h", "--help"})


def ansible(call: Invocation) -> Flow:
    if any(w.value in _REHEARSALS for w in call.args):
        return OPAQUE
    options = scan(call.args, _OPTIONS)
    module_word = options.value("-m", "--module-name")
    module = module_word.value if module_word is not None else "command"  # ansible's default module
    argument = options.value("-a", "--args")
    short = module.rsplit(".", 1)[-1]
    if module in _COMMANDS:
        if argument is not None:
            call.run_script(argument.value)
        return OPAQUE
    if short == "script" and argument is not None:
        call.invoke([literal_word("sh"), *[literal_word(w) for w in argument.value.split()[:1]]])
        return OPAQUE
    if short in _LOOKS or short.endswith(("_facts", "_info")) or short.startswith("list_"):
        return OPAQUE
    call.flag(cat.INFRA_CHANGE)
    return OPAQUE
