"""``acteon-swarm memory search|add|reindex``: the shared memory from the command line.

Imported when ``acteon-swarm`` starts, so only typer is imported here: SQLite, pydantic and rich load
inside the commands. Exit codes as in the main CLI: 0 ok, 1 the action failed, 2 bad input.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

app = typer.Typer(help="Search and add to the swarm's shared memory.", no_args_is_help=True)

StateDir = Annotated[Path | None, typer.Option("--state-dir", help="state directory (default $ACTEON_STATE_DIR "
                                                                    "or ./.acteon-swarm)")]
JsonOut = Annotated[bool, typer.Option("--json", help="print JSON for scripts")]
RunOpt = Annotated[str | None, typer.Option("--run", help="run id")]
WorkspaceOpt = Annotated[Path | None, typer.Option("--workspace",
                                                   help="workspace directory (default: the current one)")]
TopicOpt = Annotated[list[str] | None, typer.Option("--topic", help="a topic (repeat for more)")]

_KINDS = {"semantic": ("semantic",), "episodic": ("episodic",), "all": ("semantic", "episodic")}


def fail(message: str, code: int = 2) -> typer.Exit:
    sys.stderr.write(f"acteon-swarm: {message}\n")
    return typer.Exit(code)


def _encodable(text: str) -> bool:
    # Command-line bytes that are not UTF-8 arrive as lone surrogates, which SQLite cannot store.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _warn(error: Exception) -> None:
    sys.stderr.write(f"acteon-swarm: warning: {error} (memories after this line are not indexed)\n")


def _state(state_dir: Path | None) -> Path:
    from orchestrator.rundir import default_state_dir

    return state_dir.absolute() if state_dir else default_state_dir()


def _run(state: Path, run_id: str) -> Any:
    from orchestrator.rundir import RunDir

    if not run_id or "/" in run_id or run_id in (".", ".."):
        raise fail(f"invalid run id {run_id!r}")
    rd = RunDir(state, run_id)
    if not rd.exists():
        raise fail(f"no run {run_id!r} in {state / 'runs'}")
    return rd


def _open(state: Path) -> Any:
    import sqlite3

    from orchestrator.memory.store import open_store

    try:
        return open_store(state)
    except (OSError, sqlite3.Error) as e:
        raise fail(f"cannot open the memory index in {state}: {e}", 1) from None


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


@app.command("search")
def search(
    query: Annotated[str, typer.Argument(help="words to look for (any of them; best matches first)")],
    run_id: RunOpt = None,
    workspace: WorkspaceOpt = None,
    all_workspaces: Annotated[bool, typer.Option("--all-workspaces", help="search every workspace")] = False,
    kind: Annotated[str, typer.Option("--kind", help="semantic (findings) | episodic (tool calls) | all")] = "semantic",
    topic: TopicOpt = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1000, help="at most this many results")] = 10,
    as_json: JsonOut = False,
    state_dir: StateDir = None,
) -> None:
    """Ranked full-text search of memories (the index is brought up to date with the journals first).
    Scope: --run, else --workspace (default: the current directory), or --all-workspaces."""
    from orchestrator.memory.sources import normalize_workspace

    kinds = _KINDS.get(kind)
    if kinds is None:
        raise fail(f"--kind must be semantic, episodic or all (got {kind!r})")
    if workspace is not None and all_workspaces:
        raise fail("give --workspace or --all-workspaces, not both")
    state = _state(state_dir)
    if run_id is not None:
        _run(state, run_id)
    scope: str | None = None
    if not all_workspaces and (workspace is not None or run_id is None):
        scope = normalize_workspace(workspace or Path.cwd())
    with _open(state) as store:
        store.sync_all(state, on_error=_warn)
        hits = store.search(query, workspace=scope, run_id=run_id, kinds=kinds, topics=tuple(topic or ()),
                            limit=limit)
    if as_json:
        _print_json([h.as_dict() for h in hits])
        return
    if not hits:
        what = "memories" if kind == "all" else f"{kind} memories"
        where = f"run {run_id}" if run_id else (f"workspace {scope}" if scope else "any workspace")
        hint = " (--all-workspaces searches every workspace)" if scope else ""
        print(f"no {what} match in {where}{hint}")
        return
    _table(hits)


def _table(hits: list[Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    from orchestrator.show import terminal

    table = Table("score", "kind", "run", "agent", "topics", "text")
    for h in hits:
        m = h.memory
        # Text(...) cells: memories are untrusted, and rich would read "[...]" in them as markup.
        table.add_row(f"{h.score:.3g}", m.kind, Text(m.run_id or "(manual)"), Text(m.agent_id or "-"),
                      Text(", ".join(m.topics)), Text(m.text if len(m.text) <= 300 else m.text[:299] + "…"))
    terminal.console().print(table)


@app.command("add")
def add(
    text: Annotated[str, typer.Argument(help="the finding")],
    topic: TopicOpt = None,
    run_id: Annotated[str | None, typer.Option("--run", help="add it to this run's journal")] = None,
    workspace: WorkspaceOpt = None,
    as_json: JsonOut = False,
    state_dir: StateDir = None,
) -> None:
    """Add a finding by hand: to a run's journal (--run), or to the workspace's manual findings."""
    from orchestrator.memory.sources import MAX_TEXT, MAX_TOPIC_LEN, MAX_TOPICS, normalize_topics

    body = text.strip()
    if not all(_encodable(t) for t in [body, *(topic or ())]):
        raise fail("the finding and its topics must be valid UTF-8 text")
    if not body:
        raise fail("the finding's text is empty")
    if len(body) > MAX_TEXT:
        raise fail(f"the finding's text is {len(body)} characters long (at most {MAX_TEXT})")
    raw = list(topic or ())
    if len(raw) > MAX_TOPICS:
        raise fail(f"{len(raw)} topics given (at most {MAX_TOPICS})")
    bad = [t for t in raw if not t.strip() or len(t.strip()) > MAX_TOPIC_LEN]
    if bad:
        raise fail(f"invalid topic {bad[0]!r}: topics are 1 to {MAX_TOPIC_LEN} characters")
    topics = normalize_topics(raw)
    state = _state(state_dir)
    if run_id is not None:
        if workspace is not None:
            raise fail("--workspace cannot be used with --run: a run's workspace is its plan's")
        result = _add_to_run(state, _run(state, run_id), body, topics)
    else:
        result = _add_manual(state, body, topics, workspace or Path.cwd())
    if as_json:
        _print_json(result)
    else:
        print(f"added finding {result['finding_id']}")


def _add_to_run(state: Path, rd: Any, body: str, topics: tuple[str, ...]) -> dict[str, Any]:
    import secrets

    from orchestrator.events import Finding, JournalError
    from orchestrator.memory.sources import run_workspace

    event = rd.record(Finding, finding_id=f"{rd.run_id}/human-{secrets.token_hex(4)}", agent_id=None,
                      task_id=None, topics=list(topics), text=body)
    with _open(state) as store:
        try:
            store.sync_run(rd)
        except JournalError as e:
            _warn(e)
    return {"finding_id": event.finding_id, "run_id": rd.run_id, "workspace": run_workspace(rd),
            "topics": list(topics), "text": body}


def _add_manual(state: Path, body: str, topics: tuple[str, ...], workspace: Path) -> dict[str, Any]:
    from orchestrator.events import JournalError
    from orchestrator.memory.sources import append_manual

    record = append_manual(state, body, topics, os.fspath(workspace))
    with _open(state) as store:
        try:
            store.sync_manual(state)
        except JournalError as e:
            _warn(e)
    return {"finding_id": record.finding_id, "run_id": None, "workspace": record.workspace,
            "topics": list(topics), "text": body}


@app.command("reindex")
def reindex(as_json: JsonOut = False, state_dir: StateDir = None) -> None:
    """Rebuild the memory index from every run's journal and the manual findings."""
    state = _state(state_dir)
    errors: list[Exception] = []

    def note(error: Exception) -> None:
        errors.append(error)
        _warn(error)

    with _open(state) as store:
        count = store.reindex(state, on_error=note)
    if as_json:
        _print_json({"memories": count, "errors": [str(e) for e in errors]})
    else:
        print(f"indexed {count} memories into {state / 'memory.sqlite3'}")
    if errors:
        raise typer.Exit(1)
