"""The memory index: SQLite with an FTS5 full-text index, ranked by bm25 (docs/swarm.md).

It is a projection of the journals (see :mod:`orchestrator.memory.sources`): rows are only ever derived
from validated journal lines, insertion is idempotent on the memory id, and :meth:`MemoryStore.reindex`
rebuilds it from scratch. Several processes (a run, a ``memory search``) may use one database at once:
WAL lets readers go on while one writes, every write takes the lock up front (``BEGIN IMMEDIATE``, so a
writer never has to upgrade a stale read snapshot) and ``busy_timeout`` makes the others wait for it.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from orchestrator.events import JournalError, parse_event
from orchestrator.memory import sources as src
from orchestrator.memory.model import KINDS, Hit, Memory
from orchestrator.rundir import RunDir, list_runs

__all__ = ["Hit", "Memory", "MemoryStore", "fts_query", "index_file", "open_store"]

T = TypeVar("T")

SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 30_000
MAX_QUERY_TERMS = 64

_SCHEMA = """
CREATE TABLE memories (
    n         INTEGER PRIMARY KEY,    -- the FTS row of this memory
    id        TEXT NOT NULL UNIQUE,
    kind      TEXT NOT NULL,
    run_id    TEXT NOT NULL,
    workspace TEXT NOT NULL,
    agent_id  TEXT,
    task_id   TEXT,
    topics    TEXT NOT NULL,          -- JSON array
    text      TEXT NOT NULL,
    created   TEXT NOT NULL
);
CREATE INDEX memories_workspace ON memories (workspace);
CREATE INDEX memories_run ON memories (run_id);
CREATE VIRTUAL TABLE memories_fts USING fts5 (topics, text, tokenize = 'porter unicode61 remove_diacritics 2');
-- How far each source (a run's events.jsonl, manual.jsonl) has been indexed.
CREATE TABLE synced (
    source TEXT PRIMARY KEY,
    offset INTEGER NOT NULL,          -- bytes read
    line   INTEGER NOT NULL,          -- lines read (to name a bad line)
    seq    INTEGER NOT NULL           -- the last journal seq indexed
);
"""
_TABLES = ("memories", "memories_fts", "synced")

# One constant statement: an absent filter is a NULL parameter, lists are bound as JSON arrays. Topics
# say what a memory is about in a word or two, so a query word found among them weighs double.
_SEARCH = """
SELECT m.id, m.kind, m.run_id, m.workspace, m.agent_id, m.task_id, m.topics, m.text, m.created,
       bm25(memories_fts, 2.0, 1.0) AS rank  -- column weights: topics, text
FROM memories_fts JOIN memories AS m ON m.n = memories_fts.rowid
WHERE memories_fts MATCH :match
  AND m.kind IN (SELECT value FROM json_each(:kinds))
  AND (:workspace IS NULL OR m.workspace = :workspace)
  AND (:run IS NULL OR m.run_id = :run)
  AND (:exclude IS NULL OR m.run_id != :exclude)
  AND (:topics IS NULL OR EXISTS (SELECT 1 FROM json_each(m.topics) AS t
                                  WHERE t.value IN (SELECT value FROM json_each(:topics))))
ORDER BY rank, m.created DESC, m.id
LIMIT :limit
"""

# Words that say nothing about what a memory is about; a query of only these finds nothing.
_STOPWORDS = (
    "a about after all also an and any are as at be been but by can could did do does for from had has have "
    "how i if in into is it its just me my no not of on or our out so than that the their them then there "
    "these they this those to too up us was we were what when where which who why will with would you your"
)
STOPWORDS = frozenset(_STOPWORDS.split())
_TERM = re.compile(r"[^\W_]+")  # letters and digits, as FTS5's unicode61 tokenizer splits words


def fts_query(text: str) -> str | None:
    """Arbitrary user text as a safe FTS5 query: its words, each quoted (so ``AND``, ``NEAR(``, ``*``,
    ``-``, ``:`` and quotes are plain text, never syntax), joined with OR so any of them matches; bm25
    ranks memories matching more, and rarer, words higher. None when no word is left."""
    terms: list[str] = []
    for term in _TERM.findall(text.lower()):
        if term not in STOPWORDS and term not in terms:
            terms.append(term)
            if len(terms) == MAX_QUERY_TERMS:
                break
    return " OR ".join(f'"{t}"' for t in terms) or None


def index_file(state_dir: Path) -> Path:
    return state_dir / "memory.sqlite3"


def open_store(state_dir: Path) -> MemoryStore:
    return MemoryStore(index_file(state_dir))


class MemoryStore:
    def __init__(self, path: Path) -> None:
        """Open (creating it owner-only) the index at ``path``. An index of another schema version is
        emptied: it is only a projection, and the next sync rebuilds it from the journals."""
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Create the file ourselves so it is never world-readable, even for an instant; SQLite gives
        # its -wal and -shm files the database file's permissions.
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                     check_same_thread=False)
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._wal()
            self._conn.execute("PRAGMA synchronous = NORMAL")  # the journals are the durable copy
            with self._write() as db:
                if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                    self._create(db)
        except BaseException:
            self._conn.close()
            raise

    def _wal(self) -> None:
        """Switch to WAL. Two processes opening a new index at once can both try; SQLite may refuse the switch
        with "database is locked" without calling the busy handler, so it is retried for the busy timeout."""
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        delay = 0.005
        while True:
            try:
                self._conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as e:
                if ("locked" not in str(e) and "busy" not in str(e)) or time.monotonic() > deadline:
                    raise
            time.sleep(delay)  # waiting for the other process to finish its switch, not a timing assumption
            delay = min(delay * 2, 0.1)

    # --- plumbing ----------------------------------------------------------------------------------
    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @staticmethod
    def _create(db: sqlite3.Connection) -> None:
        for table in _TABLES:
            db.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @staticmethod
    def _insert(db: sqlite3.Connection, m: Memory) -> bool:
        cur = db.execute(
            "INSERT INTO memories (id, kind, run_id, workspace, agent_id, task_id, topics, text, created)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            (m.id, m.kind, m.run_id, m.workspace, m.agent_id, m.task_id, json.dumps(list(m.topics)), m.text,
             m.created),
        )
        if cur.rowcount != 1:
            return False
        db.execute("INSERT INTO memories_fts (rowid, topics, text) VALUES (?, ?, ?)",
                   (cur.lastrowid, " ".join(m.topics), m.text))
        return True

    # --- the API -----------------------------------------------------------------------------------
    def add(self, memory: Memory) -> bool:
        """Index one memory; False when its id was already there (the first version is kept)."""
        if memory.kind not in KINDS:
            raise ValueError(f"unknown memory kind {memory.kind!r}")
        with self._write() as db:
            return self._insert(db, memory)

    def search(
        self,
        query: str,
        *,
        workspace: str | None = None,
        run_id: str | None = None,
        kinds: tuple[str, ...] = ("semantic",),
        topics: tuple[str, ...] = (),
        exclude_run: str | None = None,
        limit: int = 10,
    ) -> list[Hit]:
        """The memories matching any word of ``query``, best first (bm25; ties: newest first, then id).
        Filters: ``workspace`` (normalized first), ``run_id`` (``""``: findings added outside a run),
        ``kinds``, ``topics`` (any of them), ``exclude_run``. Never raises on the query's content."""
        unknown = [k for k in kinds if k not in KINDS]
        if unknown:
            raise ValueError(f"unknown memory kind(s): {', '.join(unknown)} (expected semantic or episodic)")
        match = fts_query(query)
        if match is None or limit <= 0 or not kinds:
            return []
        wanted = src.normalize_topics(topics) if topics else None
        if wanted == ():
            return []
        args = {
            "match": match,
            "kinds": json.dumps(list(kinds)),
            "workspace": None if workspace is None else src.normalize_workspace(workspace),
            "run": run_id,
            "exclude": exclude_run,
            "topics": None if wanted is None else json.dumps(list(wanted)),
            "limit": limit,
        }
        with self._lock:
            rows = self._conn.execute(_SEARCH, args).fetchall()
        return [Hit(Memory(r[0], r[1], r[2], r[3], r[4], r[5], tuple(json.loads(r[6])), r[7], r[8]), -float(r[9]))
                for r in rows]

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM memories").fetchone()[0])

    def sync_run(self, run_dir: RunDir) -> int:
        """Index the memories of ``run_dir``'s journal not indexed yet; the number added. Cheap to call
        often: it reads only what was appended since the last call. A bad journal line raises
        :class:`JournalError` after the memories before it are committed."""
        key = f"run:{run_dir.run_id}"
        path = run_dir.journal_file
        if not self._has_new(key, path):
            return 0
        with self._write() as db:
            added, error = self._sync_run(db, run_dir)
        if error is not None:
            raise error
        return added

    def sync_manual(self, state_dir: Path) -> int:
        """Like :meth:`sync_run`, for the findings humans added outside runs (manual.jsonl)."""
        path = src.manual_file(state_dir)
        if not self._has_new("manual", path):
            return 0
        with self._write() as db:
            added, error = self._sync(db, "manual", path, src.parse_manual,
                                      lambda ev: src.memory_from_event(ev, "", ""))
        if error is not None:
            raise error
        return added

    def sync_all(self, state_dir: Path, *, on_error: Callable[[JournalError], None] | None = None) -> int:
        """Bring the index up to date with every run of ``state_dir`` and manual.jsonl. A source with a
        bad line is indexed up to it; the error goes to ``on_error``, or is raised once all the other
        sources are synced."""
        added, errors = 0, []
        for rd in sorted(list_runs(state_dir), key=lambda r: r.run_id):
            try:
                added += self.sync_run(rd)
            except JournalError as e:
                errors.append(e)
        try:
            added += self.sync_manual(state_dir)
        except JournalError as e:
            errors.append(e)
        self._report(errors, on_error)
        return added

    def reindex(self, state_dir: Path, *, on_error: Callable[[JournalError], None] | None = None) -> int:
        """Drop the index and rebuild it from every journal and manual.jsonl, in one transaction
        (searches see the old index until it is done); the number of memories indexed. Bad lines are
        handled as in :meth:`sync_all`."""
        errors: list[JournalError] = []
        added = 0
        with self._write() as db:
            self._create(db)
            for rd in sorted(list_runs(state_dir), key=lambda r: r.run_id):
                n, error = self._sync_run(db, rd)
                added += n
                errors += [error] if error else []
            n, error = self._sync(db, "manual", src.manual_file(state_dir), src.parse_manual,
                                  lambda ev: src.memory_from_event(ev, "", ""))
            added += n
            errors += [error] if error else []
        self._report(errors, on_error)
        return added

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- incremental sync --------------------------------------------------------------------------
    def _has_new(self, key: str, path: Path) -> bool:
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return False
        with self._lock:
            row = self._conn.execute("SELECT offset FROM synced WHERE source = ?", (key,)).fetchone()
        return row is None or size != row[0]

    def _sync_run(self, db: sqlite3.Connection, rd: RunDir) -> tuple[int, JournalError | None]:
        workspace = src.run_workspace(rd)

        def to_memory(event: Any) -> Memory | None:
            return src.memory_from_event(event, rd.run_id, workspace)

        return self._sync(db, f"run:{rd.run_id}", rd.journal_file, parse_event, to_memory)

    def _sync(
        self, db: sqlite3.Connection, key: str, path: Path, parse: Callable[[bytes], T],
        to_memory: Callable[[T], Memory | None],
    ) -> tuple[int, JournalError | None]:
        row = db.execute("SELECT offset, line, seq FROM synced WHERE source = ?", (key,)).fetchone()
        offset, line, seq = row if row else (0, 0, -1)
        try:
            if path.stat().st_size < offset:  # replaced, not appended to: read it again (ids dedupe)
                offset, line, seq = 0, 0, -1
                db.execute("DELETE FROM synced WHERE source = ?", (key,))
        except FileNotFoundError:
            return 0, None
        added, error = 0, None
        try:
            for value, end, number in src.read_lines(path, offset, line, parse):
                if value is not None:
                    memory = to_memory(value)
                    if memory is not None and self._insert(db, memory):
                        added += 1
                    seq = max(seq, int(getattr(value, "seq", seq)))
                offset, line = end, number
        except JournalError as e:
            error = e
        # Inside BEGIN IMMEDIATE nobody else can move the mark; the guard keeps it monotonic regardless.
        db.execute(
            "INSERT INTO synced (source, offset, line, seq) VALUES (?, ?, ?, ?) ON CONFLICT (source) DO UPDATE"
            " SET offset = excluded.offset, line = excluded.line, seq = excluded.seq"
            " WHERE excluded.offset > synced.offset",
            (key, offset, line, seq),
        )
        return added, error

    @staticmethod
    def _report(errors: list[JournalError], on_error: Callable[[JournalError], None] | None) -> None:
        if on_error is None:
            if errors:
                raise errors[0]
            return
        for e in errors:
            on_error(e)
