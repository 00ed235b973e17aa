"""What a patch in the apply_patch format changes: the files it adds, updates, moves and deletes, and the
lines it puts in them.

Codex CLI edits files with this format (its ``apply_patch`` tool, and ``apply_patch <<'EOF'`` run as a
shell command), as do OpenCode and Copilot CLI. One patch may touch many files, so a call carrying one is
judged file by file, like that many writes: file scopes, secrets, persistence and what runnable files will
do all apply to each (docs/clis.md#codex-cli).

    *** Begin Patch
    *** Add File: src/new.py
    +print("hi")
    *** Update File: src/app.py
    *** Move to: src/main.py
    @@ def main():
    -    old()
    +    new()
    *** Delete File: src/old.py
    *** End Patch
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

MAX_FILES = 256  # a patch touching more is judged on these (and is not a patch a person reviews anyway)
_BEGIN, _END = "*** Begin Patch", "*** End Patch"
_HEADERS: dict[str, Literal["add", "update", "delete"]] = {
    "*** Add File: ": "add", "*** Update File: ": "update", "*** Delete File: ": "delete"}
_MOVE = "*** Move to: "
# The fields the CLIs put a patch in (Codex: command; OpenCode: patchText; others: patch, input).
PATCH_FIELDS = ("command", "patchText", "patch", "input")


@dataclass(frozen=True, slots=True)
class Change:
    op: Literal["add", "update", "delete"]
    path: str  # as the patch names it: relative to the working directory, or absolute
    move_to: str | None = None
    added: str = ""  # the lines it adds (an added file: its whole text)

    @property
    def paths(self) -> tuple[str, ...]:
        """Every path the change writes or removes (a move writes its target and removes its source)."""
        return (self.path, self.move_to) if self.move_to else (self.path,)


def parse(text: str) -> tuple[Change, ...] | None:
    """The patch's changes, or None when ``text`` is not a patch (no Begin/End lines, an unknown header, a
    file with no path, no change at all): something the CLI would refuse too, and that nothing here can read."""
    lines = text.strip().splitlines()
    if len(lines) < 2 or lines[0].strip() != _BEGIN or lines[-1].strip() != _END:
        return None
    changes: list[Change] = []
    current: dict[str, Any] | None = None
    added: list[str] = []

    def close() -> None:
        if current is not None and len(changes) < MAX_FILES:
            changes.append(Change(current["op"], current["path"], current.get("move_to"), "\n".join(added)))

    for line in lines[1:-1]:
        header = next((h for h in _HEADERS if line.startswith(h)), None)
        if header is not None:
            close()
            path = line[len(header):].strip()
            if not path:
                return None
            current, added = {"op": _HEADERS[header], "path": path}, []
        elif current is None:
            if line.strip():
                return None  # text before the first file header
        elif line.startswith(_MOVE) and current["op"] == "update" and not added:
            current["move_to"] = line[len(_MOVE):].strip() or None
        elif line.startswith("+"):
            added.append(line[1:])
        elif current["op"] == "add" and line:
            return None  # an added file's lines all start with "+"
    close()
    return tuple(changes) or None


def patch_text(input: Mapping[str, Any]) -> str | None:
    """The patch a tool call carries, in whichever field its CLI puts it."""
    for key in PATCH_FIELDS:
        value = input.get(key)
        if isinstance(value, str) and _BEGIN in value:
            return value
    return None
