"""Code a build or dependency tool runs from the project on its own: composer's scripts, `deno task`,
cargo's `build.rs`.

`composer install` runs the `post-install-cmd` and `post-autoload-dump` scripts of composer.json; `composer
run-script X` (or `composer X`) runs script X; `deno task X` the task X of deno.json; every `cargo
build|run|test|check …` compiles and runs `build.rs` first. As for npm's scripts (``gateway.shell.tasks``),
what they run is analysed as shell code when the manifest is known — written earlier in the command line,
or attached by the command hook; one seen but not sent makes the step unknowable; an untouched project's
own manifest, nobody attached, is judged by the command line alone. `build.rs` is Rust, which no parser
here reads: its text is read for what it names (``program_text``: commands handed to `sh -c`, deletes,
SQL, hosts).
"""

from __future__ import annotations

import dataclasses
import json
import re

from gateway.shell import categories as cat
from gateway.shell import lexicon, program_text
from gateway.shell.flow import Flow
from gateway.shell.invocation import Handler, Invocation
from gateway.shell.tasks import manifest, run_lines
from gateway.shell.words import Word

MAX_SCRIPTS = 64

# composer subcommand → the events whose scripts it fires.
_COMPOSER_EVENTS = {
    **dict.fromkeys(("install", "i"), ("pre-install-cmd", "post-install-cmd", "pre-autoload-dump",
                                       "post-autoload-dump")),
    **dict.fromkeys(("update", "u", "upgrade", "require", "r", "remove", "rm"),
                    ("pre-update-cmd", "post-update-cmd", "pre-autoload-dump", "post-autoload-dump")),
    **dict.fromkeys(("dump-autoload", "dumpautoload"), ("pre-autoload-dump", "post-autoload-dump")),
    "create-project": ("post-root-package-install", "post-create-project-cmd"),
    "archive": ("pre-archive-cmd", "post-archive-cmd"),
    "status": ("pre-status-cmd", "post-status-cmd"),
}
_COMPOSER_OWN = frozenset({"about", "audit", "browse", "bump", "check-platform-reqs", "clear-cache", "config",
                           "depends", "diagnose", "exec", "fund", "global", "help", "init", "licenses", "list",
                           "outdated", "prohibits", "reinstall", "search", "self-update", "show", "suggests",
                           "validate", "why", "why-not", "-V", "--version"})


def _json(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        try:  # deno.jsonc: comments and trailing commas
            bare = re.sub(r"/\*.*?\*/", "", re.sub(r"(?m)^\s*//[^\n]*$", "", text), flags=re.S)
            return json.loads(re.sub(r",(\s*[}\]])", r"\1", bare))
        except ValueError:
            return None


def composer_scripts(text: str, names: list[str] | None, depth: int = 0) -> list[str]:
    """The command lines composer runs for ``names`` (events or script names; None: every script): `@php x`
    is `php x`, `@composer x` is `composer x`, `@other` runs script `other`; PHP callbacks (`Class::method`)
    run project code no line here shows."""
    data = _json(text)
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict) or depth > 4:
        return []
    out: list[str] = []
    for name in list(scripts) if names is None else names:
        value = scripts.get(name)
        for line in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
            if not isinstance(line, str) or len(out) >= MAX_SCRIPTS:
                continue
            if line.startswith("@php "):
                out.append("php " + line[5:])
            elif line.startswith("@composer "):
                out.append("composer " + line[10:])
            elif line.startswith("@putenv "):
                continue
            elif line.startswith("@"):
                out.extend(composer_scripts(text, [line[1:].split()[0]], depth + 1))
            elif "::" not in line or " " in line:
                out.append(line)
    return out


def loose_strings(text: str) -> list[str]:
    """The string values of a JSON fragment (an edit inserting items of a script list): every string that
    is not a key. One pass, left to right: a string that never closes ends the scan (retrying from each
    quote inside it would be quadratic on hostile input)."""
    out: list[str] = []
    text = text[: 1 << 16]
    i = 0
    while len(out) < MAX_SCRIPTS:
        start = text.find('"', i)
        if start < 0:
            break
        j = start + 1
        while j < len(text) and text[j] not in '"\n':
            j += 2 if text[j] == "\\" else 1
        if j >= len(text):
            break
        if text[j] == "\n":
            i = j + 1  # unterminated on this line: JSON strings never span lines
            continue
        raw = text[start + 1:j]
        i = j + 1
        if text[i:i + 64].lstrip().startswith(":"):
            continue  # a key
        try:
            out.append(json.loads(f'"{raw}"'))
        except ValueError:
            out.append(raw)
    return out


def composer(handler: Handler) -> Handler:
    def handle(call: Invocation) -> Flow:
        words = [w.value for w in call.args if not w.value.startswith("-")]
        no_scripts = any(w.value == "--no-scripts" for w in call.args)
        if words and not no_scripts and words[0] not in _COMPOSER_OWN:
            names = list(_COMPOSER_EVENTS.get(words[0], ()))
            if words[0] in ("run-script", "run"):
                names = words[1:2]
            elif not names:
                names = words[:1]  # `composer lint`: a script called like a command
            if words[0] != "create-project":  # that one's scripts come from the package it fetches
                run_lines(call, manifest(call, ("composer.json",)), lambda text: composer_scripts(text, names))
        return handler(call)

    return handle


def deno_tasks(text: str, names: list[str] | None) -> list[str]:
    """The command lines of deno.json's tasks ``names`` (None: every task)."""
    data = _json(text)
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, dict):
        return []
    out = []
    for name in list(tasks) if names is None else names:
        value = tasks.get(name)
        if isinstance(value, dict):
            value = value.get("command")
        if isinstance(value, str):
            out.append(value)
    return out


def deno(handler: Handler) -> Handler:
    def handle(call: Invocation) -> Flow:
        words = [w.value for w in call.args if not w.value.startswith("-")]
        if words[:1] == ["task"] and len(words) > 1:
            run_lines(call, manifest(call, ("deno.json", "deno.jsonc")), lambda text: deno_tasks(text, words[1:2]))
        return handler(call)

    return handle


_COMPILES = frozenset({"build", "b", "run", "r", "test", "t", "check", "c", "clippy", "bench", "doc", "d",
                       "install", "rustc", "miri"})


def cargo(handler: Handler) -> Handler:
    """`cargo build` runs the package's build.rs before anything else."""
    def handle(call: Invocation) -> Flow:
        words = [w.value for w in call.args if not w.value.startswith(("-", "+"))]
        if words[:1] and words[0] in _COMPILES:
            found = manifest(call, ("build.rs",))
            if found is not None and found[1].script is not None:
                program_text.judge(call, found[1].script, None)
            elif found is not None and found[1].opaque:
                call.flag(cat.DYNAMIC_COMMAND)
        return handler(call)

    return handle


_GRADLE_FILES = ("build.gradle.kts", "build.gradle", "settings.gradle.kts", "settings.gradle")
_GRADLE_SELF = frozenset({"--version", "-v", "--help", "-h", "-?"})


def gradle(handler: Handler) -> Handler:
    """`gradle TASK` / `./gradlew TASK` runs the build script's code (an `Exec` task's `commandLine(…)`, a
    `doLast { … }` block): the build file, when known, is read for what it names, and an init script
    (`--init-script`/`-I`) that comes from the network is code fetched and run."""
    def handle(call: Invocation) -> Flow:
        values = [w.value for w in call.args]
        if not values or all(v in _GRADLE_SELF for v in values):
            return handler(call)
        for name in _GRADLE_FILES:
            found = manifest(call, (name,))
            if found is not None and found[1].script is not None:
                program_text.judge(call, found[1].script, None)
        for i, word in enumerate(call.args[:-1]):
            if word.value in ("-b", "--build-file", "-c", "--settings-file"):
                content = call.file_content(call.args[i + 1])
                if content is not None and content.script is not None:
                    program_text.judge(call, content.script, None)
        for i, word in enumerate(call.args):
            key, eq, _ = word.value.partition("=")
            if key in ("--init-script", "-I") and (eq or i + 1 < len(call.args)):
                script = word.tail(len(key) + 1) if eq else call.args[i + 1]
                content = call.file_content(script)
                if "://" in script.value or (content is not None and content.payload):
                    call.flag(cat.REMOTE_CODE)  # `--init-script <(curl …)`: a build logic from anywhere
                elif content is not None and content.script is not None:
                    program_text.judge(call, content.script, None)
        return handler(call)

    return handle


def go_run(handler: Handler) -> Handler:
    """`go run ./tools/x` and `go run main.go`: the package's sources, when known (written earlier in the
    command line or attached by the hook), are read for what they name (commands they start, SQL, hosts)."""
    def handle(call: Invocation) -> Flow:
        operands = [w for w in call.args if not w.value.startswith("-")]
        if operands[:1] and operands[0].value == "run" and len(operands) > 1:
            target = operands[1]
            if target.value.endswith(".go"):
                sources = [call.file_content(w) for w in operands[1:] if w.value.endswith(".go")]
            else:
                directory = call.inspect(target)
                sources = [flow for path, flow in list(call.scope.files.items())[:256]
                           if directory is not None and path.endswith(".go") and path.rsplit("/", 1)[0] == directory]
            for flow in sources[:16]:
                if flow is not None and flow.script is not None:
                    program_text.judge(call, flow.script, None)
        return handler(call)

    return handle


def cmake(handler: Handler) -> Handler:
    """`cmake -S src -B build` (or `cmake ..`) runs the project's CMakeLists.txt while configuring,
    `cmake -P x.cmake` and `ctest -S x.cmake` run a script: read for what they run (`execute_process`,
    custom commands, `file(REMOVE_RECURSE …)`: ``program_text``)."""
    def handle(call: Invocation) -> Flow:
        args = call.args
        scripts = [args[i + 1] for i, w in enumerate(args[:-1]) if w.value in ("-P", "-S", "-C", "--preset")
                   and not (call.name == "cmake" and w.value == "-S")]
        for word in scripts[:8]:
            content = call.file_content(word)
            if content is not None and content.script is not None:
                program_text.judge(call, content.script, None)
        source = next((args[i + 1] for i, w in enumerate(args[:-1]) if call.name == "cmake" and w.value == "-S"), None)
        if source is None and call.name == "cmake":
            source = next((w for w in args if not w.value.startswith("-")), None)
        if call.name == "cmake" and not any(w.value in ("-P", "-E", "--build", "--install", "--version", "--help")
                                             for w in args):
            found = manifest(call, ("CMakeLists.txt",), source)
            if found is not None and found[1].script is not None:
                program_text.judge(call, found[1].script, None)
        return handler(call)

    return handle


def sbt(handler: Handler) -> Handler:
    """sbt's commands (`sbt "flywayClean; flywayMigrate"`, `sbt "runMain x.Purge --all"`): a Flyway clean
    destroys the database, a publish publishes, `run`/`runMain` launch the project's program (its name and
    arguments read for verbs), and build.sbt's code runs on every one of them."""
    def handle(call: Invocation) -> Flow:
        commands = [part.strip() for w in call.args for part in w.value.split(";") if part.strip()]
        for command in commands[:32]:
            head, _, rest = command.partition(" ")
            name = head.split("/")[-1]  # `orders/flywayClean`
            if name.startswith("flywayClean"):
                call.flag(cat.DATABASE_DESTROY)
            elif name in ("publish", "publishSigned", "sonatypeRelease", "sonatypeBundleRelease", "ciRelease",
                          "releaseEarly", "docker:publish", "Docker/publish", "release"):
                call.flag(cat.PUBLISH)
            elif name in ("runMain", "run", "bgRunMain", "bgRun") and rest:
                program, _, arguments = rest.partition(" ") if name.endswith("Main") else ("", "", rest)
                lexicon.judge_launched(call, [Word(a) for a in arguments.split()], program.replace(".", "/"))
        found = manifest(call, ("build.sbt",))
        if found is not None and found[1].script is not None:
            program_text.judge(call, found[1].script, None)
        return handler(call)

    return handle


def bazel(handler: Handler) -> Handler:
    """Bazel labels (`//pkg:target`, `@repo//:t`, `:t`) name build targets, not files: the generic checks get
    the other arguments only, so `bazel build //:gazelle` is not a read of the root folder."""
    def handle(call: Invocation) -> Flow:
        labels_out = [w for w in call.args if not w.value.startswith(("//", "@", ":"))]
        return handler(dataclasses.replace(call, args=labels_out))

    return handle
