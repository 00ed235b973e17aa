"""What a human is shown before deciding: an approval made visible, character by character.

A command can hide what it does from a reader: a zero-width space inside ``rm``, a right-to-left override
that flips the end of a line, an ANSI escape that repaints the terminal, a Cyrillic ``а`` in a path that
looks Latin. Everything a person could misread is written out as a marker ``⟦U+200B ZERO WIDTH SPACE⟧``.
The marker brackets are themselves non-ASCII, so a literal ``⟦`` in the input is escaped too: the
rendering is one-to-one, two different inputs never look the same.

- Commands, paths and every other short field: anything outside printable ASCII is escaped (a homoglyph
  is only harmless where nothing is executed or addressed).
- File contents (Edit/Write): printable letters of other scripts are kept (a README in Greek stays
  readable) but invisible, control, bidirectional and combining characters are escaped; tabs and
  newlines stay.

The shown text is a plain document (the console displays exactly it; an Edit or Write shows a unified
diff). Its SHA-256 goes back with the decision, and the gateway refuses a decision whose hash is not that
of the pending item's document (:func:`shown_digest`): the human approved what was on the screen, or
nothing.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import unicodedata
from dataclasses import dataclass
from typing import Any

OPEN, CLOSE = "⟦", "⟧"
INDENT = "    "
_ASCII_NAMES = {0x09: "TAB", 0x0A: "LF", 0x0D: "CR", 0x1B: "ESC", 0x7F: "DEL", 0x00: "NUL"}
# Unicode categories a reader cannot see or that change how neighbours are drawn.
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs", "Mn", "Me", "Mc"})
# Fields that hold file contents, kept readable in other scripts.
_CONTENT_FIELDS = frozenset({"content", "new_string", "old_string", "new_str", "old_str", "file_text",
                             "insert_text", "text"})


def _name(code: int) -> str:
    if code in _ASCII_NAMES:
        return _ASCII_NAMES[code]
    name = unicodedata.name(chr(code), "")
    if not name and code < 0x20:
        name = f"CONTROL-{chr(code + 0x40)}"  # ^A .. ^_
    return name


def marker(ch: str) -> str:
    code = ord(ch)
    name = _name(code)
    return f"{OPEN}U+{code:04X}{' ' + name if name else ''}{CLOSE}"


def escape(text: str, *, content: bool = False) -> tuple[str, int]:
    """``text`` with every character a reader could misread written as a marker; returns (shown, markers).

    ``content``: file contents, where newlines and tabs are layout and letters of other scripts are text."""
    out: list[str] = []
    count = 0
    for ch in text:
        code = ord(ch)
        if 0x20 <= code < 0x7F or (ch == "\n" and content) or (ch == "\t" and content):
            out.append(ch)
            continue
        if ch == "\n":
            out.append(ch)  # a multi-line command: the line break is visible as one
            continue
        if content and code > 0x7F and ch not in (OPEN, CLOSE) and unicodedata.category(ch) not in _HIDDEN:
            out.append(ch)
            continue
        out.append(marker(ch))
        count += 1
    return "".join(out), count


@dataclass(frozen=True, slots=True)
class Shown:
    """An approval as a person is shown it: the document, how many characters were made visible, and the
    digest the decision must carry."""

    text: str
    escaped: int
    sha256: str


def _diff(path: str, old: str, new: str) -> str:
    """A unified diff of already escaped texts (escaping after diffing would escape the markers again)."""
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 fromfile=f"a/{path}", tofile=f"b/{path}", n=3)
    body = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    return body or "(no change)\n"


def _edits(tool: str, payload: dict[str, Any]) -> tuple[str, str] | None:
    """(old, new) file contents when the call edits a file, for a diff."""
    new = payload.get("new_string", payload.get("new_str"))
    old = payload.get("old_string", payload.get("old_str"))
    if isinstance(new, str) and isinstance(old, str):
        return old, new
    content = payload.get("content", payload.get("file_text"))
    if isinstance(content, str) and tool.lower() in ("write", "write_file", "create"):
        return "", content
    return None


def _field(value: Any, *, content: bool) -> tuple[str, int]:
    if not isinstance(value, str):
        # Numbers, booleans, nested objects: their JSON, whose strings are escaped the same way.
        value = json.dumps(value, ensure_ascii=False, sort_keys=True)
        content = False
    text, n = escape(value, content=content)
    # Continuation lines are indented, so a value can never pose as the next field.
    return text.replace("\n", "\n" + INDENT), n


def render(approval: dict[str, Any]) -> Shown:
    """The document shown for an approval view (``gateway.store.approvals``): who asks, for what, and the
    full input, nothing cut."""
    count = 0
    parts: list[str] = []

    def line(label: str, value: Any, content: bool = False) -> None:
        nonlocal count
        text, n = _field("" if value is None else value, content=content)
        count += n
        parts.append(f"{label}: {text}\n")

    line("tool", approval.get("tool"))
    line("action", approval.get("action_type"))
    line("target", approval.get("target"))
    payload = approval.get("input")
    if isinstance(payload, dict):
        edits = _edits(str(approval.get("tool") or ""), payload)
        for key in sorted(payload):
            if edits is not None and key in _CONTENT_FIELDS:
                continue  # shown as the diff below
            line(f"input.{key}", payload[key], content=key in _CONTENT_FIELDS)
        if edits is not None:
            path, n_path = escape(str(payload.get("file_path") or payload.get("path") or approval.get("target")
                                      or "file"))
            (old, n_old), (new, n_new) = (escape(t, content=True) for t in edits)
            count += n_path + n_old + n_new
            parts.append("diff:\n" + _diff(path, old, new))
    elif payload is not None:
        line("input", payload)
    text = "".join(parts)
    return Shown(text=text, escaped=count, sha256=shown_digest(text))


def shown_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
