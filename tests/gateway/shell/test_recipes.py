"""Task runners' manifests read as the shell lines a named task runs (gateway/shell/recipes.py), and the
task runners judged by them when the manifest is known (gateway/shell/tasks.py)."""

from __future__ import annotations

import json

from gateway.shell import analyze, recipes
from gateway.shell import categories as cat

CWD = "/home/agent/work/shop"
HOME = "/home/agent"
MAKEFILE = """\
BUILD := build
DEST ?= $(BUILD)/out
.PHONY: all clean nuke
all: compile
compile:
\t$(CC) -o $@ main.c
clean:
\t@$(RM) -r $(BUILD)
nuke: clean
\trm -rf ~/important
deploy: ; kubectl apply -f k8s/
"""


def test_make_runs_the_named_target_its_prerequisites_and_nothing_else() -> None:
    assert recipes.makefile(MAKEFILE, ["clean"]) == ["rm -f -r build"]
    assert recipes.makefile(MAKEFILE, ["nuke"]) == ["rm -f -r build", "rm -rf ~/important"]
    assert recipes.makefile(MAKEFILE, []) == ["cc -o compile main.c"]  # the default goal, with $@
    assert recipes.makefile(MAKEFILE, ["deploy"]) == ["kubectl apply -f k8s/"]  # an inline recipe
    assert recipes.makefile(MAKEFILE, ["clean"], {"BUILD": "/"}) == ["rm -f -r /"]  # `make BUILD=/ clean`


def test_a_makefile_piece_is_read_whole() -> None:
    """What an edit inserts may have no rule line: its recipe lines still count."""
    assert recipes.makefile("\trm -rf ~/x\n", None) == ["rm -rf ~/x"]


def test_package_scripts_with_their_pre_and_post_scripts() -> None:
    text = json.dumps({"scripts": {"prebuild": "rm -rf dist", "build": "tsc", "postbuild": "echo ok"}})
    assert recipes.package_scripts(text, ["build"]) == ["rm -rf dist", "tsc", "echo ok"]
    assert recipes.package_scripts('"clean": "rm -rf ~/x",', None) == ["rm -rf ~/x"]  # an edited fragment


def test_justfile_taskfile_and_procfile() -> None:
    just = "default: test\ntest:\n    pytest -q\nwipe: test\n    @rm -rf {{target}}\n"
    assert recipes.justfile(just, ["wipe"]) == ["pytest -q", "rm -rf ${target}"]
    task = ("version: '3'\ntasks:\n  a:\n    deps: [b]\n    cmds:\n      - echo a\n      - task: c\n"
            "  b: echo b\n  c:\n    cmd: echo c\n")
    assert sorted(recipes.taskfile(task, ["a"])) == ["echo a", "echo b", "echo c"]
    assert recipes.procfile("web: gunicorn app\n# worker: no\nworker: celery -A x worker\n") == \
        ["gunicorn app", "celery -A x worker"]


def test_pathological_manifests_stay_bounded() -> None:
    loop = "".join(f"t{i}: t{i + 1}\n\techo {i}\n" for i in range(5000))
    assert len(recipes.makefile(loop, ["t0"])) == recipes.MAX_TASKS
    assert recipes.taskfile("{{{{not yaml", ["x"]) == []
    assert recipes.package_scripts("[1, 2]", ["x"]) == []


def test_runners_are_judged_by_the_manifest_they_load() -> None:
    files = ((f"{CWD}/Makefile", MAKEFILE),)
    assert cat.DESTRUCTIVE_DELETE in analyze("make nuke", CWD, HOME, (), files).categories
    assert not analyze("make clean", CWD, HOME, (), files).categories
    assert cat.DESTRUCTIVE_DELETE in analyze("make -C sub nuke", CWD, HOME, (), ((f"{CWD}/sub/Makefile", MAKEFILE),)) \
        .categories
    assert cat.DYNAMIC_COMMAND in analyze("make", CWD, HOME, (), ((f"{CWD}/Makefile", None),)).categories
    assert not analyze("make nuke", CWD, HOME).categories  # a makefile nobody attached: the command line alone


def test_a_script_set_by_a_tool_then_run_is_judged() -> None:
    assert cat.DESTRUCTIVE_DELETE in analyze("npm pkg set scripts.x='rm -rf ~' && npm run x", CWD, HOME).categories
    assert cat.DESTRUCTIVE_DELETE in analyze("npm set-script x 'rm -rf ~'", CWD, HOME).categories
