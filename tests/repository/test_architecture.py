"""Architecture that must stay visible: the hook is stdlib-only and starts light; the CLI's --help does
not drag in the server stack; docker-compose.yml stays valid."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys

import yaml

from tests.support import IN_CI, ROOT

HEAVY = ("pydantic", "fastapi", "redis", "httpx", "rdflib", "typer", "yaml", "gateway", "orchestrator",
         "uvicorn", "starlette", "tree_sitter")


def _loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


# hook/agent_sdk.py is a library for Claude Agent SDK programs, never loaded by the hook executable (the test
# below keeps it so): it may import the SDK it plugs into.
SDK_HELPER_IMPORTS = {"agent_sdk.py": ("claude_agent_sdk", "anyio")}


def test_hook_and_its_foundation_import_only_the_standard_library() -> None:
    for path in [*(ROOT / "hook").glob("*.py"), *(ROOT / "acteon_core").glob("*.py")]:
        allowed = SDK_HELPER_IMPORTS.get(path.name, ()) if path.parent.name == "hook" else ()
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top in ("hook", "acteon_core", *allowed), \
                    f"{path} imports {name}"


def test_running_the_hook_loads_nothing_heavy() -> None:
    loaded = _loaded_after("import hook.__main__, acteon_core.contract")
    assert not {m for m in loaded if m.split(".")[0] in HEAVY}


def test_cli_help_does_not_load_the_server_stack() -> None:
    loaded = _loaded_after(
        "import sys; sys.argv=['acteon-swarm','--help']\n"
        "from orchestrator import cli\n"
        "try:\n    cli.main()\nexcept SystemExit:\n    pass"
    )
    for heavy in ("fastapi", "redis", "httpx", "gateway", "uvicorn", "rdflib"):
        assert heavy not in loaded


def test_a_local_run_never_loads_temporal() -> None:
    """Temporal is an optional extra: the runner and the default executor work without it."""
    loaded = _loaded_after(
        "from orchestrator.run import runner\n"
        "from orchestrator.config import ExecutorSection\n"
        "from orchestrator.executors import make_executor\n"
        "assert make_executor(ExecutorSection()).name == 'local'\n"
        "from orchestrator import cli"
    )
    assert "orchestrator.run.runner" in loaded
    assert not {m for m in loaded if m.split(".")[0] == "temporalio"}


def test_docker_compose_is_valid() -> None:
    doc = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    ha = {"ha-redis-master", "ha-redis-replica", "ha-sentinel-1", "ha-sentinel-2", "ha-sentinel-3", "ha-gateway-a",
          "ha-gateway-b"}
    assert set(doc["services"]) == {"redis", "gateway", "temporal", "worker", *ha}
    # The highly available store (docs/ha.md) is a profile: every node, sentinels included, wants the password,
    # and the gateways find the master through the sentinels.
    assert all(doc["services"][s]["profiles"] == ["ha"] for s in ha)
    for node in ("ha-redis-master", "ha-redis-replica", "ha-sentinel-1", "ha-sentinel-3"):
        assert "requirepass" in " ".join(doc["services"][node]["command"])
    for gw in ("ha-gateway-a", "ha-gateway-b"):
        url = doc["services"][gw]["environment"]["ACTEON_REDIS_URL"]
        assert url.startswith("redis+sentinel://:${ACTEON_REDIS_PASSWORD") and url.endswith("/acteon")
        assert all(p.startswith("127.0.0.1:") for p in doc["services"][gw]["ports"])
    # Distributed runs are a profile to try on one host; a worker gets a worker key, never the admin key or
    # the store's address.
    assert all(doc["services"][s]["profiles"] == ["distributed"] for s in ("temporal", "worker"))
    worker_env = doc["services"]["worker"]["environment"]
    assert set(worker_env) == {"ACTEON_URL", "ACTEON_WORKER_KEY"}
    # The store requires a password and persists (AOF, fsync every second); the gateway's URL carries it.
    redis_command = " ".join(doc["services"]["redis"]["command"])
    assert "--requirepass" in redis_command and "--appendonly yes" in redis_command
    assert "--appendfsync everysec" in redis_command
    assert "${ACTEON_REDIS_PASSWORD" in doc["services"]["gateway"]["environment"]["ACTEON_REDIS_URL"]
    assert "./rules:/app/rules:ro" in doc["services"]["gateway"]["volumes"]
    assert all(p.startswith("127.0.0.1:") for p in doc["services"]["gateway"]["ports"])
    tool = shutil.which("docker-compose")
    if tool is None:
        assert not IN_CI, "docker-compose must be installed in CI"
        return
    r = subprocess.run([tool, "config", "-q"], cwd=ROOT, capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin", "ACTEON_ADMIN_KEY": "x", "ACTEON_REDIS_PASSWORD": "y"})
    assert r.returncode == 0, r.stderr
    # Without the store's password the stack does not start at all (no open Redis by omission).
    r = subprocess.run([tool, "config", "-q"], cwd=ROOT, capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin", "ACTEON_ADMIN_KEY": "x"})
    assert r.returncode != 0 and "ACTEON_REDIS_PASSWORD" in r.stderr


def test_the_gate_path_loads_no_heavy_stdlib_module() -> None:
    """Run a real gate call (to a closed port: the whole path, fail-closed answer included) and list
    every module it imported. Each of these costs milliseconds on every tool call."""
    event = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})
    p = subprocess.run(
        [sys.executable, "-X", "importtime", "-I", "-S", str(ROOT / "hook" / "__main__.py"), "gate", "--cli", "claude",
         "--url", "http://127.0.0.1:9"],
        input=event, capture_output=True, text=True, env={"ACTEON_AGENT_KEY": "k"},
    )
    assert p.returncode == 2 and "permissionDecision" in p.stdout  # denied: the gateway is not there
    imported = {line.split("|")[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
    heavy = {"json", "re", "enum", "typing", "socket", "dataclasses", "pathlib", "urllib.parse", "http.client",
             "email", "encodings.idna", "collections", "inspect", "os", "argparse", "ssl"}
    assert not imported & heavy, imported & heavy


PACKAGES = ("acteon_core", "gateway", "hook", "orchestrator")


def test_no_import_circle_anywhere() -> None:
    """Every package reads top-down: no module reaches back, even at type-checking time, into one that
    imports it (a circle hides which part owns what)."""
    import grimp

    graph = grimp.build_graph(*PACKAGES, include_external_packages=False)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph.find_modules_directly_imported_by(module):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while (top := stack.pop()) != module:
                component.append(top)
            if component:
                circles.append(sorted([module, *component]))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    assert circles == []


def test_no_module_over_500_lines() -> None:
    """Small modules named for their one job: a newcomer reads one in a sitting."""
    long = {str(p.relative_to(ROOT)): n for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500}
    assert long == {}
