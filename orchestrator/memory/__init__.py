"""Shared memory of a swarm (docs/swarm.md): what agents did (episodic) and what they found (semantic).

The index is a projection of the run journals, like the checkpoint and the digital twin: a SQLite FTS5
database at ``<state_dir>/memory.sqlite3`` that can be deleted and rebuilt from every run's
``events.jsonl`` plus ``<state_dir>/memory/manual.jsonl`` (findings added by humans outside a run).

    sources.py   journal events -> memories; run workspaces; manual.jsonl
    store.py     MemoryStore: the index, safe ranked search, incremental sync, reindex
    findings.py  how agents report findings (``FINDING [topics]: text``) and how we parse them
    select.py    which prior findings go into a prompt (bounded in count and characters)
    cli.py       ``acteon-swarm memory search|add|reindex``

Nothing is re-exported here: ``orchestrator.cli`` imports ``memory.cli`` at start-up, and this package
must stay free of sqlite and pydantic until a memory command actually runs.
"""
