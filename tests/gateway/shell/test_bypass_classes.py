"""The outside review's bypass classes, closed as classes and tested with variants of our
own: text decoded into a shell (tr, printf %b/escapes, rev, base64, xxd, openssl), definitions that rename a
command (alias, function), a copied, linked or installed binary run under a new name, commands fed to a
scheduler or make by stdin, and interpreter APIs."""

from __future__ import annotations

import pytest

from gateway.shell import analyze

CWD, HOME = "/home/user/project", "/home/user"

DESTRUCTIVE = [
    "echo 'ez -es /rgp' | tr 'a-z' 'n-za-m' | sh",  # rot13
    "echo 'RM -RF /ETC' | tr 'A-Z' 'a-z' | bash",
    "tr 'qwe' 'rm ' <<< 'qw -rf /usr' | sh",
    "echo 'rxm -rf /home/user' | tr -d x | sh",
    "printf '%b' '\\x72\\x6d -rf /etc' | sh",
    "printf '\\162\\155 -rf /var/lib' | bash",
    "bash -c \"$(printf '%b' '\\x72\\x6d -rf /etc')\"",
    "echo 'cte/ fr- mr' | rev | sh",
    "echo cm0gLXJmIC9ldGM= | base64 -d | bash",
    "alias ll='rm -rf /etc'; ll", "alias gs='git reset --hard'; gs",
    "f() { rm -rf \"$1\"; }; f /usr", "function clean { rm -rf ~; }; clean",
    "cp /bin/rm ./x; ./x -rf /etc", "ln -s /bin/rm /tmp/del && /tmp/del -rf /etc",
    "install -m755 /usr/bin/rm ./cleanup; ./cleanup -rf /usr", "mv /tmp/rm-copy ./r; cp /bin/rm ./r; ./r -rf ~",
    "mkdir -p ~/.local/bin && cp /bin/rm ~/.local/bin/tidy && tidy -rf /etc",
    # a program looked up by name, linked or copied under another; aliases and functions that forward to one
    "ln -s \"$(which rm)\" ./del && ./del -rf /etc", "cp `command -v rm` /tmp/x && /tmp/x -rf ~",
    "ln -sf \"$(type -P git)\" ./g && ./g reset --hard HEAD~3",
    "alias g=git; g reset --hard HEAD~3", "alias q='rm -r'; q -f /usr",
    "d() { rm \"$@\"; }; d -rf /etc", "function g { command git \"$@\"; }\ng clean -fdx",
    "echo 'rm -rf /etc' | at now", "make -f - <<'EOF'\nall:\n\trm -rf /etc\nEOF",
    "node -e \"require('fs').rmSync('/etc', {recursive: true})\"",
]
UNKNOWABLE_OR_PAYLOAD = [
    "openssl enc -d -base64 -in p.txt | sh", "xxd -r -p <<< 726d202d7266202f657463 | sh",
    "echo Y3VybCB4IHwgc2g= | base64 --decode | python3",
]
ORDINARY = [
    "echo hello | tr a-z A-Z", "tr -d '\\r' < in.txt > out.txt", "printf '%b\\n' 'line\\tone'", "rev names.txt",
    "cp /bin/ls ./bin/ls-copy", "ln -s ../lib/tool.sh bin/tool", "alias ll='ls -la'; ll", "f() { make test; }; f",
    "ln -s \"$(which node)\" bin/node && bin/node --version", "alias g=git; g status",
    "t() { pytest -q \"$@\"; }; t -x",
]


@pytest.mark.parametrize("command", DESTRUCTIVE)
def test_bypass_is_judged_as_what_it_runs(command: str) -> None:
    categories = analyze(command, CWD, HOME).categories
    assert categories & {"destructive_delete", "destructive_git"}, categories


@pytest.mark.parametrize("command", UNKNOWABLE_OR_PAYLOAD)
def test_decoded_payload_run_is_remote_code(command: str) -> None:
    assert "remote_code" in analyze(command, CWD, HOME).categories


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_decoding_and_copies(command: str) -> None:
    assert not analyze(command, CWD, HOME).categories & {"destructive_delete", "remote_code", "dynamic_command"}
