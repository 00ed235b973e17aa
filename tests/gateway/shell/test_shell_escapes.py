"""Shells as a way out (docs/rules.md): an interactive shell, or a shell handed to another program,
runs commands nobody can know from the command line — `dynamic_command`. And two things that are not
escapes at all: a command word whose value is knowable, and a file moved within one's own home."""

from __future__ import annotations

import pytest

from gateway.shell import analyze

CWD, HOME = "/home/user/project", "/home/user"

UNKNOWABLE = [
    "bash", "sh -i", "zsh -l", "/bin/dash", "env /bin/sh", "exec /bin/bash", "sudo -i", "sudo -s", "su", "su - root",
    "doas -s", "aa-exec /bin/sh", "choom -n 0 /bin/sh", "firejail --noprofile /bin/sh", "cpulimit -l 50 -f /bin/sh",
    "dhclient -sf /bin/sh", "aria2c --on-download-complete=/bin/sh http://x.example/f",
    "expect -c 'spawn /bin/sh; interact'", "gcc -wrapper /bin/sh,-s x.c", "distcc /bin/sh",
    "ssh -o 'ProxyCommand /bin/sh -i <$(tty)' x", "flock -u / /bin/sh", "docker run -it alpine /bin/sh",
    "$(cat cmd.txt) --force", "`head -1 notes.txt`",
]
KNOWN = [
    ("firejail /bin/sh -c 'rm -rf /etc'", "destructive_delete"),
    ("$(echo rm) -rf /usr", "destructive_delete"),
    ("`printf 'git'` reset --hard", "destructive_git"),
]
ORDINARY = [
    "bash --version", "sh -c 'make test'", "bash scripts/build.sh", "echo ls | sh", "ls -la /bin/sh", "which bash",
    "file /bin/bash", "sudo -l", "sudo -v", "sudo apt list --installed", "$(echo hello)", "`echo pwd`",
    "grep -rn '/bin/sh' scripts/", "echo '#!/bin/sh' > run.sh", "mv ~/Desktop/x ~/Documents/",
    "mv ~/Downloads/data.csv ~/project-data/", "mv build/out dist/",
]


@pytest.mark.parametrize("command", UNKNOWABLE)
def test_shells_whose_commands_cannot_be_known(command: str) -> None:
    assert "dynamic_command" in analyze(command, CWD, HOME).categories


@pytest.mark.parametrize(("command", "category"), KNOWN)
def test_a_shell_or_command_word_that_can_be_known_is_followed(command: str, category: str) -> None:
    assert category in analyze(command, CWD, HOME).categories


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_shell_use(command: str) -> None:
    assert not analyze(command, CWD, HOME).categories


@pytest.mark.parametrize("command", ["mv ~ ~/../elsewhere", "mv ~/project/.git ~/old-git", "mv /etc/hosts ~/h",
                                     "mv ~/notes /tmp/", "mv ~/Documents /dev/null"])
def test_moves_that_lose_something_are_still_deletes(command: str) -> None:
    assert "destructive_delete" in analyze(command, CWD, HOME).categories
