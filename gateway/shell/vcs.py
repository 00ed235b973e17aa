"""git: pushes, remote hosts, and the configuration knobs that run commands."""

from __future__ import annotations

import re

from gateway.credentials import mentions_secret
from gateway.paths import HOME, SYSTEM
from gateway.shell import categories as cat
from gateway.shell import hosts as hostnames
from gateway.shell.flow import OPAQUE, Flow
from gateway.shell.generic import note_arguments
from gateway.shell.invocation import Invocation
from gateway.shell.options import scan, short_letters, spec
from gateway.shell.words import Word, literal_word

_GLOBAL = spec("Cc", ["--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env",
                      "--exec-path", "--list-cmds", "--attr-source"], stop=True)
# `git -c KEY=VALUE` settings whose value is a command git runs.
_COMMAND_SETTINGS = frozenset({"core.sshcommand", "core.pager", "core.editor", "core.fsmonitor",
                               "core.askpass", "sequence.editor", "diff.external", "gpg.program",
                               "credential.helper", "pager.log", "pager.diff", "pager.show"})
_NETWORK = frozenset({"clone", "fetch", "pull", "push", "ls-remote", "remote", "submodule"})
_COMMIT = spec("mFCcSt", ["--message", "--file", "--reuse-message", "--reedit-message", "--author",
                          "--date", "--template", "--fixup", "--squash", "--cleanup", "--trailer"])


def git(call: Invocation) -> Flow:
    options = scan(call.args, _GLOBAL)
    aliases: dict[str, str] = {}
    settings: dict[str, str] = {}
    for setting in options.values("-c"):
        key, _, value = setting.value.partition("=")
        key = key.strip().lower()
        settings[key] = value
        if key.startswith("alias."):
            aliases[key[len("alias."):]] = value
        elif key in _COMMAND_SETTINGS and value and value.lower() not in ("true", "false"):
            call.run_script(value.lstrip("!"))
        elif key.endswith(".extraheader") and mentions_secret(value):
            call.flag(cat.EXFILTRATION)  # a credential in a header, sent to whatever host the command reaches
    # Where git works: a file scope keeps it inside the agent's own worktree (gateway/scope.py).
    call.facts.git_works_in(call.scope.cwd if call.scope.cwd_known else None)
    for directory in options.values("-C", "--git-dir", "--work-tree"):
        place = call.inspect(directory)
        call.facts.git_works_in(place)
        _aimed_at(call, place)
    for variable in ("GIT_DIR", "GIT_WORK_TREE"):
        if variable in call.scope.vars:
            place = call.inspect(Word(call.scope.vars[variable]))
            call.facts.git_works_in(place)
            _aimed_at(call, place)
    operands = options.operands
    if not operands:
        return OPAQUE
    sub = operands[0].value
    rest = operands[1:]
    alias = aliases.get(sub.lower())
    if alias is not None:
        if alias.startswith("!"):
            call.run_script(alias[1:])
            return OPAQUE
        sub = alias.split(maxsplit=1)[0] if alias.split() else sub
    if (sub == "push" or (sub == "lfs" and rest[:1] and rest[0].value == "push")) and not any(
            w.value in ("--dry-run", "-n") for w in rest):
        call.flag(cat.GIT_PUSH)  # `git lfs push --all origin` pushes too
    if sub == "rm" and not any(w.value in ("--cached", "--dry-run", "-n") for w in rest):
        for word in [w for w in rest if not w.value.startswith("-")][:64]:
            call.delete(word, any(w.value == "-r" for w in rest))  # `git rm CLAUDE.md` deletes it, like rm
    if _discards_work(sub, rest, settings):
        call.flag(cat.DESTRUCTIVE_GIT)
    if sub == "submodule" and rest and rest[0].value == "foreach":
        commands = [w for w in rest[1:] if not w.value.startswith("--")]
        if commands:
            call.run_script(" ".join(w.value for w in commands))  # run in every submodule
    if sub == "config" and (_sets_a_command(rest) or _rewrites_remotes(rest)):
        call.flag(cat.PERSISTENCE)
    if sub == "config":
        for written in _config_file_written(rest):
            call.write(written)  # judged as the write of that file: the user's or the machine's configuration
    if sub == "config" and _sets_header_secret(rest):
        call.flag(cat.EXFILTRATION)
    if any("://" in w.value and "@" in w.value and mentions_secret(w.value) for w in rest[:16]):
        # `git clone https://oauth2:glpat-…@host/x.git`, `remote set-url origin https://$TOKEN@…`: a credential in
        # a URL is sent with the request and kept in the repository's configuration, as a web request's would be
        call.flag(cat.EXFILTRATION)
    if sub == "credential" and rest and rest[0].value == "fill":
        call.flag(cat.CREDENTIAL_ACCESS)  # prints the stored username and password
    if sub in _NETWORK:
        for word in rest:
            if "://" in word.value or "@" in word.value:
                call.host(hostnames.remote_spec_host(word.value))
    if sub == "apply":
        applied = scan(rest, spec("p", ["--directory", "--exclude", "--include", "--whitespace", "-C"]))
        for word in applied.values("--directory"):
            call.write(word)  # with --unsafe-paths, the patch lands wherever --directory says
    if sub == "commit":
        commit = scan(rest, _COMMIT)
        for word in commit.values("-F", "--file", "-t", "--template"):
            call.read(word)
        note_arguments(call, commit.operands)  # the message values are data, not paths
    elif sub == "clone":
        targets = [w for w in scan(rest, spec("bocj", ["--branch", "--origin", "--config", "--depth",
                                                      "--reference", "--separate-git-dir", "--jobs",
                                                      "--template", "--upload-pack"])).operands]
        if len(targets) >= 2:
            call.write(targets[1])
    elif sub not in _NETWORK:
        note_arguments(call, _without_option_values(rest))
    return OPAQUE


_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch", "--show-origin",
                           "--name-only", "get", "list"})
# Beyond _COMMAND_SETTINGS: keys whose value git runs only in some commands, or that point git at
# hooks or more configuration.
_CONFIG_FILES = {"--global": "~/.gitconfig", "--system": "/etc/gitconfig"}


def _config_file_written(rest: list[Word]) -> list[Word]:
    """The file a `git config` that sets or removes something writes, when it is not the repository's own:
    `--global` the user's, `--system` the machine's, `--file F` that file."""
    values = [w.value for w in rest]
    if any(v in _CONFIG_READS for v in values) or not [v for v in values if not v.startswith("-")]:
        return []
    found = [literal_word(path) for option, path in _CONFIG_FILES.items() if option in values]
    found += [rest[i + 1] for i, v in enumerate(values[:-1]) if v in ("--file", "-f")]
    found += [literal_word(v.split("=", 1)[1]) for v in values if v.startswith("--file=")]
    return found


_RUNS_LATER = re.compile(r"^(?:core\.hookspath|pager\..+|filter\..+\.(?:clean|smudge|process)|include\.path"
                         r"|includeif\..+\.path|core\.gitproxy|uploadpack\.packobjectshook)$")


def _sets_a_command(rest: list[Word]) -> bool:
    """`git config KEY VALUE` for a key whose value git runs (or that pulls in other config), or an alias
    that is a shell command (`alias.x '!…'`): it runs later, on the user's own git commands."""
    values = [w.value for w in rest]
    if any(v in _CONFIG_READS for v in values):
        return False
    operands = [v for v in values if not v.startswith("-") and v != "set"]
    if not operands:
        return False
    key = operands[0].lower()
    value = operands[1] if len(operands) > 1 else ""
    return (key in _COMMAND_SETTINGS or bool(_RUNS_LATER.match(key))
            or (key.startswith("alias.") and value.lstrip().startswith("!")))


_REWRITES = re.compile(r"^(?:url\..+\.(?:insteadof|pushinsteadof)|http\..*proxy|https?\.proxy"
                       r"|remote\..+\.(?:url|pushurl|proxy)"
                       r"|http\..*sslverify|core\.sshcommand|credential\..*helper)$")


def _rewrites_remotes(rest: list[Word]) -> bool:
    """`git config --global url.X.insteadOf Y`, a proxy, TLS checks off: every later clone, fetch and push of
    the user's goes somewhere else. Set in the user's or system configuration, that outlives the task."""
    values = [w.value for w in rest]
    if not any(v in ("--global", "--system", "--file", "-f") for v in values):
        return False
    operands = [v for v in values if not v.startswith("-") and v != "set"]
    return bool(operands) and bool(_REWRITES.match(operands[0].lower())) and len(operands) > 1


def _sets_header_secret(rest: list[Word]) -> bool:
    operands = [w.value for w in rest if not w.value.startswith("-")]
    return len(operands) > 1 and operands[0].lower().endswith(".extraheader") and mentions_secret(operands[1])


def _aimed_at(call: Invocation, path: str | None) -> None:
    """Git pointed at a repository or work tree outside the workspace (home, system, or unknowable):
    whatever it does there, it does to someone else's work."""
    if path is None:
        call.flag(cat.DESTRUCTIVE_GIT)
        return
    pf = call.facts.record(path)
    if pf.path_class in (HOME, SYSTEM):
        call.flag(cat.DESTRUCTIVE_GIT)


_PUSH = spec("o", ["--repo", "--receive-pack", "--exec", "--push-option", "--signed", "--recurse-submodules"])
_RESET = spec("", ["--pathspec-from-file"])
_CLEAN = spec("e", ["--exclude"])
_CHECKOUT = spec("bB", ["--conflict", "--pathspec-from-file", "--orphan"])
_RESTORE = spec("s", ["--source", "--pathspec-from-file", "--conflict"])
_GC = spec("", ["--prune"])


def _discards_work(sub: str, rest: list[Word], settings: dict[str, str] | None = None) -> bool:
    """`destructive_git`: the subcommand throws away uncommitted work, commits or history (docs/rules.md)."""
    words = [w.value for w in rest]
    if sub == "worktree":
        # `git worktree remove --force`: the worktree's uncommitted work goes with it
        return words[:1] == ["remove"] and any(w in ("--force", "-f") for w in words)
    if sub == "switch":
        return scan(rest, spec("cC", ["--create", "--force-create", "--orphan"])).has("--discard-changes", "-f",
                                                                                      "--force")
    if sub == "reset":
        return scan(rest, _RESET).has("--hard", "--merge")
    if sub == "clean":
        options = scan(rest, _CLEAN)
        letters = short_letters(options)
        dry = "n" in letters or options.has("--dry-run")
        # `clean.requireForce=false` makes a bare `git clean` delete as `-f` would.
        forced = (settings or {}).get("clean.requireforce", "").lower() in ("false", "0", "no", "off")
        return ("f" in letters or options.has("--force") or forced) and not dry
    if sub == "checkout":
        options = scan(rest, _CHECKOUT)
        if options.has("-f", "--force") or "--" in words:
            return True  # paths after `--` are overwritten from the index or a commit
        return any(w in (".", "./", ":/") for w in words)
    if sub == "restore":
        options = scan(rest, _RESTORE)
        staged_only = options.has("-S", "--staged") and not options.has("-W", "--worktree")
        return not staged_only and bool(options.operands or options.has("--pathspec-from-file"))
    if sub == "branch":
        options = scan(rest, spec("", ["--set-upstream-to", "--contains", "--merged", "--format"]))
        letters = short_letters(options)
        deleting = "d" in letters or options.has("--delete")
        return "D" in letters or (deleting and ("f" in letters or options.has("--force")))
    if sub == "stash":
        return bool(words) and words[0] in ("drop", "clear")
    if sub == "push":
        options = scan(rest, _PUSH)
        letters = short_letters(options)
        if "f" in letters or "d" in letters or options.has("--force", "--mirror", "--delete", "--prune"):
            return True
        refspecs = options.operands[1:]  # after the remote
        return any(r.value.startswith(("+", ":")) for r in refspecs)
    if sub in ("filter-branch", "filter-repo"):
        return True
    if sub == "lfs":  # `git lfs migrate import|export` rewrites history (`info`, `--no-rewrite` do not)
        return words[:1] == ["migrate"] and words[1:2] != ["info"] and \
            not any(w.value == "--no-rewrite" for w in rest)
    if sub == "reflog":
        return bool(words) and words[0] in ("expire", "delete")
    if sub == "gc":
        prune = scan(rest, _GC).values("--prune")
        return any(v.value in ("now", "all") for v in prune)
    if sub == "update-ref":
        return "-d" in words
    return False


def _without_option_values(words: list[Word]) -> list[Word]:
    """Drop values of `-m` style options so a message never reads as a path."""
    out: list[Word] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word.value in ("-m", "--message", "--author", "-S", "--grep", "--format", "--pretty", "-e", "--exclude"):
            skip = True
            continue
        out.append(word)
    return out
