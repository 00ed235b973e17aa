"""Powerful CLIs judged by what is known safe: one table per tool family (``cli_tables/*.yaml``).

For programs whose mistakes cannot be undone — cloud and hosting CLIs, infrastructure tools, container
engines, database and framework tasks, publishers — a list of known-bad verbs does not generalise: the
next release adds a verb, an agent puts a global option before it, a destroy is spelled `sync --delete`.
So each table names a tool's global options that take a value (their value is not a subcommand), its
**read-only** subcommands, and a few kinds of known effect; **anything else is a change**
(docs/rules.md#powerful-clis). The first entry that matches, in this order, decides:

1. ``help`` words and flags, and a dry run (``dry_run`` flags): nothing happens;
2. ``secret``: prints credentials → ``credential_access``;
3. ``credential``: creates credentials (access keys, tokens, deploy keys) → ``credential_creation``;
4. ``message``: sends mail, chat, SMS, comments, payments → ``outward_message``;
5. ``persist``: configures the tool to run a program later (a script shell, preloaded code) → ``persistence``;
6. ``destroy``: deletes or wipes → the table's ``destroy`` category (``infra_destroy``, …);
7. ``publish``: publishes a package or an image → ``publish``;
8. ``read``: known safe → nothing;
9. anything else → the table's ``change`` category (``infra_change``, ``database_change``, …).

An entry is a space-separated word pattern matched against the subcommand words from the start (``*``
and ``x*`` globs per word; ``...`` at the end also matches longer commands, which is the default), then
optionally ``[FLAG|FLAG]``: the entry holds only when one of those options is present (``-o`` matches
``-oyaml`` and ``-o=yaml``). ``follow`` names subcommands that run a command they are given — ``N`` operands
after the subcommand, ``--`` (the words after a ``--``), ``-c|--command`` (the words after the first of those
options), ``self`` (the subcommand is itself the program: `fvm flutter pub get`), ``sh:--run`` (that option's
value is shell code), ``sh:N`` (after N operands, the words are shell
code, as ssh joins them) or ``code:LANGUAGE:N`` (after N operands, a word of code in that language or a script
file: `rails runner 'Article.delete_all'` runs Ruby, `wp db query 'DROP …'` runs SQL) — which is then analysed
like any command. ``plugin`` (with ``own``, the tool's own subcommands) names the prefix of the programs a tool
runs for the subcommands it does not have (`cargo sqlx database reset` runs `cargo-sqlx database reset`).
"""

from __future__ import annotations

import fnmatch
import functools
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from gateway.shell import categories as cat
from gateway.shell.flow import Flow
from gateway.shell.invocation import Invocation
from gateway.shell.lexicon import VERBS, kebab
from gateway.shell.words import Word, join_words, literal_word

_HELP = frozenset({"help", "--help", "-h", "--version", "version", "-v", "--v", "-V"})
KINDS = ("secret", "credential", "message", "persist", "destroy", "publish", "read")
_KIND_CATEGORY = {"secret": cat.CREDENTIAL_ACCESS, "credential": cat.CREDENTIAL_CREATION,
                  "message": cat.OUTWARD_MESSAGE, "persist": cat.PERSISTENCE, "publish": cat.PUBLISH}


@dataclass(frozen=True, slots=True)
class Pattern:
    words: tuple[str, ...]
    flags: tuple[str, ...]  # one of these must be present (empty: no condition)
    # Options written among the words (`client -d`, `run --all destroy`): each must be present. Options are never
    # subcommand words (``split``), so a table that writes one in place is read as this condition.
    required: tuple[str, ...] = ()

    def matches(self, words: list[str], present: list[str]) -> bool:
        pattern = self.words
        if pattern[:1] == ("...",):  # `... publish`: the word anywhere (build tools take goals in any order)
            pattern = pattern[1:]
            offsets = range(max(0, len(words) - len(pattern) + 1))
        else:
            offsets = range(1)
        if len(words) < len(pattern):
            return False
        if not any(all(_word_matches(w, p) for w, p in zip(words[o:], pattern, strict=False)) for o in offsets):
            return False
        if not all(_has_flag(present, f) for f in self.required):
            return False
        wanted = [f for f in self.flags if not f.startswith("!")]
        if wanted and not any(_has_flag(present, f) for f in wanted):
            return False
        return not any(_has_flag(present, f[1:]) for f in self.flags if f.startswith("!"))


def _word_matches(word: str, pattern: str) -> bool:
    if pattern == "LOCAL":  # a local path (`aws s3 cp s3://b/k LOCAL` downloads)
        return "://" not in word and not word.startswith(("s3:", "gs:"))
    return word == pattern or ("*" in pattern and fnmatch.fnmatchcase(word, pattern))


def _has_flag(present: list[str], flag: str) -> bool:
    if "*" in flag:
        return any(fnmatch.fnmatchcase(option, flag.lower()) for option in present)
    return _has_plain_flag(present, flag)


def _has_plain_flag(present: list[str], flag: str) -> bool:
    """``flag`` (`-o`, `--raw`, or with a value: `-X=DELETE`) among the options present (as `opt` and,
    for options that take a value, `opt=value`, lower-cased)."""
    flag = flag.lower()
    name, eq, _ = flag.partition("=")
    for option in present:
        if option == flag or (not eq and option.startswith(flag + "=")):
            return True
        if len(name) == 2 and name[1] != "-" and not option.startswith("--") and option.startswith(name) and \
                len(option) > 2 and option[2] != "=" and (not eq or option[2:] == flag[3:]):
            return True  # -oyaml, -XDELETE
    return False


@dataclass(frozen=True, slots=True)
class Table:
    family: str
    names: tuple[str, ...]
    options: frozenset[str]  # options that take a value
    patterns: dict[str, tuple[Pattern, ...]]
    dry_run: tuple[str, ...]
    change: str
    destroy: str
    follow: dict[str, str]
    depth: int  # how many leading words form the subcommand (aws: service + operation)
    bare: str | None  # the category of a call with no subcommand word (`sendmail -t`), if any
    # `cargo sqlx …` runs the program `cargo-sqlx`: a subcommand the tool does not have itself (``own``) is a
    # plugin, run as ``plugin`` + its name and judged as that program (its table, else the verbs it is given).
    plugin: str = ""
    own: frozenset[str] = frozenset()


def _pattern(text: str) -> Pattern:
    flags: tuple[str, ...] = ()
    if "[" in text and text.endswith("]"):
        text, _, rest = text.partition("[")
        flags = tuple(f.strip() for f in rest[:-1].split("|") if f.strip())
    words = text.split()
    options = tuple(w for w in words[1:] if w.startswith("-") and len(w) > 1)
    return Pattern(tuple(w for w in words if w not in options), flags, options)


def _table(family: str, name: str, body: dict[str, Any]) -> Table:
    known = {"names", "options", "dry_run", "change", "destroy_category", "follow", "depth", "bare", "plugin", "own",
             *KINDS}
    unknown = set(body) - known
    if unknown:
        raise ValueError(f"cli_tables/{family}.yaml: {name}: unknown keys {sorted(unknown)}")
    patterns = {kind: tuple(_pattern(str(p)) for p in body.get(kind) or ()) for kind in KINDS}
    change = str(body.get("change", cat.INFRA_CHANGE))
    destroy = str(body.get("destroy_category", cat.DATABASE_DESTROY if change == cat.DATABASE_CHANGE else
                           cat.INFRA_DESTROY))
    bare = str(body["bare"]) if body.get("bare") else None
    for value in (change, destroy, *([bare] if bare else [])):
        if value not in cat.ALL_CATEGORIES:
            raise ValueError(f"cli_tables/{family}.yaml: {name}: unknown category {value!r}")
    return Table(family, tuple(body.get("names") or (name,)), frozenset(map(str, body.get("options") or ())),
                 patterns, tuple(map(str, body.get("dry_run") or ())), change, destroy,
                 {str(k): str(v) for k, v in (body.get("follow") or {}).items()}, int(body.get("depth", 3)), bare,
                 str(body.get("plugin") or ""), frozenset(map(str, body.get("own") or ())))


@functools.cache
def tables() -> dict[str, Table]:
    """Every table, by program name (aliases included). Loaded once per process."""
    out: dict[str, Table] = {}
    for entry in sorted(resources.files("gateway.shell").joinpath("cli_tables").iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".yaml"):
            continue
        family = entry.name.removesuffix(".yaml")
        data = yaml.safe_load(entry.read_text(encoding="utf-8")) or {}
        for name, body in data.items():
            table = _table(family, str(name), body or {})
            for alias in table.names:
                out[alias] = table
    return out


def split(call: Invocation, table: Table) -> tuple[list[str], list[str], list[int]]:
    """(subcommand words lower-cased, options present, index in ``call.args`` of each word)."""
    words: list[str] = []
    present: list[str] = []
    where: list[int] = []
    args = call.args
    i = 0
    while i < len(args):
        value = args[i].value
        if value == "--":
            break
        if value.startswith("-") and len(value) > 1:
            present.append(value.lower())
            if value in table.options:
                if i + 1 < len(args):
                    present.append(f"{value}={args[i + 1].value}".lower())
                i += 1  # its value is not a subcommand
        elif not (value.startswith("@") and not words):  # `drush @prod sql:drop`, `wp @staging …`: a site alias
            words.append(value.lower())
            where.append(i)
        i += 1
    return words, present, where


def judge(call: Invocation, table: Table) -> str | None:
    """The category of this call by its table (None: known safe)."""
    words, present, where = split(call, table)
    given = {w.value for w in call.args if w.value.startswith("-")}  # as written: `-H` (a host, a header) is no `-h`
    if (words and words[0] in _HELP) or given & {"--help", "-h"} or (given & _HELP and len(words) <= 1):
        return None  # help prints, whatever the subcommand
    if "help" in words[1:table.depth]:
        return None  # `aws s3 rm help`: a tool whose subcommand is several words takes `help` as the last of them
    if any(_has_flag(present, f) for f in table.dry_run):
        return None
    for kind in KINDS:
        if any(p.matches(words, present) for p in table.patterns[kind]):
            if kind == "read":
                return None
            return table.destroy if kind == "destroy" else _KIND_CATEGORY[kind]
    if _conventional_read(words[:3]) or _conventional_read([kebab(call.args[i].value).split("-")[0]
                                                            for i in where[:3]]):
        return None  # `consul acl policy list`, `vault token capabilities …`, `hcloud ECS ListServers`: for looking
    return table.change if words else table.bare


def _conventional_read(words: list[str]) -> bool:
    """A conventional read word, with no verb before it (`kubectl scale deploy status` scales `status`)."""
    for word in words:
        if word in CONVENTIONAL_READS:
            return True
        if word in _CHANGE_WORDS or word in VERBS:
            return False
    return False


_CHANGE_WORDS = frozenset({"create", "update", "set", "add", "remove", "rm", "start", "stop", "restart", "run", "edit",
                           "patch", "put", "write", "import", "enable", "disable", "attach", "detach", "move", "mv",
                           "rename", "tag", "label", "annotate", "cordon", "drain", "exec", "replace", "upgrade",
                           "install", "uninstall", "restore", "sync", "cp", "copy", "login", "logout", "config"})
# Subcommand words that by convention only look, in a subcommand nobody listed. Not `get`, `read`, `show`,
# `cat` or `export`: those print values, and a value may be a secret no table names.
CONVENTIONAL_READS = frozenset({"list", "ls", "status", "info", "inspect", "describe", "validate", "lint", "fmt",
                                "format", "check", "diff", "plan", "capabilities", "version", "history", "search",
                                "top", "stats", "ping", "logs", "explain", "doctor", "members", "verify"})


def followed(call: Invocation, table: Table) -> list[Word] | None:
    """The command a `follow` subcommand runs (`kubectl exec POD -- CMD`, `docker exec C CMD`), or the plugin
    a subcommand the tool does not have runs (`cargo shuttle deploy` → `cargo-shuttle deploy`), or None."""
    words, _, where = split(call, table)
    if table.plugin and words and words[0] not in table.own and call.args[where[0]].literal:
        return [literal_word(table.plugin + words[0]), *call.args[where[0] + 1:]]
    for sub, how in table.follow.items():
        parts = sub.split()
        if words[: len(parts)] != parts:
            continue
        args = call.args
        if how.startswith("sh:") and how[3:].isdigit():  # `tsh ssh HOST CMD…`: the words after are shell code
            inner = _after_operands(args, where[len(parts) - 1] + 1 if parts else 0, int(how[3:]), table)
            # with no command it is a login shell there (`adb shell`, `tsh ssh HOST`): `sh` reading its input
            return [literal_word("sh"), literal_word("-c"), join_words(inner)] if inner else [literal_word("sh")]
        if how.startswith("code:"):  # `rails runner 'Article.delete_all'`: code in the tool's language
            _, language, skip = how.split(":")
            inner = _after_operands(args, where[len(parts) - 1] + 1 if parts else 0, int(skip), table)
            return _as_program(language, inner[0]) if inner else None
        if how.startswith(("-", "sh:")):
            return _after_option(args, how)
        if how == "self" and parts:  # `fvm flutter pub get`: the subcommand is the program it runs
            return _environment_stripped(args[where[0]:])
        if how == "--":
            marker = next((i for i, w in enumerate(args) if w.value == "--"), None)
            return _environment_stripped(args[marker + 1:]) if marker is not None else None
        inner = _after_operands(args, where[len(parts) - 1] + 1 if parts else 0, int(how), table)
        return _environment_stripped(inner) if inner else None
    return None


# language -> (its interpreter, the option that takes code, a script file's suffix)
_LANGUAGES = {"ruby": ("ruby", "-e", ".rb"), "python": ("python3", "-c", ".py"), "php": ("php", "-r", ".php"),
              "node": ("node", "-e", ".js"), "elixir": ("elixir", "-e", ".exs"),
              # SQL a framework console runs on the project's database (`drush sql:query`, `wp db query`)
              "sql": ("psql", "-c", ".sql")}


def _as_program(language: str, word: Word) -> list[Word]:
    """The interpreter command that runs ``word`` — a script file by its suffix, else code."""
    program, option, suffix = _LANGUAGES[language]
    if word.value.endswith(suffix):
        return [literal_word(program), *([literal_word("-f")] if language == "sql" else []), word]
    return [literal_word(program), literal_word(option), word]


def _after_operands(args: list[Word], start: int, skip: int, table: Table) -> list[Word]:
    """The words from the ``skip``-th operand after ``start`` on (options and their values passed over)."""
    i = start
    while i < len(args):
        value = args[i].value
        if value == "--":
            i += 1
            continue
        if value.startswith("-") and len(value) > 1:
            i += 2 if value in table.options else 1
            continue
        if skip == 0:
            return args[i:]
        skip -= 1
        i += 1
    return []


def _after_option(args: list[Word], how: str) -> list[Word] | None:
    """`-c|--command`: the command is the words after the first of those options (`nix shell P -c CMD …`);
    `sh:--run|--command`: the option's value is shell code (`nix-shell -p P --run "CMD"`)."""
    shell_code = how.startswith("sh:")
    names = set(how.removeprefix("sh:").split("|"))
    for i, word in enumerate(args):
        name, eq, _ = word.value.partition("=")
        if name not in names:
            continue
        if not shell_code:
            return _environment_stripped(args[i + 1:])
        code = word.tail(len(name) + 1) if eq else args[i + 1] if i + 1 < len(args) else None
        return [literal_word("sh"), literal_word("-c"), code] if code is not None else None
    return None


def _environment_stripped(argv: list[Word]) -> list[Word]:
    """`cross-env NODE_ENV=test jest`: the assignments are environment, the command follows them."""
    i = 0
    while i < len(argv) and "=" in argv[i].value and not argv[i].value.startswith(("-", "/", ".")) and \
            argv[i].value.split("=", 1)[0].replace("_", "").isalnum():
        i += 1
    return argv[i:]


def handler(existing: Callable[[Invocation], Flow]) -> Callable[[Invocation], Flow]:
    """The table's judgement, the command a `follow` subcommand runs, then ``existing`` (the program's own
    handler: host mounts of containers, SQL given to clients, the generic checks)."""
    def handle(call: Invocation) -> Flow:
        table = tables().get(call.name.removesuffix(".exe"))
        if table is not None:
            category = judge(call, table)
            if category is not None:
                call.flag(category)
            inner = followed(call, table)
            if inner:
                out = call.invoke(inner, call.stdin)  # `kubectl exec -i pod -- psql <<SQL`: the input is its
                if out.secrets:
                    call.flag(cat.CREDENTIAL_ACCESS)  # `kubectl exec pod -- printenv`: printed here
        return existing(call)

    return handle
