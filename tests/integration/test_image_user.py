"""The Docker image runs as a non-root user and can write its state.

No Docker engine here, so the tests check the two halves: the Dockerfile runs as a non-root ``USER``, names
its state directory in ``ENV ACTEON_STATE_DIR`` and creates it owned by that user (and docker-compose keeps
it in a volume); and a gateway given that environment, started in another directory (the image's /app,
which its user cannot write), keeps every file it makes in the state directory and none where it runs.
(Starting the process as another user is not possible here: the interpreter lives under root's 0700 home.)"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

from tests.support import ROOT, free_port, wait_until


def test_the_image_gives_its_user_a_state_dir() -> None:
    text = (ROOT / "Dockerfile").read_text()
    user = re.findall(r"^USER (\S+)", text, re.M)
    state = re.search(r"^ENV ACTEON_STATE_DIR=(\S+)", text, re.M)
    assert user and user[-1] != "root" and state, "the image must run as a user and name its state directory"
    made = re.search(rf"install -d -o {re.escape(user[-1])}(?: -g \S+)? -m 0?700 {re.escape(state.group(1))}", text)
    assert made, "the state directory is created owned by the image's user, private"
    compose = (ROOT / "docker-compose.yml").read_text()
    assert f":{state.group(1)}" in compose, "docker-compose keeps the state in a volume"


def test_the_gateway_keeps_its_files_in_the_state_dir_not_where_it_runs(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    cwd = tmp_path / "app"
    cwd.mkdir()
    port = free_port()
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "HOME": str(tmp_path / "home"),
           "ACTEON_STATE_DIR": str(state)}
    proc = subprocess.Popen([sys.executable, "-m", "gateway.cli", "--port", str(port), "--log-level", "error"],
                            env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        def up() -> bool:
            if proc.poll() is not None:
                raise AssertionError(f"gateway exited: {proc.stderr.read().decode() if proc.stderr else ''}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    return True
            except OSError:
                return False

        wait_until(up, timeout_s=30, what="gateway")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert list(cwd.iterdir()) == []  # nothing written where it runs
    assert any(p.name.endswith(".key") or "key" in p.name for p in state.rglob("*")), sorted(state.rglob("*"))
