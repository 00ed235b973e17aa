"""Redirections: where a command's stdin comes from and where its stdout goes.

Input redirections decide the command's stdin ``Flow`` (a local file, a here-document's text, a
process substitution's output); output redirections are writes, and the file that receives stdout
remembers what went into it so that running it later in the same command line is understood.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from tree_sitter import Node

from gateway.shell.facts import Collector
from gateway.shell.flow import EMPTY, LOCAL_DATA, OPAQUE, Flow, Scope
from gateway.shell.syntax import text_of
from gateway.shell.words import Word, evaluate

_TERMINALS = frozenset({"/dev/tty", "/dev/stdin", "/dev/console", "/dev/ptmx"})
_OUTPUT_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">|", ">&"})


class Evaluator(Protocol):
    """What redirection handling needs from the walker."""

    facts: Collector

    def visit(self, node: Node, scope: Scope, stdin: Flow, depth: int) -> Flow: ...

    def with_flow(self, word: Word, scope: Scope, depth: int, cache: dict[int, Flow] | None = None) -> Word: ...


@dataclass(slots=True)
class Redirections:
    stdin: Flow
    stdout: str | None = None  # file that receives stdout
    stdout_elsewhere: bool = False  # stdout goes to a file that cannot be named statically
    pipes: list[Node] = field(default_factory=list)  # `cat <<EOF | sh`: the rest of the pipeline
    sequels: list[Node] = field(default_factory=list)  # `cat <<EOF && x`: the rest of the list


def read_redirections(walker: Evaluator, redirects: list[Node], scope: Scope, stdin: Flow, depth: int) -> Redirections:
    """Apply a command's redirections: its stdin, where its stdout goes, what follows a here-document."""
    io = Redirections(stdin)
    pending = list(redirects)
    while pending:
        node = pending.pop(0)
        if node.type == "file_redirect":
            _file_redirect(walker, node, scope, depth, io)
        elif node.type == "herestring_redirect":
            for child in node.named_children:
                for word in evaluate(child, scope.vars):
                    word = walker.with_flow(word, scope.copy(), depth)
                    io.stdin = Flow(script=word.value).merge(word.flow)
        elif node.type == "heredoc_redirect":
            pending.extend(_heredoc(walker, node, scope, depth, io))
    return io


def _heredoc(walker: Evaluator, node: Node, scope: Scope, depth: int, io: Redirections) -> list[Node]:
    more: list[Node] = []
    quoted = False
    body_text = ""
    for index, child in enumerate(node.children):
        kind = child.type
        if kind == "heredoc_start":
            quoted = any(q in text_of(child) for q in "'\"\\")
        elif kind == "heredoc_body":
            body_text = text_of(child)
            if not quoted:  # unquoted delimiter: $(…) in the body runs
                for part in child.named_children:
                    walker.visit(part, scope.copy(), EMPTY, depth)
        elif kind == "pipeline":
            io.pipes.append(child)
        elif node.field_name_for_child(index) == "redirect":
            more.append(child)
        elif node.field_name_for_child(index) == "right":
            io.sequels.append(child)
    io.stdin = Flow(script=body_text)
    return more


def _file_redirect(walker: Evaluator, node: Node, scope: Scope, depth: int, io: Redirections) -> None:
    descriptor: str | None = None
    operator = ""
    read_write = False
    for child in node.children:
        if child.type == "file_descriptor":
            descriptor = text_of(child)
        elif child.is_error:
            read_write = True  # `<>`, which tree-sitter-bash does not know
        elif not child.is_named and not operator:
            operator = child.type
    for dest in node.children_by_field_name("destination"):
        if operator in ("<&", ">&") and dest.type == "number":
            if operator == "<&" and descriptor in (None, "0"):
                io.stdin = OPAQUE  # `sh 0<&2`: commands come from another descriptor (a terminal, a socket)
            continue  # fd duplication (2>&1)
        for word in evaluate(dest, scope.vars):
            word = walker.with_flow(word, scope.copy(), depth)
            if word.value == "-" and operator in ("<&", ">&"):
                continue
            _redirect_to(walker, word, operator, descriptor, read_write, scope, io)


def _redirect_to(walker: Evaluator, word: Word, operator: str, descriptor: str | None, read_write: bool,
                 scope: Scope, io: Redirections) -> None:
    facts = walker.facts
    if operator in ("<", "<&"):
        if word.subs:  # `< <(curl …)`
            io.stdin = word.flow
        else:
            path = facts.read(word, scope)
            if path in _TERMINALS or (path is not None and path.startswith(("/dev/fd/", "/proc/self/fd/"))):
                io.stdin = OPAQUE  # `sh </dev/tty`: whatever is typed or sent there
            elif path == "/dev/null":
                io.stdin = EMPTY  # `ssh host cmd < /dev/null`: nothing at all
            else:
                io.stdin = scope.files.get(path, LOCAL_DATA) if path is not None else LOCAL_DATA
        if read_write:
            facts.write(word, scope)
        return
    if operator not in _OUTPUT_OPERATORS:
        return
    path = facts.write(word, scope)
    if descriptor in (None, "1") or operator.startswith("&") or operator == ">&":
        if path is None:
            io.stdout_elsewhere = True
        else:
            io.stdout = path
