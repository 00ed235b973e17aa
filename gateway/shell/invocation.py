"""The context a command handler receives: one simple command after wrappers were removed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from gateway.shell.facts import Collector
from gateway.shell.flow import EMPTY, PAYLOAD, Flow, Scope
from gateway.shell.words import Word


class Runner(Protocol):
    """The walker, as handlers see it: they hand nested code back to it."""

    def run_script(self, text: str, scope: Scope, stdin: Flow, depth: int) -> Flow: ...

    def invoke(self, argv: list[Word], scope: Scope, stdin: Flow, depth: int) -> Flow: ...

    def described(self, name: str) -> bool: ...


@dataclass(slots=True)
class Invocation:
    name: str  # basename of the command word
    args: list[Word]  # arguments after the command word
    scope: Scope
    stdin: Flow
    depth: int
    facts: Collector
    runner: Runner

    @property
    def args_flow(self) -> Flow:
        """Merged content of every command substitution (or variable holding one) in the arguments."""
        flow = EMPTY
        for word in self.args:
            flow = flow.merge(word.flow)
        return flow

    def flag(self, category: str) -> None:
        self.facts.flag(category)

    def read(self, word: Word) -> str | None:
        return self.facts.read(word, self.scope)

    def file_content(self, word: Word) -> Flow | None:
        """Read the file ``word`` names; what it holds when this command line produced it (written earlier in
        the line, or a process substitution `<(…)`), else None (a file of the workspace: unknown here)."""
        if word.subs:
            return word.flow
        path = self.read(word)
        return self.scope.files.get(path) if path is not None else None

    def write(self, word: Word, directory: bool = False) -> str | None:
        return self.facts.write(word, self.scope, directory)

    def download(self, word: Word) -> None:
        """``word`` is written with bytes from the network (`curl -o`, `wget`, `copy('https://…', f)`): a download,
        for the rest of the line and of the run."""
        path = self.write(word)
        if path is not None:
            self.facts.keeps(self.scope, path, PAYLOAD)

    def inspect(self, word: Word) -> str | None:
        return self.facts.inspect(word, self.scope)

    def delete(self, word: Word, recursive: bool) -> None:
        self.facts.delete(word, self.scope, recursive)

    def host(self, raw: str | None) -> str | None:
        return self.facts.host(raw)

    def role(self, role: str) -> None:
        self.facts.roles.append(role)

    def run_script(self, text: str, stdin: Flow = EMPTY) -> Flow:
        """Analyze ``text`` as a nested script (bash -c, eval, here-document fed to a shell)."""
        return self.runner.run_script(text, self.scope.copy(), stdin, self.depth + 1)

    def invoke(self, argv: list[Word], stdin: Flow = EMPTY) -> Flow:
        """Analyze a command this one runs (find -exec)."""
        return self.runner.invoke(argv, self.scope.copy(), stdin, self.depth + 1)


# What every family of programs provides: one invocation in, what its output carries out.
Handler = Callable[[Invocation], Flow]
