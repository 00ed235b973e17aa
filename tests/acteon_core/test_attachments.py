"""What the command hook reads and sends with a shell call (acteon_core/attachments.py): the programs the command
may run — and only those, bounded."""

from __future__ import annotations

import os
from pathlib import Path

from acteon_core import attachments as a


def test_scripts_named_in_the_command_are_attached(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "clean.sh").write_text("rm -rf build\n")
    (tmp_path / "tool").write_text("#!/usr/bin/env python3\nprint(1)\n")
    (tmp_path / "notes.txt").write_text("rm -rf ~\n")
    sent = a.attach("bash scripts/clean.sh && ./tool && cat notes.txt", str(tmp_path))
    assert sent == {str(tmp_path / "scripts" / "clean.sh"): "rm -rf build\n",
                    str(tmp_path / "tool"): "#!/usr/bin/env python3\nprint(1)\n"}


def test_nested_quoted_commands_and_home_paths(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "x.sh").write_text("echo hi\n")
    (tmp_path / "y.sh").write_text("echo y\n")
    sent = a.attach("sh -c './y.sh --flag' && bash ~/x.sh", str(tmp_path), str(home))
    assert set(sent) == {str(tmp_path / "y.sh"), str(home / "x.sh")}


def test_a_file_an_interpreter_reads_from_stdin_is_a_program_whatever_its_name(tmp_path: Path) -> None:
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "steps.txt").write_text("rm -rf ~\n")
    (tmp_path / "notes.txt").write_text("just notes\n")
    (tmp_path / ".env.prod").write_text("TOKEN=s3cret\n")
    steps = {str(tmp_path / "ops" / "steps.txt"): "rm -rf ~\n"}
    for command in ("bash < ops/steps.txt", "sudo sh -s < ops/steps.txt", "cat ops/steps.txt | bash",
                    "cd . && cat ops/steps.txt | env bash -s"):
        assert a.attach(command, str(tmp_path)) == steps, command
    # Read by something that is not an interpreter, or not as its program: data, never sent.
    for command in ("grep x < notes.txt", "cat notes.txt | grep x", "wc -l < ops/steps.txt", "cat notes.txt"):
        assert a.attach(command, str(tmp_path)) == {}, command
    assert a.attach("bash < .env.prod", str(tmp_path)) == {}  # a secret's name: still never sent


def test_runners_manifests_come_from_the_directory_they_run_in(tmp_path: Path) -> None:
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "package.json").write_text('{"scripts": {}}')
    (tmp_path / "Makefile").write_text("all:\n\ttrue\n")
    assert set(a.attach("cd web && npm run build", str(tmp_path))) == {str(tmp_path / "web" / "package.json")}
    assert set(a.attach("make", str(tmp_path))) == {str(tmp_path / "Makefile")}
    assert a.attach("ls -la", str(tmp_path)) == {}


def test_only_programs_are_read_never_keys_or_data(tmp_path: Path) -> None:
    (tmp_path / "id_rsa").write_text("-----BEGIN RSA PRIVATE KEY-----\n")
    (tmp_path / ".env").write_text("TOKEN=x\n")
    (tmp_path / "blob.sh").write_bytes(b"\x00\x01binary")
    assert a.attach("scp -i id_rsa .env host: && sh blob.sh", str(tmp_path)) == {}


def test_a_compiled_program_run_by_its_path_is_named_never_sent(tmp_path: Path) -> None:
    """The gateway cannot read a compiled program, but it knows whether the run downloaded it."""
    (tmp_path / "bin").mkdir()
    tool = tmp_path / "bin" / "tool"
    tool.write_bytes(b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64)
    tool.chmod(0o755)
    data = tmp_path / "data.bin"
    data.write_bytes(b"\x00\x01\x02")  # not executable: data, never named
    assert a.attach("./bin/tool --in data.bin", str(tmp_path)) == {str(tool): a.BINARY}
    assert a.attach("bin/tool", str(tmp_path)) == {str(tool): a.BINARY}
    # By bare name it is found on the PATH, not here; system programs are never downloaded by a run.
    assert a.attach("tool --version", str(tmp_path)) == {}
    assert a.attach("/usr/bin/env true", str(tmp_path)) == {}


def test_bounds_large_programs_are_named_but_not_sent(tmp_path: Path) -> None:
    (tmp_path / "big.sh").write_text("#" * (a.MAX_FILE_BYTES + 10))
    assert a.attach("bash big.sh", str(tmp_path)) == {str(tmp_path / "big.sh"): None}
    for i in range(a.MAX_FILES + 5):
        (tmp_path / f"s{i}.sh").write_text("true\n")
    many = a.attach(" ; ".join(f"sh s{i}.sh" for i in range(a.MAX_FILES + 5)), str(tmp_path))
    assert len(many) == a.MAX_FILES


def test_a_fifo_is_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.sh"
    os.mkfifo(fifo)
    assert a.attach("bash pipe.sh", str(tmp_path)) == {}  # opening it would block the hook


def test_garbage_in_gives_nothing() -> None:
    assert a.attach(None, "/tmp") == {}  # type: ignore[arg-type]
    assert a.attach("ls", "relative") == {}
    assert a.attach("x " * 100_000, "/nonexistent") == {}


def test_the_file_a_runner_is_told_to_load_is_attached_whatever_its_name(tmp_path: Path) -> None:
    (tmp_path / "Makefile.local").write_text("status:\n\tcurl -s x\n")
    (tmp_path / "key.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    sent = a.attach("make -f Makefile.local status && rm -f key.pem", str(tmp_path))
    assert list(sent) == [str(tmp_path / "Makefile.local")]


def test_attaching_costs_the_hook_no_import(tmp_path: Path) -> None:
    """The hook runs on every tool call: `os`, `posixpath`, `stat` would each cost milliseconds of start-up."""
    import subprocess
    import sys

    from tests.support import ROOT

    (tmp_path / "x.sh").write_text("true\n")
    code = ("import sys; sys.path.insert(0, %r); from acteon_core import attachments; from hook import gate; "
            "assert attachments.attach('sh x.sh', %r); "
            "print(sorted(m for m in ('os', 'posixpath', 'stat', 'pathlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code % (str(ROOT), str(tmp_path))],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_notebooks_task_files_and_scripts_of_other_languages_are_attached(tmp_path: Path) -> None:
    (tmp_path / "nb").mkdir()
    (tmp_path / "nb" / "clean.ipynb").write_text('{"cells": []}')
    (tmp_path / "tasks.py").write_text("from invoke import task\n")
    (tmp_path / "prune.exs").write_text("IO.puts 1\n")
    (tmp_path / "gen.ts").write_text("console.log(1)\n")
    assert set(a.attach("papermill nb/clean.ipynb out.ipynb", str(tmp_path))) == {str(tmp_path / "nb" / "clean.ipynb")}
    assert set(a.attach("invoke wipe", str(tmp_path))) == {str(tmp_path / "tasks.py")}
    assert set(a.attach("mix run prune.exs && deno run gen.ts", str(tmp_path))) == {
        str(tmp_path / "prune.exs"), str(tmp_path / "gen.ts")}


def test_a_relative_script_is_found_from_the_folder_the_command_moves_to(tmp_path: Path) -> None:
    (tmp_path / "services" / "api" / "priv").mkdir(parents=True)
    (tmp_path / "services" / "api" / "priv" / "reset.exs").write_text("IO.puts 1\n")
    sent = a.attach("cd services/api && mix run priv/reset.exs", str(tmp_path))
    assert set(sent) == {str(tmp_path / "services" / "api" / "priv" / "reset.exs")}


def test_go_run_of_a_folder_attaches_its_sources_and_gradle_its_build_files(tmp_path: Path) -> None:
    (tmp_path / "tools" / "reset").mkdir(parents=True)
    (tmp_path / "tools" / "reset" / "main.go").write_text("package main\n")
    (tmp_path / "tools" / "reset" / "main_test.go").write_text("package main\n")
    (tmp_path / "build.gradle.kts").write_text("plugins { java }\n")
    assert set(a.attach("go run ./tools/reset", str(tmp_path))) == {str(tmp_path / "tools" / "reset" / "main.go")}
    assert set(a.attach("./gradlew test", str(tmp_path))) == {str(tmp_path / "build.gradle.kts")}
