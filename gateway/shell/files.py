"""File-system commands: deleting, copying, moving, creating, writing and navigating."""

from __future__ import annotations

import posixpath
import re

from gateway import patches
from gateway.paths import HOME, resolve
from gateway.shell import categories as cat
from gateway.shell import exhaustion
from gateway.shell.flow import EMPTY, LOCAL_DATA, OPAQUE, Flow
from gateway.shell.invocation import Invocation
from gateway.shell.options import scan, short_letters, spec
from gateway.shell.targets import Target, in_git_dir
from gateway.shell.words import Word, basename, literal_word, locate

_RM = spec(flags=["--recursive", "--force", "--dir", "--no-preserve-root", "--preserve-root",
                  "--one-file-system", "--interactive", "--verbose"])


def rm(call: Invocation) -> Flow:
    options = scan(call.args, _RM)
    letters = short_letters(options)
    recursive = "r" in letters or "R" in letters or options.has("--recursive")
    for word in options.operands:
        call.delete(word, recursive)
    return EMPTY


def rmdir(call: Invocation) -> Flow:
    """rmdir removes only empty directories: no data can go, whatever it is pointed at (`find . -type d |
    xargs rmdir`). It still writes where it removes (a file scope holds), and a system directory is a
    system write."""
    for word in scan(call.args, spec()).operands:
        call.write(word, directory=True)
    return EMPTY


def unlink(call: Invocation) -> Flow:
    for word in scan(call.args, spec()).operands:
        call.delete(word, False)
    return EMPTY


_SHRED = spec("ns", ["--iterations", "--size", "--random-source", "--remove"])


def shred(call: Invocation) -> Flow:
    # Overwriting destroys the content whether or not -u also unlinks the file.
    for word in scan(call.args, _SHRED).operands:
        call.delete(word, False)
    return EMPTY


_TRUNCATE = spec("sr", ["--size", "--reference"])
_ZERO_SIZE = re.compile(r"0+(?:[KMGTPEZY](?:i?B)?|B)?", re.IGNORECASE)


def truncate(call: Invocation) -> Flow:
    options = scan(call.args, _TRUNCATE)
    size = options.value("-s", "--size")
    emptied = size is not None and bool(_ZERO_SIZE.fullmatch(size.value))
    exhaustion.truncate_size(call, size.value if size is not None else None)
    for word in options.values("-r", "--reference"):
        call.read(word)
    for word in options.operands:
        call.write(word)
        if emptied:
            call.delete(word, False)
    return EMPTY


_MV_CP = spec("tS", ["--target-directory", "--suffix", "--backup", "--reflink", "--sparse",
                     "--preserve", "--no-preserve", "--context"])


# A program's path looked up by name: `$(which rm)`, `$(command -v sqlcmd)`, `` `type -P psql` ``.
_LOOKUP = re.compile(r"\$\((?:which|command\s+-v|type\s+-[Pp]|whereis\s+-b)\s+([\w.+-]+)\s*\)"
                     r"|`(?:which|command\s+-v|type\s+-[Pp])\s+([\w.+-]+)\s*`")
_BIN_DIRS = ("/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/local/bin/", "/usr/local/sbin/", "/snap/bin/")


def remember_copies(call: Invocation, sources: list[Word], destination: Word | None, into_dir: bool) -> None:
    """`cp /bin/rm ./x`, `ln -s /bin/rm /tmp/del`, `install /usr/bin/rm ./cleanup`: the new name runs the same
    program. Remembered so that running it is judged as the original command (a rename is no way around
    the analysis)."""
    if destination is None or not destination.exact:
        return
    for word in sources:
        looked_up = _LOOKUP.fullmatch(word.value)  # `ln -s "$(command -v sqlcmd)" ./q`
        if looked_up is not None:
            original = looked_up.group(1) or looked_up.group(2)
        elif word.exact and word.value.startswith(_BIN_DIRS):
            original = basename(word.value)
        else:
            continue
        target = resolve(destination.value, call.scope.cwd, call.facts.home)
        if into_dir or destination.value.endswith("/"):
            target = target.rstrip("/") + "/" + original
        call.scope.renamed[target] = original
        call.scope.renamed[basename(target)] = original  # reachable by name if its directory is on PATH


def _sources_and_destination(call: Invocation) -> tuple[list[Word], Word | None]:
    options = scan(call.args, _MV_CP)
    target_dir = options.value("-t", "--target-directory")
    if target_dir is not None:
        return options.operands, target_dir
    if len(options.operands) < 2:
        return options.operands, None
    return options.operands[:-1], options.operands[-1]


def mv(call: Invocation) -> Flow:
    sources, destination = _sources_and_destination(call)
    home_to_home = False
    if destination is not None:
        path = call.write(destination)
        if path == "/dev/null":
            call.flag(cat.DESTRUCTIVE_DELETE)
        home_to_home = path is not None and call.facts.record(path).path_class == HOME
    # Moving something away deletes it from where it was — except a file moved within the user's home
    # (`mv ~/Desktop/x ~/Documents/`): nothing is lost. The home itself, a directory holding the
    # workspace, or a repository's .git moved anywhere is still a delete.
    for word in sources:
        if home_to_home and _relocates_within_home(call, word):
            call.read(word)  # recorded, and a secret moved around is still credential access
        else:
            call.delete(word, False)
    remember_copies(call, sources, destination, len(sources) > 1)
    return EMPTY


def _relocates_within_home(call: Invocation, word: Word) -> bool:
    if not word.exact:
        return False
    path = call.inspect(word)
    if path is None:
        return False
    fact = call.facts.record(path)
    return (fact.path_class == HOME and path != call.facts.home and not fact.contains_workspace
            and not in_git_dir(path) and not path.endswith("/.git"))


def cp(call: Invocation) -> Flow:
    sources, destination = _sources_and_destination(call)
    for word in sources:
        call.read(word)
    if destination is not None:
        call.write(destination)
    remember_copies(call, sources, destination, len(sources) > 1)
    return EMPTY


_INSTALL = spec("mogtSZ", ["--mode", "--owner", "--group", "--target-directory", "--suffix"])


def install(call: Invocation) -> Flow:
    options = scan(call.args, _INSTALL)
    if options.has("-d", "--directory"):
        for word in options.operands:
            call.write(word)
        return EMPTY
    target_dir = options.value("-t", "--target-directory")
    sources = options.operands if target_dir is not None else options.operands[:-1]
    destination = target_dir if target_dir is not None else (options.operands[-1] if options.operands else None)
    for word in sources:
        call.read(word)
    if destination is not None:
        call.write(destination)
    remember_copies(call, sources, destination, target_dir is not None)
    return EMPTY


_LN = spec("tS", ["--target-directory", "--suffix"])


def ln(call: Invocation) -> Flow:
    options = scan(call.args, _LN)
    operands = options.operands
    target_dir = options.value("-t", "--target-directory")
    if target_dir is not None:
        links: list[Word] = [target_dir]
        targets = operands
    elif len(operands) == 1:
        links = [literal_word(basename(operands[0].value))]
        targets = operands
    else:
        links = operands[-1:]
        targets = operands[:-1]
    # A link to a secret is a way to read it under an innocent name.
    for word in targets:
        call.read(word)
    for word in links:
        call.write(word)
    remember_copies(call, targets, links[0] if links else None, target_dir is not None)
    return EMPTY


_TOUCH = spec("drt", ["--date", "--reference", "--time"])


def touch(call: Invocation) -> Flow:
    options = scan(call.args, _TOUCH)
    for word in options.values("-r", "--reference"):
        call.read(word)
    for word in options.operands:
        call.write(word)
    return EMPTY


_MKDIR = spec("m", ["--mode", "--context"])


def mkdir(call: Invocation) -> Flow:
    for word in scan(call.args, _MKDIR).operands:
        call.write(word, directory=True)
    return EMPTY


def tee(call: Invocation) -> Flow:
    for word in scan(call.args, spec(long=["--output-error"])).operands:
        call.write(word)
        path = locate(word, call.scope.cwd, call.scope.cwd_known, call.facts.home)
        if path is not None and call.stdin is not EMPTY:
            call.facts.keeps(call.scope, path, call.stdin)
    return call.stdin


def apply_patch(call: Invocation) -> Flow:
    """Codex's patch tool run as a program (`apply_patch <<'EOF' … EOF`, or the patch as its argument): each
    file it adds, changes, moves or deletes is written (docs/clis.md#codex-cli). A patch that cannot be read
    here writes somewhere unknown."""
    given = call.args[0] if call.args else None
    text = (given.value if given.literal else None) if given is not None else call.stdin.script
    changes = patches.parse(text) if text is not None else None
    if changes is None:
        call.facts.writes_somewhere(None)
        return EMPTY
    for change in changes:
        for path in change.paths:
            call.write(literal_word(path))
    return EMPTY


def dd(call: Invocation) -> Flow:
    exhaustion.dd_size(call)
    out: Flow = call.stdin
    wrote = False
    for word in call.args:
        key, eq, _ = word.value.partition("=")
        if not eq:
            continue
        value = word.tail(len(key) + 1)
        if key == "if":
            path = call.read(value)
            out = call.scope.files.get(path, LOCAL_DATA) if path is not None else LOCAL_DATA
        elif key == "of":
            call.write(value)
            wrote = True
    return EMPTY if wrote else out


def cd(call: Invocation) -> Flow:
    options = scan(call.args, spec())
    scope = call.scope
    if not options.operands:
        scope.change_dir(resolve("~", scope.cwd, call.facts.home) if call.facts.home else None)
    elif options.operands[0].value == "-" or not options.operands[0].exact:
        scope.change_dir(None)
    else:
        scope.change_dir(call.inspect(options.operands[0]))
    return EMPTY


def popd(call: Invocation) -> Flow:
    call.scope.change_dir(None)  # the directory stack is not tracked
    return EMPTY


def inspect_operands(call: Invocation) -> Flow:
    """ls, stat, du, …: look at paths without reading their content."""
    for word in call.args:
        if not word.value.startswith("-"):
            call.inspect(word)
    return OPAQUE


def file_(call: Invocation) -> Flow:
    """file(1): looks at its operands, but reads the name list of -f and the magic file of -m."""
    options = scan(call.args, spec("fmFeP", ["--files-from", "--magic-file", "--separator", "--exclude",
                                             "--parameter"]))
    for word in options.values("-f", "--files-from", "-m", "--magic-file"):
        call.read(word)
    for word in options.operands:
        call.inspect(word)
    return OPAQUE


def path_text(call: Invocation) -> Flow:
    """dirname, basename, realpath, readlink -f, pwd: what they print is known when their operand is, so
    `cd "$(dirname "$0")/.."` moves somewhere known (the walker substitutes known output)."""
    operands = [w for w in call.args if not w.value.startswith("-")]
    for word in operands:
        call.inspect(word)
    scope = call.scope
    if call.name == "pwd":
        return Flow(script=scope.cwd) if scope.cwd_known and scope.cwd else OPAQUE
    if len(operands) != 1 or not operands[0].exact:
        return OPAQUE
    value = operands[0].value
    if call.name == "dirname":
        return Flow(script=posixpath.dirname(value.rstrip("/")) or ("/" if value.startswith("/") else "."))
    if call.name == "basename":
        return Flow(script=basename(value))
    if not scope.cwd_known and not value.startswith("/"):
        return OPAQUE
    return Flow(script=resolve(value, scope.cwd, call.facts.home))  # realpath, readlink -f


def mktemp(call: Invocation) -> Flow:
    """mktemp prints the name of a new file or directory under TMPDIR (or -p/--tmpdir DIR, or the
    template's directory): deleting it later (`trap 'rm -rf "$tmp"' EXIT`) is cleaning up, not destroying."""
    options = scan(call.args, spec("pt", ["--tmpdir", "--suffix"]))
    directory = options.value("-p", "--tmpdir")
    template = options.operands[0].value if options.operands else ""
    if directory is not None and directory.exact:
        base = directory.value
    elif "/" in template:
        base = posixpath.dirname(template)
    else:
        base = call.scope.vars.get("TMPDIR") or "/tmp"  # noqa: S108 - where mktemp puts it, not a file we use
    if not base.startswith("/") and not call.scope.cwd_known:
        return OPAQUE
    path = posixpath.join(resolve(base, call.scope.cwd, call.facts.home), "tmp.mktemp")
    return Flow(listing=Target(path), script=path)
