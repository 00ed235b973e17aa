"""The memory index: a real ranked full-text index over the journals, safe on any query, scoped by
workspace and run, idempotent, incremental, rebuildable, and shared safely by two processes."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator import events as E
from orchestrator.memory import sources
from orchestrator.memory.store import MemoryStore, fts_query, index_file
from tests.memory.journals import FILLER, finding, make_run, semantic
from tests.support import ROOT


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    s = MemoryStore(tmp_path / "memory.sqlite3")
    yield s
    s.close()


def ids(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.memory.id for h in hits]


def test_ranking_prefers_the_more_relevant_memory(store: MemoryStore) -> None:
    for i, text in enumerate(FILLER):
        store.add(semantic(f"f{i}", text))
    store.add(semantic("once", "a flaky test once failed while the redis server restarted"))
    store.add(semantic("focus", "redis connections need a password: redis AUTH fails without REDIS_PASSWORD"))
    store.add(semantic("both", "the redis password lives in the vault", topics=("redis", "password")))
    hits = store.search("redis password")
    assert ids(hits)[:2] == ["both", "focus"] or ids(hits)[:2] == ["focus", "both"]
    assert ids(hits)[-1] == "once"  # one query word, once, in a longer text: least relevant
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))
    assert not {"f0", "f1", "f2"} & set(ids(hits))  # not a scan: documents without the words are absent


def test_topics_weigh_more_than_the_text(store: MemoryStore) -> None:
    for i, text in enumerate(FILLER):
        store.add(semantic(f"f{i}", text))
    store.add(semantic("in-text", "we looked at caching of the compiled rules"))
    store.add(semantic("in-topic", "we looked at the compiled rules", topics=("caching",)))
    assert ids(store.search("caching")) == ["in-topic", "in-text"]


def test_stemming_matches_other_forms_of_a_word(store: MemoryStore) -> None:
    store.add(semantic("m", "the gateway connection timed out"))
    assert ids(store.search("connecting timeouts")) == ["m"]


@pytest.mark.parametrize("query", ['"', '""', "AND", "OR NOT", "NEAR(", "NEAR(a b, 2)", "*", "-x", "col:term",
                                   "a:b:c", "^start", "(unbalanced", "}{", "'; DROP TABLE memories; --", "\x00", ""])
def test_fts_syntax_in_a_query_is_plain_text(store: MemoryStore, query: str) -> None:
    store.add(semantic("m", "near the start of the term list, drop tables and columns"))
    store.search(query)  # never raises
    assert store.count() == 1


def test_a_query_of_operators_still_matches_its_words(store: MemoryStore) -> None:
    store.add(semantic("m", "the gateway refuses rm -rf"))
    assert ids(store.search('gateway* AND -"refuses" NEAR(rm:')) == ["m"]
    assert fts_query('x" OR "y') == '"x" OR "y"'


def test_empty_and_stopword_only_queries_find_nothing(store: MemoryStore) -> None:
    store.add(semantic("m", "the and of it"))
    assert store.search("") == []
    assert store.search("  \n\t ") == []
    assert store.search("the and of it") == []
    assert fts_query("...!!!") is None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=200), topics=st.lists(st.text(max_size=20), max_size=3))
def test_arbitrary_text_never_raises(store: MemoryStore, query: str, topics: list[str]) -> None:
    if store.count() == 0:
        store.add(semantic("m", "and or not near the gateway", topics=("x",)))
    hits = store.search(query, topics=tuple(topics), kinds=("semantic", "episodic"))
    assert len(hits) <= 1


def test_unknown_kind_is_an_error(store: MemoryStore) -> None:
    with pytest.raises(ValueError, match="unknown memory kind"):
        store.search("x", kinds=("procedural",))


def test_scoping_by_workspace_run_kind_and_topic(store: MemoryStore, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "link").symlink_to(ws)
    store.add(semantic("a", "cache bug", run="r1", workspace=str(ws), topics=("cache",)))
    store.add(semantic("b", "cache bug", run="r2", workspace=str(ws), topics=("bugs",)))
    store.add(semantic("c", "cache bug", run="r3", workspace="/elsewhere"))
    store.add(sources.Memory("e", "episodic", "r1", str(ws), "ag", None, ("bash",), "Bash cache clear -> allow", "t"))
    assert set(ids(store.search("cache"))) == {"a", "b", "c"}
    assert set(ids(store.search("cache", workspace=str(tmp_path / "link")))) == {"a", "b"}  # resolved path
    assert set(ids(store.search("cache", run_id="r1"))) == {"a"}
    assert set(ids(store.search("cache", run_id="r1", kinds=("semantic", "episodic")))) == {"a", "e"}
    assert set(ids(store.search("cache", kinds=("episodic",)))) == {"e"}
    assert set(ids(store.search("cache", workspace=str(ws), exclude_run="r1"))) == {"b"}
    assert set(ids(store.search("cache", topics=("Cache ", "bugs")))) == {"a", "b"}
    assert store.search("cache", topics=("  ",)) == []
    assert len(store.search("cache", limit=1)) == 1
    assert store.search("cache", limit=0) == []


def test_add_is_idempotent_on_the_id(store: MemoryStore) -> None:
    assert store.add(semantic("m", "first version"))
    assert not store.add(semantic("m", "second version"))
    assert store.count() == 1
    assert [h.memory.text for h in store.search("version")] == ["first version"]
    assert store.search("second") == []


def test_the_index_file_is_owner_only(tmp_path: Path) -> None:
    path = index_file(tmp_path / "state")
    with MemoryStore(path) as s:
        s.add(semantic("m", "x marks the spot"))
        files = list(path.parent.glob("memory.sqlite3*"))
        assert len(files) >= 2  # the database and its WAL
        assert all(f.stat().st_mode & 0o777 == 0o600 for f in files)


def test_an_index_of_another_schema_version_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    import sqlite3

    db = sqlite3.connect(path)
    db.execute("CREATE TABLE memories (whatever TEXT)")
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    with MemoryStore(path) as s:
        assert s.count() == 0
        assert s.add(semantic("m", "fresh"))


# --- projection of the journals ---------------------------------------------------------------------


def test_journal_events_become_memories(store: MemoryStore, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    rd = make_run(tmp_path / "state", "r1", ws)
    finding(rd, 1, "The tests need REDIS_URL", ["Testing", " env "])
    rd.record(E.ToolCall, audit_id="171-0", agent_id="a1", task_id="t1", tool="Bash", action_type="shell",
              target="rm -rf build", outcome="suppressed", rule="no-rm-rf", reason="destructive", at_ms=1)
    rd.record(E.ToolCompleted, event_id="e9", agent_id="a1", tool="Write", ok=False, detail="disk full", at_ms=2)
    rd.record(E.TaskStatusChanged, task_id="t1", status="done")
    assert store.sync_run(rd) == 3
    [f] = store.search("redis")
    assert (f.memory.id, f.memory.kind, f.memory.run_id, f.memory.workspace) == ("r1/1", "semantic", "r1", str(ws))
    assert f.memory.topics == ("testing", "env") and f.memory.agent_id == "a1" and f.memory.task_id == "t1"
    episodic = {h.memory.id: h.memory for h in store.search("rm build disk", kinds=("episodic",))}
    assert set(episodic) == {"r1/171-0", "r1/evt/e9"}
    assert episodic["r1/171-0"].text == "Bash rm -rf build -> suppressed (rule no-rm-rf): destructive"
    assert episodic["r1/171-0"].topics == ("bash", "shell", "suppressed")
    assert episodic["r1/evt/e9"].text == "Write failed: disk full"


def test_sync_run_is_incremental(store: MemoryStore, tmp_path: Path) -> None:
    rd = make_run(tmp_path / "state", "r1", tmp_path)
    finding(rd, 1, "alpha finding")
    assert store.sync_run(rd) == 1
    assert store.sync_run(rd) == 0  # nothing new: the file is not even read
    finding(rd, 2, "beta finding")
    finding(rd, 3, "gamma finding")
    assert store.sync_run(rd) == 2
    assert store.count() == 3
    # A line still being written is left for the next call.
    with rd.journal_file.open("a") as f:
        f.write('{"type": "finding", "ts": "x", "seq": 9, "finding_id": "r1/4", "text": "delta')
    assert store.sync_run(rd) == 0
    with rd.journal_file.open("a") as f:
        f.write(' finding"}\n')
    assert store.sync_run(rd) == 1
    assert ids(store.search("delta")) == ["r1/4"]


def test_a_bad_journal_line_stops_the_sync_there_and_names_the_line(store: MemoryStore, tmp_path: Path) -> None:
    rd = make_run(tmp_path / "state", "r1", tmp_path)
    finding(rd, 1, "before the bad line")
    with rd.journal_file.open("a") as f:
        f.write('{"type": "finding", "oops": 1}\n')
    finding(rd, 2, "after the bad line")
    with pytest.raises(E.JournalError, match=r"events\.jsonl:3: "):
        store.sync_run(rd)
    assert ids(store.search("line")) == ["r1/1"]  # what came before it is indexed
    with pytest.raises(E.JournalError, match=r"events\.jsonl:3: "):
        store.sync_run(rd)  # still reported, not silently skipped


def test_reindex_after_deleting_the_index_gives_the_same_results(tmp_path: Path) -> None:
    state = tmp_path / "state"
    ws = tmp_path / "ws"
    for run in ("r1", "r2"):
        rd = make_run(state, run, ws)
        for i, text in enumerate(FILLER):
            finding(rd, i, f"{run}: {text}", ["build"] if i % 2 else [])
        rd.record(E.ToolCall, audit_id="1-0", agent_id="a", tool="Bash", target="make build", outcome="allow",
                  at_ms=1)
    sources.append_manual(state, "the build cache lives in ~/.cache", ("build", "cache"), str(ws))
    queries = ["build", "database gateway", "build cache", "parser tests priority"]

    def results(s: MemoryStore) -> list[list[tuple[str, float]]]:
        return [[(h.memory.id, h.score) for h in s.search(q, workspace=str(ws), kinds=("semantic", "episodic"))]
                for q in queries]

    with MemoryStore(index_file(state)) as s:
        assert s.sync_all(state) == 2 * (len(FILLER) + 1) + 1
        first = results(s)
        assert s.reindex(state) == 2 * (len(FILLER) + 1) + 1
        assert results(s) == first
    for f in state.glob("memory.sqlite3*"):
        f.unlink()
    with MemoryStore(index_file(state)) as s:
        assert results(s) == [[] for _ in queries]
        s.reindex(state)
        assert results(s) == first
        assert "manual/" in " ".join(i for i, _ in first[2])


def test_manual_findings_carry_their_workspace(tmp_path: Path) -> None:
    state = tmp_path / "state"
    record = sources.append_manual(state, "deploys happen on tuesdays", ("ops",), str(tmp_path / "ws"))
    assert oct(sources.manual_file(state).stat().st_mode & 0o777) == "0o600"
    with MemoryStore(index_file(state)) as s:
        assert s.sync_manual(state) == 1
        [hit] = s.search("deploys", workspace=str(tmp_path / "ws"))
        assert hit.memory.id == record.finding_id and hit.memory.run_id == "" and hit.memory.agent_id is None
        assert s.search("deploys", workspace=str(tmp_path)) == []


def test_sync_all_reports_bad_sources_and_indexes_the_rest(tmp_path: Path) -> None:
    state = tmp_path / "state"
    good, bad = make_run(state, "good", tmp_path), make_run(state, "bad", tmp_path)
    finding(good, 1, "good finding")
    with bad.journal_file.open("a") as f:
        f.write("not json\n")
    seen: list[str] = []
    with MemoryStore(index_file(state)) as s:
        assert s.sync_all(state, on_error=lambda e: seen.append(str(e))) == 1
        assert len(seen) == 1 and "bad/events.jsonl:2" in seen[0]
        with pytest.raises(E.JournalError):
            s.reindex(state)
        assert ids(s.search("finding")) == ["good/1"]  # the rebuild kept everything readable


# --- two processes ----------------------------------------------------------------------------------

_WRITER = """
import sys
from pathlib import Path
from orchestrator.memory.store import MemoryStore
from orchestrator.memory.model import Memory
name, path, state = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
s = MemoryStore(path)
for i in range(200):
    s.add(Memory(f"{name}-{i}", "semantic", name, "/ws", name, None, ("load",), f"finding {i} of writer {name}", "t"))
    if i % 50 == 0:
        s.sync_all(state)
s.close()
"""


def test_two_processes_add_concurrently_without_losing_rows(tmp_path: Path) -> None:
    state = tmp_path / "state"
    rd = make_run(state, "shared", tmp_path)
    for i in range(50):
        finding(rd, i, f"shared finding {i}")
    path = index_file(state)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, name, str(path), str(state)], env=env,
                              stderr=subprocess.PIPE, text=True) for name in ("w1", "w2")]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    assert not any("locked" in e for e in errors)
    with MemoryStore(path) as s:
        assert s.count() == 400 + 50
        assert len(s.search("writer", limit=1000)) == 400
        assert len(s.search("shared", run_id="shared", limit=1000)) == 50


_OPENER = """
import sys
from pathlib import Path
from orchestrator.memory.store import MemoryStore
MemoryStore(Path(sys.argv[1]))
"""


@pytest.mark.slow
def test_processes_opening_a_new_index_at_once_all_succeed(tmp_path: Path) -> None:
    """SQLite can refuse the switch to WAL with "database is locked" (without calling the busy handler) when
    another process is switching the same new file: the store retries instead of failing the run."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for round_ in range(12):
        path = tmp_path / f"idx-{round_}.sqlite3"
        procs = [subprocess.Popen([sys.executable, "-c", _OPENER, str(path)], env=env, stderr=subprocess.PIPE,
                                  text=True) for _ in range(4)]
        errors = [p.communicate(timeout=60)[1] for p in procs]
        assert [p.returncode for p in procs] == [0] * 4, errors
