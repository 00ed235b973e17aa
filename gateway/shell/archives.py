"""Archivers: what `tar`, `cpio`, `zip` and `unzip` read, write, delete and run.

Creating an archive reads its members (and `--remove-files`/`zip -m` deletes them); extracting writes where
it lands (`-C`, `--transform`, absolute names with `-P`); `--to-command`, `--checkpoint-action=exec=`,
`--rsh-command`, `zip -TT` run commands.
"""

from __future__ import annotations

import posixpath
import re

from gateway.shell.flow import EMPTY, LOCAL_DATA, OPAQUE, Flow
from gateway.shell.generic import EMBEDDED_PATH
from gateway.shell.invocation import Invocation
from gateway.shell.options import scan, short_letters, spec
from gateway.shell.words import Word

_TAR = spec("fCTXbgKLNVHI", ["--file", "--directory", "--files-from", "--exclude-from", "--blocking-factor",
                            "--listed-incremental", "--starting-file", "--tape-length", "--newer",
                            "--label", "--format", "--use-compress-program", "--to-command",
                            "--checkpoint-action", "--exclude", "--transform", "--owner", "--group",
                            "--mode", "--mtime", "--xform", "--rsh-command"])


def tar(call: Invocation) -> Flow:
    args = list(call.args)
    # Old-style bundled options: `tar czf out.tgz src/`.
    if args and args[0].literal and re.fullmatch(r"[A-Za-z]+", args[0].value):
        args[0] = Word("-" + args[0].value)
    options = scan(args, _TAR)
    letters = "".join(name[1] for name, _ in options.flags if len(name) == 2)
    long_names = {name for name, _ in options.flags}
    for word in options.values("--to-command", "-I", "--use-compress-program", "--rsh-command"):
        call.run_script(word.value)
    for word in options.values("--checkpoint-action"):
        if word.value.startswith("exec="):
            call.run_script(word.value[len("exec="):])
    for word in options.values("-T", "--files-from", "-X", "--exclude-from"):
        call.read(word)
    archive = options.value("-f", "--file")
    to_stdio = archive is None or archive.value == "-"
    if any(c in letters for c in "cru") or long_names & {"--create", "--append", "--update"}:
        directory = options.value("-C", "--directory")
        for word in options.operands:
            call.read(word)
            if "--remove-files" in long_names:  # the sources are deleted once archived
                call.delete(_under(directory, word), True)
        if not to_stdio and archive is not None:
            call.write(archive)
        return LOCAL_DATA if to_stdio else EMPTY
    if archive is not None and not to_stdio:
        call.read(archive)
    if "x" in letters or long_names & {"--extract", "--get"}:
        directory = options.value("-C", "--directory")
        call.write(directory if directory is not None else Word("."))
        for word in options.values("--transform", "--xform"):
            for match in EMBEDDED_PATH.finditer(word.value.replace("@", " ")):
                call.write(Word(match.group(1)))  # `--xform s@.*@/etc/cron.d/x@`: where members land
        if "P" in letters or "--absolute-names" in long_names:
            call.write(Word("/"))  # members keep their absolute names: anything may be overwritten
    return OPAQUE


def _under(directory: Word | None, word: Word) -> Word:
    """``word`` as named relative to `tar -C DIR` (an absolute word stays as it is)."""
    if directory is None or word.value.startswith("/") or not directory.exact:
        return word
    return Word(posixpath.join(directory.value, word.value))


def cpio(call: Invocation) -> Flow:
    """cpio -o / -p read the files named on stdin; -p copies them into its operand; -i extracts."""
    options = scan(call.args, spec("FOIHMREC", ["--file", "--format", "--pattern-file", "--owner",
                                                "--message", "--rsh-command", "--directory"]))
    letters = "".join(name[1:] for name, _ in options.flags if not name.startswith("--"))
    long_names = {name for name, _ in options.flags}
    archive = options.value("-F", "-O", "-I", "--file")
    for word in options.values("--rsh-command"):
        call.run_script(word.value)  # run to reach a `host:` archive
    if "o" in letters or "p" in letters or long_names & {"--create", "--pass-through"}:
        names = call.stdin.script
        if names is not None:
            for line in names.splitlines()[:1024]:
                if line.strip():
                    call.read(Word(line.strip()))
        elif call.stdin.listing is not None or call.stdin.opaque:
            call.read(Word("."))  # `find . | cpio -o`: names we cannot list
    if "p" in letters or "--pass-through" in long_names:
        for word in options.operands[:1]:
            call.write(word)
        return EMPTY
    if "i" in letters or "--extract" in long_names:
        if archive is not None:
            call.read(archive)
        call.write(Word("/") if "--absolute-filenames" in long_names else Word("."))
        return EMPTY
    if archive is not None:
        call.write(archive)
        return EMPTY
    return LOCAL_DATA


def zip_(call: Invocation) -> Flow:
    args = list(call.args)
    for i, word in enumerate(args):
        name, eq, _ = word.value.partition("=")
        if name in ("-TT", "--unzip-command"):
            command = word.tail(len(name) + 1) if eq else args[i + 1] if i + 1 < len(args) else None
            if command is not None:
                call.run_script(command.value)  # the command zip runs to test the archive
                args = args[:i] + args[i + (1 if eq else 2):]
            break
    options = scan(args, spec("bnxitO", ["--temp-path", "--suffixes", "--exclude", "--include"]))
    operands = options.operands
    if not operands:
        return EMPTY
    archive, members = operands[0], operands[1:]
    moves = "m" in short_letters(options) or options.has("--move")
    for word in members:
        call.read(word)
        if moves:  # `zip -m`: the members are deleted once stored
            call.delete(word, "r" in short_letters(options) or options.has("--recurse-paths"))
    if archive.value == "-":
        return LOCAL_DATA
    call.write(archive)
    return EMPTY


def unzip(call: Invocation) -> Flow:
    options = scan(call.args, spec("dxP"))
    operands = options.operands
    if operands:
        call.read(operands[0])
    if options.has("-l", "-t", "-v", "-Z"):
        return OPAQUE
    if options.has("-p", "-c"):
        return LOCAL_DATA
    directory = options.value("-d")
    call.write(directory if directory is not None else Word("."))
    return EMPTY


# -- data producers --------------------------------------------------------------------------------
