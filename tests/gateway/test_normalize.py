"""Normalization of both CLIs' tool calls into action_type / target (docs/gateway.md)."""

from __future__ import annotations

import pytest

from gateway.normalize import normalize

HOME = "/home/agent"


def norm(tool: str, inp: dict, provider: str = "claude-code", cwd: str = "/work/proj", **kw):  # type: ignore[no-untyped-def]
    return normalize(run_id="r", agent_id="a", role=None, provider=provider, tool=tool, input=inp, cwd=cwd,
                     home=HOME, **kw)


@pytest.mark.parametrize(
    ("tool", "inp", "action_type", "target"),
    [
        ("Bash", {"command": "ls -la"}, "execute_command", "ls -la"),
        ("run_shell_command", {"command": "ls"}, "execute_command", "ls"),
        ("Write", {"file_path": "/work/proj/a.py", "content": ""}, "write_file", "/work/proj/a.py"),
        ("Edit", {"file_path": "/work/proj/a.py", "old_string": "a", "new_string": "b"}, "write_file",
         "/work/proj/a.py"),
        ("NotebookEdit", {"notebook_path": "/work/proj/n.ipynb", "new_source": ""}, "write_file", "/work/proj/n.ipynb"),
        ("write_file", {"file_path": "src/../b.py", "content": ""}, "write_file", "/work/proj/b.py"),
        ("replace", {"file_path": "c.py", "old_string": "", "new_string": "", "instruction": ""}, "write_file",
         "/work/proj/c.py"),
        ("Read", {"file_path": "/etc/os-release"}, "read_file", "/etc/os-release"),
        ("read_file", {"file_path": "~/notes.md"}, "read_file", "/home/agent/notes.md"),
        ("read_many_files", {"paths": ["a.md", "b.md"]}, "read_file", "/work/proj/a.md, /work/proj/b.md"),
        ("Glob", {"pattern": "**/*.py"}, "list_files", "/work/proj/**/*.py"),
        ("Grep", {"pattern": "TODO", "path": "src"}, "list_files", "/work/proj/src"),
        ("list_directory", {"dir_path": "."}, "list_files", "/work/proj"),
        ("WebFetch", {"url": "https://Docs.Python.org/3/", "prompt": "x"}, "web_fetch", "https://Docs.Python.org/3/"),
        ("WebSearch", {"query": "tree-sitter bash"}, "web_search", "tree-sitter bash"),
        ("google_web_search", {"query": "q"}, "web_search", "q"),
        ("Agent", {"description": "d", "prompt": "p", "subagent_type": "reviewer"}, "spawn_agent", "reviewer"),
        ("Task", {"description": "d", "prompt": "p"}, "spawn_agent", "general-purpose"),
        ("invoke_agent", {"agent_name": "helper", "prompt": "p"}, "spawn_agent", "helper"),
        ("mcp__crm__lookup_customer", {"id": 1}, "mcp_call", "crm/lookup_customer"),
        ("mcp_crm_lookup_customer", {"id": 1}, "mcp_call", "crm/lookup_customer"),
        ("TodoWrite", {"todos": []}, "other", "TodoWrite"),
    ],
)
def test_tools_map_to_action_types_and_targets(tool, inp, action_type, target) -> None:
    call = norm(tool, inp)
    assert (call.action_type, call.target) == (action_type, target)


def test_gemini_mcp_server_names_with_underscores_use_the_hint() -> None:
    assert norm("mcp_my_crm_lookup", {}, mcp_server="my_crm").target == "my_crm/lookup"


def test_gemini_web_fetch_extracts_urls_and_hosts_from_the_prompt() -> None:
    prompt = "compare https://a.example/x?y=1, http://[::1]:8080/z. and (see https://w.example/A_(b))."
    call = norm("web_fetch", {"prompt": prompt}, "gemini-cli")
    assert call.target == "https://a.example/x?y=1 http://[::1]:8080/z https://w.example/A_(b)"
    assert call.value("host") == ("a.example", "::1", "w.example")


def test_gemini_shell_dir_path_moves_the_working_directory() -> None:
    call = norm("run_shell_command", {"command": "rm -rf build", "dir_path": "pkg"}, "gemini-cli")
    assert call.value("path") == ("/work/proj/pkg/build",)
    assert call.value("path_class") == ("workspace",)


def test_secret_and_system_paths_become_categories_for_file_tools() -> None:
    assert norm("Read", {"file_path": "/work/proj/.env"}).value("category") == ("credential_access",)
    assert norm("Read", {"file_path": "/work/proj/.env.example"}).value("category") is None
    assert norm("Write", {"file_path": "/etc/hosts", "content": ""}).value("category") == ("system_write",)
    assert norm("Read", {"file_path": "/var/state/admin.key"}, secret_paths=("/var/state",)).value("category") == (
        "credential_access",)


def test_missing_or_odd_inputs_never_raise() -> None:
    for tool, inp in [("Bash", {}), ("Bash", {"command": 5}), ("Write", {"file_path": None}), ("WebFetch", {}),
                      ("read_many_files", {"paths": "not-a-list"}), ("Glob", {"pattern": 3})]:
        norm(tool, inp)


def test_repeated_commands_reuse_their_facts() -> None:
    a = norm("Bash", {"command": "git status"})
    b = norm("Bash", {"command": "git status"})
    assert a.facts is b.facts  # derived once, shared: the hot path does not re-analyze


def test_a_home_under_tmp_is_still_home() -> None:
    call = normalize(run_id="r", agent_id="a", role=None, provider="claude-code", tool="Bash",
                     input={"command": "rm -rf ~"}, cwd="/tmp/job/ws", home="/tmp/job/home")
    assert call.value("path_class") == ("home",)
    assert "destructive_delete" in call.categories


@pytest.mark.parametrize(("tool", "inp", "action_type", "target"), [
    ("Shell", {"command": "ls", "working_directory": "/work/proj"}, "execute_command", "ls"),  # Cursor
    ("execute_command", {"command": "ls", "requires_approval": "false"}, "execute_command", "ls"),  # Cline
    ("developer__shell", {"command": "ls"}, "execute_command", "ls"),  # Goose
    ("run_command", {"CommandLine": "ls", "command": "ls"}, "execute_command", "ls"),  # agy, Windsurf
    ("write_to_file", {"path": "a.py", "content": "x"}, "write_file", "/work/proj/a.py"),  # Cline
    ("replace_in_file", {"path": "a.py", "diff": "..."}, "write_file", "/work/proj/a.py"),
    ("developer__edit", {"path": "a.py", "before": "a", "after": "b"}, "write_file", "/work/proj/a.py"),  # Goose
    ("write_code", {"file_path": "a.py", "edits": []}, "write_file", "/work/proj/a.py"),  # Windsurf
    ("multiedit", {"file_path": "a.py", "edits": []}, "write_file", "/work/proj/a.py"),  # Crush
    ("download", {"url": "https://x.example/a", "file_path": "a.bin"}, "write_file", "/work/proj/a.bin"),
    ("view_file", {"AbsolutePath": "/etc/hosts", "file_path": "/etc/hosts"}, "read_file", "/etc/hosts"),  # agy
    ("search_files", {"path": "src", "regex": "TODO"}, "list_files", "/work/proj/src"),  # Cline
    ("fetch", {"url": "https://docs.example/x"}, "web_fetch", "https://docs.example/x"),  # Crush
])
def test_the_other_clis_tools_are_read_like_the_first_ones(tool: str, inp: dict, action_type: str,
                                                          target: str) -> None:
    call = norm(tool, inp)
    assert (call.action_type, call.facts.target) == (action_type, target)


@pytest.mark.parametrize(("tool", "inp"), [
    ("run_command", {"CommandLine": "rm -rf ~"}),  # a shell tool whose command is under a key no CLI uses
    ("Bash", {"cmd": "rm -rf ~"}),
    ("Write", {"content": "x"}),  # no path at all
    ("write_to_file", {"TargetFileName": "a.py", "content": "x"}),  # a key no CLI we know uses
    ("Read", {"target": "/home/agent/.ssh/id_rsa"}),
])
def test_a_call_whose_command_or_file_cannot_be_found_is_unparseable(tool: str, inp: dict) -> None:
    """Never an empty command, nor a write to nowhere, which no file scope would hold."""
    call = norm(tool, inp)
    assert "unparseable" in call.facts.categories and call.facts.writes == ("?",)
