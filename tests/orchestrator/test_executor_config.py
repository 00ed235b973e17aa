"""Choosing where subtasks run: ``[executor]`` in swarm.toml, ``run --executor/--temporal``, and the
``worker`` command's refusals (each a clear one-line error, never a traceback)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.config import ConfigError, load_config
from tests.support import ROOT, require


def cfg(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    p = tmp_path / "swarm.toml"
    p.write_text(text)
    return load_config(p)


def test_the_default_is_the_local_executor(tmp_path: Path) -> None:
    assert cfg(tmp_path, "").executor.kind == "local"


def test_roles_map_to_task_queues(tmp_path: Path) -> None:
    ex = cfg(tmp_path, '[executor]\nkind = "temporal"\naddress = "temporal.internal:7233"\n'
                       'queues = {coder = "gpu-pool"}\nheartbeat_timeout_seconds = 10\n').executor
    assert (ex.kind, ex.address) == ("temporal", "temporal.internal:7233")
    assert ex.queue_for("coder") == "gpu-pool" and ex.queue_for("reviewer") == "acteon-agents"


@pytest.mark.parametrize(("text", "expected"), [
    ('[executor]\nkind = "celery"\n', "executor.kind"),
    ('[executor]\ntls_cert = "/etc/w.pem"\n', "tls_cert and tls_key go together"),
    ('[executor]\nheartbeat_timeout_seconds = 0.5\n', "executor.heartbeat_timeout_seconds"),
    ('[executor]\nqueues = {Coder = "q"}\n', "executor.queues"),
    ('[executor]\napi_key_env = "my key"\n', "executor.api_key_env"),
])
def test_a_bad_executor_section_is_an_error_naming_the_key(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as e:
        cfg(tmp_path, text)
    assert expected in str(e.value)


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "HOME": env.get("HOME", "/tmp"), **env}
    return subprocess.run([sys.executable, "-m", "orchestrator.cli", *args], capture_output=True, text=True,
                          env=full, timeout=60)


def test_a_distributed_run_needs_a_gateway_the_workers_reach(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text('{"id": "p", "objective": "o", "status": "approved", "scope": {"working_directory": "'
                    f'{tmp_path}"}}, "tasks": [{{"id": "a", "name": "a", "assigned_role": "executor", '
                    '"subtasks": [{"id": "a-1", "name": "a", "command": "true"}]}]}')
    r = _cli("run", "--plan", str(plan), "--temporal", "127.0.0.1:9", "--state-dir", str(tmp_path / "s"),
             env={"HOME": str(tmp_path)})
    assert r.returncode == 2 and "ACTEON_URL" in r.stderr and "Traceback" not in r.stderr
    r = _cli("run", "--plan", str(plan), "--executor", "local", "--temporal", "127.0.0.1:9",
             env={"HOME": str(tmp_path)})
    assert r.returncode == 2 and "--executor temporal" in r.stderr


def test_the_worker_refuses_to_start_without_its_key_or_a_gateway(tmp_path: Path) -> None:
    r = _cli("worker", "--temporal", "127.0.0.1:9", env={"HOME": str(tmp_path)})
    assert r.returncode == 2 and "--gateway" in r.stderr and "Traceback" not in r.stderr
    r = _cli("worker", "--temporal", "127.0.0.1:9", env={"HOME": str(tmp_path), "ACTEON_URL": "http://127.0.0.1:9"})
    assert r.returncode == 2 and "no worker key" in r.stderr and "acteon-gateway workers add" in r.stderr
    r = _cli("worker", "--temporal", "127.0.0.1:9", "--key-file", str(tmp_path / "nope"),
             env={"HOME": str(tmp_path), "ACTEON_URL": "http://127.0.0.1:9"})
    assert r.returncode == 2 and "--key-file" in r.stderr


def test_a_worker_that_cannot_reach_temporal_says_where_it_looked(tmp_path: Path) -> None:
    require("temporalio (pip install '.[distributed]')", importlib.util.find_spec("temporalio") is not None)
    r = _cli("worker", "--temporal", "127.0.0.1:9", env={"HOME": str(tmp_path), "ACTEON_URL": "http://127.0.0.1:9",
                                                           "ACTEON_WORKER_KEY": "acteon_worker_x"})
    assert r.returncode == 2 and "cannot reach Temporal at 127.0.0.1:9" in r.stderr and "Traceback" not in r.stderr


def test_an_unreachable_temporal_is_a_clear_error_and_leaves_no_run_behind(tmp_path: Path) -> None:
    require("temporalio (pip install '.[distributed]')", importlib.util.find_spec("temporalio") is not None)
    from tests.support import gateway_process

    plan = tmp_path / "plan.json"
    plan.write_text('{"id": "p", "objective": "o", "status": "approved", "scope": {"working_directory": "'
                    f'{tmp_path}"}}, "tasks": [{{"id": "a", "name": "a", "assigned_role": "executor", '
                    '"subtasks": [{"id": "a-1", "name": "a", "command": "true"}]}]}')
    gw_env = {"ACTEON_ADMIN_KEY": "executor-config-admin", "ACTEON_STATE_DIR": str(tmp_path / "gw")}
    with gateway_process(gw_env) as url:
        r = _cli("run", "--plan", str(plan), "--temporal", "127.0.0.1:9", "--run-id", "nowhere", "--state-dir",
                 str(tmp_path / "s"), env={"HOME": str(tmp_path), "ACTEON_URL": url,
                                           "ACTEON_ADMIN_KEY": "executor-config-admin"})
    assert r.returncode == 2 and "cannot reach Temporal at 127.0.0.1:9" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "s" / "runs" / "nowhere" / "run.json").exists()
