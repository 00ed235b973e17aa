"""Running a named task: `make X`, `npm run X` (and its lifecycle scripts), `just X`, `task X`.

The manifest's text comes from ``Scope.files`` — written earlier in the same command line, or attached by
the command hook — and the lines of the tasks that would run (``gateway.shell.recipes``) are analysed as
shell code. A manifest the hook saw but could not send (too large) makes the task unknowable:
``dynamic_command``. A manifest nobody attached (the project's own, untouched) keeps today's treatment:
the call is judged by its command line alone.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from gateway.shell import categories as cat
from gateway.shell import recipes
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.invocation import Invocation
from gateway.shell.words import Word, locate


def manifest(call: Invocation, names: tuple[str, ...], directory: Word | None = None) -> tuple[str, Flow] | None:
    """The first of ``names`` known in the directory the task runs in (cwd, or ``directory``)."""
    scope = call.scope
    base = locate(directory, scope.cwd, scope.cwd_known, call.facts.home) if directory is not None else \
        scope.cwd if scope.cwd_known else None
    if base is None:
        return None
    for name in names:
        path = posixpath.join(base, name)
        flow = scope.files.get(path)
        if flow is not None:
            return path, flow
    return None


def named_file(call: Invocation, word: Word) -> tuple[str, Flow] | None:
    """A manifest named on the command line (`-f Procfile.dev`, `-c cfg.yaml`), when its text is known."""
    content = call.file_content(word)
    return (word.value, content) if content is not None else None


def run_lines(call: Invocation, found: tuple[str, Flow] | None, lines: Callable[[str], list[str]]) -> None:
    """Analyse the lines the task runs; an unseen manifest's task is unknowable."""
    if found is None:
        return
    _, flow = found
    if flow.script is None:
        if flow.opaque or flow.payload:
            call.flag(cat.REMOTE_CODE if flow.payload else cat.DYNAMIC_COMMAND)
        return
    for line in lines(flow.script)[: recipes.MAX_TASKS * 4]:
        call.run_script(line)


# -- package managers ---------------------------------------------------------------------------------

# Subcommands that run the root package's own scripts, and which.
_INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"]
_NPM_RUNS = {"run": None, "run-script": None, "rum": None, "urn": None, "test": "test", "t": "test",
             "tst": "test", "start": "start", "stop": "stop", "restart": "restart"}
_INSTALLS = frozenset({"install", "i", "ci", "clean-install", "add", "in", "isntall", "rebuild", "rb"})
_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})
# Their own subcommands (anything else after `yarn`/`pnpm`/`bun` is a script or a program from node_modules).
_OWN_SUBCOMMANDS = frozenset({"add", "remove", "rm", "why", "info", "exec", "dlx", "x", "create", "init", "install",
                              "i",
                              "up", "upgrade", "update", "outdated", "link", "unlink", "list", "ls", "config", "cache",
                              "workspace", "workspaces", "publish", "pack", "version", "login", "logout", "audit",
                              "store", "import", "patch", "patch-commit", "rebuild", "prune", "dedupe", "env", "node",
                              "set", "plugin", "constraints", "help", "bin", "global", "licenses", "owner",
                              "tag", "team", "unplug", "explain", "fetch", "deploy", "server", "setup", "test", "run",
                              "start", "build", "pm", "-v", "--version", "doctor", "recursive", "r", "filter"})


_VALUE_OPTIONS = frozenset({"--prefix", "-C", "--dir", "--cwd", "--workspace", "-w", "--filter", "-F", "--registry",
                            "--cache", "--userconfig", "--globalconfig", "--loglevel"})
_DIRECTORY_OPTIONS = frozenset({"--prefix", "-C", "--dir", "--cwd"})


def package_manager(handler: Callable[[Invocation], Flow]) -> Callable[[Invocation], Flow]:
    """A package manager's handler, plus the scripts its subcommand runs."""
    def handle(call: Invocation) -> Flow:
        words: list[str] = []
        prefix: Word | None = None
        args = call.args
        i = 0
        while i < len(args):
            value = args[i].value
            name, eq, _ = value.partition("=")
            if name in _VALUE_OPTIONS:
                if name in _DIRECTORY_OPTIONS:
                    prefix = args[i].tail(len(name) + 1) if eq else args[i + 1] if i + 1 < len(args) else None
                i += 1 if eq else 2
                continue
            if value == "--":
                break
            if not value.startswith("-"):
                words.append(value)
            i += 1
        package_scripts(call, words, prefix)
        return handler(call)

    return handle


def package_scripts(call: Invocation, words: list[str], prefix: Word | None) -> None:
    """npm/pnpm/yarn/bun: `run X`, `test`, `start`, installs (lifecycle scripts), `yarn X`, and
    `npm pkg set scripts.X=…` / `npm set-script X …` (a script written to be run by name later)."""
    if call.name not in _MANAGERS:
        return
    if words[:2] == ["pkg", "set"] or words[:1] == ["set-script"]:
        _script_writes(call, words)
        return
    names: list[str] | None
    if not words:
        names = _INSTALL_SCRIPTS if call.name == "yarn" else None  # a bare `yarn` installs
    elif words[0] in _NPM_RUNS:
        fixed = _NPM_RUNS[words[0]]
        names = [fixed] if fixed else words[1:2]
        if not names and call.name != "yarn":
            return  # `npm run` alone lists the scripts
    elif words[0] in _INSTALLS:
        names = _INSTALL_SCRIPTS
    elif call.name in ("yarn", "pnpm", "bun") and words[0] not in _OWN_SUBCOMMANDS:
        names = words[:1]  # `yarn build`, `pnpm lint`: a script by name
        found = manifest(call, ("package.json",), prefix)
        if found is None or not recipes.package_scripts(found[1].script or "", names):
            # not a script: a program from node_modules/.bin (`yarn sequelize-cli db:migrate:undo:all`)
            position = next((i for i, w in enumerate(call.args) if w.value.lower() == words[0]), None)
            if position is not None:
                call.invoke(call.args[position:])
            return
    else:
        return
    if names is None:
        return
    found = manifest(call, ("package.json",), prefix)
    run_lines(call, found, lambda text: recipes.package_scripts(text, names))


def _script_writes(call: Invocation, words: list[str]) -> None:
    values = [w.value for w in call.args if not w.value.startswith("-")]
    if values[:1] == ["set-script"] and len(values) >= 3:
        call.run_script(values[2])
        return
    for value in values[2:]:
        key, eq, command = value.partition("=")
        if eq and key.startswith("scripts."):
            call.run_script(command)


# -- make, just, task -----------------------------------------------------------------------------------

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")


def make_targets(call: Invocation, targets: list[Word], directory: Word | None) -> str | None:
    """`make [-C DIR] [VAR=value] [TARGET…]` with the makefile found in DIR (or cwd); returns its text."""
    overrides = {}
    names = []
    for word in targets:
        name, eq, value = word.value.partition("=")
        if eq and name and " " not in name:
            overrides[name] = value
        else:
            names.append(word.value)
    found = manifest(call, MAKEFILES, directory)
    run_lines(call, found, lambda text: recipes.makefile(text, names, overrides))
    return found[1].script if found is not None else None


def procfile_runner(call: Invocation) -> Flow:
    """honcho/foreman/overmind `start` (or `-f FILE start`): every process of the Procfile starts."""
    words = [w for w in call.args if not w.value.startswith("-")]
    chosen = next((call.args[i + 1] for i, w in enumerate(call.args[:-1]) if w.value in ("-f", "--procfile")), None)
    if chosen is not None:
        found = named_file(call, chosen)
        words = [w for w in words if w is not chosen]
    else:
        found = manifest(call, ("Procfile", "Procfile.dev"))
    if words and words[0].value in ("start", "s") and found is not None and found[1] is not None:
        run_lines(call, (found[0], found[1]), recipes.procfile)
    elif words and words[0].value in ("run", "r") and len(words) > 1:
        call.invoke(words[1:])
    return OPAQUE


def task_runner(call: Invocation) -> Flow:
    """`just [RECIPE…]`, `task [TASK…]` (go-task)."""
    operands = [w for w in call.args if not w.value.startswith("-")]
    if any(w.value in ("--list", "-l", "--summary", "--help", "-h", "--version", "--dry-run", "-n")
           for w in call.args):
        return OPAQUE
    names = [w.value for w in operands if "=" not in w.value]
    if call.name == "just":
        found = manifest(call, ("justfile", "Justfile", ".justfile"))
        run_lines(call, found, lambda text: recipes.justfile(text, names[:1] if names else []))
    else:
        found = manifest(call, ("Taskfile.yml", "Taskfile.yaml", "taskfile.yml"))
        run_lines(call, found, lambda text: recipes.taskfile(text, names))
    return OPAQUE
