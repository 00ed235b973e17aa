"""Paths in the text of a program the gateway has no parser for: string literals, the home directory however
the language spells it, and the recursive deletes of each language's file API (`os.RemoveAll`,
`FileManager.removeItem`, `File(…).deleteRecursively()`, `Directory(…).deleteSync(recursive: true)`), turned into
the `rm -rf` line they amount to so the shell analysis judges the path (docs/rules.md#what-runs-is-judged)."""

from __future__ import annotations

import re
import shlex

from gateway.shell import windows

_LITERAL = re.compile(r""""([^"\n]*)"|'([^'\n]*)'""")

# The home directory as each language asks for it.
_HOME_CALL = (r"""(?:os\.UserHomeDir\(\)|os\.homedir\(\)|homedir\(\)|Path\.home\(\)|UserHomeDir\(\)"""
              r"""|System\.getProperty\(\s*"user\.home"\s*\)|getProperty\(\s*"user\.home"\s*\)|dirs::home_dir\(\)"""
              r"""|NSHomeDirectory\(\)|FileManager\.default\.homeDirectoryForCurrentUser(?:\.path)?"""
              r"""|System\.getenv\(\s*"HOME"\s*\)|ProcessInfo\.processInfo\.environment\[\s*"HOME"\s*\]!?"""
              r"""|Platform\.environment\[\s*['"]HOME['"]\s*\]!?"""
              r"""|Environment\.GetFolderPath\(\s*Environment\.SpecialFolder\.UserProfile\s*\))""")
_HOME_CALL_RE = re.compile(_HOME_CALL)
# A variable holding it (`h, _ := os.UserHomeDir()`, `let home = NSHomeDirectory()`, `val home = …`).
_HOME_VARIABLE = re.compile(r"""\b(\w+)\s*(?::\s*\w+\s*)?(?:,\s*\w+\s*)?:?=\s*""" + _HOME_CALL)
# A path joined to the home directory (`path.join(os.homedir(), '.kube', 'config')`, `Path.home() / '.aws'`).
HOME_JOIN = re.compile(_HOME_CALL + r"""\s*(?:,|/)\s*((?:['"][\w.-]{1,64}['"]\s*(?:,|/)?\s*){1,6})""")

# Recursive deletes: Go's os.RemoveAll, Rust's remove_dir_all, C#'s Directory.Delete(p, true), Java's
# FileUtils.deleteDirectory — of a literal path, or of one joined to the home directory.
_TREE_DELETE = re.compile(r"""\b(?:os\.RemoveAll|remove_dir_all|Directory\.Delete|FileUtils\.deleteDirectory"""
                          r"""|FileUtils\.forceDelete)\s*\(\s*(?:new\s+File\s*\(\s*)?(?:"([^"\n]{1,400})"|"""
                          r"""(?:filepath|path|Path)\.(?:Join|join|Combine|of)\s*\(\s*(\w+)\s*,\s*((?:"[^"\n]*"\s*,?\s*){1,8})\))""")
# File APIs whose argument is an expression: Swift's FileManager, Kotlin's and Java's File, Dart's Directory.
_ARGUMENT = r"""((?:[^()\n]|\((?:[^()\n]|\([^()\n]*\))*\)){1,300})"""  # two levels of calls inside
_API_DELETE = re.compile(r"""\bremoveItem\s*\(\s*(?:at(?:Path)?\s*:\s*)?""" + _ARGUMENT + r"""\)"""
                         r"""|\bFile\s*\(""" + _ARGUMENT + r"""\)\s*\.\s*deleteRecursively\s*\(\s*\)"""
                         r"""|\bDirectory\s*\(""" + _ARGUMENT
                         + r"""\)\s*\.\s*delete(?:Sync)?\s*\(\s*recursive\s*:\s*true""")


def quoted(text: str) -> list[str]:
    """The string literals of ``text``."""
    return [a or b for a, b in _LITERAL.findall(text)]


def home_parts(parts: str) -> str:
    return "~/" + "/".join(quoted(parts))


def shell_path(text: str) -> str:
    """A path as the shell would take it: `~` and `$HOME` keep their meaning, Windows paths read as WSL sees them
    (``windows.posix_view``); anything odd is quoted."""
    text = windows.posix_view(text)
    return text if re.fullmatch(r"[\w~$./{}@:+-]+", text) else shlex.quote(text)


def _expression_path(expression: str, homes: set[str]) -> str | None:
    """The path an argument expression names: a literal, or the home directory with literals after it (`home +
    "/Library"`, `File(home, ".gradle")`, `home.appendingPathComponent("x")`); None when it cannot be told."""
    expression = expression.strip()
    whole = _LITERAL.fullmatch(expression)
    if whole:
        return whole.group(1) or whole.group(2)
    expression = re.sub(r"\.appendingPathComponent\s*\(", ",", expression).rstrip(")")
    parts = [p.strip() for p in re.split(r"\s*[+,/]\s*(?=[\"'\w])", expression) if p.strip()]
    if not parts:
        return None
    head = parts[0]
    if head not in homes and not _HOME_CALL_RE.fullmatch(head) and head.lower() not in ("home", "homedir"):
        return None
    tail = "/".join(x.strip("/") for part in parts[1:] for x in quoted(part))
    return "~/" + tail if tail else "~"


def deletes(text: str) -> list[str]:
    """The `rm -rf PATH` lines the recursive deletes in ``text`` amount to (a path that cannot be told is left
    out: a folder of the program's own making is its own)."""
    homes = {m.group(1) for m in _HOME_VARIABLE.finditer(text)}
    out = []
    for match in list(_TREE_DELETE.finditer(text))[:32]:
        if match.group(1) is not None:
            out.append(f"rm -rf {shell_path(match.group(1))}")
        elif "home" in match.group(2).lower() or match.group(2) in homes:
            out.append(f"rm -rf {home_parts(match.group(3))}")
    for match in list(_API_DELETE.finditer(text))[:32]:
        path = _expression_path(next(g for g in match.groups() if g is not None), homes)
        if path is not None:
            out.append(f"rm -rf {shell_path(path)}")
    return out
