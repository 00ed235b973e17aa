"""Bounds on one shell analysis (docs/rules.md: "analysis is bounded … a limit hit is unparseable").

Agents send whatever they like, so the cost of analysing a command must not depend on the agent's
good will. tree-sitter-bash is linear on ordinary scripts but not on every shape: a pipeline of n
stages, or n unclosed ``a=(``, costs O(n²) in its error recovery, and a 20,000-stage pipeline with a
dangling ``|`` crashes the native parser outright. The walker, for its part, does Python work per
simple command. So there are three layers, each of which turns "too much" into a decision:

1. ``prescan`` (here, before the parser): size, and counts of the token shapes the parser is
   quadratic on. Linear, a few string scans.
2. Budgets inside the walk (``Collector``): syntax nodes visited, simple commands, nesting depth.
3. Isolation (``gateway.analyzer``): the analysis runs in a child process with a wall-time and a
   memory cap, so whatever slips past 1 and 2 — or a native crash — costs one call, not the worker.

Every limit hit makes the command ``unparseable`` with a reason naming the limit; the default pack
sends that to a human. Nothing here ever allows.
"""

from __future__ import annotations

import re

MAX_COMMAND_BYTES = 64 * 1024  # a tool call's command line; bigger ones are written as files
MAX_PIPES = 128  # `|` outside quotes and here-documents: pipeline recovery is quadratic
MAX_ARRAY_OPENS = 64  # `=(`: unclosed array assignments are the parser's worst case
MAX_SEPARATORS = 256  # `;` `&` and newlines outside quotes and here-documents: one per command
MAX_SUBSTITUTIONS = 128  # `$(` `<(` `>(` and backquotes: each one is a nested script to walk
MAX_HEREDOCS = 64  # here-documents stripped before counting; more than that and we count everything
MAX_NODES = 20_000  # syntax nodes the walker visits (nested scripts included)
MAX_COMMANDS = 512  # simple commands analysed
MAX_NESTING = 48  # subshells, substitutions, compound commands inside one another
ANALYSIS_TIMEOUT_S = 0.5  # wall time for one analysis in its child process
ANALYSIS_MEMORY_BYTES = 768 * 1024 * 1024  # address space of an analysis child

OUT_OF_MEMORY = "analysis ran out of memory"

# A here-document body: `<<EOF` … a line holding only EOF (`<<-` allows leading tabs). Its text is
# one node for the parser, whatever it contains.
_HEREDOC = re.compile(r"<<-?[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\1[^\n]*\n.*?^\t*\2[ \t]*$", re.S | re.M)
_SINGLE_QUOTED = re.compile(r"'[^']*'")


def prescan(command: str) -> str | None:
    """The limit ``command`` exceeds before parsing, as a reason; None when it may be parsed.

    The counts are estimates of the parser's work, not an analysis: quotes are honoured only where
    that is cheap and certain enough (single quotes, here-document bodies). Getting it wrong in
    either direction costs at most time (bounded by the isolation cap) or a human's look.
    """
    size = len(command.encode("utf-8", "surrogatepass"))
    if size > MAX_COMMAND_BYTES:
        return f"command is {size:,} bytes; the analysis limit is {MAX_COMMAND_BYTES:,}"
    if not _over(command):
        return None
    code = command
    if code.count("<<") <= MAX_HEREDOCS:
        code = _HEREDOC.sub("", code)
    code = _SINGLE_QUOTED.sub("''", code)
    pipes = _pipes(code)
    if pipes > MAX_PIPES:
        return f"{pipes:,} pipe operators; the analysis limit is {MAX_PIPES}"
    opens = code.count("=(")
    if opens > MAX_ARRAY_OPENS:
        return f"{opens:,} array assignments; the analysis limit is {MAX_ARRAY_OPENS}"
    substitutions = _substitutions(code)
    if substitutions > MAX_SUBSTITUTIONS:
        return f"{substitutions:,} command substitutions; the analysis limit is {MAX_SUBSTITUTIONS}"
    separators = _separators(code)
    if separators > MAX_SEPARATORS:
        return f"{separators:,} command separators; the analysis limit is {MAX_SEPARATORS:,}"
    return None


def _pipes(code: str) -> int:
    return code.count("|") - 2 * code.count("||")  # `||` is a list operator, not a pipeline stage


def _separators(code: str) -> int:
    # `&&` and `||` are one separator each; a lone `&` (background) is one too
    return code.count(";") + code.count("&") - code.count("&&") + code.count("||") + code.count("\n")


def _substitutions(code: str) -> int:
    return code.count("$(") + code.count("<(") + code.count(">(") + code.count("`") // 2


def _over(code: str) -> bool:
    return (_pipes(code) > MAX_PIPES or code.count("=(") > MAX_ARRAY_OPENS
            or _separators(code) > MAX_SEPARATORS or _substitutions(code) > MAX_SUBSTITUTIONS)
