"""A stance for programs nobody wrote a table for: their subcommands are read for side-effect verbs.

Hosting and SaaS CLIs appear faster than anyone can list them (docs/rules.md#programs-with-no-table). A
program with no handler and no known-safe table (``cli_tables``) whose subcommand words — or whose long
options — say it deletes, deploys, publishes or sends is judged as doing so: `acme-cloud apps destroy web`
is ``infra_destroy``, `shipit deploy --prod` ``infra_change``, `storecli submit build.ipa` ``publish``,
`notify-cli send --to team` ``outward_message``. Words that also name everyday local work (remove, add,
create, update, run, start, stop) are left out: they would make every unknown tool a chore.
"""

from __future__ import annotations

import re

from gateway.shell import categories as cat
from gateway.shell.databases import statement_effect
from gateway.shell.invocation import Invocation
from gateway.shell.words import Word

VERBS: dict[str, str] = {
    **dict.fromkeys(("delete", "destroy", "purge", "wipe", "erase", "nuke", "terminate", "deregister", "unregister",
                     "teardown", "decommission", "drop", "truncate", "flush", "revoke", "obliterate", "expunge",
                     "deprovision", "unprovision", "evict", "kill-all", "reset"), cat.INFRA_DESTROY),
    **dict.fromkeys(("deploy", "undeploy", "redeploy", "rollback", "rollout", "promote", "scale", "rotate", "transfer",
                     "provision", "grant", "failover", "apply", "suspend", "decrypt"), cat.INFRA_CHANGE),
    **dict.fromkeys(("publish", "unpublish", "republish", "release", "upload", "submit", "push", "deprecate", "yank",
                     "distribute", "ship"), cat.PUBLISH),
    **dict.fromkeys(("send", "sendmail", "sendsms", "sendmsg", "sendmessage", "email", "mail", "sms", "notify",
                     "broadcast", "announce", "tweet", "invite",
                     "charge", "refund", "payout", "pay"), cat.OUTWARD_MESSAGE),
}
# In an option's name only the unmistakable verbs count (`--drop-existing`, `--upload-app`): `--reset-weights`
# or `--apply-patch` of a training script say nothing about the world outside.
_OPTION_VERBS = frozenset({"delete", "destroy", "purge", "wipe", "erase", "nuke", "drop", "truncate", "obliterate",
                           "expunge", "deploy", "publish", "upload", "submit", "send", "sendmail", "email", "sms",
                           "broadcast", "charge", "refund", "payout", "push"})
# Subcommands that need no target to act on the world: the project is the target.
_ALONE = frozenset({"deploy", "redeploy", "undeploy", "publish", "unpublish", "republish", "destroy", "teardown",
                    "decommission", "deprovision", "nuke", "obliterate"})
_REVEALS = re.compile(r"^(?:reveal|unmask|unredact(?:ed)?|plaintext|show-(?:secrets?|tokens?|keys?|passwords?))"
                      r"(?:$|[-_])")
_RESETS_DATA = re.compile(r"(?:reset|recreate|clear|clean)[-_](?:database|db|data|schema|tables?|all|everything)\b")
# `vm.destroy` (govc), `db:drop`, `delete-stack`, `drop_table`: one subcommand word, its parts split
_WORD = re.compile(r"^[a-z][a-z0-9]*(?:[-_:.][a-z0-9]+)*$")
_PARTS = re.compile(r"[-_:.]")
_MAX_WORDS = 3


def judge(call: Invocation) -> None:
    """Flag what the verbs in the subcommand words and long option names of ``call`` say it does. Only a
    call shaped like a CLI's (a subcommand with a target or options: `x deploy web`, `x submit --prod`) is
    read: `form submit` names no program anyone ships. SQL it is handed runs on some database
    (`n98-magerun2 db:query "DELETE FROM …"`, `cli sql 'DROP TABLE …'`): judged as SQL."""
    judge_words(call, call.args)
    judge_mode_options(call, call.args)
    judge_resource_verbs(call)
    for word in call.args[:32]:
        effect = statement_effect(word.value) if word.literal else None
        if effect is not None:
            call.flag(effect)





# After a noun, the everyday verbs manage a resource of the service (`tctl users rm j`, `confluent api-key
# create`, `boundary accounts create password`, `jira issue comment add`): resource CLIs are shaped noun(s)
# then verb. Nouns of a developer's own machine (a toolchain's components, a tool's plugins, caches,
# aliases) keep the everyday reading (`rustup component add clippy`, `asdf plugin add x`).
_REMOVES = frozenset({"rm", "remove", "delete", "del", "destroy", "purge", "drop", "revoke", "unregister", "clear",
                      "empty", "prune"})
_CHANGES = frozenset({"create", "add", "new", "update", "set", "put", "edit", "patch", "grant", "assign", "enable",
                      "disable", "attach", "apply", "import", "upsert", "replace", "modify", "rotate", "reset",
                      "reboot", "restart", "shutdown", "poweroff", "stop", "start", "suspend", "resume", "move",
                      "pin", "promote", "rollout", "activate", "deactivate"})
_IDENTITIES = frozenset({"user", "users", "token", "tokens", "key", "keys", "api-key", "api-keys", "apikey", "account",
                         "accounts", "credential", "credentials", "secret", "secrets", "role", "roles", "acl", "acls",
                         "policy", "policies", "permission", "permissions", "service-account", "service-accounts",
                         "password", "passwords", "login", "logins", "member", "members", "invite", "invites",
                         "certificate", "cert", "certs", "binding", "bindings", "grant", "grants"})
_MESSAGES = frozenset({"comment", "comments", "message", "messages", "note", "notes", "post", "posts", "reply",
                       "replies", "email", "emails", "mail", "sms", "notification", "notifications", "announcement"})
_LOCAL_NOUNS = frozenset({"component", "components", "toolchain", "toolchains", "plugin", "plugins", "target",
                          "targets", "package", "packages", "pkg", "dep", "deps", "dependency", "dependencies",
                          "module", "modules", "cache", "caches", "alias", "aliases", "venv",
                          "completion",
                          "completions", "version", "versions", "local", "global", "shell", "path", "config", "theme",
                          "themes", "snippet", "snippets", "extension", "extensions", "template", "templates",
                          "file", "files", "dir", "workspace", "history", "bookmark", "bookmarks", "tag", "tags",
                          "label", "labels", "remote", "remotes", "branch", "branches", "stash", "worktree", "sdk",
                          "pub", "pod", "pods", "crate", "crates", "lib", "libs", "tool", "tools", "model", "models"})


def judge_resource_verbs(call: Invocation) -> None:
    """`PROGRAM NOUN… VERB …`: a remove of a service's resource is ``infra_destroy``; a create or change of an
    identity (a user, a token, a role, an ACL) is ``credential_creation``, of a comment or message
    ``outward_message``, of anything else ``infra_change`` — and `PROGRAM rm THING` removes one too."""
    words: list[str] = []
    for word in call.args[:8]:
        value = word.value
        if value.startswith("-") or not word.literal:
            break
        words.append(value.lower())
    if not words:
        return
    if "." in words[0] and _WORD.match(words[0]):
        words = [*words[0].split(".")[:3], *words[1:]]  # `govc datastore.rm`, `snapshot.remove`: noun.verb
    if words[0] == "rm" and any(not w.value.startswith("-") for w in call.args[1:]):
        call.flag(cat.INFRA_DESTROY)  # `tctl rm roles/admin`, `rclone rm remote:x`, `b2 rm --recursive b2://x`
        return
    for i, verb in enumerate(words[1:4], 1):
        nouns = words[:i]
        if not all(_WORD.match(n) for n in nouns) or nouns[0] in _LOCAL_NOUNS or nouns[0] in VERBS or \
                nouns[0] in _REMOVES or nouns[0] in _CHANGES:
            return
        if verb in _REMOVES:
            call.flag(cat.INFRA_DESTROY)
            return
        if verb in _CHANGES or verb in ("send", "issue", "generate", "mint"):
            if any(n in _IDENTITIES for n in nouns):
                call.flag(cat.CREDENTIAL_CREATION)
            elif any(n in _MESSAGES for n in nouns):
                call.flag(cat.OUTWARD_MESSAGE)
            else:
                call.flag(cat.INFRA_CHANGE)
            return


def judge_launched(call: Invocation, args: list[Word], program: str = "") -> None:
    """The arguments of a program the project itself launches — `go run ./cmd/purge -- --all`, `cargo run --
    vehicles decommission`, `python3 tools/x.py wipe --env prod`, `python -m app.jobs rebuild --drop-existing`:
    a program nobody described, read the same way; its own name too (`tools/purge_tenant.py`)."""
    category = program_verb(program)
    if category is not None and args and not any(w.value.split("=", 1)[0] in _REHEARSALS for w in args):
        call.flag(category)
    judge_words(call, args)


def program_verb(program: str) -> str | None:
    """The category a program's own name says (`tools/purge_tenant.py`, `PurgeOrders`, `image_push`)."""
    name = program.rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0] if program else ""
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name)  # `PurgeOrders` (a JVM class) reads as purge-orders
    return _verb(name) if name and _WORD.match(name.lower().replace("_", "-")) else None


# What an option's verb may act on that is the build's own output (`build_runner --delete-conflicting-outputs`,
# `--purge-cache`, `--delete-tmp`): local work, whatever the verb.
_LOCAL_OBJECTS = frozenset({"outputs", "output", "cache", "caches", "artifacts", "tmp", "temp", "logs", "generated",
                            "intermediates", "stale", "builddir", "build-dir", "dist"})
_REHEARSALS = frozenset({"--dry-run", "--dryrun", "--dry_run", "--what-if", "--noop", "--simulate", "--check"})


# Options that choose what a program does (`BuildPatchTool -mode=UploadBinary`, `tool --action delete`): their
# value is the subcommand, whatever the option is called among these.
_MODE_OPTIONS = frozenset({"mode", "action", "operation", "op", "command", "cmd", "verb", "task", "do"})


def judge_mode_options(call: Invocation, args: list[Word]) -> None:
    """Flag the verb an operation-choosing option is given (its value's first part, camel case split)."""
    for i, word in enumerate(args[:32]):
        name, eq, value = word.value.lstrip("-").partition("=")
        if not word.value.startswith("-") or name.lower() not in _MODE_OPTIONS:
            continue
        if not eq:
            following = args[i + 1] if i + 1 < len(args) else None
            if following is None or following.value.startswith("-") or not following.literal:
                continue
            value = following.value
        action = kebab(value)
        if _WORD.match(action):
            category = _verb(action.split("-", 1)[0]) or _verb(action)
            if category is not None:
                call.flag(category)


def judge_words(call: Invocation, args: list[Word]) -> None:
    if any(w.value.split("=", 1)[0] in _REHEARSALS for w in args):
        return  # a rehearsal does nothing
    operands = [w for w in args if not w.value.startswith("-")]
    if len(operands) < 2 and len(operands) == len(args):
        # A lone word is judged only when it is one of the verbs that act on the world by themselves
        # (`shuttle deploy`, `hexo deploy`, `pkgctl publish`); `form submit` names no program anyone ships.
        if operands and operands[0].literal and operands[0].value.lower() in _ALONE:
            call.flag(VERBS[operands[0].value.lower()])
        return
    seen = 0
    after_option = False
    for word in args[:32]:
        value = word.value
        follows_option, after_option = after_option, value.startswith("-") and "=" not in value
        if follows_option and not value.startswith("-"):
            continue  # most likely the option's value (`pytest -k test_delete_user`); an option is never one
        if value.startswith("--") and len(value) > 3:
            name = value[2:].split("=", 1)[0].lower()
            local = bool(_LOCAL_OBJECTS & set(_PARTS.split(name)[1:]))  # `--delete-conflicting-outputs`
            category = (None if local else _verb(name, _OPTION_VERBS)) or (
                cat.INFRA_DESTROY if _RESETS_DATA.search(name) else None) or (  # `--reset-database`, `--wipe-db`
                cat.CREDENTIAL_ACCESS if _REVEALS.search(name) else None)  # `--reveal-secrets`, `--show-token`
            if category is not None:
                call.flag(category)
            continue
        if value.startswith("-"):
            continue
        action = kebab(value)  # `ecs DeleteInstance`, `mqadmin deleteTopic`: API actions spelled in camel case
        if seen >= _MAX_WORDS or not word.literal or not _WORD.match(action):
            seen += 1
            continue
        seen += 1
        category = _verb(action) or _reads_secret(action) or (
            # an API action that changes a resource (`ModifyInstanceAttribute`, `RunInstances`, `StopDBInstance`):
            # actions in Pascal case are a cloud API's, never a local chore's (`gulp copyAssets` is one)
            cat.INFRA_CHANGE if action != value and value[0].isupper() and action.split("-", 1)[0] in _API_CHANGES
            else None)
        if category is not None:
            call.flag(category)


_API_CHANGES = frozenset({"create", "modify", "update", "run", "start", "stop", "reboot", "restart", "set", "put",
                          "add", "remove", "attach", "detach", "associate", "disassociate", "authorize", "allocate",
                          "release", "replace", "reset", "enable", "disable", "import", "upgrade", "downgrade",
                          "renew", "apply", "bind", "unbind", "copy", "move", "grant", "assign", "unassign", "open",
                          "close", "change", "convert", "migrate", "resize", "restore", "rotate", "invoke", "execute",
                          "publish", "tag", "untag"})
_CAMEL = re.compile(r"[A-Za-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+")


def kebab(word: str) -> str:
    """`DeleteInstance` → `delete-instance`, `deleteTopic` → `delete-topic`; any other word as it is."""
    if not _CAMEL.fullmatch(word) or word.isupper():
        return word
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", word).lower()


# An action named for fetching a secret's value (`GetSecretValue`, `get-password`, `fetch-credentials`).
_FETCH_PARTS = frozenset({"get", "fetch", "read", "show", "export", "retrieve", "print", "reveal", "dump", "decrypt"})


def _reads_secret(text: str) -> str | None:
    parts = _PARTS.split(text.lower())
    if len(parts) > 1 and parts[0] in _FETCH_PARTS and _SECRET_VALUES & set(parts[1:]):
        return cat.CREDENTIAL_ACCESS
    return None


# A destroy verb glued to the resource it destroys, as some CLIs spell subcommands (`cbt deletetable`,
# `deleteinstance`, `dropkeyspace`).
_GLUED = re.compile(r"(?:delete|destroy|purge|truncate|wipe|drop)(?:table|db|database|instance|cluster|index|bucket"
                    r"|user|topic|queue|keyspace|schema|collection|family|app|project|service|snapshot|backup)s?")


# A subcommand named for making a credential (`access-token-create`, `create-api-key`, `generate-token`).
_SECRET_PARTS = frozenset({"token", "tokens", "key", "keys", "apikey", "password", "secret", "credential",
                           "credentials"})
# The values an action named for fetching a secret returns (`GetSecretValue`); not a bare key (`GetPublicKey`).
_SECRET_VALUES = (_SECRET_PARTS - {"key", "keys"}) | {"secrets", "passwords", "privatekey"}
_MAKE_PARTS = frozenset({"create", "generate", "issue", "mint", "new", "rotate", "reset", "add"})


def _verb(text: str, only: frozenset[str] | None = None) -> str | None:
    if only is None and _GLUED.fullmatch(text.lower()):
        return cat.INFRA_DESTROY
    parts = _PARTS.split(text.lower())
    if only is None and len(parts) > 1 and _SECRET_PARTS & set(parts) and _MAKE_PARTS & set(parts):
        return cat.CREDENTIAL_CREATION
    for part in [*parts[:4], text.lower()]:
        category = VERBS.get(part)
        if category is not None and (only is None or part in only):
            return category
    return None
