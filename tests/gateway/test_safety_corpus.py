"""The labelled safety corpus (tests/data/safety_corpus.yaml) through the whole default pack."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import ADMIN

CORPUS = yaml.safe_load((Path(__file__).parent.parent / "data" / "safety_corpus.yaml").read_text())
EXPECT = {"block": "suppressed", "approval": "pending_approval", "allow": "executed"}


def test_corpus_is_big_enough_and_balanced() -> None:
    ids = [c["id"] for c in CORPUS]
    assert len(ids) == len(set(ids))
    dangerous = [c for c in CORPUS if c["expect"] != "allow"]
    harmless = [c for c in CORPUS if c["expect"] == "allow"]
    assert len(dangerous) >= 60 and len(harmless) >= 60
    assert {c["tool"] for c in CORPUS} - {"Bash", "run_shell_command"}, "file and web calls are covered too"


@pytest.fixture(scope="module")
def corpus_clock():  # type: ignore[no-untyped-def]
    from tests.conftest import FakeClock

    return FakeClock()


@pytest.fixture(scope="module")
def corpus_client(tmp_path_factory, corpus_clock):  # type: ignore[no-untyped-def]
    """One embedded gateway for the whole corpus. Each entry is its own agent and the clock moves past
    every throttle window between entries, so only the labelled rule can decide."""
    from fastapi.testclient import TestClient

    from gateway.app import create_app
    from gateway.config import Settings
    from tests.conftest import ADMIN_KEY
    from tests.support import ROOT

    settings = Settings(rules_dir=ROOT / "rules", state_dir=tmp_path_factory.mktemp("state"),
                        admin_key=ADMIN_KEY, home="/home/agent")
    with TestClient(create_app(settings, clock=corpus_clock)) as client:
        yield client


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_default_pack_decides_as_labelled(corpus_client, corpus_clock, case) -> None:
    corpus_clock.advance(121_000)
    body = {"run_id": "default", "agent_id": f"corpus-{case['id']}", "provider": case["provider"],
            "tool": case["tool"], "input": case["input"], "cwd": case.get("cwd", "/work/proj")}
    r = corpus_client.post("/v1/dispatch", json=body, headers=ADMIN)
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["outcome"] == EXPECT[case["expect"]], f"{case['id']}: {d['rule']}: {d['reason']}"
