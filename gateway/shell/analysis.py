"""Public entry point: ``analyze(command, cwd, home)`` → ``ShellAnalysis`` (docs/rules.md)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from gateway.paths import PathFact, workspace_root
from gateway.shell import categories as cat
from gateway.shell.facts import Collector
from gateway.shell.flow import EMPTY, OPAQUE, PAYLOAD, Flow, Scope
from gateway.shell.limits import OUT_OF_MEMORY, prescan
from gateway.shell.walker import Walker


@dataclass(frozen=True, slots=True)
class ShellAnalysis:
    parsed: bool  # False when tree-sitter reports an error anywhere (nested scripts included)
    executables: tuple[str, ...]  # basenames of every command invoked (wrappers too), in order
    commands: tuple[str, ...]  # every simple command as normalized text, wrappers stripped
    paths: tuple[PathFact, ...]  # every path touched
    hosts: tuple[str, ...]  # hosts contacted, lower-case, no port
    categories: frozenset[str]
    limit: str | None = None  # the analysis limit that made the command unparseable, if one did
    writes: tuple[str, ...] = ()  # paths written or deleted ("?": somewhere the analysis cannot tell)
    git_dirs: tuple[str, ...] = ()  # where git commands work ("?": somewhere the analysis cannot tell)
    fetched: tuple[str, ...] = ()  # files written with bytes from the network (`curl -o x.sh URL`)
    written_texts: tuple[tuple[str, str], ...] = ()  # (path, text) of files written with text the command spells out


# Local files the command may run, with their text as the command hook read them (None: too large to be
# sent, so what running it does cannot be known): ((absolute path, text), …), hashable for caches.
Attached = tuple[tuple[str, str | None], ...]
# In place of an attached file's text: the run downloaded this file earlier (gateway/dispatch.py). Whatever it
# holds came from the network, so running it runs code nobody reviewed, as `curl -o x.sh URL && sh x.sh` does
# on one line. (No text the hook sends can equal it: a file with a NUL byte is never sent as text.)
FETCHED = "\x00fetched"


def analyze(command: str, cwd: str | None, home: str, secret_extra: tuple[str, ...] = (),
            files: Attached = ()) -> ShellAnalysis:
    """Analyze a shell command line. Never raises: internal failures come back as unparseable."""
    try:
        if isinstance(command, (bytes, bytearray)):
            command = bytes(command).decode("utf-8", "replace")
        elif not isinstance(command, str):
            command = str(command)
        cwd = cwd if isinstance(cwd, str) and cwd else None
        home = home if isinstance(home, str) else ""
        if isinstance(secret_extra, str):
            secret_extra = (secret_extra,)
        extra = tuple(e for e in secret_extra if isinstance(e, str)) if secret_extra else ()
        return _analyze(command, cwd, home, extra, files)
    except Exception:  # the gateway must get an answer for any input
        return _failure(None)


def _analyze(command: str, cwd: str | None, home: str, secret_extra: tuple[str, ...],
             files: Attached) -> ShellAnalysis:
    # The shell starts in cwd whatever it is; only a real workspace makes anything "workspace" work.
    start = posixpath.normpath(cwd) if cwd is not None and cwd.startswith("/") else None
    facts = Collector(workspace_root(cwd, home), home, secret_extra)
    try:
        scope = Scope(start, True, {"HOME": home} if home else {})
        if start is not None:
            scope.vars["PWD"] = start
        for path, text in files[:64]:
            if isinstance(text, str) and "\x00" in text and text != FETCHED:
                continue  # a compiled program: what running it does is judged by the command line alone
            if isinstance(path, str) and path.startswith("/"):
                flow = (OPAQUE if not isinstance(text, str) else PAYLOAD if text == FETCHED
                        else Flow(local_data=True, script=text))
                scope.files[path] = scope.attached[path] = flow
        limit = prescan(command)
        if limit is not None:  # not even parsed: its cost for the parser is the agent's choice
            facts.unparseable(limit)
            return _result(facts)
        printed = Walker(facts).run_script(command, scope, EMPTY, 0)
        if printed.secrets:  # what reaches the agent's transcript holds the whole environment
            facts.flag(cat.CREDENTIAL_ACCESS)
    except RecursionError:
        facts.unparseable("syntax nested too deep to follow")
        return _result(facts)
    except MemoryError:
        facts.unparseable(OUT_OF_MEMORY)
        return _result(facts)
    except Exception:  # keep what was found, flag the rest
        return _failure(facts)
    return _result(facts)


def _result(facts: Collector) -> ShellAnalysis:
    return ShellAnalysis(
        parsed=facts.parsed,
        executables=facts.executables,
        commands=facts.commands,
        paths=facts.paths,
        hosts=facts.hosts,
        categories=frozenset(facts.categories),
        limit=facts.limit,
        writes=facts.writes,
        git_dirs=facts.git_dirs,
        fetched=facts.fetched,
        written_texts=facts.written_texts,
    )


def _failure(facts: Collector | None) -> ShellAnalysis:
    if facts is None:
        return ShellAnalysis(False, (), (), (), (), frozenset({cat.UNPARSEABLE}), writes=("?",), git_dirs=("?",))
    facts.unparseable()
    return _result(facts)
