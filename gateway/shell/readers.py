"""Commands that read files or stdin and write stdout: cat, grep, sed, awk, base64, tar, zip, echo, …

Their output carries local data when they read files, and passes stdin's nature through otherwise
(``curl … | tee x | sh`` still runs the download). Filters that transform their input turn a known
script into unknown content; decoders turn anything into a payload.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import re
from collections.abc import Sequence
from dataclasses import replace

from gateway.credentials import holds_secrets, is_secret_variable, mentions_secret
from gateway.shell import categories as cat
from gateway.shell.exhaustion import LARGE_BYTES, size_of
from gateway.shell.expansions import decode_ansi_c
from gateway.shell.flow import EMPTY, ENVIRONMENT, LOCAL_DATA, Flow
from gateway.shell.invocation import Handler, Invocation
from gateway.shell.options import Options, scan, spec
from gateway.shell.words import Word, join_words


def transformed(flow: Flow) -> Flow:
    """The input after a filter changed it: a known script becomes unknown text."""
    if flow.script is None:
        return flow
    return Flow(payload=flow.payload, local_data=flow.local_data, opaque=True, listing=flow.listing,
                secrets=flow.secrets, processes=flow.processes, unbounded=flow.unbounded, many=flow.many)


def _read_files(call: Invocation, words: Sequence[Word]) -> Flow | None:
    """Read each operand; the merged flow of their content, or None when only stdin is read."""
    flow: Flow | None = None
    for word in words:
        if word.value == "-":
            content = call.stdin
        elif word.subs:  # <(cmd), or a path built by one (`/proc/$(pgrep x)/environ`)
            if not word.value.startswith(("<(", ">(")):
                call.read(word)
            content = word.flow
        else:
            path = call.read(word)
            content = _ENDLESS if path in _ENDLESS_DEVICES else \
                call.scope.files.get(path, LOCAL_DATA) if path is not None else LOCAL_DATA
        flow = content if flow is None else flow.merge(content)
    return flow


_ENDLESS_DEVICES = frozenset({"/dev/zero", "/dev/urandom", "/dev/random"})
_ENDLESS = Flow(opaque=True, unbounded=True)


def reader(short_values: str = "", long_values: Sequence[str] = (), *, identity: bool = False,
           program_first: bool = False, program_options: Sequence[str] = (),
           file_options: Sequence[str] = (), decode_options: Sequence[str] = (),
           decode_letters: str = "", output_options: Sequence[str] = (), output_operand: int | None = None,
           recursive: Sequence[str] = ()) -> Handler:
    """A handler for a command whose operands are input files. ``output_options`` name a file written
    (`iconv -o F`); ``output_operand`` is the index of an operand that is written (`xxd IN OUT`);
    ``recursive`` flags make directory operands read whole (`diff -r`, `grep -r`)."""
    option_spec = spec(short_values, long_values)

    def handle(call: Invocation) -> Flow:
        options = scan(call.args, option_spec)
        operands = options.operands
        patterns = options.values(*program_options) or operands[:1] if program_first else []
        if program_first and not options.values(*program_options):
            operands = operands[1:]  # the pattern / program, not a file
        for word in options.values(*file_options):
            call.read(word)
        for word in options.values(*output_options):
            call.write(word)
        if output_operand is not None and len(operands) > output_operand:
            call.write(operands[output_operand])
            operands = operands[:output_operand]
        if recursive and any(name in recursive for name, _ in options.flags):
            _read_trees(call, operands, any(_SECRET_WORDS.search(p.value) for p in patterns))
        content = _read_files(call, operands)
        flow = content if content is not None else call.stdin
        if call.name == "head" and (flow.unbounded or flow.many):
            count = options.value("-c", "--bytes")
            if count is not None and (size_of(count.value.lstrip("-")) or 0) >= LARGE_BYTES:
                call.flag(cat.RESOURCE_EXHAUSTION)  # `head -c 100G /dev/zero > f`
            flow = replace(flow, unbounded=False, many=False)
        if _decodes(options, decode_options, decode_letters):
            return _decoded(flow)
        if flow.secrets and program_first and not _selects_secrets(call, options):
            flow = replace(flow, secrets=False)  # `env | grep PATH`: only the matching lines come out
        return flow if identity else transformed(flow)

    return handle


def _read_trees(call: Invocation, operands: Sequence[Word], seeks_secrets: bool = False) -> None:
    """A recursive read of a directory that holds the machine's or the user's secrets reads them; a recursive
    search for secrets (`grep -rn password /etc/mosquitto/`) anywhere but the workspace finds them."""
    for word in operands:
        path = call.inspect(word)
        if path is not None and (holds_secrets(path, call.facts.home) or (
                seeks_secrets and call.facts.record(path).path_class not in ("workspace", "temp"))):
            call.flag(cat.CREDENTIAL_ACCESS)


_SECRET_WORDS = re.compile(r"passw|secret|token|api_?key|private.?key|credential", re.I)


_MATCH_ALL = frozenset({"", ".", ".*", "^", "$", "=", "_", "[a-z]", "[A-Z]", "\\w"})
_SECRETISH = re.compile(r"key|token|secret|pass|cred|auth", re.I)


def _selects_secrets(call: Invocation, options: Options) -> bool:
    """The pattern of a selecting filter asks for secret variables (`env | grep -i token`), or it
    prints every line anyway (`grep -v`, an empty or match-all pattern)."""
    patterns = [w.value for w in options.values("-e", "--regexp")] or [
        w.value for w in options.operands[:1]]
    if options.has("-v", "--invert-match") or not patterns:
        return True
    return any(p in _MATCH_ALL or is_secret_variable(p.strip("^$=*.")) or _SECRETISH.search(p) for p in patterns)


def _decodes(options: Options, decode_options: Sequence[str], decode_letters: str) -> bool:
    if options.has(*decode_options):
        return True
    return any(len(name) == 2 and name[1] in decode_letters for name, _ in options.flags)


def _decoded(flow: Flow) -> Flow:
    # Decoding base64 text we can see lets the nested script be analyzed too.
    script: str | None = None
    if flow.script is not None:
        try:
            script = base64.b64decode("".join(flow.script.split()), validate=False).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            script = None
    return Flow(payload=True, local_data=flow.local_data, script=script)


cat_ = reader("", identity=True)
head_tail = reader("nc", ["--lines", "--bytes", "--pid", "--sleep-interval", "--max-unchanged-stats"])
plain_filter = reader("dfcbwtskn", ["--delimiter", "--fields", "--characters", "--bytes", "--width"])
base64_ = reader("w", ["--wrap"], decode_options=("--decode",), decode_letters="dD")
xxd = reader("cglsonC", ["--cols", "--groupsize", "--len", "--seek"], decode_letters="r", output_operand=1)
iconv = reader("fto", ["--from-code", "--to-code", "--output"], output_options=("-o", "--output"))
od = reader("AjNtw", ["--address-radix", "--skip-bytes", "--read-bytes", "--format", "--width"])
grep = reader("efmABCdD", ["--regexp", "--file", "--max-count", "--after-context", "--before-context",
                           "--context", "--devices", "--directories", "--binary-files", "--include",
                           "--exclude", "--exclude-dir", "--exclude-from", "--label", "--color"],
              program_first=True, program_options=("-e", "-f", "--regexp", "--file"),
              file_options=("-f", "--file", "--exclude-from"),
              recursive=("-r", "-R", "--recursive", "--dereference-recursive"))
ripgrep = reader("efgtTmABCjMrE", ["--regexp", "--file", "--glob", "--iglob", "--type", "--type-not",
                                   "--max-count", "--context", "--after-context", "--before-context",
                                   "--threads", "--max-columns", "--max-depth", "--replace", "--sort",
                                   "--sortr", "--type-add", "--encoding", "--engine", "--colors",
                                   "--path-separator", "--ignore-file", "--pre", "--pre-glob"],
                 program_first=True, program_options=("-e", "-f", "--regexp", "--file"),
                 file_options=("-f", "--file", "--ignore-file"))
silver = reader("GABCmp", ["--ignore", "--file-search-regex", "--after", "--before", "--context",
                           "--max-count", "--path-to-ignore", "--depth"], program_first=True)
jq = reader("fL", ["--from-file", "--indent", "--arg", "--argjson", "--slurpfile", "--rawfile"],
            program_first=True, program_options=("-f", "--from-file"), file_options=("-f", "--from-file"))
compressor = reader("bS", ["--suffix", "--blocksize"], identity=False)
diff = reader("UCxXIFL", ["--unified", "--context", "--exclude", "--exclude-from", "--ignore-matching-lines",
                          "--label", "--show-function-line", "--to-file", "--from-file"],
              recursive=("-r", "--recursive"))


def sort_(call: Invocation) -> Flow:
    options = scan(call.args, spec("kotSTz", ["--key", "--output", "--field-separator",
                                            "--buffer-size", "--temporary-directory", "--files0-from"]))
    for word in options.values("-o", "--output"):
        call.write(word)
    content = _read_files(call, options.operands)
    return transformed(content if content is not None else call.stdin)


def uniq(call: Invocation) -> Flow:
    options = scan(call.args, spec("fsw", ["--skip-fields", "--skip-chars", "--check-chars"]))
    operands = options.operands
    content = _read_files(call, operands[:1])
    for word in operands[1:2]:
        call.write(word)
    return transformed(content if content is not None else call.stdin)


_SED = spec("efl", ["--expression", "--file", "--line-length", "--in-place"])


def sed(call: Invocation) -> Flow:
    options = scan(call.args, _SED)
    in_place = options.has("--in-place") or any(name == "-i" for name, _ in options.flags)
    operands = list(options.operands)
    scripts = [w.value for w in options.values("-e", "--expression")]
    for word in options.values("-f", "--file"):
        content = call.file_content(word)
        if content is not None and content.script is not None:
            scripts.append(content.script)
    if not options.values("-e", "--expression", "-f", "--file"):
        scripts += [w.value for w in operands[:1]]
        operands = operands[1:]  # the script
    for script in scripts:
        _sed_commands(call, script)
    if in_place and operands and operands[0].value == "" and operands[0].literal:
        operands = operands[1:]  # BSD `sed -i '' …`
    return _edit_or_filter(call, operands, in_place)


# One sed command after its address: `w FILE`, `r FILE`, `e CMD` take the rest of the line; `s` may end in
# the `w FILE` or `e` flags.
_SED_ADDRESS = re.compile(r"\s*(?:(?:\d+|\$|/(?:[^/\\\n]|\\.)*/[IM]*|\\(.)(?:(?!\1).)*\1[IM]*)(?:~\d+)?"
                          r"(?:\s*,\s*(?:[+~]?\d+|\$|/(?:[^/\\\n]|\\.)*/[IM]*))?)?\s*!?\s*")


def _sed_commands(call: Invocation, script: str) -> None:
    """GNU sed's own ways to write files and run commands: `w`/`W FILE`, `s///w FILE`, `r`/`R FILE`, `e`."""
    i, n = 0, min(len(script), 1 << 16)
    while i < n:
        match = _SED_ADDRESS.match(script, i)
        i = match.end() if match else i
        if i >= n:
            break
        command = script[i]
        i += 1
        if command in "wWrReF":
            end = script.find("\n", i)
            end = n if end < 0 else end
            argument = script[i:end].strip()
            i = end + 1
            if command in "wW" and argument:
                call.write(Word(argument))
            elif command in "rR" and argument:
                call.read(Word(argument))
            elif command == "e":
                if argument:
                    call.run_script(argument)
                else:
                    call.flag(cat.DYNAMIC_COMMAND)  # runs each input line as a command
        elif command in "sy" and i < n:
            i = _sed_substitution(call, script, i, n, command)
        elif command in "aic":
            end = script.find("\n", i)
            i = n if end < 0 else end + 1  # text to the end of the line
        elif command in "bt:T":
            while i < n and script[i] not in ";\n":
                i += 1
        # other commands take no argument; separators and braces just move on


def _sed_substitution(call: Invocation, script: str, i: int, n: int, command: str) -> int:
    delimiter = script[i]
    i += 1
    for _ in range(2):  # pattern, replacement
        while i < n and script[i] != delimiter:
            i += 2 if script[i] == "\\" else 1
        i += 1
    if command == "y":
        return i
    flags_start = i
    while i < n and script[i] not in ";\n}":
        if script[i] == "w":
            end = script.find("\n", i)
            end = n if end < 0 else end
            target = script[i + 1:end].strip()
            if target:
                call.write(Word(target))
            return end + 1
        i += 1
    if "e" in script[flags_start:i]:
        call.flag(cat.DYNAMIC_COMMAND)  # the pattern space, after substitution, runs as a command
    return i


def _edit_or_filter(call: Invocation, operands: list[Word], in_place: bool) -> Flow:
    """An in-place edit writes its files; otherwise the command transforms its files or stdin."""
    if in_place:
        for word in operands:
            call.write(word)
        return EMPTY
    content = _read_files(call, operands)
    return transformed(content if content is not None else call.stdin)


_AWK = spec("Ffvi", ["--file", "--field-separator", "--assign", "--include"])
# system("rm -rf " $1 " /tmp"): the argument up to the closing parenthesis (one level of nesting)
_AWK_SYSTEM = re.compile(r"\bsystem\s*\(((?:\"(?:[^\"\\]|\\.)*\"|\([^()]*\)|[^()\"])*)\)")
_AWK_PIECE = re.compile(r'"((?:[^"\\]|\\.)*)"|([^"\s]+)')


def _awk_command_text(expression: str) -> str:
    """The shell text an awk string expression builds: its literal parts as written, each other part (a
    field, a variable, a call) as an unknown shell word — `"mc rm minio/" $1` is `mc rm minio/$1`."""
    return "".join(m.group(1) if m.group(1) is not None else "$X" for m in _AWK_PIECE.finditer(expression))


_AWK_STRING = r'"((?:[^"\\]|\\.)*)"'
_AWK_OUTPUT = re.compile(r"\bprintf?\b[^;}\n]*?(>>?|(?<!\|)\|(?!\|))\s*(?:" + _AWK_STRING + r"|([A-Za-z_(]))")
_AWK_COMMAND_GETLINE = re.compile(_AWK_STRING + r"\s*\|\s*getline")
_AWK_FILE_GETLINE = re.compile(r"\bgetline\b[^;}\n<]*<\s*" + _AWK_STRING)
_AWK_BUILT_SYSTEM = re.compile(r"\bsystem\s*\(\s*[^\s\")]")


def _awk_io(call: Invocation, program: str) -> None:
    """awk's own redirections: `print > "FILE"` writes, `print | "CMD"` and `"CMD" | getline` run CMD,
    `getline < "FILE"` reads; a target built at run time is unknowable."""
    program = program[: 1 << 16]
    for match in _AWK_OUTPUT.finditer(program):
        operator, literal = match.group(1), match.group(2)
        if literal is None:
            if operator == "|":
                call.flag(cat.DYNAMIC_COMMAND)  # `print | cmd`: a command built at run time
            # `print > $1".txt"`: a file named by the data, relative like the rest of the job
        elif operator == "|":
            call.run_script(literal)
        else:
            call.write(Word(literal))
    for match in _AWK_COMMAND_GETLINE.finditer(program):
        call.run_script(match.group(1))
    for match in _AWK_FILE_GETLINE.finditer(program):
        call.read(Word(match.group(1)))
    if _AWK_BUILT_SYSTEM.search(program):
        call.flag(cat.DYNAMIC_COMMAND)  # system(cmd) with a command built at run time


def awk(call: Invocation) -> Flow:
    options = scan(call.args, _AWK)
    operands = list(options.operands)
    for word in options.values("-f", "--file"):
        call.read(word)
    if not options.values("-f", "--file") and operands:
        program = operands.pop(0).value
        if "/inet/tcp/" in program or "/inet/udp/" in program:
            call.flag(cat.REVERSE_SHELL)
        for match in _AWK_SYSTEM.finditer(program):
            call.run_script(_awk_command_text(match.group(1)))
        _awk_io(call, program)
    in_place = any(v.value == "inplace" for v in options.values("-i", "--include"))
    operands = [w for w in operands if "=" not in w.value or w.value.startswith(("/", "."))]
    return _edit_or_filter(call, operands, in_place)


# -- archives ------------------------------------------------------------------------------------

def echo(call: Invocation) -> Flow:
    args = list(call.args)
    escapes = False
    while args and re.fullmatch(r"-[neE]+", args[0].value):
        escapes = escapes or "e" in args[0].value
        args.pop(0)
    text = join_words(args)
    if mentions_secret(text.value):
        call.flag(cat.CREDENTIAL_ACCESS)  # `echo $AWS_SECRET_ACCESS_KEY`: the secret ends up in the transcript
    value = decode_ansi_c(text.value) if escapes else text.value
    return Flow(script=value).merge(text.flow)


def _tr_set(spec_text: str) -> str | None:
    """A `tr` set with ranges expanded (`a-z`), or None for classes and escapes we do not model."""
    if "[" in spec_text or "\\" in spec_text:
        return None
    out: list[str] = []
    i = 0
    while i < len(spec_text):
        if i + 2 < len(spec_text) and spec_text[i + 1] == "-":
            lo, hi = ord(spec_text[i]), ord(spec_text[i + 2])
            if hi < lo or hi - lo > 256:
                return None
            out.extend(chr(c) for c in range(lo, hi + 1))
            i += 3
        else:
            out.append(spec_text[i])
            i += 1
    return "".join(out)


def tr(call: Invocation) -> Flow:
    """`tr SET1 SET2`: a decoder (rot13 and friends). Its output executed is a decoded payload; when the
    input and the sets are visible, the decoded text is what gets analysed."""
    operands = [w for w in call.args if not w.value.startswith("-")]
    flags = "".join(w.value[1:] for w in call.args if w.value.startswith("-") and not w.value.startswith("--"))
    stdin = call.stdin
    script: str | None = None
    if stdin.script is not None and len(operands) == 2 and not flags:
        source, target = _tr_set(operands[0].value), _tr_set(operands[1].value)
        if source and target:
            target = target + target[-1] * max(0, len(source) - len(target))
            script = stdin.script.translate(str.maketrans(source, target[:len(source)]))
    elif stdin.script is not None and len(operands) == 1 and flags == "d":
        removed = _tr_set(operands[0].value)
        if removed:
            script = stdin.script.translate({ord(c): None for c in removed})
    return Flow(payload=True, local_data=stdin.local_data, script=script, secrets=stdin.secrets)


def rev(call: Invocation) -> Flow:
    """`rev`: reverses each line — a decoder like `tr`."""
    content = _read_files(call, [w for w in call.args if not w.value.startswith("-")])
    flow = content if content is not None else call.stdin
    script = "\n".join(line[::-1] for line in flow.script.splitlines()) if flow.script is not None else None
    return Flow(payload=True, local_data=flow.local_data, script=script, secrets=flow.secrets)


def printf(call: Invocation) -> Flow:
    args = list(call.args)
    if len(args) >= 2 and args[0].value == "-v":
        return EMPTY  # assigns a variable, prints nothing
    if args and args[0].value == "--":
        args.pop(0)
    if not args:
        return EMPTY
    fmt, values = args[0], args[1:]
    merged = join_words(args)
    if mentions_secret(merged.value):
        call.flag(cat.CREDENTIAL_ACCESS)
    if "%b" in fmt.value:
        # `%b` decodes escapes in its argument (`\x72\x6d` is `rm`): a decoder, and we decode it too.
        decoded = "\n".join(decode_ansi_c(w.value) for w in values)
        return Flow(payload=True, script=decoded).merge(merged.flow)
    escaped = "\\x" in fmt.value or "\\0" in fmt.value or bool(re.search(r"\\[0-7]{3}", fmt.value))
    script = _formatted(fmt.value, [w.value for w in values]) if "%" in fmt.value else decode_ansi_c(fmt.value)
    return Flow(payload=escaped, script=script).merge(merged.flow)


_SPEC = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?[sdiqc]")


def _formatted(fmt: str, values: list[str]) -> str:
    """What printf prints for a format of plain `%s`/`%d` conversions, reused until the values run out
    (`printf '%s ' git push` prints `git push `); other formats print the values one per line."""
    pieces = _SPEC.split(fmt.replace("%%", "\0"))
    count = len(pieces) - 1
    if count == 0 or "%" in "".join(pieces):
        return "\n".join(values)
    out = []
    for start in range(0, max(len(values), 1), count):
        chunk = values[start:start + count] + [""] * max(0, start + count - len(values))
        out.append("".join(p + v for p, v in zip(pieces, [*chunk, ""], strict=False)))
        if len(out) > 256:
            break
    return decode_ansi_c("".join(out).replace("\0", "%"))


_READ = spec("adinNptu")


def read_builtin(call: Invocation) -> Flow:
    """`read VAR…`: the variables hold what arrives on stdin (`find … | while read f; do rm "$f"`)."""
    for word in scan(call.args, _READ).operands:
        call.scope.vars.pop(word.value, None)
        call.scope.flows[word.value] = call.stdin
    return EMPTY


def environment_dump(call: Invocation) -> Flow:
    """printenv: all of it (API keys included), or the named variables."""
    names = [w.value for w in call.args if not w.value.startswith("-")]
    if any(is_secret_variable(n) for n in names):
        call.flag(cat.CREDENTIAL_ACCESS)
    return ENVIRONMENT if not names else LOCAL_DATA


def compgen(call: Invocation) -> Flow:
    """`compgen -e` / `-v` / `-A variable` names every variable; a loop over them with `${!v}` prints their
    values: taken as the dump it leads to (commands, files and words it lists are harmless)."""
    values = [w.value for w in call.args]
    if any(v in ("-e", "-v") for v in values) or any(a == "-A" and b in ("variable", "export")
                                                      for a, b in itertools.pairwise(values)):
        return ENVIRONMENT
    return LOCAL_DATA


def set_builtin(call: Invocation) -> Flow:
    args = call.args
    if not args:
        return ENVIRONMENT  # prints every variable, secrets included
    for first, second in itertools.pairwise(args):
        if first.value == "+o" and second.value == "history":
            call.flag(cat.HISTORY_TAMPER)
    return EMPTY

