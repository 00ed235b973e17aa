"""Task runners: the shell lines a named task runs, read from the runner's manifest.

`make clean`, `npm run clean`, `just clean`, `task clean` run whatever the project's manifest says, and an
agent can write that manifest a moment before (docs/rules.md#what-runs-is-judged). When the manifest's text
is known — written earlier in the same command line, or attached by the command hook
(acteon_core/attachments.py) — the lines of the tasks that would run are analysed like any other shell code.
Each reader returns plain command strings; the handlers (``system.make``, the package managers,
``task_runner``) hand them to the walker.

Reading is forgiving and bounded: a manifest that does not parse yields nothing here, and the caller
decides what an unreadable manifest means.
"""

from __future__ import annotations

import json
import re

MAX_TASKS = 64  # targets followed through prerequisites
MAX_LINES = 2048

# Make's own variables, as GNU make defines them (`$(RM) -r build` is `rm -f -r build`).
_MAKE_DEFAULTS = {"RM": "rm -f", "MAKE": "make", "CC": "cc", "CXX": "g++", "CPP": "cc -E", "AR": "ar",
                  "LD": "ld", "INSTALL": "install", "SHELL": "/bin/sh", "MKDIR_P": "mkdir -p"}
_ASSIGN = re.compile(r"^(?:export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*([:?+!]?=|::=)\s*(.*)$")
_RULE = re.compile(r"^([^\s:=#][^:=#]*?)\s*(::?)(?!=)\s*([^;=]*)(?:;\s*(.*))?$")
_REF = re.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_.-]*)[)}]|\$([@<^+*?])")


def _logical_lines(text: str) -> list[str]:
    """Lines with backslash continuations joined (make and just both continue lines that way)."""
    out: list[str] = []
    buffer = ""
    for line in text.splitlines()[:MAX_LINES]:
        if line.endswith("\\"):
            buffer += line[:-1] + " "
            continue
        out.append(buffer + line)
        buffer = ""
    if buffer:
        out.append(buffer)
    return out


def _expand(value: str, variables: dict[str, str], target: str, prereqs: list[str], depth: int = 0) -> str:
    def one(match: re.Match[str]) -> str:
        name, auto = match.group(1), match.group(2)
        if auto is not None:
            return {"@": target, "<": prereqs[0] if prereqs else "", "^": " ".join(prereqs),
                    "+": " ".join(prereqs), "*": target.rsplit(".", 1)[0], "?": " ".join(prereqs)}[auto]
        if name in variables and depth < 8:
            return _expand(variables[name], variables, target, prereqs, depth + 1)
        return "${" + name.replace(".", "_").replace("-", "_") + "}"  # from the environment: unknown here

    return _REF.sub(one, value.replace("$$", "\0")).replace("\0", "$")


def makefile(text: str, targets: list[str] | None, overrides: dict[str, str] | None = None) -> list[str]:
    """The recipe lines that ``make TARGETS`` runs (``[]``: the default goal; None: every recipe)."""
    variables = dict(_MAKE_DEFAULTS)
    rules: dict[str, tuple[list[str], list[str]]] = {}
    order: list[str] = []
    # Recipe lines before any rule: a piece of a makefile (what an edit inserts) is read whole.
    current: list[str] | None = [] if targets is None else None
    if current is not None:
        rules[""] = ([], current)
        order.append("")
    for line in _logical_lines(text):
        if line.startswith("\t"):
            if current is not None:
                current.append(line[1:])
            continue
        stripped = line.split("#", 1)[0].rstrip()
        if not stripped.strip():
            continue
        assignment = _ASSIGN.match(stripped)
        if assignment:
            name, op, value = assignment.groups()
            variables[name] = variables.get(name, "") + " " + value if op == "+=" else \
                variables.get(name, value) if op == "?=" else value
            current = None
            continue
        rule = _RULE.match(stripped)
        if rule is None:
            current = None
            continue
        names, prereqs, inline = rule.group(1).split(), rule.group(3).split(), rule.group(4)
        recipe: list[str] = [inline] if inline else []
        for name in names:
            if name in rules:  # a second rule for a target adds prerequisites (and perhaps a recipe)
                rules[name][0].extend(prereqs)
                if recipe:
                    rules[name][1].extend(recipe)
            else:
                rules[name] = (list(prereqs), recipe)
                order.append(name)
        current = recipe
    variables.update(overrides or {})
    if targets is None:
        wanted = order
    elif targets:
        wanted = targets
    else:
        wanted = [t for t in order if not t.startswith(".") and "%" not in t][:1]
    lines: list[str] = []
    for name in run_order(wanted, {n: r[0] for n, r in rules.items()}):
        prereqs, recipe = rules[name]
        for line in recipe:
            text_line = _expand(line, variables, name, prereqs).strip().lstrip("@-+").strip()
            if text_line:
                lines.append(text_line)
    return lines


def run_order(wanted: list[str], needs: dict[str, list[str]]) -> list[str]:
    """The tasks that run for ``wanted``, each after what it needs, each once, at most ``MAX_TASKS``."""
    order: list[str] = []
    done: set[str] = set()
    stack: list[tuple[str, bool]] = [(name, False) for name in reversed(wanted)]
    while stack and len(order) < MAX_TASKS:
        name, expanded = stack.pop()
        if name not in needs or (not expanded and name in done):
            continue
        if expanded or len(done) >= MAX_TASKS:  # past the bound a task's needs are not followed further
            if name not in order:
                order.append(name)
            continue
        done.add(name)
        stack.append((name, True))
        stack.extend((dep, False) for dep in reversed(needs[name]) if dep not in done)
    return order


def package_scripts(text: str, names: list[str] | None) -> list[str]:
    """The scripts ``npm run NAME`` runs, with its pre/post scripts (None: every script)."""
    try:
        data = json.loads(text)
    except ValueError:
        return _loose_scripts(text) if names is None else []
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return []
    if names is None:
        return [v for v in scripts.values() if isinstance(v, str)][:MAX_TASKS]
    out = []
    for name in names:
        for key in (f"pre{name}", name, f"post{name}"):
            value = scripts.get(key)
            if isinstance(value, str):
                out.append(value)
    return out


_JSON_PAIR = re.compile(r'"([^"\\]*)"\s*:\s*"((?:[^"\\]|\\.)*)"')


def _loose_scripts(text: str) -> list[str]:
    """String values of a JSON fragment (an edit of package.json replaces a piece, not the document)."""
    out = []
    for match in _JSON_PAIR.finditer(text[: 1 << 16]):
        try:
            out.append(json.loads(f'"{match.group(2)}"'))
        except ValueError:
            out.append(match.group(2))
    return out[:MAX_TASKS]


_JUST_RECIPE = re.compile(r"^@?([A-Za-z_][A-Za-z0-9_-]*)(?:\s+[^:]*)?:(?!=)\s*(.*)$")
_JUST_VAR = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def justfile(text: str, names: list[str] | None) -> list[str]:
    """The lines of the just recipes that would run (``[]``: the first recipe; None: all)."""
    recipes: dict[str, tuple[list[str], list[str]]] = {}
    order: list[str] = []
    current: list[str] | None = None
    for line in _logical_lines(text):
        if line[:1] in (" ", "\t"):
            if current is not None and line.strip():
                current.append(line.strip())
            continue
        current = None
        match = _JUST_RECIPE.match(line.split("#", 1)[0].rstrip())
        if match and ":=" not in line:
            deps = [d for d in match.group(2).split() if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", d)]
            current = []
            recipes[match.group(1)] = (deps, current)
            order.append(match.group(1))
    wanted = order if names is None else names or order[:1]
    out: list[str] = []
    for name in run_order(wanted, {n: r[0] for n, r in recipes.items()}):
        out.extend(_JUST_VAR.sub(r"${\1}", line).lstrip("@-").strip() for line in recipes[name][1])
    return [line for line in out if line]


def taskfile(text: str, names: list[str] | None) -> list[str]:
    """The commands of Taskfile tasks (``[]``: ``default``; None: all), following `task:` references."""
    import yaml

    try:
        data = yaml.safe_load(text[: 1 << 18])
    except Exception:  # a Taskfile that does not parse runs nothing we can know
        return []
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, dict):
        return []
    wanted = list(tasks) if names is None else names or ["default"]
    out: list[str] = []
    done: set[str] = set()
    stack = list(reversed(wanted))
    while stack and len(done) < MAX_TASKS:
        name = stack.pop()
        task = tasks.get(name)
        if name in done or task is None:
            continue
        done.add(name)
        if isinstance(task, str):
            out.append(task)
            continue
        if isinstance(task, list):
            task = {"cmds": task}
        if not isinstance(task, dict):
            continue
        for dep in task.get("deps") or []:
            dep_name = dep.get("task") if isinstance(dep, dict) else dep
            if isinstance(dep_name, str):
                stack.append(dep_name)
        cmds = task.get("cmds") or ([task["cmd"]] if "cmd" in task else [])
        for cmd in cmds if isinstance(cmds, list) else [cmds]:
            if isinstance(cmd, str):
                out.append(cmd)
            elif isinstance(cmd, dict):
                if isinstance(cmd.get("cmd"), str):
                    out.append(cmd["cmd"])
                elif isinstance(cmd.get("task"), str):
                    stack.append(cmd["task"])
    return [re.sub(r"\{\{\s*\.([A-Za-z_]\w*)\s*\}\}", r"${\1}", line) for line in out]


def procfile(text: str) -> list[str]:
    """The commands of a Procfile (`web: gunicorn app:app`): every process it names starts."""
    out = []
    for line in text.splitlines()[:MAX_LINES]:
        name, colon, command = line.partition(":")
        if colon and name.strip() and not name.lstrip().startswith("#") and command.strip():
            out.append(command.strip())
    return out[:MAX_TASKS]
