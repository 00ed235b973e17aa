"""The agent says where it works, so where it works must not decide what is "workspace work":
with `cwd=/etc` (a `cd /etc` in Claude's persistent shell is enough), `rm -rf passwd` deleted a system file
as if it were the agent's scratch space. A cwd in or above system directories, or at or above a home, is
no workspace; real project directories still are."""

from __future__ import annotations

import pytest

from gateway.normalize import normalize
from gateway.paths import workspace_root
from gateway.shell import analyze

HOME = "/home/agent"


@pytest.mark.parametrize(("cwd", "command", "category"), [
    ("/etc", "rm -rf passwd", "destructive_delete"),
    ("/etc", "echo 'x ALL=(ALL) NOPASSWD: ALL' >> sudoers", "system_write"),
    ("/etc/ssh", "sed -i s/no/yes/ sshd_config", "system_write"),
    ("/usr/bin", "rm -f python3", "destructive_delete"),
    ("/usr/lib/python3", "rm -rf .", "destructive_delete"),
    ("/var/lib/postgresql", "rm -rf data", "destructive_delete"),
    ("/boot", "cp /tmp/evil vmlinuz", "system_write"),
    ("/", "rm -rf usr", "destructive_delete"),
    ("/usr", "rm -rf local/bin", "destructive_delete"),
    ("/home", "rm -rf agent", "destructive_delete"),
    (HOME, "rm -rf Documents", "destructive_delete"),
])
def test_a_system_or_home_directory_is_never_a_workspace(cwd: str, command: str, category: str) -> None:
    assert category in analyze(command, cwd, HOME).categories


@pytest.mark.parametrize("cwd", ["/etc", "/usr/share/doc", "/var/log"])
def test_file_tools_in_a_system_cwd_are_system_writes(cwd: str) -> None:
    call = normalize(run_id="r", agent_id="a", role=None, provider="gemini-cli", tool="write_file",
                     input={"file_path": "x.conf", "content": "x"}, cwd=cwd, home=HOME)
    assert call.facts.path_classes == ("system",) and "system_write" in call.categories


@pytest.mark.parametrize("cwd", ["/home/agent/proj", "/work/proj", "/usr/src/app", "/srv/site", "/opt/tool",
                                 "/var/www/site", "/tmp/build-1", "/app"])
def test_project_directories_stay_workspaces(cwd: str) -> None:
    assert workspace_root(cwd, HOME) == cwd
    assert analyze("rm -rf build dist node_modules", cwd, HOME).categories == frozenset()
