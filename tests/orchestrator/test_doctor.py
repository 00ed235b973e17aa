"""`acteon-swarm doctor` healthy, and with each problem it reports — the gateway down, a wrong admin
key, a CLI without the gate hook, an untrusted Gemini folder, and a hook that lets a destructive call through
(the probe runs the installed hook for real)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import ROOT, gateway_process

ADMIN = "doctor-test-admin-key"
HOOK = [sys.executable, "-I", "-S", str(ROOT / "hook" / "__main__.py")]


@pytest.fixture
def setup(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A project folder, a home with stub `claude`/`gemini`/`codex` binaries on PATH, and a gateway with its keys."""
    project, home, bin_dir, state = tmp_path / "proj", tmp_path / "home", tmp_path / "bin", tmp_path / "gw"
    for d in (project, home, bin_dir):
        d.mkdir()
    home.chmod(0o700)
    for cli, version in (("claude", "2.1.328 (Claude Code)"), ("gemini", "0.61.0"), ("codex", "codex-cli 0.169.0"),
                          ("qwen", "0.24.4"), ("opencode", "1.18.33"),
                          ("copilot", "GitHub Copilot CLI 1.0.102"), ("crush", "crush version v0.20.0"),
                          ("cline", "3.40.0"), ("cursor-agent", "2026.11.20"), ("goose", "1.14.0"),
                          ("windsurf", "1.12.0"), ("agy", "1.2.3")):
        stub = bin_dir / cli
        stub.write_text(f"#!/bin/sh\necho '{version}'\n")
        stub.chmod(0o755)
    with gateway_process({"ACTEON_ADMIN_KEY": ADMIN, "ACTEON_STATE_DIR": str(state)}) as url:
        yield {"project": project, "home": home, "bin": bin_dir, "state": state, "url": url}


def install(s: dict[str, Any], cli: str, url: str | None = None, scope_name: str | None = None) -> None:
    scope = ["--scope", scope_name or ("local" if cli == "claude" else "project")]
    r = subprocess.run([*HOOK, "install", "--cli", cli, *scope, "--url", url or s["url"],
                        "--key-file", str(s["state"] / "default-agent.key")],
                       cwd=s["project"], env={"PATH": os.environ["PATH"], "HOME": str(s["home"])},
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def doctor(s: dict[str, Any], **env: str) -> tuple[int, dict[str, dict[str, str]]]:
    full = {"PATH": f"{s['bin']}:{os.environ['PATH']}", "HOME": str(s["home"]), "PYTHONPATH": str(ROOT),
            "ACTEON_URL": s["url"], "ACTEON_ADMIN_KEY": ADMIN, **env}
    r = subprocess.run([sys.executable, "-m", "orchestrator.cli", "doctor", "--folder", str(s["project"]),
                        "--json"], capture_output=True, text=True, env=full, cwd=s["project"], timeout=120)
    assert "Traceback" not in r.stderr, r.stderr
    return r.returncode, {c["name"]: c for c in json.loads(r.stdout)}


def trust(s: dict[str, Any]) -> None:
    (s["home"] / ".gemini").mkdir(exist_ok=True)
    (s["home"] / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(s["project"]): "TRUST_FOLDER"}))


def test_a_healthy_setup(setup) -> None:  # type: ignore[no-untyped-def]
    install(setup, "claude")
    install(setup, "gemini")
    trust(setup)
    code, checks = doctor(setup)
    assert code == 0, checks
    statuses = {n: c["status"] for n, c in checks.items()}
    assert statuses.items() >= {
        "gateway": "ok", "admin key": "ok", "claude": "ok", "claude hook": "ok", "claude probe": "ok",
        "gemini": "ok", "gemini hook": "ok", "gemini probe": "ok"}.items()
    assert "`ls` is allowed" in checks["claude probe"]["detail"] and "block-destructive-commands" in \
        checks["claude probe"]["detail"]
    assert "2.1.328" in checks["claude"]["detail"]
    assert checks["store"]["status"] == "note"  # the embedded store loses everything on restart


@pytest.mark.slow
def test_each_problem_is_named_with_its_fix(setup, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, checks = doctor(setup)  # no hooks installed: installed CLIs that are simply not gated here
    assert code == 0
    assert checks["claude hook"]["status"] == "note" and "acteon-swarm-hook install" in checks["claude hook"]["fix"]
    install(setup, "gemini")
    code, checks = doctor(setup)
    assert checks["gemini trust"]["status"] == "PROBLEM" and "trustedFolders.json" in checks["gemini trust"]["fix"]
    code, checks = doctor(setup, ACTEON_ADMIN_KEY="not-the-key")
    assert checks["admin key"]["status"] == "PROBLEM" and code == 1
    code, checks = doctor(setup, ACTEON_URL="http://127.0.0.1:9")
    assert checks["gateway"]["status"] == "PROBLEM" and "acteon-gateway" in checks["gateway"]["fix"]


@pytest.mark.slow
def test_a_hook_that_lets_a_destructive_call_through_fails_the_probe(setup, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rules = tmp_path / "allow-all"
    rules.mkdir()
    (rules / "all.yaml").write_text("rules:\n  - {name: allow-everything, priority: 1, action: allow}\n")
    lax_state = tmp_path / "lax"
    with gateway_process({"ACTEON_ADMIN_KEY": ADMIN, "ACTEON_STATE_DIR": str(lax_state),
                          "ACTEON_RULES_DIR": str(rules)}) as lax:
        setup["state"] = lax_state
        install(setup, "claude", url=lax)
        code, checks = doctor(setup, ACTEON_URL=lax)
    assert code == 1
    assert checks["claude probe"]["status"] == "PROBLEM" and "let" in checks["claude probe"]["detail"]


def test_a_hook_that_denies_everything_fails_the_probe_and_install_warns(setup) -> None:  # type: ignore[no-untyped-def]
    """A key file that is not there and a gateway that does not answer make a gate that
    denies every call — install says so, and the probe's harmless call shows it (a deny is not a pass)."""
    r = subprocess.run([*HOOK, "install", "--cli", "claude", "--scope", "local", "--url", "http://127.0.0.1:9",
                        "--key-file", str(setup["state"] / "missing.key")],
                       cwd=setup["project"], env={"PATH": os.environ["PATH"], "HOME": str(setup["home"])},
                       capture_output=True, text=True)
    assert r.returncode == 0
    assert "missing.key does not exist" in r.stderr and "http://127.0.0.1:9 does not answer" in r.stderr
    code, checks = doctor(setup)
    assert code == 1
    probe = checks["claude probe"]
    assert probe["status"] == "PROBLEM" and "denies even `ls`" in probe["detail"] and "key file" in probe["fix"]


def test_an_old_python_and_a_gateway_without_rules_are_problems(monkeypatch, tmp_path: Path) -> None:
    """The checks that need a situation a subprocess cannot easily make: an old interpreter, and a gateway
    that answers but has lost its rule pack (503)."""
    import http.server
    import threading

    from orchestrator.cli import doctor as d

    class Lost(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b'{"status":"unavailable","error":{"code":"rules_unavailable","message":"no rule pack in force"}}'
            self.send_response(503)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Lost)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        (check,) = d._gateway(f"http://127.0.0.1:{server.server_address[1]}", tmp_path)
    finally:
        server.shutdown()
    assert check.status == d.PROBLEM and "no rule pack in force" in check.detail
    monkeypatch.setattr(d.sys, "version_info", (3, 10, 4))
    monkeypatch.setenv("ACTEON_URL", "http://127.0.0.1:9")
    python = d.checks(tmp_path, tmp_path, tmp_path)[0]
    assert python.status == d.PROBLEM and python.fix == "use Python 3.11 or newer"


def test_codex_is_probed_and_an_untrusted_gate_is_a_problem(setup) -> None:  # type: ignore[no-untyped-def]
    """Codex skips a hook nobody trusted without a word: installed is not gating until /hooks trusted it."""
    install(setup, "codex", scope_name="user")
    hooks_file = setup["home"] / ".codex" / "hooks.json"
    code, checks = doctor(setup)
    assert code == 1 and checks["codex hook"]["status"] == "ok" and str(hooks_file) in checks["codex hook"]["detail"]
    assert checks["codex trust"]["status"] == "PROBLEM" and "/hooks" in checks["codex trust"]["fix"]
    assert checks["codex probe"]["status"] == "ok" and "block-destructive-commands" in checks["codex probe"]["detail"]
    # what Codex writes to config.toml when the user trusts the hook in /hooks
    (setup["home"] / ".codex" / "config.toml").write_text(
        f'[hooks.state."{hooks_file}:pre_tool_use:0:0"]\ntrusted_hash = "sha256:0123"\n')
    code, checks = doctor(setup)
    assert checks["codex trust"]["status"] == "ok", checks["codex trust"]


@pytest.mark.parametrize(("cli", "where"), [("qwen", ".qwen/settings.json"),
                                           ("opencode", ".opencode/plugins/acteon-swarm.js"),
                                           ("copilot", ".github/hooks/acteon-swarm.json")])
def test_qwen_opencode_and_copilot_are_probed_through_the_installed_gate(setup, cli: str, where: str) -> None:  # type: ignore[no-untyped-def]
    install(setup, cli)
    _code, checks = doctor(setup)
    assert checks[cli]["status"] == "ok"
    assert checks[f"{cli} hook"]["status"] == "ok" and where in checks[f"{cli} hook"]["detail"]
    assert checks[f"{cli} probe"]["status"] == "ok", checks[f"{cli} probe"]
    assert "block-destructive-commands" in checks[f"{cli} probe"]["detail"]


CLIS = {"crush": ".crush.json", "cline": ".clinerules/hooks", "cursor": ".cursor/hooks.json",
        "goose": ".agents/plugins/acteon-swarm/hooks/hooks.json", "windsurf": ".windsurf/hooks.json",
        "antigravity": ".agents/hooks.json"}


def test_the_other_clis_are_probed_through_their_installed_gates(setup) -> None:  # type: ignore[no-untyped-def]
    """Each probe sends a shell call in that CLI's own event shape and reads the answer in its own dialect."""
    for cli in CLIS:
        install(setup, cli)
    _code, checks = doctor(setup)
    for cli, where in CLIS.items():
        assert checks[cli]["status"] == "ok", checks[cli]
        assert checks[f"{cli} hook"]["status"] == "ok", checks[f"{cli} hook"]
        assert where in checks[f"{cli} hook"]["detail"]
        assert checks[f"{cli} probe"]["status"] == "ok", checks[f"{cli} probe"]
        assert "block-destructive-commands" in checks[f"{cli} probe"]["detail"]


def test_the_store_check_names_its_shape_and_what_waits_for_a_replica() -> None:
    from orchestrator.cli.doctor import _store_check

    sentinel = _store_check({"store": "redis", "topology": "sentinel", "replica_acks": 1})
    assert sentinel.status == "ok" and "Redis Sentinel; approvals, keys, rule packs and cancels wait for 1 replica" \
        in sentinel.detail
    alone = _store_check({"store": "redis", "topology": "single", "replica_acks": None})
    assert alone.status == "note" and "every agent stops" in alone.detail and "docs/ha.md" in alone.fix
    off = _store_check({"store": "redis", "topology": "sentinel", "replica_acks": 0})
    assert off.status == "note" and "a failover can undo an approval" in off.detail
    cluster = _store_check({"store": "redis", "topology": "cluster", "replica_acks": 1})
    assert cluster.status == "ok" and cluster.detail.startswith("Redis Cluster; ")
