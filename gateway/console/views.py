"""The console's HTML: one Jinja2 environment, and the fragments the live feeds send.

A fragment (one approval, one decision, one task row) is rendered by the same template whether it is part
of a page or pushed over Server-Sent Events, so a live update looks exactly like a reload.

An approval's document (gateway.reveal) is put in the page as text: markers of hidden characters and the
lines of a diff get their own ``<span>`` for colour, but the element's text is the document itself,
character for character. The console's script hashes that text — what the person sees — and sends the
hash with the decision.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

from gateway import reveal
from gateway.reveal import CLOSE, OPEN

HERE = Path(__file__).parent
_SPANS = {cls: (Markup(f'<span class="{cls}">'), Markup("</span>"))  # noqa: S704 (fixed class names)
          for cls in ("diff-file", "diff-add", "diff-del", "diff-hunk")}
_MARKER = re.compile(f"{OPEN}[^{CLOSE}]*{CLOSE}")


def _marked(text: str) -> Markup:
    """Escape ``text`` and wrap each hidden-character marker in a highlighted span."""
    out, last = [], 0
    for m in _MARKER.finditer(text):
        out.append(escape(text[last:m.start()]))
        out.append(Markup('<mark class="hidden-char">') + escape(m.group(0)) + Markup("</mark>"))
        last = m.end()
    out.append(escape(text[last:]))
    return Markup("").join(out)


def visible(text: str | None) -> Markup:
    """Any text from an agent (a target in the audit, a reason) with its hidden characters made visible."""
    return _marked(reveal.escape(text or "")[0])


def shown_html(text: str) -> Markup:
    """The shown document as HTML whose text content is exactly ``text``."""
    parts = []
    in_diff = False
    for line in text.splitlines(keepends=True):
        cls = None
        if in_diff:
            if line.startswith(("+++", "---")):
                cls = "diff-file"
            elif line.startswith("+"):
                cls = "diff-add"
            elif line.startswith("-"):
                cls = "diff-del"
            elif line.startswith("@@"):
                cls = "diff-hunk"
        if line == "diff:\n":
            in_diff = True
        body = _marked(line)
        parts.append(_SPANS[cls][0] + body + _SPANS[cls][1] if cls else body)
    return Markup("").join(parts)


def _age(ms: int | None, now_ms: int) -> str:
    if not ms:
        return "-"
    seconds = max(0, (now_ms - int(ms)) // 1000)
    if seconds < 120:
        return f"{seconds}s"
    if seconds < 7200:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"


def _when(ms: int | None) -> str:
    if not ms:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(int(ms) / 1000)) + f".{int(ms) % 1000:03d}Z"


def make_environment() -> Environment:
    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True, auto_reload=False)
    env.filters["shown"] = shown_html
    env.filters["visible"] = visible
    env.filters["when"] = _when
    env.globals["age"] = _age
    return env


ENV = make_environment()


def render(template: str, **context: Any) -> str:
    return ENV.get_template(template).render(**context)


def approval_html(view: dict[str, Any], now_ms: int, can_decide: bool) -> str:
    return render("_approval.html", a=view, now_ms=now_ms, can_decide=can_decide)


def decision_html(record: dict[str, Any]) -> str:
    return render("_decision.html", r=record)


def task_html(task: dict[str, Any]) -> str:
    return render("_task.html", t=task)
