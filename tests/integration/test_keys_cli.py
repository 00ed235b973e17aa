"""``acteon-gateway operators|workers add|list|revoke`` against a real gateway process: the key is printed
once, works for what it is for, is never listed, and stops working when revoked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.support import ROOT, gateway_process


def keys_cli(url: str, state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "ACTEON_STATE_DIR": str(state), "ACTEON_URL": url}
    return subprocess.run([sys.executable, "-m", "gateway.cli", *args], env=env, capture_output=True, text=True,
                          timeout=60, check=False)


@pytest.mark.slow
def test_worker_and_operator_keys_from_the_command_line(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with gateway_process({"ACTEON_STATE_DIR": str(state)}) as url:
        admin = {"Authorization": f"Bearer {(state / 'admin.key').read_text().strip()}"}
        assert httpx.post(f"{url}/v1/runs", json={"run_id": "r1"}, headers=admin).status_code == 201

        made = keys_cli(url, state, "workers", "add", "box-1")
        assert made.returncode == 0, made.stderr
        worker_key = made.stdout.strip().splitlines()[-1]
        assert worker_key.startswith("acteon_worker_") and "shown only this once" in made.stdout
        minted = httpx.post(f"{url}/v1/runs/r1/attempts", json={"agent_id": "a.1", "attempt": 1},
                            headers={"Authorization": f"Bearer {worker_key}"})
        assert minted.status_code == 201, minted.text

        op = keys_cli(url, state, "operators", "add", "otto", "--role", "viewer")
        assert op.returncode == 0, op.stderr
        assert "operator otto (viewer)" in op.stdout

        workers = keys_cli(url, state, "workers", "list")
        operators = keys_cli(url, state, "operators", "list")
        assert workers.stdout.split() == ["box-1", "worker"] and "acteon_" not in workers.stdout
        assert operators.stdout.split() == ["otto", "viewer"]
        # One namespace: a worker's name is not free for an operator, and each is revoked as what it is.
        taken = keys_cli(url, state, "operators", "add", "box-1")
        assert taken.returncode == 1 and "taken" in taken.stderr
        wrong = keys_cli(url, state, "operators", "revoke", "box-1")
        assert wrong.returncode == 1 and "no operator named 'box-1'" in wrong.stderr

        gone = keys_cli(url, state, "workers", "revoke", "box-1")
        assert gone.returncode == 0 and "worker box-1 revoked" in gone.stdout
        again = httpx.post(f"{url}/v1/runs/r1/attempts", json={"agent_id": "a.1", "attempt": 2},
                           headers={"Authorization": f"Bearer {worker_key}"})
        assert again.status_code == 401


def test_without_an_admin_key_it_says_where_to_find_one(tmp_path: Path) -> None:
    r = keys_cli("http://127.0.0.1:9", tmp_path / "nowhere", "workers", "list")
    assert r.returncode == 2 and "no admin key" in r.stderr and "Traceback" not in r.stderr


def test_options_go_after_the_verb_too_and_no_gateway_is_a_user_error(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "admin.key").write_text("some-admin-key\n")
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "ACTEON_STATE_DIR": str(state)}
    r = subprocess.run([sys.executable, "-m", "gateway.cli", "operators", "add", "alice", "--url",
                        "http://127.0.0.1:9", "--json"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 2 and "cannot reach the gateway at http://127.0.0.1:9" in r.stderr
    assert "give --url" in r.stderr and "Traceback" not in r.stderr
