"""Programs nobody wrote a table for, judged by the verbs of their subcommands (gateway/shell/lexicon.py)."""

from __future__ import annotations

import pytest

from gateway.shell import analyze
from gateway.shell import categories as cat

CWD = "/home/agent/work/shop"
HOME = "/home/agent"


@pytest.mark.parametrize(("command", "category"), [
    ("acme-cloud apps destroy web --yes", cat.INFRA_DESTROY),
    ("shipit deploy --env prod", cat.INFRA_CHANGE),
    ("storecli submit build/app.ipa", cat.PUBLISH),
    ("xcrun altool --upload-app -f build/Shop.ipa", cat.PUBLISH),
    ("lakefs-sync push -r origin", cat.PUBLISH),
    ("sitegen gh-deploy --force", cat.INFRA_CHANGE),
    ("notify-cli send --channel ops 'deploy done'", cat.OUTWARD_MESSAGE),
    ("rclone purge remote:bucket", cat.INFRA_DESTROY),
    # a lone verb that acts on the project by itself
    ("hexo deploy", cat.INFRA_CHANGE),
    ("pkgctl publish", cat.PUBLISH),
    ("stackctl teardown", cat.INFRA_DESTROY),
])
def test_side_effect_verbs_of_unknown_programs(command: str, category: str) -> None:
    assert category in analyze(command, CWD, HOME).categories


@pytest.mark.parametrize("command", [
    "pytest -k test_delete_user", "form submit", "mytool --help", "pre-commit run --all-files",
    "ruff check --fix .", "cookiecutter gh:org/template", "mycli status prod", "go test ./... -run TestDeploy",
    "mkdocs build", "tool release", "app send", "svc reset",
])
def test_everyday_look_alikes_stay_clean(command: str) -> None:
    assert not analyze(command, CWD, HOME).categories
