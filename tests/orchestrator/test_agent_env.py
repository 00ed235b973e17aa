"""Agents never hold the gateway's secrets: their environment is an allow-list, and the store's
URL, the admin key and key-file paths never pass — checked per engine by the environment the agent saw."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from orchestrator.engines.base import Seat, SubtaskContext
from orchestrator.engines.claude import ClaudeEngine
from orchestrator.engines.environment import agent_environment
from orchestrator.engines.gemini import GeminiEngine
from orchestrator.gatewayclient import GatewayClient

REDIS_URL = "redis://:s3cret-store-password@10.0.0.5:6380/0"
ADMIN = "admin-key-0123456789abcdef"
USER_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/home/u", "LANG": "C.UTF-8",
    "ANTHROPIC_API_KEY": "sk-ant-x", "GEMINI_API_KEY": "g-x", "HTTPS_PROXY": "http://proxy:3128",
    "ACTEON_REDIS_URL": REDIS_URL, "ACTEON_ADMIN_KEY": ADMIN,
    "ACTEON_AGENT_KEY_FILE": "/home/u/.acteon-swarm/agent.key", "ACTEON_STATE_DIR": "/home/u/.acteon-swarm",
    "ACTEON_AGENT_KEY": "another-runs-key", "REDISCLI_AUTH": "s3cret-store-password",
    "MY_DEPLOY_TOKEN": "t", "AWS_PROFILE": "dev", "ACTEON_OPERATOR_KEY": "acteon_op_person-0123456789",
    # the secret under a name the allow-list would otherwise pass
    "PYTHON_SNEAKY": f"--url {REDIS_URL}", "LC_ADMIN": ADMIN, "LC_PERSON": "acteon_op_person-0123456789",
    # a worker machine's credentials: its key for the gateway, its access to Temporal
    "ACTEON_WORKER_KEY": "acteon_worker_machine-0123456789", "LC_MACHINE": "acteon_worker_machine-0123456789",
    "TEMPORAL_API_KEY": "temporal-cloud-api-key", "TEMPORAL_TLS_CLIENT_KEY_PATH": "/etc/temporal/worker.key",
}
SECRETS = (REDIS_URL, ADMIN, "s3cret-store-password", "agent.key", "/home/u/.acteon-swarm", "another-runs-key",
           "acteon_op_person", "acteon_worker_machine", "temporal-cloud-api-key", "/etc/temporal/worker.key")


def assert_no_secrets(env: dict[str, str]) -> None:
    dump = json.dumps(env)
    for secret in SECRETS:
        assert secret not in dump, f"{secret!r} reached the agent"


def test_the_allow_list_keeps_what_agents_need_and_drops_the_rest() -> None:
    env = agent_environment(USER_ENV)
    assert_no_secrets(env)
    assert {"PATH", "HOME", "LANG", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "HTTPS_PROXY"} <= set(env)
    assert "MY_DEPLOY_TOKEN" not in env and "AWS_PROFILE" not in env


def test_pass_env_adds_names_and_patterns_but_never_the_gateway_secrets() -> None:
    env = agent_environment(USER_ENV, ("AWS_*", "ACTEON_*", "REDIS*", "LC_*", "TEMPORAL_*"))
    assert env["AWS_PROFILE"] == "dev"
    assert_no_secrets(env)


def fake_cli(tmp_path: Path, name: str) -> Path:
    """A stand-in agent CLI that records the environment it was started with."""
    script = tmp_path / f"fake-{name}"
    script.write_text(f"#!/bin/sh\nenv > \"$PWD/{name}-env.txt\"\necho '{{}}'\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


@pytest.mark.parametrize(("engine", "bin_var"), [(ClaudeEngine(), "ACTEON_CLAUDE_BIN"),
                                                 (GeminiEngine(), "ACTEON_GEMINI_BIN")])
async def test_each_ai_engine_starts_its_agent_without_the_gateway_secrets(
    private_tmp: Path, engine: ClaudeEngine | GeminiEngine, bin_var: str
) -> None:
    tmp_path = private_tmp  # Gemini CLI skips settings below a group-writable directory such as /tmp
    workdir = tmp_path / "ws"
    workdir.mkdir()
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    seat = Seat(gateway_url="http://127.0.0.1:9", agent_key="run-scoped-agent-key", run_id="r1",
                env={**USER_ENV, bin_var: str(fake_cli(tmp_path, engine.name))})
    ctx = SubtaskContext(
        seat=seat, agent_id="t1.s1", role="coder", task_id="t1", subtask_id="s1", prompt="do it",
        command=None, workdir=workdir, agent_dir=agent_dir, timeout_s=20,
        client=GatewayClient("http://127.0.0.1:9", ADMIN),
    )
    await engine.run_subtask(ctx)
    seen = dict(line.split("=", 1) for line in (workdir / f"{engine.name}-env.txt").read_text().splitlines()
                if "=" in line)
    assert_no_secrets(seen)
    assert seen["ACTEON_AGENT_KEY"] == "run-scoped-agent-key" and seen["ACTEON_RUN_ID"] == "r1"
    assert seen["ANTHROPIC_API_KEY" if engine.name == "claude" else "GEMINI_API_KEY"]
