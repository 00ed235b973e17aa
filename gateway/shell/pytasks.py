"""Python task files: `invoke TASK` / `inv TASK` run a function of ``tasks.py``, `fab TASK` one of
``fabfile.py``.

Like a Makefile's recipe (``gateway.shell.tasks``), the task's code is what runs: when the command hook
attached the task file (acteon_core/attachments.py) or the command line wrote it, the named tasks' functions
are read as Python (``interpreters.python_code``) and the shell commands they hand to the context
(`c.run("…")`, `c.sudo("…")`, `c.local("…")`, `conn.run("…")`) as shell code. A task file seen but not
sent (too large) makes the task unknowable; one nobody attached is judged by the command line alone.
"""

from __future__ import annotations

import ast
import re

from gateway.shell import categories as cat
from gateway.shell import interpreters
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.invocation import Invocation
from gateway.shell.tasks import manifest

_FILES = {"invoke": ("tasks.py",), "inv": ("tasks.py",), "fab": ("fabfile.py", "fabfile/__init__.py")}
_LOOKS = frozenset({"-l", "--list", "-h", "--help", "-V", "--version", "--complete", "-d", "--debug"})
_SHELL_CALL = re.compile(r"""\.(?:run|sudo|local)\s*\(\s*[rfu]?(['"])((?:(?!\1).){1,4000})\1""")


def _chosen(text: str, names: set[str]) -> str:
    """The source of the named tasks' functions, with the file's imports; the whole file when none is
    found (a task may be registered under another name, or call the others)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name in names]
    if not functions:
        return text
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom | ast.Assign)]
    parts = [ast.get_source_segment(text, n) or "" for n in [*imports, *functions]]
    return "\n".join(parts)


def python_task_runner(call: Invocation) -> Flow:
    values = [w.value for w in call.args]
    if any(v in _LOOKS for v in values):
        return OPAQUE
    found = manifest(call, _FILES.get(call.name, ("tasks.py",)))
    if found is None:
        return OPAQUE
    if found[1].script is None:
        if found[1].opaque:
            call.flag(cat.DYNAMIC_COMMAND)
        return OPAQUE
    names = {v.replace("-", "_") for v in values if not v.startswith("-")}
    code = _chosen(found[1].script, names)
    interpreters.python_code(call, code)
    for match in list(_SHELL_CALL.finditer(code[: 1 << 16]))[:64]:
        call.run_script(match.group(2))
    return OPAQUE


HANDLERS = dict.fromkeys(_FILES, python_task_runner)
