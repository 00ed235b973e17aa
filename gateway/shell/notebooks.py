"""Notebooks that run: `jupyter nbconvert --execute`, `jupyter execute`, `papermill`, `ipython x.ipynb`.

A notebook is a program in a JSON envelope: its code cells are Python, except the lines IPython hands to
a shell (`!rm -rf …`, `files = !ls`, `%system …`, `%sx …`) and the cells a cell magic runs in another
program (`%%bash`, `%%sh`, `%%script bash`). When a command runs a notebook whose text is known — written
earlier in the command line, or attached by the command hook (acteon_core/attachments.py) — its shell lines
are analysed as shell code and the rest as Python (``interpreters.python_code``); one the hook saw but
could not send (too large) or that is not a notebook is unknowable (``dynamic_command``). Converting a
notebook without executing it (`jupyter nbconvert --to html x.ipynb`) runs nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from gateway.shell import categories as cat
from gateway.shell import interpreters
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.generic import note_arguments
from gateway.shell.invocation import Invocation
from gateway.shell.words import Word, literal_word

MAX_CELLS = 512
MAX_SHELL_LINES = 256  # the analysis has its own command budget; this bounds the work before it
_SHELL_CELLS = ("%%bash", "%%sh", "%%script bash", "%%script sh", "%%script zsh", "%%system", "%%!")
_SHELL_LINES = ("%system ", "%sx ", "!")


@dataclass(slots=True)
class Cells:
    python: list[str] = field(default_factory=list)
    shell: list[str] = field(default_factory=list)


def cells(text: str) -> Cells | None:
    """The Python and the shell code a notebook runs; None when ``text`` is not a notebook."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return None
    raw = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(raw, list):
        return None
    out = Cells()
    for cell in raw[:MAX_CELLS]:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(s for s in source if isinstance(s, str)) if isinstance(source, list) else source
        if not isinstance(source, str):
            return None
        first, _, body = source.lstrip().partition("\n")
        if first.strip().startswith(_SHELL_CELLS):
            out.shell.append(body)
            continue
        lines = []
        for line in source.splitlines()[:4096]:
            if len(out.shell) >= MAX_SHELL_LINES:
                break
            stripped = line.strip()
            target, eq, rest = stripped.partition("=")
            if stripped.startswith(_SHELL_LINES):
                out.shell.append(stripped.split(" ", 1)[1] if stripped.startswith("%") else stripped[1:])
            elif eq and target.strip().isidentifier() and rest.strip().startswith("!"):
                out.shell.append(rest.strip()[1:])  # `files = !ls data/`
            elif stripped.startswith("%"):
                continue  # a line or cell magic of IPython itself (%time, %%capture, %matplotlib)
            else:
                lines.append(line)
        out.python.append("\n".join(lines))
    return out


def run_notebook(call: Invocation, word: Word) -> None:
    """``word`` names a notebook this command executes."""
    content = call.file_content(word)
    if content is None:
        return  # the project's own notebook, untouched: judged by the command line, like a script
    if content.script is None:
        call.flag(cat.DYNAMIC_COMMAND)  # seen but not sent (too large), or built at run time
        return
    found = cells(content.script)
    if found is None:
        call.flag(cat.DYNAMIC_COMMAND)  # not a notebook: whatever the runner makes of it
        return
    for line in found.shell:
        call.run_script(line)
    for code in found.python:
        interpreters.python_code(call, code)


_EXECUTES = frozenset({"--execute", "--ExecutePreprocessor.enabled=True", "--ExecutePreprocessor.enabled=true"})


def jupyter(call: Invocation) -> Flow:
    """`jupyter nbconvert --execute X.ipynb`, `jupyter execute X.ipynb`, `jupyter run X.ipynb`."""
    words = [w.value for w in call.args]
    sub = next((w for w in words if not w.startswith("-")), "")
    notebooks = [w for w in call.args if w.value.endswith(".ipynb")]
    if sub == "kernelspec":  # `jupyter kernelspec install --user DIR`: judged as ipykernel's own installs are
        return call.invoke([literal_word("jupyter-kernelspec"), *call.args[words.index(sub) + 1:]])
    executes = sub in ("execute", "run") or (sub == "nbconvert" and any(w in _EXECUTES for w in words))
    if executes:
        for word in notebooks[:16]:
            run_notebook(call, word)
    note_arguments(call, [w for w in call.args if not w.value.endswith(".ipynb")])
    return OPAQUE


def papermill(call: Invocation) -> Flow:
    """`papermill IN.ipynb OUT.ipynb -p x 1`: runs IN, writes OUT."""
    operands = [w for w in call.args if not w.value.startswith("-")]
    if operands:
        run_notebook(call, operands[0])
    if len(operands) > 1 and operands[1].value != "-":
        call.write(operands[1])
    return OPAQUE


def ipython(call: Invocation) -> Flow:
    """`ipython x.ipynb` runs the notebook; anything else is Python's command line (`ipython -c CODE`)."""
    operand = next((w for w in call.args if not w.value.startswith("-")), None)
    if operand is not None and operand.value.endswith(".ipynb") and call.args[0] is operand:
        run_notebook(call, operand)
        return OPAQUE
    return interpreters.python(call)


HANDLERS = {"jupyter": jupyter, "papermill": papermill, "ipython": ipython, "ipython3": ipython}
