"""What one command passes to the next.

``Flow`` describes the data a command writes to stdout (and so what the next pipeline stage, a command
substitution or a file receives): the walker needs it to see that ``curl … | sh`` executes downloaded
code or that ``cat f | nc host`` sends a local file. ``Scope`` is the shell state that carries over from
one command to the next in a list (``cd``, literal variables, files written earlier in the same command
line).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gateway.shell.targets import Target


@dataclass(frozen=True, slots=True)
class Flow:
    payload: bool = False  # downloaded or decoded bytes: executing them runs code nobody reviewed
    local_data: bool = False  # content of local files or of the environment
    opaque: bool = False  # produced by a command whose output cannot be predicted
    script: str | None = None  # text known statically (echo, printf, here-documents)
    listing: Target | None = None  # names of files (find output), for xargs
    # A dump of the whole environment (env, printenv, set): API keys included. Printed or saved as it is,
    # it is credential access; a selecting filter (`env | grep PATH`) keeps only what it selects.
    secrets: bool = False
    # Process ids from a listing of the whole machine (`ps aux`, `pgrep -u other`): killing them kills
    # processes the agent did not start, whatever filter picked them.
    processes: bool = False
    # An endless stream (`yes`, /dev/zero): saved to a file, it fills the disk. And a listing of a million
    # items or more (`seq 1 50000000`): one file or process per item floods the machine (shell/exhaustion.py).
    unbounded: bool = False
    many: bool = False

    def merge(self, other: Flow) -> Flow:
        if other is EMPTY:
            return self
        if self is EMPTY:
            return other
        if self.script is not None and other.script is not None:
            script: str | None = self.script + "\n" + other.script
        else:
            script = self.script if self.script is not None else other.script
        return Flow(
            payload=self.payload or other.payload,
            local_data=self.local_data or other.local_data,
            opaque=self.opaque or other.opaque,
            script=script,
            listing=self.listing if self.listing is not None else other.listing,
            secrets=self.secrets or other.secrets,
            processes=self.processes or other.processes,
            unbounded=self.unbounded or other.unbounded,
            many=self.many or other.many,
        )


EMPTY = Flow()
OPAQUE = Flow(opaque=True)
LOCAL_DATA = Flow(local_data=True)
ENVIRONMENT = Flow(local_data=True, secrets=True)
PAYLOAD = Flow(payload=True)


@dataclass(slots=True)
class Scope:
    cwd: str | None  # current directory as the shell would have it; None with cwd_known means '/'
    cwd_known: bool  # False after `cd` to a directory that cannot be known statically
    vars: dict[str, str]  # shell variables with a statically known value (HOME, PWD, X=literal)
    files: dict[str, Flow] = field(default_factory=dict)  # files written earlier by this command line
    # What variables without a static value hold: `X=$(curl …); eval "$X"` still runs a download.
    flows: dict[str, Flow] = field(default_factory=dict)
    # Programs copied or linked under another name in this command line (`cp /bin/rm ./x`): path (and,
    # for a bin directory, bare name) → the original command's name, so `./x -rf /` is judged as `rm`.
    renamed: dict[str, str] = field(default_factory=dict)
    # Files already on disk that the command may run, as the command hook read them (acteon_core/attachments.py):
    # path → the same Flow object seeded into ``files``. Running one is judged by its text; being merely
    # named is not suspicious, unlike a file this very command line wrote (see ``written``).
    attached: dict[str, Flow] = field(default_factory=dict)
    # Run with another user's rights (under sudo, doas, su, pkexec …): what the command touches need not be the
    # agent's own (a `kill` then reaches processes the agent did not start).
    root: bool = False

    def copy(self) -> Scope:
        """The state a subshell, a pipeline stage or a nested script starts with. Variables and the directory
        are its own; files written and programs copied are on disk, so every scope sees them (`… | base64 -d >
        /tmp/x && sh /tmp/x`)."""
        return Scope(self.cwd, self.cwd_known, dict(self.vars), self.files, dict(self.flows), self.renamed,
                     self.attached, self.root)

    def as_root(self) -> Scope:
        """This scope for a command run with another user's rights (``root``)."""
        if self.root:
            return self
        inner = self.copy()
        inner.root = True
        return inner

    def written(self) -> dict[str, Flow]:
        """The files this command line wrote (not the attached files it has not rewritten)."""
        if not self.attached:
            return self.files
        return {p: f for p, f in self.files.items() if self.attached.get(p) is not f}

    def change_dir(self, path: str | None) -> None:
        """Move to ``path`` (already resolved); None means the new directory is unknowable."""
        if path is None:
            self.cwd_known = False
            self.vars.pop("PWD", None)
        else:
            self.cwd = path
            self.cwd_known = True
            self.vars["PWD"] = path
