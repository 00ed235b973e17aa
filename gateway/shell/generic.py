"""What we assume about commands we know nothing specific about.

Their arguments are data, except those that look like paths (contain `/`, start with `~` or `.`),
which are recorded as read so a secret passed to any program is still noticed, and URLs, whose
hosts are recorded as contacted.

One thing an unknown program is never trusted with: a shell. Handed one as an operand or an option
value (`aa-exec /bin/sh`, `dhclient -sf /bin/sh`, `--on-download-complete=/bin/sh`), it will run it, so
the shell and what follows are analysed as the command they are — an interactive shell is
``dynamic_command`` (docs/rules.md: what it runs next is unknowable). A shell named inside a larger argument
(`-c 'spawn /bin/sh;interact'`, `ProxyCommand /bin/sh -i`) is a command the program runs that cannot be
known: ``dynamic_command`` too.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gateway.credentials import holds_secrets, is_agent_settings
from gateway.persistence import is_persistence_path
from gateway.shell import categories as cat
from gateway.shell import hosts as hostnames
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.invocation import Invocation
from gateway.shell.targets import is_device
from gateway.shell.words import Word


def looks_like_path(word: Word) -> bool:
    value = word.value
    if not value or value[0] == "-" or (not word.literal and word.wild == 0):
        return False
    if "://" in value or any(c in value for c in " \t\n"):
        return False
    if not ("/" in value or value[0] in "~."):
        return False
    colon = value.find(":")
    # `host:path` and `user@host:path` are remote specs, not local paths.
    return not (colon > 0 and "/" not in value[:colon] and hostnames.remote_spec_host(value))


# Paths named inside a larger argument: `--extra-opts=@/etc/shadow`, `file:///etc/shadow`,
# `-C 'Include /etc/shadow'`, `-o APT::Pre-Invoke=/x`. Only reading is assumed, so this only ever
# notices secrets (and records the path); it never turns data into a delete or a write.
EMBEDDED_PATH = re.compile(r"(?:^|[\s=@:,'\"({])(?:file://)?((?:~|/)[\w.~/+-]+)")


def note_arguments(call: Invocation, args: list[Word]) -> None:
    """Record path-like arguments (and `--opt=PATH` values, and paths inside arguments) as read, URL hosts
    as contacted. A location that runs code later (a crontab, an rc file, a git hook) or an agent's
    settings is taken as written: a program we know nothing about may well write what it is given
    (`logrotate -l FILE`, `nmap -oG=FILE`, `tsc --outFile FILE`), and no ordinary task hands such a
    path to an unknown program."""
    for word in args:
        value = word.value
        for host in hostnames.url_hosts(value):
            call.host(host)
        if looks_like_path(word):
            _note_path(call, word)
        elif value.startswith("-") and "=" in value:
            tail = word.tail(value.index("=") + 1)
            if looks_like_path(tail):
                _note_path(call, tail)
        if word.literal and ("/" in value) and len(value) <= 4096:
            for match in EMBEDDED_PATH.finditer(value):
                if match.group(1) != value:
                    _note_path(call, Word(match.group(1)))


def noting(handler: Callable[[Invocation], Flow]) -> Callable[[Invocation], Flow]:
    """``handler``, then the paths and hosts the arguments name, as for any program (:func:`note_arguments`):
    for handlers that judge a command's meaning and leave its paths to the common accounting."""
    def handle(call: Invocation) -> Flow:
        flow = handler(call)
        note_arguments(call, call.args)
        return flow

    return handle


def _note_path(call: Invocation, word: Word) -> None:
    path = call.read(word)
    if path is None:
        return
    home = call.facts.home
    if is_persistence_path(path, home) or is_agent_settings(path):
        call.write(word)
    elif holds_secrets(path, home):
        # `pyright -w /etc`, `tool ~`: an unknown program given a directory may well read all of it.
        call.flag(cat.CREDENTIAL_ACCESS)


# Shells whose scripts are (close enough to) bash: `interpreters.shell` analyses what they run.
BASH_LIKE_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "rbash", "yash", "tcsh",
                              "csh", "posh", "sash", "oksh", "loksh", "lksh", "pdksh", "hush", "bosh", "jsh", "ksh93"})
# Shells with a language of their own: `foreign` treats their code as unreadable.
SHELLS = BASH_LIKE_SHELLS | {"nu", "pwsh", "powershell", "busybox", "elvish", "xonsh", "rc", "es", "scsh"}
# A shell's path inside a larger argument: `spawn /bin/sh;interact`, `ProxyCommand /bin/sh -i`, `/bin/sh,-s`.
SHELL_INSIDE = re.compile(
    r"(?:^|[\s;'\"=(,|&!:])/(?:usr/)?(?:local/)?bin/(?:ba|da|z|k|mk|c|tc|fi|a|y)?sh(?:$|[\s;'\"),|&])")


def shebang(text: str | None) -> str | None:
    """The interpreter a script's `#!` line names (`#!/usr/bin/env -S python3 -u` → `python3`), or None."""
    if not text or not text.startswith("#!"):
        return None
    words = text[2:].split("\n", 1)[0].split()
    if words and words[0].rsplit("/", 1)[-1] == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return words[0].rsplit("/", 1)[-1] if words else None


def is_shell(value: str) -> bool:
    """A shell given by absolute path (`/bin/sh`) or bare name (`bash`)."""
    return value.rsplit("/", 1)[-1] in SHELLS and (value.startswith("/") or "/" not in value)


def default_handler(call: Invocation) -> Flow:
    args = call.args
    for i, word in enumerate(args):
        value = word.value
        # A bare first operand may be a subcommand (`pkg sh …`); a path or a later operand is a shell.
        if (i > 0 or value.startswith("/")) and word.exact and is_shell(value):
            note_arguments(call, args[:i])
            if i + 2 < len(args) and args[i + 1].value == "-c":
                return call.invoke(args[i:i + 3])  # `… /bin/sh -c 'cmd'`: the command is known
            # The words after it may be the program's own: the shell's input is unknowable.
            call.flag(cat.DYNAMIC_COMMAND)
            return OPAQUE
        if value.startswith("-") and "=" in value and is_shell(value.split("=", 1)[1]):
            call.flag(cat.DYNAMIC_COMMAND)  # --on-download-complete=/bin/sh: run by the program, unknowable
        elif SHELL_INSIDE.search(value) and not is_shell(value):
            call.flag(cat.DYNAMIC_COMMAND)
    _output_options(call, args)
    _images_device(call, args)
    note_arguments(call, args)
    return OPAQUE


# Programs that write an image onto a disk, and the subcommands that say so in any other (`bmaptool copy IMG
# /dev/sdb`, `balena local flash IMG --drive /dev/sdb`, `ddrescue SRC /dev/sdc`): the device named is written,
# as `dd of=/dev/sdb` writes it. Naming a device to read it (`smartctl -a /dev/sda`, `lsblk /dev/nvme0n1`) is not.
_IMAGERS = frozenset({"bmaptool", "etcher", "balena-etcher", "etcher-cli", "rpi-imager", "dcfldd", "dc3dd",
                      "ddrescue", "gddrescue", "partclone", "ntfsclone", "fsarchiver", "clonezilla", "usbimager"})
_IMAGE_VERBS = frozenset({"copy", "write", "flash", "burn", "image", "restore", "clone", "dd"})


def _images_device(call: Invocation, args: list[Word]) -> None:
    if call.name not in _IMAGERS and not any(w.value.lower() in _IMAGE_VERBS for w in args[:4] if w.literal):
        return
    for word in args[:32]:
        value = word.value.split("=", 1)[-1] if word.value.startswith("-") else word.value
        if word.literal and is_device(value):
            call.write(Word(value) if value != word.value else word)


# Options that name a file the program writes (`-o FILE`, `--output=FILE`, `--dump-bin FILE`, `--log-file`).
_OUTPUT_OPTIONS = frozenset({"-o", "--output", "--out", "--outfile", "--output-file", "--log-file", "--logfile",
                             "--dump-bin", "--save", "--write", "--target"})
# (`-w` is not among them: it is a working directory (`docker run -w /app`) or a wait time as often.)


def _output_options(call: Invocation, args: list[Word]) -> None:
    for i, word in enumerate(args):
        name, eq, rest = word.value.partition("=")
        if name in _OUTPUT_OPTIONS:
            target = word.tail(len(name) + 1) if eq and rest else args[i + 1] if i + 1 < len(args) else None
            if target is not None and looks_like_path(target):
                call.write(target)  # a system or persistence location is judged as any write there


def no_effect(call: Invocation) -> Flow:
    """Builtins and utilities that change nothing (true, sleep, date, pwd, …). Their path arguments are
    still read (`date -f /etc/shadow` prints the file's lines in its error messages)."""
    note_arguments(call, call.args)
    return OPAQUE
