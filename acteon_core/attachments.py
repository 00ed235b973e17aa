"""The local files a shell command may run, read so the gateway judges them with the command.

A check of the command line alone is skipped by one extra step: write `cleanup.sh`, then run `bash
cleanup.sh` (or `./cleanup.sh`, `source`, `make clean`, `npm run clean`, `python3 tool.py`). So the
command hook reads the files a command could run — scripts named in it, and the manifests the build and
task runners it names load from their directory (Makefile, package.json, justfile, …) — and sends their
text beside the call (``files`` in the dispatch request, docs/rules.md#what-runs-is-judged). The gateway's
parser decides which of them actually run; the rest is never looked at.

Standard library only, bounded (files, bytes, words examined), and careful about what it reads: only
files that look like programs (a ``#!`` line, a script suffix, the executable bit, or a runner's manifest
name), so a command that merely names a key file never ships the key. A program too large to send is
sent as ``None``: the gateway cannot see it and treats running it as unknowable. A compiled program run by
its path (`./tool`, `/tmp/x/bin/tool`) is sent as :data:`BINARY`, never its bytes: the gateway cannot read
it, but it knows whether the run downloaded it (`curl -Lo tool URL`, then `./tool`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: the hook imports nothing it does not need at run time
    from collections.abc import Callable

MAX_FILES = 16
MAX_FILE_BYTES = 128 * 1024  # a program larger than this is sent as None (the request body stays < 1 MiB)
MAX_TOTAL_BYTES = 512 * 1024
MAX_WORDS = 512

SCRIPT_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh", ".fish", ".py", ".ipynb", ".js", ".mjs", ".cjs", ".ts", ".mts",
                   ".cts", ".rb", ".pl", ".php", ".mk", ".sql", ".exs", ".lua", ".jl", ".r", ".R", ".tcl", ".ps1",
                   ".groovy", ".kts", ".swift", ".go", ".cmake", ".sls", ".dart", ".nf", ".cwl", ".smk", ".do", ".m",
                   ".java", ".sas")
# Runner → the files it loads from its directory when none is named.
MANIFESTS: dict[str, tuple[str, ...]] = {
    "make": ("Makefile", "makefile", "GNUmakefile"),
    "gmake": ("GNUmakefile", "makefile", "Makefile"),
    "npm": ("package.json",),
    "pnpm": ("package.json",),
    "yarn": ("package.json",),
    "bun": ("package.json",),
    "just": ("justfile", "Justfile", ".justfile"),
    "task": ("Taskfile.yml", "Taskfile.yaml"),
    **dict.fromkeys(("invoke", "inv"), ("tasks.py",)),
    "composer": ("composer.json",),
    "deno": ("deno.json", "deno.jsonc"),
    "cargo": ("build.rs",),
    "cmake": ("CMakeLists.txt",),
    "sbt": ("build.sbt",),
    **dict.fromkeys(("gradle", "gradlew"), ("build.gradle.kts", "build.gradle", "settings.gradle.kts",
                                            "settings.gradle")),
    "fab": ("fabfile.py",),
    **dict.fromkeys(("honcho", "foreman", "overmind", "hivemind", "forego"), ("Procfile", "Procfile.dev")),
    **dict.fromkeys(("pre-commit", "prek"), (".pre-commit-config.yaml", ".pre-commit-config.yml")),
    "mise": ("mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".config/mise.toml"),
    "tilt": ("Tiltfile",),
    "tox": ("tox.ini",),
    "snakemake": ("Snakefile", "workflow/Snakefile", "snakefile"),
    "nextflow": ("main.nf",),
    "dvc": ("dvc.yaml",),
    "nox": ("noxfile.py",),
    **dict.fromkeys(("compose", "docker-compose", "podman-compose"), (
        "compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml", "compose.override.yaml",
        "compose.override.yml", "docker-compose.override.yml", "docker-compose.override.yaml")),
}
_SEPARATORS = ";&|()<>`$\"'\n"
# Sent in place of a compiled program's text. No text is ever equal to it: a file holding a NUL byte is
# never sent as text.
BINARY = "\x00binary"
# Compiled programs the system installed: never downloaded by an agent's run, so not worth a lookup.
_SYSTEM_PROGRAMS = ("/usr/", "/bin/", "/sbin/", "/lib", "/opt/", "/nix/", "/snap/")


def _words(command: str) -> list[str]:
    """Every word of the command, nested quoted strings split again (``bash -c "./x.sh"``)."""
    out: list[str] = []
    pending = [command]
    while pending and len(out) < MAX_WORDS:
        text = pending.pop()
        for ch in _SEPARATORS:
            text = text.replace(ch, " ")
        for word in text.split():
            if len(out) >= MAX_WORDS:
                break
            out.append(word)
            if "=" in word:
                out.append(word.split("=", 1)[1])  # --file=x.sh, VAR=./x
    return out


# Programs that run what they read on stdin: a file fed to one (`bash < steps.txt`, `cat steps.txt | sh`) is a
# program whatever its name.
_INTERPRETERS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox", "python", "python2",
                           "python3", "node", "deno", "bun", "ruby", "perl", "php", "pwsh", "powershell", "osascript",
                           "lua", "Rscript", "tclsh", "julia", "groovy", "scala", "jshell", "psql", "mysql", "sqlite3"})
# Names a file fed to an interpreter is still not sent under: what looks like a key or a secret.
_SECRET_MARKS = (".env", "secret", "credential", "token", "passw", "id_rsa", "id_ed25519", "id_ecdsa", ".pem", ".key",
                 ".p12", ".pfx", ".jks", ".kdbx", "keystore", "netrc", "npmrc", "pgpass")


def _fed_to_interpreter(command: str) -> set[str]:
    """Files an interpreter reads its program from on stdin: `INTERP … < FILE` and `cat FILE… | INTERP`."""
    fed: set[str] = set()
    for line in command.replace("&&", "\n").replace("||", "\n").replace(";", "\n").splitlines():
        stages = line.split("|")
        for i, stage in enumerate(stages):
            words = stage.replace("<<", " \0 ").replace("<(", " \0 ").replace("<", " < ").split()
            names = [w.rsplit("/", 1)[-1].strip("'\"") for w in words if w not in ("sudo", "env", "exec", "command")]
            if names and names[0] in _INTERPRETERS:
                fed.update(words[j + 1].strip("'\"") for j, w in enumerate(words[:-1]) if w == "<")
            following = stages[i + 1].split() if i + 1 < len(stages) else []
            following = [w for w in following if w not in ("sudo", "env", "exec", "command")]
            if names[:1] == ["cat"] and following and following[0].rsplit("/", 1)[-1] in _INTERPRETERS:
                fed.update(w.strip("'\"") for w in words[1:] if not w.startswith("-"))
    return {f for f in fed if f and not any(m in f.rsplit("/", 1)[-1].lower() for m in _SECRET_MARKS)}


def _join(directory: str, name: str) -> str:
    """``name`` resolved against ``directory``, `.` and `..` folded (posixpath costs the hook an import)."""
    parts: list[str] = []
    for part in (name if name.startswith("/") else f"{directory}/{name}").split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part and part != ".":
            parts.append(part)
    return "/" + "/".join(parts)


def _looks_like_program(path: str, head: bytes, mode: int) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (head.startswith(b"#!") or name.endswith(SCRIPT_SUFFIXES) or bool(mode & 0o111)
            or any(name in names for names in MANIFESTS.values()) or name.startswith("Procfile"))


def read_local(path: str, limit: int = MAX_FILE_BYTES) -> tuple[str, bytes | None, int]:
    """(kind: "file", "dir" or "", content up to ``limit`` + 1 bytes, mode). Never opens anything but a
    regular file (a FIFO would block the hook). Uses ``posix`` directly: `os` and `stat` are imports the
    hook would pay for on every call."""
    import posix

    try:
        mode = posix.stat(path).st_mode
    except (OSError, ValueError):
        return "", None, 0
    kind = mode & 0o170000
    if kind == 0o040000:
        return "dir", None, mode
    if kind != 0o100000:
        return "", None, 0
    try:
        with open(path, "rb") as f:  # builtin open: pathlib is an import the hook avoids
            return "file", f.read(limit + 1), mode
    except OSError:
        return "file", None, mode


def list_local(directory: str) -> list[str]:
    """The names in ``directory`` (none when it cannot be listed); ``posix``, as for :func:`read_local`."""
    import posix

    try:
        return posix.listdir(directory)
    except (OSError, ValueError):
        return []


def attach(command: str, cwd: str, home: str | None = None,
           read: Callable[[str], tuple[str, bytes | None, int]] = read_local,
           listdir: Callable[[str], list[str]] = list_local) -> dict[str, str | None]:
    """``{absolute path: text}`` of the local programs ``command`` may run (``None``: too large to send)."""
    if not isinstance(command, str) or not isinstance(cwd, str) or not cwd.startswith("/"):
        return {}
    words = _words(command[: 1 << 16])
    manifests = [m for name in dict.fromkeys(w.rsplit("/", 1)[-1] for w in words) for m in MANIFESTS.get(name, ())]
    directories = [cwd]
    out: dict[str, str | None] = {}
    total = 0
    seen: set[str] = set()
    # `make -f Makefile.local`, `just -f tasks.just`: the file a runner is told to load, whatever its name.
    named = {words[i + 1] for i in range(1, len(words) - 1)
             if words[i] in ("-f", "--file", "--makefile", "--justfile", "-c", "--config")
             and any(w.rsplit("/", 1)[-1] in MANIFESTS for w in words[max(0, i - 3):i])}
    named |= _fed_to_interpreter(command[: 1 << 16])
    for word in words:
        if word.startswith("@") and len(word) > 2:
            word = word.lstrip("@")  # sqlplus `@script.sql`, `@@nested.sql`
        if word.startswith("~/") and home and home.startswith("/"):
            word = home + word[1:]
        elif word.startswith(("-", "~")):
            continue
        path = _join(cwd, word)
        if path in seen:
            continue
        seen.add(path)
        if len(seen) > 64:
            break
        kind, content, mode = read(path)
        if not kind and not word.startswith("/"):
            # `cd services/api && mix run priv/x.exs`: a relative name may be meant from a folder named before
            for directory in directories[1:4]:
                path = _join(directory, word)
                kind, content, mode = read(path)
                if kind:
                    break
        if kind == "dir":
            # `cd sub && make`, `make -C sub`, `npm --prefix web run x`: runners load from named directories.
            if len(directories) < 8:
                directories.append(path)
        elif kind == "file" and content is not None and b"\0" not in content[:8192] and (
                word in named or _looks_like_program(path, content[:2], mode)):
            total = _add(out, path, content, total)
            if len(out) >= MAX_FILES:
                return out
        elif kind == "file" and content is not None and b"\0" in content[:8192] and mode & 0o111 and "/" in word \
                and not path.startswith(_SYSTEM_PROGRAMS):
            out[path] = BINARY
            if len(out) >= MAX_FILES:
                return out
    if "go" in words and "run" in words:  # `go run ./tools/x`: the package's sources in the folder named
        for directory in directories[1:4]:
            for path in _listing(listdir, directory, ".go")[:8]:
                if path not in out:
                    kind, content, _ = read(path)
                    if kind == "file" and content is not None and b"\0" not in content[:8192]:
                        total = _add(out, path, content, total)
                        if len(out) >= MAX_FILES:
                            return out
    for directory in directories if manifests else ():
        for name in manifests:
            path = _join(directory, name)
            if path in out:
                continue
            kind, content, _ = read(path)
            if kind == "file" and content is not None and b"\0" not in content[:8192]:
                total = _add(out, path, content, total)
                if len(out) >= MAX_FILES:
                    return out
    return out


def _listing(listdir: Callable[[str], list[str]], directory: str, suffix: str) -> list[str]:
    """The files of ``directory`` ending in ``suffix`` (tests left out), sorted."""
    names = listdir(directory)[:4096]
    return sorted(f"{directory}/{n}" for n in names if n.endswith(suffix) and not n.endswith("_test.go"))


def _add(out: dict[str, str | None], path: str, content: bytes, total: int) -> int:
    if len(content) > MAX_FILE_BYTES or total + len(content) > MAX_TOTAL_BYTES:
        out[path] = None
        return total
    out[path] = content.decode("utf-8", "replace")
    return total + len(content)
