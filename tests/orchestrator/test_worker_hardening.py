"""A worker's key stays out of its agents' reach even when they run as the same user: the worker makes
itself undumpable, so another process of that user can read neither its /proc/<pid>/environ nor its
memory. Checked with two unprivileged processes (root may read anything)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT, require

SECRET = "acteon_worker_not-for-agents-0123456789"


def as_nobody(*argv: str, **kw) -> subprocess.Popen[str]:  # type: ignore[no-untyped-def]
    return subprocess.Popen(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *argv],
                            text=True, **kw)


@pytest.mark.parametrize("hardened", [True, False])
def test_another_process_of_the_same_user_cannot_read_a_hardened_workers_environment(hardened: bool,
                                                                                     tmp_path: Path) -> None:
    require("setpriv (util-linux)", shutil.which("setpriv") is not None)
    require("temporalio (pip install '.[distributed]')", importlib.util.find_spec("temporalio") is not None)
    code = ("import sys, time\n"
            f"sys.path.insert(0, {str(ROOT)!r})\n"
            "from orchestrator.executors.temporal.worker import harden\n"
            f"ok = harden() if {hardened} else True\n"
            "print('ready' if ok else 'failed', flush=True)\n"
            "time.sleep(30)\n")
    worker = as_nobody(sys.executable, "-c", code, env={"ACTEON_WORKER_KEY": SECRET, "PATH": "/usr/bin:/bin"},
                       stdout=subprocess.PIPE, cwd="/")
    try:
        assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
        agent = as_nobody("cat", f"/proc/{worker.pid}/environ", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          cwd="/")
        out, err = agent.communicate(timeout=30)
        if hardened:
            assert SECRET not in out and agent.returncode != 0 and "Permission denied" in err
        else:
            assert SECRET in out  # what an agent would read without it
    finally:
        worker.kill()
        worker.wait()
