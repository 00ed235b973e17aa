"""Map a raw ``(provider, tool, input)`` to the normalized call the rules see (docs/gateway.md).

One place for every CLI: Claude Code, Gemini CLI and Codex CLI name the same operations differently,
Gemini sends paths relative to ``cwd`` and hides web_fetch URLs inside a prompt, and Codex edits many files
in one ``apply_patch`` call (judged as that many writes: ``gateway.patches``).
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from acteon_core import contract as c
from acteon_core.vocabulary import GLOB_TOOLS, SEARCH_TOOLS, TOOL_ACTIONS
from gateway import patches
from gateway import paths as P
from gateway.credentials import (
    holds_secrets,
    is_agent_config,
    is_metadata_host,
    is_metadata_url,
    is_secret_path,
    mentions_secret,
    seeks_secrets,
)
from gateway.persistence import is_persistence_path
from gateway.runnable import CARRIED, content_categories, written_text
from gateway.shell import analyze
from gateway.shell.analysis import Attached

_URL = re.compile(r"""\b(?:https?|ftp)://[^\s<>"'`]+""", re.IGNORECASE)
_MAX_TARGET = 4096


@dataclass(frozen=True, slots=True)
class Facts:
    """What the gateway derives from a call's arguments. Immutable and cached: agents repeat the
    same commands and paths all the time, and deriving them is most of normalization's cost."""

    target: str = ""
    paths: tuple[str, ...] = ()
    path_classes: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()  # sorted
    executables: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    path_facts: tuple[P.PathFact, ...] = field(default=(), repr=False)
    limit: str | None = None  # for an unparseable command: the analysis limit it hit, if any
    # Where the call writes, and where its git commands work: what a file scope is enforced on
    # (gateway/scope.py). "?" stands for a place the analysis cannot determine.
    writes: tuple[str, ...] = ()
    git_dirs: tuple[str, ...] = ()
    # Which of ``writes`` hold bytes from the network: a later command that runs one runs downloaded code.
    fetched: tuple[str, ...] = ()
    # (path, text) of the files among ``writes`` the command fills with text it spells out (a here-document):
    # judged by their content as an editor's writes are (gateway/dispatch.py).
    written_texts: tuple[tuple[str, str], ...] = field(default=(), repr=False)


_LIST_FIELDS = {
    "path": "paths", "path_class": "path_classes", "host": "hosts", "category": "categories",
    "executable": "executables", "command": "commands",
}


@dataclass(frozen=True, slots=True)
class Call:
    """A normalized tool call: everything a rule condition can look at."""

    run_id: str
    agent_id: str
    role: str | None
    provider: str
    tool: str
    action_type: str
    input: Mapping[str, Any]
    cwd: str | None
    facts: Facts

    @property
    def target(self) -> str:
        return self.facts.target

    @property
    def paths(self) -> tuple[str, ...]:
        return self.facts.paths

    @property
    def categories(self) -> tuple[str, ...]:
        return self.facts.categories

    def value(self, name: str) -> str | tuple[str, ...] | None:
        """The value of a rule field: a string, a tuple for list-valued fields, or None if absent."""
        attr = _LIST_FIELDS.get(name)
        if attr is not None:
            return getattr(self.facts, attr) or None
        if name == "target":
            return self.facts.target
        v = getattr(self, name, None)
        return v if isinstance(v, str) else None


def _s(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _split_mcp(tool: str, server_hint: str | None) -> tuple[str, str] | None:
    if tool.startswith("mcp__"):
        server, sep, name = tool[5:].partition("__")
        return (server, name) if sep and server and name else None
    if tool.startswith("mcp_"):
        rest = tool[4:]
        if server_hint and rest.startswith(server_hint + "_"):
            return server_hint, rest[len(server_hint) + 1 :]
        server, sep, name = rest.partition("_")
        return (server, name) if sep and server and name else None
    return None


def normalize(
    *,
    run_id: str,
    agent_id: str,
    role: str | None,
    provider: str,
    tool: str,
    input: Mapping[str, Any],
    cwd: str | None,
    home: str,
    secret_paths: tuple[str, ...] = (),
    mcp_server: str | None = None,
    shell_facts: Facts | None = None,
    content_facts: Facts | None = None,
) -> Call:
    """Normalize one call. ``shell_facts``: a shell command's facts computed elsewhere (the
    dispatcher analyses commands in isolated child processes, see ``gateway.analyzer``).
    ``content_facts``: for a write, the facts of running what it writes (``gateway.runnable``); the
    categories in ``runnable.CARRIED`` become the write's own."""
    action_type = TOOL_ACTIONS.get(tool)
    if action_type is None:
        mcp = _split_mcp(tool, mcp_server)
        if mcp:
            action_type, facts = c.MCP_CALL, Facts(target=f"{mcp[0]}/{mcp[1]}")
        else:
            action_type, facts = c.OTHER, Facts(target=tool[:_MAX_TARGET])
    elif action_type == c.EXECUTE_COMMAND and not isinstance(input.get("command"), str):
        # A shell tool whose command is under a key no CLI we know uses (a CLI that renamed it): judged as a
        # command the gateway cannot read, never as an empty one.
        facts = unparseable_facts(_shown(tool, input), "names no command the gateway can find")
    elif action_type == c.EXECUTE_COMMAND:
        if shell_facts is None:
            command, workdir = shell_command(input, cwd, home)
            shell_facts = cached_command_facts(command, workdir, home, secret_paths)
        facts = shell_facts
    elif action_type == c.WEB_FETCH:
        urls = _urls(tool, input)
        hosts = tuple(dict.fromkeys(h for h in (_host(u) for u in urls) if h))
        # A secret in the URL (a token in the query string) goes to whoever serves it.
        leaked = ("exfiltration",) if any(mentions_secret(u) for u in urls) else ()
        if any(is_metadata_host(h) for h in hosts) or any(is_metadata_url(u) for u in urls):
            leaked = (*leaked, "credential_access")  # the instance's credentials, fetched into the transcript
        facts = Facts(target=" ".join(urls)[:_MAX_TARGET], hosts=hosts, categories=tuple(sorted(leaked)))
    elif action_type == c.WEB_SEARCH:
        facts = Facts(target=(_s(input.get("query")) or "")[:_MAX_TARGET])
    elif action_type == c.SPAWN_AGENT:
        facts = Facts(target=_s(input.get("subagent_type")) or _s(input.get("agent_name")) or "general-purpose")
    elif tool == "apply_patch" and (changes := _changes(input)) is None:
        facts = unparseable_facts(str(patches.patch_text(input) or input.get("command") or ""), "not a patch")
    else:
        changes = _changes(input) if tool == "apply_patch" else None
        pattern = _s(input.get("pattern")) if tool in GLOB_TOOLS else None
        raw = tuple(p for ch in changes for p in ch.paths) if changes else tuple(_raw_paths(action_type, input, cwd))
        if not raw and action_type in (c.WRITE_FILE, c.READ_FILE):
            # A write or read whose file is under a key no CLI we know uses: judged as a call the gateway
            # cannot read, never as a write to nowhere (which no file scope would hold).
            return Call(run_id, agent_id, role, provider, tool, action_type, input, cwd,
                        unparseable_facts(_shown(tool, input), "names no file the gateway can find"))
        facts = _file_facts(action_type, raw, pattern, cwd, home, secret_paths, tool in _CONTENT_SEARCHES)
        carried = set(content_facts.categories) & CARRIED if content_facts is not None else set()
        if changes:
            for ch in changes:
                if ch.added:
                    carried |= content_categories(P.resolve(ch.move_to or ch.path, cwd, home), ch.added)
        elif action_type == c.WRITE_FILE:
            text = written_text(input)
            if text is not None and facts.paths:
                carried |= content_categories(facts.paths[0], text)
        if carried and action_type == c.WRITE_FILE:
            facts = replace(facts, categories=tuple(sorted(carried.union(facts.categories))))
    return Call(run_id, agent_id, role, provider, tool, action_type, input, cwd, facts)


def _shown(tool: str, input: Mapping[str, Any]) -> str:
    """A call the gateway cannot read, as text for its target (the tool and its first arguments)."""
    return (tool + " " + " ".join(f"{k}={v}" for k, v in list(input.items())[:8]))[:_MAX_TARGET]


def _changes(input: Mapping[str, Any]) -> tuple[patches.Change, ...] | None:
    text = patches.patch_text(input)
    return patches.parse(text) if text is not None else None


def is_shell_tool(tool: str) -> bool:
    return TOOL_ACTIONS.get(tool) == c.EXECUTE_COMMAND


def is_write_tool(tool: str) -> bool:
    return TOOL_ACTIONS.get(tool) == c.WRITE_FILE


def shell_command(input: Mapping[str, Any], cwd: str | None, home: str) -> tuple[str, str | None]:
    """A shell tool call's command and the directory it runs in."""
    command = input.get("command")
    # Gemini's run_shell_command may run in a sub-directory of the workspace.
    dir_path = _s(input.get("dir_path"))
    workdir = P.resolve(dir_path, cwd, home) if dir_path else cwd
    return (command if isinstance(command, str) else ""), workdir


def command_facts(command: str, workdir: str | None, home: str, secret_paths: tuple[str, ...],
                  files: Attached = ()) -> Facts:
    """Analyse a shell command in this process (bounded by ``gateway.shell.limits``). ``files``: the local
    programs it may run, as the command hook attached them (acteon_core/attachments.py)."""
    a = analyze(command, workdir, home, secret_paths, files)
    return Facts(
        target=command[:_MAX_TARGET],
        paths=tuple(f.path for f in a.paths),
        path_classes=tuple(dict.fromkeys(f.path_class for f in a.paths)),
        hosts=a.hosts,
        categories=tuple(sorted(a.categories)),
        executables=a.executables,
        commands=(command, *a.commands),
        path_facts=a.paths,
        limit=a.limit,
        writes=a.writes,
        git_dirs=a.git_dirs,
        fetched=tuple(p for p in a.fetched if p in a.writes),
        written_texts=tuple((p, t) for p, t in a.written_texts if p in a.writes),
    )


cached_command_facts = functools.lru_cache(maxsize=8192)(command_facts)


def unparseable_facts(command: str, reason: str) -> Facts:
    """The facts of a command whose analysis could not finish (crash, timeout, no analyser)."""
    return Facts(target=command[:_MAX_TARGET], categories=("unparseable",), commands=(command,), limit=reason,
                 writes=("?",), git_dirs=("?",))


# List tools that read what they list: a search of a directory holding secrets reads the secrets.
_CONTENT_SEARCHES = frozenset(SEARCH_TOOLS)


@functools.lru_cache(maxsize=8192)
def _file_facts(
    action_type: str, raw_paths: tuple[str, ...], pattern: str | None, cwd: str | None, home: str,
    secret_paths: tuple[str, ...], searches: bool = False,
) -> Facts:
    facts = tuple(P.fact(p, cwd, home) for p in raw_paths)
    categories: set[str] = set()
    if any(is_secret_path(f.path, home, secret_paths) for f in facts):
        categories.add("credential_access")
    if searches and any(holds_secrets(f.path, home) for f in facts):
        categories.add("credential_access")  # `grep -r token ~`: every secret under there, read
    if pattern is not None and seeks_secrets(pattern) and not all(f.path_class == P.WORKSPACE for f in facts):
        categories.add("credential_access")  # Glob `**/*.pem` over a home: the keys, listed to be read
    if action_type == c.WRITE_FILE and any(f.path_class == P.SYSTEM for f in facts):
        categories.add("system_write")
    if action_type == c.WRITE_FILE and any(is_agent_config(f.path) for f in facts):
        categories.add("gate_tamper")
    if action_type == c.WRITE_FILE and any(is_persistence_path(f.path, home) for f in facts):
        categories.add("persistence")
    if action_type == c.WRITE_FILE and any(P.in_other_project(f.path, cwd, home) for f in facts):
        categories.add("other_project")
    if pattern is not None:  # Glob: the target is the pattern under its root
        root = facts[0].path if facts else P.resolve(".", cwd, home)
        target = pattern if pattern.startswith("/") else posixpath.join(root, pattern)
    else:
        target = ", ".join(f.path for f in facts)
    return Facts(
        target=target[:_MAX_TARGET],
        paths=tuple(f.path for f in facts),
        path_classes=tuple(dict.fromkeys(f.path_class for f in facts)),
        categories=tuple(sorted(categories)),
        path_facts=facts,
        writes=tuple(f.path for f in facts) if action_type == c.WRITE_FILE else (),
    )


def _raw_paths(action_type: str, input: Mapping[str, Any], cwd: str | None) -> list[str]:
    if action_type in (c.WRITE_FILE, c.READ_FILE):
        # Claude's and Gemini's snake_case, OpenCode's camelCase, Copilot's `path`
        found = [p for p in (_s(input.get("file_path")), _s(input.get("notebook_path")),
                             _s(input.get("absolute_path")), _s(input.get("filePath")), _s(input.get("path"))) if p]
        for key in ("paths", "include"):
            many = input.get(key)
            if isinstance(many, list):
                found.extend(p for p in many if isinstance(p, str) and p)
        return found[:64]
    if action_type == c.LIST_FILES:
        p = _s(input.get("path")) or _s(input.get("dir_path"))
        return [p] if p else ["."] if cwd else []
    return []


def _urls(tool: str, input: Mapping[str, Any]) -> list[str]:
    url = _s(input.get("url"))
    if url:
        return [url]
    many = input.get("urls")  # Cline fetches several at once
    if isinstance(many, list):
        return [u for u in many if isinstance(u, str) and u][:20]
    # Gemini's web_fetch carries up to 20 URLs inside free prompt text.
    found = (_trim_url(u) for u in _URL.findall(_s(input.get("prompt")) or ""))
    return list(dict.fromkeys(found))[:20]


def _trim_url(url: str) -> str:
    """Drop what prose puts after a URL: sentence punctuation and unbalanced closing brackets."""
    while url:
        last = url[-1]
        if last in ".,;:!?'" or (last in ")]}" and url.count(last) > url.count({")": "(", "]": "[", "}": "{"}[last])):
            url = url[:-1]
        else:
            break
    return url


def _host(url: str) -> str | None:
    rest = url.split("://", 1)[-1]
    hostport = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0].rsplit("@", 1)[-1]
    if hostport.startswith("["):
        return hostport[1:].split("]", 1)[0].lower() or None
    return hostport.split(":", 1)[0].lower() or None
