"""swarm.toml (docs/swarm.md): defaults, every section, and unknown keys refused at every depth."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.config import ConfigError, SwarmConfig, load_config, parse_config

FULL = """
[acteon]
endpoint = "http://127.0.0.1:9090"
namespace = "team-a"

[defaults]
engine = "gemini"
max_agents = 4
max_duration_minutes = 30
subtask_timeout_seconds = 300
enable_refiner = false
quota_max_actions = 500

[safety]
require_plan_approval = false
blocked_commands = ['^terraform\\s+destroy', 'kubectl delete']
approval_timeout_seconds = 120

[[roles]]
name = "coder"
max_concurrent = 2

[[roles]]
name = "doc-writer"
description = "writes documentation"
system_prompt_template = "Write docs for {{ task.name }}."
allowed_tools = ["Read", "Write", "Glob"]
can_delegate_to = ["reviewer"]

[refiner]
engine = "claude"
model = "claude-haiku"
timeout_seconds = 30

[memory]
enabled = false
max_injected_chars = 2000

[graph]
enabled = false

[adversarial]
max_rounds = 3

[eval_harness]
enabled = true
command = "pytest -q"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "swarm.toml"
    path.write_text(text)
    return path


def errors(tmp_path: Path, text: str) -> list[str]:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert all(e.startswith(f"{path}: ") for e in info.value.errors)
    return [e.removeprefix(f"{path}: ") for e in info.value.errors]


def test_no_file_means_defaults(tmp_path: Path) -> None:
    for cfg in (load_config(None), load_config(tmp_path / "absent.toml"), load_config(write(tmp_path, ""))):
        assert cfg == SwarmConfig()
    cfg = SwarmConfig()
    assert cfg.acteon.endpoint is None and cfg.acteon.namespace == "acteon-swarm"
    assert (cfg.defaults.engine, cfg.defaults.max_agents, cfg.defaults.max_duration_minutes) == ("claude", 8, 60)
    assert cfg.defaults.subtask_timeout_seconds == 900 and cfg.defaults.enable_refiner is True
    assert cfg.defaults.quota_max_actions is None
    assert cfg.safety.require_plan_approval is True and cfg.safety.blocked_commands == []
    assert cfg.safety.approval_timeout_seconds == 600
    assert cfg.roles == [] and cfg.refiner.timeout_seconds == 60
    assert cfg.memory.enabled and cfg.memory.max_injected_chars == 4000
    assert cfg.graph.enabled and cfg.graph.store == "oxigraph"  # the faster store (bench/graph.py)
    assert not cfg.adversarial.enabled and not cfg.eval_harness.enabled and cfg.eval_harness.command is None


def test_every_section_is_read(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, FULL))
    assert cfg.acteon.endpoint == "http://127.0.0.1:9090" and cfg.acteon.namespace == "team-a"
    assert cfg.defaults.engine == "gemini" and cfg.defaults.max_agents == 4 and cfg.defaults.quota_max_actions == 500
    assert cfg.safety.blocked_commands == [r"^terraform\s+destroy", "kubectl delete"]
    assert [r.name for r in cfg.roles] == ["coder", "doc-writer"]
    assert cfg.roles[0].max_concurrent == 2 and cfg.roles[0].allowed_tools is None  # unset: keep the built-in's
    assert cfg.roles[1].allowed_tools == ["Read", "Write", "Glob"]
    assert cfg.refiner.model == "claude-haiku" and cfg.refiner.timeout_seconds == 30
    assert not cfg.memory.enabled and cfg.memory.max_injected_chars == 2000
    assert cfg.adversarial.max_rounds == 3 and cfg.eval_harness.command == "pytest -q"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("colour = 1\n", "colour: unknown key (known keys: acteon, defaults, safety, roles, refiner, memory, graph, "
                          "adversarial, eval_harness, monitor, worktrees, synthesis, executor)"),
        ("[extras]\nx = 1\n", "extras: unknown key (known keys: acteon, defaults, safety, roles, refiner, memory, "
                               "graph, adversarial, eval_harness, monitor, worktrees, synthesis, executor)"),
        ("[defaults]\nmax_agentz = 4\n", "defaults.max_agentz: unknown key (did you mean 'max_agents'?)"),
        ("[safety]\nblocked_command = ['rm']\n",
         "safety.blocked_command: unknown key (did you mean 'blocked_commands'?)"),
        ("[[roles]]\nname = 'coder'\nallowed_tool = ['Read']\n",
         "roles.0.allowed_tool: unknown key (did you mean 'allowed_tools'?)"),
        ("[memory]\nsize = 3\n", "memory.size: unknown key (known keys: enabled, max_injected_chars, max_findings, "
                                  "cross_run)"),
        ("[graph]\nstorage = 'x'\n", "graph.storage: unknown key (did you mean 'store'?)"),
        ("[adversarial]\nrounds = 3\n", "adversarial.rounds: unknown key (did you mean 'max_rounds'?)"),
        ("[eval_harness]\ncmd = 'x'\n", "eval_harness.cmd: unknown key (did you mean 'command'?)"),
        ("[refiner]\nmodle = 'x'\n", "refiner.modle: unknown key (did you mean 'model'?)"),
        ("[acteon]\nurl = 'http://x'\n", "acteon.url: unknown key (known keys: endpoint, namespace)"),
        ("[executor]\nheartbeat_timeout = 5\n",
         "executor.heartbeat_timeout: unknown key (did you mean 'heartbeat_timeout_seconds'?)"),
    ],
)
def test_unknown_keys_are_errors_at_every_depth(tmp_path: Path, text: str, expected: str) -> None:
    assert errors(tmp_path, text) == [expected]


def test_the_adversarial_loop_needs_the_eval_harness_and_a_command_challenger_its_command(tmp_path: Path) -> None:
    found = errors(tmp_path, "[adversarial]\nenabled = true\n")
    assert len(found) == 1 and "[adversarial] needs the eval harness" in found[0]
    found = errors(tmp_path, "[adversarial]\nchallenger_engine = 'command'\n")
    assert len(found) == 1 and "'challenger_command' is required" in found[0]


def test_all_problems_are_reported_together(tmp_path: Path) -> None:
    found = errors(tmp_path, "[defaults]\nmax_agentz = 4\nmax_agents = 0\nengine = 'gpt'\n[safety]\nfoo = 1\n")
    assert len(found) == 4
    assert "defaults.max_agentz: unknown key (did you mean 'max_agents'?)" in found
    assert any(e.startswith("safety.foo: unknown key") for e in found)
    assert any(e.startswith("defaults.max_agents: ") and "(got 0)" in e for e in found)
    assert any(e.startswith("defaults.engine: ") and "'gpt'" in e for e in found)


def test_values_are_strictly_typed(tmp_path: Path) -> None:
    (msg,) = errors(tmp_path, "[defaults]\nmax_agents = '8'\n")
    assert msg.startswith("defaults.max_agents: ")
    (msg,) = errors(tmp_path, "[safety]\nrequire_plan_approval = 'no'\n")
    assert msg.startswith("safety.require_plan_approval: ")


def test_blocked_commands_must_be_valid_regexes(tmp_path: Path) -> None:
    (msg,) = errors(tmp_path, "[safety]\nblocked_commands = ['ok', '(unclosed']\n")
    assert msg.startswith("safety.blocked_commands.1: bad regex '(unclosed'")


def test_toml_syntax_errors_name_the_line(tmp_path: Path) -> None:
    (msg,) = errors(tmp_path, "[defaults]\nmax_agents = 4\nengine = \n")
    assert msg.startswith("invalid TOML: ") and "line 3" in msg


def test_role_names_and_duplicates(tmp_path: Path) -> None:
    (msg,) = errors(tmp_path, "[[roles]]\nname = 'Code Writer'\n")
    assert msg.startswith("roles.0.name: ")
    (msg,) = errors(tmp_path, "[[roles]]\nname = 'a'\n[[roles]]\nname = 'a'\n")
    assert msg == "role(s) defined more than once in [[roles]]: a"
    (msg,) = errors(tmp_path, "[[roles]]\ndescription = 'x'\n")
    assert msg == "roles.0.name: missing required key"


def test_cross_field_and_range_checks(tmp_path: Path) -> None:
    (msg,) = errors(tmp_path, "[eval_harness]\nenabled = true\n")
    assert msg == "eval_harness: 'command' is required when the eval harness is enabled"
    (msg,) = errors(tmp_path, "[acteon]\nendpoint = 'localhost:8080'\n")
    assert msg.startswith("acteon.endpoint: expected an http:// or https:// URL")
    (msg,) = errors(tmp_path, "[defaults]\nquota_max_actions = 0\n")
    assert msg.startswith("defaults.quota_max_actions: ")


def test_parse_config_names_its_source() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({"defaults": {"nope": 1}}, "inline")
    assert info.value.errors[0].startswith("inline: defaults.nope: unknown key")


@pytest.mark.parametrize(("text", "expected"), [
    ("[refiner]\nengine = 'command'\ncommand = 'x'\nmodel = 'opus'\n", "the refiner runs a command, not a model"),
    ("[synthesis]\nengine = 'command'\nmodel = 'opus'\n", "the synthesizer runs a command, not a model"),
    ("[adversarial]\nchallenger_engine = 'command'\nchallenger_command = 'x'\nchallenger_model = 'opus'\n",
     "the challenger runs a command, not a model"),
    ("[eval_harness]\npass_threshold = 0.5\n", "pass_threshold does nothing while the eval harness is off"),
])
def test_an_option_that_would_do_nothing_is_an_error(tmp_path: Path, text: str, expected: str) -> None:
    found = errors(tmp_path, text)
    assert len(found) == 1 and expected in found[0], found
