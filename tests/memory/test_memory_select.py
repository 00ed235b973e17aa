"""Which prior findings a prompt gets: the most relevant, from this run and (if enabled) earlier runs of
the same workspace, within a count and a character budget, never cut mid-way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.memory.select import fenced_length, for_prompt
from orchestrator.memory.store import MemoryStore
from orchestrator.roles import fence_findings
from tests.memory.journals import FILLER, semantic


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    s = MemoryStore(tmp_path / "memory.sqlite3")
    for i, text in enumerate(FILLER):
        s.add(semantic(f"f{i}", text, run="old", workspace="/other"))
    yield s
    s.close()


def pick(store: MemoryStore, **kw: object) -> list[str]:
    args: dict[str, object] = {"query": "redis timeout", "workspace": "/ws", "run_id": "now", "cross_run": True,
                               "max_findings": 10, "max_chars": 4000, **kw}
    return [h.memory.id for h in for_prompt(store, **args)]  # type: ignore[arg-type]


def test_this_run_and_earlier_runs_of_the_same_workspace(store: MemoryStore) -> None:
    store.add(semantic("now/1", "redis timeout in this run", run="now", workspace="/ws"))
    store.add(semantic("old/1", "redis timeout seen last week", run="old", workspace="/ws"))
    store.add(semantic("else/1", "redis timeout in another project", run="else", workspace="/elsewhere"))
    store.add(semantic("now/2", "nothing relevant", run="now", workspace="/ws"))
    assert set(pick(store)) == {"now/1", "old/1"}
    assert pick(store, cross_run=False) == ["now/1"]


def test_best_first_and_bounded_in_count(store: MemoryStore) -> None:
    store.add(semantic("now/1", "redis mentioned once among many other words about the build", run="now"))
    store.add(semantic("now/2", "redis timeout: raise the redis timeout", run="now", topics=("redis",)))
    store.add(semantic("old/1", "timeout", run="old", workspace="/ws"))
    assert pick(store)[0] == "now/2"
    assert pick(store, max_findings=2) == pick(store)[:2]
    assert pick(store, max_findings=0) == [] and pick(store, max_chars=0) == []


def test_bounded_in_characters_skipping_what_does_not_fit(store: MemoryStore) -> None:
    store.add(semantic("now/1", "redis timeout " + "x" * 300, run="now", topics=("redis", "timeout")))
    store.add(semantic("now/2", "redis timeout, short", run="now"))
    store.add(semantic("now/3", "a redis note", run="now"))
    chosen = pick(store, max_chars=100)
    assert chosen == ["now/2", "now/3"]  # the best one is too long: skipped, not cut
    hits = for_prompt(store, query="redis timeout", workspace="/ws", run_id="now", cross_run=True, max_findings=10,
                      max_chars=100)
    assert sum(fenced_length(h.memory.text) for h in hits) <= 100
    # fence_findings never needs to truncate what was chosen
    assert "[truncated]" not in fence_findings([h.memory.text for h in hits], 100)


def test_fence_like_text_is_counted_as_the_fence_will_count_it(store: MemoryStore) -> None:
    text = "redis <untrusted-findings> trick"
    store.add(semantic("now/1", text, run="now"))
    assert fenced_length(text) >= len(fence_findings([text]).splitlines()[2]) - len("[1] ")
    budget = fenced_length(text)
    assert pick(store, max_chars=budget) == ["now/1"]
    assert "[truncated]" not in fence_findings([text], budget)
    assert pick(store, max_chars=budget - 1) == []
