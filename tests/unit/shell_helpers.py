"""Helpers shared by the shell-analysis test modules."""

from __future__ import annotations

from gateway.shell import ALL_CATEGORIES, ShellAnalysis, analyze

CWD = "/work/proj"
HOME = "/home/agent"
# Everything the default pack blocks or sends to approval; permission_change alone is normal work.
DANGEROUS = ALL_CATEGORIES - {"permission_change"}


def run(command: str, cwd: str | None = CWD) -> ShellAnalysis:
    return analyze(command, cwd, HOME)
