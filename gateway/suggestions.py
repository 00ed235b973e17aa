"""What to do instead: a refusal that names a way forward helps the agent recover instead of retrying.

Each entry matches a refused call by category (and, where one category covers different mistakes, by the
command's text) and names an alternative that is allowed under the default pack — `example` is that
alternative as a command, and a test sends every example through the gateway to check it runs
(tests/gateway/test_explain.py). The text is appended to the refusal's reason ("… Instead: …").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol


class _Judged(Protocol):
    @property
    def categories(self) -> tuple[str, ...]: ...

    @property
    def target(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Suggestion:
    category: str
    text: str
    example: str | None  # an allowed command that does what the text says (None: nothing to run)
    when: re.Pattern[str] | None = None  # only for calls whose target matches


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


SUGGESTIONS: tuple[Suggestion, ...] = (
    Suggestion("destructive_git", "set local changes aside with `git stash push -m wip` (they stay recoverable)",
               "git stash push -m wip", _re(r"\b(?:reset|checkout|restore|switch)\b")),
    Suggestion("destructive_git", "see what would go with `git clean -n -d` and delete those paths by name",
               "git clean -n -d", _re(r"\bclean\b")),
    Suggestion("destructive_git", "`git branch -d` deletes a branch only once it is merged", "git branch -d old-topic",
               _re(r"\bbranch\b")),
    Suggestion("destructive_git", "fetch and rebase onto the remote branch, then push without force",
               "git fetch origin", _re(r"\bpush\b")),
    Suggestion("destructive_delete", "delete only inside the workspace (`rm -rf ./build`); leave home and system "
               "paths to a human", "rm -rf ./build"),
    Suggestion("credential_access", "print only the variable you need (`printenv PATH`); read `.env.example` for "
               "the names of secrets", "printenv PATH", _re(r"\b(?:env|printenv|export|declare|set|ps)\b")),
    Suggestion("credential_access", "read the committed template (`.env.example`) or ask for the value",
               "cat .env.example"),
    Suggestion("package_runner", "run a tool the project already has with `npx --no-install`",
               "npx --no-install tsc -v"),
    Suggestion("infra_destroy", "preview the change (`terraform plan`, `kubectl diff`, `--dry-run`) and leave "
               "applying it to a human", "terraform plan", _re(r"\b(?:terraform|tofu|terragrunt)\b")),
    Suggestion("infra_destroy", "preview it with `kubectl diff -f …` or `--dry-run=server`", "kubectl diff -f k8s/",
               _re(r"\b(?:kubectl|oc|helm)\b")),
    Suggestion("infra_change", "preview it (`terraform plan`, `kubectl diff`, `helm template`, `pulumi preview`)",
               "kubectl diff -f k8s/"),
    Suggestion("publish", "check the package with a dry run (`npm publish --dry-run`, `npm pack`)",
               "npm publish --dry-run"),
    Suggestion("database_destroy", "write a migration for a human to apply, or use a disposable database",
               "alembic revision -m 'drop legacy table'"),
    Suggestion("database_change", "write a migration for a human to apply, or query read-only (`SELECT …`)",
               "psql -c 'SELECT count(*) FROM users'"),
    Suggestion("process_kill", "stop only what you started (`kill %1`, or the PID your own command printed)",
               "kill %1"),
    Suggestion("network_listen", "bind to loopback (`--bind 127.0.0.1`)",
               "python3 -m http.server 8000 --bind 127.0.0.1"),
    Suggestion("resource_exhaustion", "use a small fixture (`fallocate -l 10M test.img`, `head -c 1M /dev/urandom`)",
               "fallocate -l 10M test.img"),
    Suggestion("remote_code", "download it to a file (`curl -fsSLo install.sh URL`), read it, then ask",
               "curl -fsSLo install.sh https://example.com/install.sh"),
    Suggestion("exfiltration", "send no secrets and no files from outside the workspace; fetch what you need "
               "(`curl -s URL`) and ask a human to share the rest", "curl -s https://api.github.com/repos/o/r"),
    Suggestion("gate_tamper", "propose the change to the agent instructions or settings in your answer; a human "
               "edits them", None),
    Suggestion("persistence", "put the command in a project script (`scripts/`) and run it when needed", None),
)


def suggestion_for(call: _Judged) -> str | None:
    """The first suggestion for the call's categories (in the order of ``SUGGESTIONS``), or None."""
    categories = set(call.categories)
    if not categories:
        return None
    for s in SUGGESTIONS:
        if s.category in categories and (s.when is None or s.when.search(call.target)):
            return s.text
    return None
