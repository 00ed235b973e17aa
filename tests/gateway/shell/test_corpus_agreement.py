"""The labelled safety corpus agrees with the analyzer and path classification for every entry."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gateway.credentials import is_secret_path
from gateway.paths import fact
from gateway.shell import analyze
from tests.gateway.shell.shell_helpers import CWD, HOME
from tests.support import ROOT

# ---------------------------------------------------------------------------------------------
# The labelled corpus agrees with the analyzer for every shell entry

CORPUS_PATH = ROOT / "tests" / "data" / "safety_corpus.yaml"
CORPUS: list[dict[str, Any]] = yaml.safe_load(CORPUS_PATH.read_text())
SHELL_TOOLS = {"Bash", "run_shell_command"}
BLOCKING = {"destructive_delete", "disk_write", "power", "fork_bomb", "system_permission_change",
            "history_tamper", "system_write", "credential_access", "remote_code", "reverse_shell",
            "exfiltration", "gate_tamper", "gateway_state", "destructive_git"}
APPROVAL = {"git_push", "package_install", "dynamic_command", "unparseable"}


@pytest.mark.parametrize("case", [c for c in CORPUS if c["tool"] in SHELL_TOOLS], ids=lambda c: c["id"])
def test_corpus_shell_entry_matches_analysis(case: dict[str, Any]) -> None:
    result = analyze(case["input"]["command"], case.get("cwd", CWD), HOME)
    if case["expect"] == "allow":
        assert not (result.categories & (BLOCKING | APPROVAL)), result
        return
    assert case["category"] in result.categories, result
    if case["expect"] == "approval":
        assert not (result.categories & BLOCKING), result
    else:
        assert case["category"] in BLOCKING


def test_corpus_file_entries_match_path_classification() -> None:
    for case in CORPUS:
        if case["tool"] in SHELL_TOOLS or "file_path" not in case["input"]:
            continue
        path = fact(case["input"]["file_path"], case.get("cwd", CWD), HOME)
        secret = case["expect"] == "block" and case.get("category") == "credential_access"
        assert is_secret_path(path.path, HOME) is secret, case["id"]
        system_write = case["expect"] == "block" and case.get("category") == "system_write"
        assert (path.path_class == "system" and case["tool"] in ("Write", "Edit", "write_file", "replace")) \
            is system_write, case["id"]
