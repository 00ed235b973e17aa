"""Shells, eval and script interpreters: where one command runs other code.

Nested shell code (``bash -c``, ``eval``, here-documents, ``source``) is handed back to the walker and
analyzed like the top level. Code in other languages (``python -c``, ``node -e``, ``ruby -e``,
``perl -e``, ``php -r``, their here-documents and scripts written in the same command line) is parsed
with that language's parser (``gateway.shell.code``), and each API call that deletes, writes, reads,
runs a command or connects is judged like the shell command it amounts to. A few telltale combinations
are recognised on the text as well (a socket plus a spawned shell, a download plus exec); code that does
not parse falls back to pattern matching. Languages with no parser here are ``foreign``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gateway.shell import categories as cat
from gateway.shell import clis, lexicon, operators, program_text
from gateway.shell import code as program
from gateway.shell.facts import SHELL_READS_STDIN
from gateway.shell.flow import EMPTY, OPAQUE, Flow
from gateway.shell.generic import note_arguments
from gateway.shell.invocation import Handler, Invocation
from gateway.shell.options import scan, spec
from gateway.shell.packages import pip_arguments
from gateway.shell.words import Word, join_words


def execute(call: Invocation, flow: Flow) -> None:
    """``flow`` is about to run as shell code."""
    if flow.payload:
        call.flag(cat.REMOTE_CODE)
    if flow.script is not None:
        call.run_script(flow.script)
    elif flow.opaque:
        call.flag(cat.DYNAMIC_COMMAND)


def run_code_word(call: Invocation, word: Word) -> None:
    """A shell-code argument (`bash -c WORD`, `eval WORDS`)."""
    if word.flow.payload:
        call.flag(cat.REMOTE_CODE)
    if word.target is not None:
        # The code is an item produced at run time (`xargs -a cmds.txt -I{} sh -c '{}'`, `find … -exec sh -c {}`):
        # whatever lines the input holds run as commands.
        call.flag(cat.DYNAMIC_COMMAND)
    # Dynamic parts keep their source text, so `bash -c "rm -rf $D"` re-parses with $D in place.
    call.run_script(word.value)


# -- shells ------------------------------------------------------------------------------------------

_SHELL_VALUE_OPTIONS = frozenset({"--rcfile", "--init-file", "-o", "+o", "-O", "+O"})


def shell(call: Invocation) -> Flow:
    args = call.args
    i = 0
    command_mode = False
    stdin_mode = False
    while i < len(args):
        text = args[i].value
        if text in ("-", "--"):
            stdin_mode = stdin_mode or text == "-"
            i += 1
            break
        if text in _SHELL_VALUE_OPTIONS:
            i += 2
            continue
        if text.startswith("--"):
            i += 1
            continue
        if len(text) > 1 and text[0] in "-+" and args[i].literal:
            letters = text[1:]
            command_mode = command_mode or "c" in letters
            stdin_mode = stdin_mode or "s" in letters
            i += 2 if letters[-1] in "oO" else 1
            continue
        break
    rest = args[i:]
    if command_mode:
        if rest:
            # `sh -c 'rm -f "$1"' _ {}`: the words after the script are $0, $1, … inside it.
            saved_vars, saved_flows = dict(call.scope.vars), dict(call.scope.flows)
            for n, word in enumerate(rest[1:10]):
                if word.exact:
                    call.scope.vars[str(n)] = word.value
                elif word.target is not None:
                    call.scope.flows[str(n)] = Flow(listing=word.target)
            run_code_word(call, rest[0])
            call.scope.vars, call.scope.flows = saved_vars, saved_flows
        return OPAQUE
    if rest and rest[0].value in _STDIN_FILES:
        stdin_mode = True  # `curl … | bash /dev/stdin --yes`: the script is what comes in on stdin
    if rest and not stdin_mode:
        content = call.file_content(rest[0])
        if content is not None:
            path = call.read(rest[0])
            saved = call.scope.vars.get("0")
            if path is not None:
                call.scope.vars["0"] = path  # `cd "$(dirname "$0")"` inside the script
            execute(call, content)
            if saved is None:
                call.scope.vars.pop("0", None)
            else:
                call.scope.vars["0"] = saved
        return OPAQUE
    call.role(SHELL_READS_STDIN)
    if call.stdin is not EMPTY:
        execute(call, call.stdin)
    elif not any(a.value in _INFO_OPTIONS for a in args):
        # An interactive shell: whatever it runs next comes from a terminal or a program driving it,
        # never from this command line (docs/rules.md).
        call.flag(cat.DYNAMIC_COMMAND)
    return OPAQUE


_INFO_OPTIONS = frozenset({"--version", "--help", "-version", "-help", "--dump-strings", "--dump-po-strings"})
_STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def eval_(call: Invocation) -> Flow:
    if call.args:
        run_code_word(call, join_words(call.args))
    return OPAQUE


def source(call: Invocation) -> Flow:
    operands = [w for w in call.args if w.value != "--"]
    if operands:
        content = call.file_content(operands[0])
        if content is not None:
            execute(call, content)
    return OPAQUE


def trap(call: Invocation) -> Flow:
    operands = [w for w in call.args if not w.value.startswith("-")]
    if len(operands) >= 2 and operands[0].value:
        run_code_word(call, operands[0])  # runs later, on the signal
    return EMPTY


def alias(call: Invocation) -> Flow:
    """`alias x='…'`: the body is analysed as code, and the name runs its program from now on (`alias q=psql;
    q -c 'DROP …'` is psql: an agent's shell may expand aliases — Claude Code's snapshot turns them on)."""
    for word in call.args:
        name, eq, body = word.value.partition("=")
        if eq and not name.startswith("-"):
            run_code_word(call, word.tail(len(name) + 1))
            program = body.strip().split(" ", 1)[0] if body.strip() else ""
            if _ALIAS_NAME.fullmatch(name) and _ALIAS_NAME.fullmatch(program.rsplit("/", 1)[-1]) and \
                    program.rsplit("/", 1)[-1] != name:
                call.scope.renamed[name] = program.rsplit("/", 1)[-1]
    return EMPTY


_ALIAS_NAME = re.compile(r"[A-Za-z_][\w.+-]*")


def script_command(call: Invocation) -> Flow:
    """util-linux `script -c CMD [logfile]`."""
    options = scan(call.args, spec("cTBIOE", ["--command", "--log-timing", "--log-io", "--log-in",
                                              "--log-out", "--echo"]))
    for word in options.values("-c", "--command"):
        run_code_word(call, word)
    if not options.values("-c", "--command"):
        call.flag(cat.DYNAMIC_COMMAND)  # without -c, script starts an interactive shell
    for word in options.operands[:1]:
        call.write(word)
    return OPAQUE


# -- other languages -------------------------------------------------------------------------------

_QUOTED_ITEM = re.compile(r"""'([^']*)'|"([^"]*)\"""")


@dataclass(frozen=True, slots=True)
class _Language:
    name: str | None  # the parser in gateway.shell.code (None: patterns only)
    code_letters: str  # short options whose value is program text (-c, -e)
    value_letters: str  # other short options taking a value
    long_code: frozenset[str] = frozenset()
    long_values: frozenset[str] = frozenset()
    in_place_letter: str = ""  # perl/ruby -i: rewrite the files named after the program
    module_letter: str = ""  # python -m
    code_ends_options: bool = False  # python -c: what follows is argv for the program
    shell_calls: re.Pattern[str] = field(default=re.compile(r"(?!)"))


_PYTHON = _Language(
    "python", "c", "WX", module_letter="m", code_ends_options=True,
    shell_calls=re.compile(r"(?:os\.system|os\.popen|subprocess\.\w+|pty\.spawn)\s*\(\s*(\[[^\]]*\]|'[^']*'|\"[^\"]*\")"),
)
_PERLISH_CALLS = re.compile(
    r"(?:\bsystem|\bexec|shell_exec|passthru|\bpopen|proc_open|\bspawn)\s*\(?\s*(\[[^\]]*\]|'[^']*'|\"[^\"]*\")"
    r"|`([^`]*)`"
)
_PERL = _Language("perl", "eE", "IMmlFx0dC", in_place_letter="i", shell_calls=_PERLISH_CALLS)
_RUBY = _Language("ruby", "e", "rIECx", in_place_letter="i", shell_calls=_PERLISH_CALLS)
_PHP = _Language("php", "rBRE", "cdfzF", shell_calls=_PERLISH_CALLS)
_NODE = _Language(
    "javascript", "ep", "r", frozenset({"--eval", "--print"}), frozenset({"--require", "--import", "--input-type"}),
    shell_calls=re.compile(r"(?:execSync|exec|spawnSync|spawn|execFileSync)\s*\(\s*(\[[^\]]*\]|'[^']*'|\"[^\"]*\"|`[^`]*`)"),
)


@dataclass(slots=True)
class _Parsed:
    code: list[Word] = field(default_factory=list)
    module: Word | None = None
    in_place: bool = False
    reads_stdin: bool = False
    operands: list[Word] = field(default_factory=list)


def _parse(args: list[Word], lang: _Language) -> _Parsed:
    out = _Parsed()
    i = 0
    n = len(args)
    while i < n:
        word = args[i]
        text = word.value
        if text == "--":
            i += 1
            break
        if text == "-":
            out.reads_stdin = True
            i += 1
            break
        if not text.startswith("-") or len(text) < 2:
            break
        if text.startswith("--"):
            name, eq, _ = text.partition("=")
            if name in lang.long_code:
                out.code.append(word.tail(len(name) + 1) if eq else args[i + 1] if i + 1 < n else Word(""))
                i += 1 if eq else 2
            else:
                i += 2 if (name in lang.long_values and not eq) else 1
            continue
        j = 1
        consumed_next = False
        while j < len(text):
            letter = text[j]
            value: Word | None = None
            if letter in lang.code_letters or letter in lang.value_letters or letter == lang.module_letter:
                if j + 1 < len(text):
                    value = word.tail(j + 1)
                elif i + 1 < n:
                    value = args[i + 1]
                    consumed_next = True
                if letter in lang.code_letters and value is not None:
                    out.code.append(value)
                elif letter == lang.module_letter and value is not None:
                    out.module = value
                break
            if letter == lang.in_place_letter:
                out.in_place = True
                break  # the rest is the backup suffix
            j += 1
        i += 2 if consumed_next else 1
        if out.module is not None or (out.code and lang.code_ends_options):
            break
    out.operands = args[i:]
    return out


def analyze_code(call: Invocation, code: str, lang: _Language) -> None:
    """Program text in a language other than bash: what its text says, then what its API calls do."""
    program_text.judge(call, code, lang.name)
    effects = program.effects_of(lang.name, code) if lang.name else None
    if effects is not None:
        _apply(call, effects)
        return
    for match in lang.shell_calls.finditer(code):
        command = next((g for g in match.groups() if g is not None), "")
        if command.startswith("["):
            items = [a if a is not None else b for a, b in _QUOTED_ITEM.findall(command)]
            command = " ".join(items)
        elif command[:1] in "'\"`":
            command = command[1:-1]
        if command.strip():
            call.run_script(command)


def python_code(call: Invocation, code: str) -> None:
    """Python program text run by something other than the interpreter's command line (a notebook's cells)."""
    analyze_code(call, code, _PYTHON)


def _apply(call: Invocation, effects: list[program.Effect]) -> None:
    """Judge each API call like the shell command it amounts to."""
    for effect in effects:
        kind, value = effect.kind, effect.value
        if kind == program.EXEC:
            if value is None:
                call.flag(cat.DYNAMIC_COMMAND)  # a command built at run time
            elif value.strip():
                call.run_script(value)
        elif kind == program.DYNAMIC:
            call.flag(cat.DYNAMIC_COMMAND)
        elif kind == program.ENVIRONMENT:
            call.flag(cat.CREDENTIAL_ACCESS)  # like `printenv`: every secret the agent holds
        elif kind == program.DELETE_TREE:
            if value is None:
                call.flag(cat.DESTRUCTIVE_DELETE)  # a recursive delete of a path built at run time
                call.facts.writes_somewhere(None)
            else:
                call.delete(Word(value), True)
        elif value is None:
            if kind in (program.WRITE, program.DELETE):
                call.facts.writes_somewhere(None)  # a file named at run time: no file scope can vouch for it
            continue
        elif kind == program.DELETE:
            call.delete(Word(value), False)
        elif kind == program.WRITE:
            call.write(Word(value))
        elif kind == program.READ:
            call.read(Word(value))
        elif kind == program.CONNECT:
            call.host(value)


def _interpreter(lang: _Language) -> Handler:
    def handle(call: Invocation) -> Flow:
        parsed = _parse(call.args, lang)
        # Modules loaded by an option are part of the program (`perl -MLWP::Simple -e 'eval get($u)'`,
        # `ruby -ropen-uri -e …`): their names count for what its text says it does.
        preload = "".join(f"use {w.value[2:]};\n" for w in call.args
                          if w.value.startswith(("-M", "-r")) and len(w.value) > 2 and lang.name in ("perl", "ruby"))
        for word in parsed.code:
            if word.flow.payload:
                call.flag(cat.REMOTE_CODE)  # python -c "$(curl …)"
            analyze_code(call, preload + word.value, lang)
        if parsed.module is not None:
            if parsed.module.value in ("pip", "pip3"):
                pip_arguments(call, parsed.operands)
            elif parsed.module.value in operators.MODULES:  # `python -m orchestrator.cli approvals approve`
                if not operators.looks_only(operators.MODULES[parsed.module.value], parsed.operands):
                    call.flag(cat.GATE_TAMPER)
            elif parsed.module.value.split(".", 1)[0] in clis.tables():  # `python -m twine upload`
                call.invoke([Word(parsed.module.value.split(".", 1)[0]), *parsed.operands])
            else:
                note_arguments(call, parsed.operands)
                if "." in parsed.module.value:  # the project's own module (`python -m app.jobs.rebuild --drop`)
                    lexicon.judge_launched(call, parsed.operands, parsed.module.value.replace(".", "/"))
            return OPAQUE
        operands = parsed.operands
        if not parsed.code and operands and operands[0].value.rsplit("/", 1)[-1] in _TASK_SCRIPTS:
            # `python manage.py flush`, `php artisan migrate:fresh`: the framework's own task table judges it
            call.invoke([Word(operands[0].value.rsplit("/", 1)[-1]), *operands[1:]])
        if not parsed.code and not parsed.reads_stdin and operands:
            content = call.file_content(operands[0])
            if content is not None:
                _run_foreign(call, content, lang)
            if operands[0].value.rsplit("/", 1)[-1] not in _TASK_SCRIPTS:  # those have their own table
                lexicon.judge_launched(call, operands[1:], operands[0].value)  # `python3 tools/x.py purge --all`
            operands = operands[1:]
        elif not parsed.code:
            _run_foreign(call, call.stdin, lang)
        if parsed.in_place:
            for word in operands:
                call.write(word)
        else:
            note_arguments(call, operands)
        return OPAQUE

    return handle


_TASK_SCRIPTS = frozenset({"manage.py", "artisan", "console"})  # Django, Laravel, Symfony


def _run_foreign(call: Invocation, flow: Flow, lang: _Language) -> None:
    if flow.payload:
        call.flag(cat.REMOTE_CODE)
    if flow.script is not None:
        analyze_code(call, flow.script, lang)
    elif flow.opaque:
        call.flag(cat.DYNAMIC_COMMAND)


python = _interpreter(_PYTHON)
perl = _interpreter(_PERL)
ruby = _interpreter(_RUBY)
php = _interpreter(_PHP)
node = _interpreter(_NODE)


_JS_FILES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")
_DENO_VALUES = frozenset({"--config", "-c", "--import-map", "--lock", "--cert", "--location", "--seed",
                          "--v8-flags", "--inspect", "--env-file", "-L", "--log-level", "--ext"})


def js_runtime(handler: Handler) -> Handler:
    """bun and deno are JavaScript interpreters as well as package managers: `bun -e CODE`, `deno eval CODE`,
    `bun x.ts`, `bun run scripts/x.ts`, `deno run -A x.ts` read their code like `node -e` and `node x.js`;
    the rest (`bun run build`, `deno task x`, installs) goes to ``handler``."""
    def handle(call: Invocation) -> Flow:
        args = call.args
        words = [w.value for w in args]
        code: Word | None = None
        if call.name == "bun" and words[:1] and words[0] in ("-e", "--eval", "-p", "--print") and len(args) > 1:
            code = args[1]
        elif call.name == "deno" and words[:1] == ["eval"]:
            code = next((w for w in args[1:] if not w.value.startswith("-")), None)
        if code is not None:
            analyze_code(call, code.value, _NODE)
            return OPAQUE
        i = 1 if words[:1] == ["run"] else 0
        while i < len(args) and args[i].value.startswith("-"):
            i += 2 if args[i].value in _DENO_VALUES else 1
        script = args[i] if i < len(args) else None
        if script is not None and script.value.endswith(_JS_FILES) and "://" not in script.value:
            content = call.file_content(script)
            if content is not None:
                _run_foreign(call, content, _NODE)
            lexicon.judge_launched(call, args[i + 1:], script.value)
            note_arguments(call, args[i + 1:])
            return OPAQUE
        return handler(call)

    return handle
