"""Walks the bash syntax tree and hands every simple command to its handler.

Structure (lists, pipelines, subshells, compound commands, function bodies, substitutions) is followed
here; what a command *does* is decided by the handlers in ``gateway.shell.commands``. Each visit
returns the ``Flow`` the construct writes to stdout, so pipelines, command substitutions and
redirections can connect producers (``curl``, ``cat f``) to consumers (``sh``, ``nc``).
"""

from __future__ import annotations

import shlex
from dataclasses import replace

from tree_sitter import Node

from gateway.shell import categories as cat
from gateway.shell import exhaustion, fields, foreign, handoff, lexicon, servers, variables
from gateway.shell.clis import tables
from gateway.shell.commands import checks_handoff, handler_for, program_name
from gateway.shell.facts import NETWORK_STREAM, SHELL_READS_STDIN, Collector
from gateway.shell.flow import EMPTY, ENVIRONMENT, OPAQUE, Flow, Scope
from gateway.shell.generic import BASH_LIKE_SHELLS, default_handler, shebang
from gateway.shell.invocation import Invocation
from gateway.shell.limits import MAX_COMMANDS, MAX_NESTING, MAX_NODES
from gateway.shell.redirections import Redirections, read_redirections
from gateway.shell.syntax import calls_itself_in_parallel, only_redirects, parse, reading, text_of
from gateway.shell.targets import is_harmless_sink
from gateway.shell.words import Word, basename, evaluate, evaluate_assignment_value, literal_word, locate, placeholder
from gateway.shell.wrappers import PRIVILEGED, UNWRAPPERS

MAX_DEPTH = 8  # nested scripts: bash -c "eval '…'" …
_MAX_WRAPPERS = 16  # sudo env nice timeout … chains
class Walker:
    __slots__ = ("facts", "home")

    def __init__(self, facts: Collector) -> None:
        self.facts = facts
        self.home = facts.home

    # -- entry points (also used by handlers through Invocation) ------------------------------------

    def run_script(self, text: str, scope: Scope, stdin: Flow, depth: int) -> Flow:
        facts = self.facts
        if depth > MAX_DEPTH:
            facts.unparseable(f"scripts nested more than {MAX_DEPTH} deep (bash -c, eval …)")
            return OPAQUE
        if len(text) > facts.budget:  # brace expansion and eval can multiply nested scripts
            facts.unparseable("nested scripts add up to more than the analysis budget")
            return OPAQUE
        facts.budget -= len(text)
        parsed = parse(text)
        with reading(parsed) as root:
            if root.has_error:
                facts.unparseable()
            return self.visit(root, scope, stdin, depth)

    def described(self, name: str) -> bool:
        """Whether a handler or a known-safe table judges the program ``name``."""
        return handler_for(name) is not default_handler or program_name(name) in tables()

    def invoke(self, argv: list[Word], scope: Scope, stdin: Flow, depth: int) -> Flow:
        """Run one simple command: strip wrappers, then dispatch on the command name."""
        facts = self.facts
        for _ in range(_MAX_WRAPPERS):
            if not argv or not argv[0].exact:
                break
            name = basename(argv[0].value)
            unwrap = UNWRAPPERS.get(name)
            if unwrap is None:
                break
            facts.executable(name)
            unwrapped = unwrap(argv)
            scope = scope.as_root() if name in PRIVILEGED else scope
            if unwrapped.assignments:
                scope = _with_environment(scope, unwrapped.assignments)
            for var, value in unwrapped.assignments:
                self._check_history_variable(var, value)
                self._check_command_variable(var, value, scope, depth)
            if unwrapped.cwd is not None:
                scope = scope.copy()
                scope.change_dir(locate(unwrapped.cwd, scope.cwd, scope.cwd_known, self.home))
            if unwrapped.prints_environment:
                return ENVIRONMENT  # `env` alone prints every variable, secrets included
            argv = unwrapped.argv
            for word in unwrapped.reads:
                facts.read(word, scope)
            for word in unwrapped.writes:
                facts.write(word, scope)
            if unwrapped.xargs and stdin.many and argv and basename(argv[0].value) in exhaustion.CREATORS:
                facts.flag(cat.RESOURCE_EXHAUSTION)  # `seq 1 50000000 | xargs touch`
            if unwrapped.xargs:
                if stdin.secrets and argv and basename(argv[0].value) in ("echo", "printf", "cat", "tee"):
                    facts.flag(cat.CREDENTIAL_ACCESS)  # `env -0 | xargs -0 -n1 echo`: every variable, printed
                if unwrapped.xargs_replace and stdin.script is not None and not (stdin.opaque or stdin.payload):
                    # `xargs -I% sh -c % <<< 'cmd'`: each known input line takes the placeholder's place
                    for line in stdin.script.splitlines()[:8]:
                        self.invoke([replace(w, value=w.value.replace(unwrapped.xargs_replace, line))
                                     if unwrapped.xargs_replace in w.value else w for w in argv],
                                    scope.copy(), EMPTY, depth + 1)
                    return OPAQUE
                # `xargs -a /dev/null CMD` has no items: CMD runs once, bare.
                if not (unwrapped.reads and all(w.value == "/dev/null" for w in unwrapped.reads)):
                    argv = self._xargs_argv(argv, unwrapped.xargs_replace, stdin)
                stdin = OPAQUE if unwrapped.terminal_stdin else EMPTY
        if not argv:
            return EMPTY
        facts.commands_left -= 1
        if facts.commands_left < 0:
            facts.unparseable(f"more than {MAX_COMMANDS:,} simple commands")
            return OPAQUE
        head = argv[0]
        facts.command(_render(argv))
        if not head.exact and head.value not in ("[", "[["):
            return self._dynamic_command(argv, scope, depth)
        name = basename(head.value)
        if "/" in head.value:
            path = facts.inspect(head, scope)
            if path is not None and path in scope.files:
                interpreter = shebang(scope.files[path].script)
                if interpreter is None or interpreter in BASH_LIKE_SHELLS:
                    inner = scope.copy()
                    inner.vars["0"] = path  # `cd "$(dirname "$0")"` inside the script
                    self._execute(scope.files[path], inner, depth)
                else:  # `./tool.py` with `#!/usr/bin/env python3`: the interpreter's handler reads it
                    name, argv = interpreter, [literal_word(interpreter), *argv]
            if path is not None and path in scope.renamed:
                name = scope.renamed[path]  # `cp /bin/rm ./x; ./x -rf /`: judged as rm
        elif name in scope.renamed:
            name = scope.renamed[name]
        name = program_name(name)
        facts.executable(name)
        handler = handler_for(name)
        call = Invocation(name, argv[1:], scope, stdin, depth, facts, self)
        if checks_handoff(handler):
            handoff.check(call)
        if name in foreign.CONSOLES and foreign.opens_console(call):
            facts.flag(cat.DYNAMIC_COMMAND)  # `terraform console`, `dotnet fsi`: a REPL of the tool itself
        servers.judge(call)
        exhaustion.check_arguments(call)
        if handler is default_handler and name not in tables():
            lexicon.judge(call)  # a program nobody described: its verbs say what it does
        return handler(call)

    # -- structure ------------------------------------------------------------------------------

    def visit(self, node: Node, scope: Scope, stdin: Flow, depth: int) -> Flow:
        """Visit one syntax node, within the walk's node and nesting budgets (``limits``)."""
        facts = self.facts
        if facts.limit is not None:  # a limit was hit: stop all work, the verdict is unparseable
            return OPAQUE
        facts.nodes_left -= 1
        if facts.nodes_left < 0:
            facts.unparseable(f"more than {MAX_NODES:,} syntax nodes")
            return OPAQUE
        if facts.nesting >= MAX_NESTING:
            facts.unparseable(f"syntax nested more than {MAX_NESTING} levels deep")
            return OPAQUE
        facts.nesting += 1
        try:
            return self._visit(node, scope, stdin, depth)
        finally:
            facts.nesting -= 1

    def _visit(self, node: Node, scope: Scope, stdin: Flow, depth: int) -> Flow:
        kind = node.type
        if kind == "command":
            return self._command(node, scope, stdin, depth, [])
        if kind == "redirected_statement":
            return self._redirected(node, scope, stdin, depth)
        if kind == "pipeline":
            return self._pipeline(node.named_children, scope, depth, stdin)
        if kind == "command_substitution" and only_redirects(node):
            # `$(<file)`: bash's shorthand for `$(cat file)`.
            return read_redirections(self, node.named_children, scope.copy(), EMPTY, depth).stdin
        if kind in ("subshell", "command_substitution", "process_substitution"):
            inner = scope.copy()
            start = stdin if kind == "subshell" else EMPTY
            return self._sequence(node.named_children, inner, start, depth)
        if kind == "function_definition":
            return self._function(node, scope, depth)
        if kind == "declaration_command":
            return self._declaration(node, scope, depth)
        if kind == "unset_command":
            return self._unset(node, scope)
        if kind == "variable_assignment":
            name, value = self._assignment(node, scope, depth)
            self._set_variable(scope, name, value)
            return EMPTY
        if kind == "for_statement":
            return self._for(node, scope, stdin, depth)
        if kind == "while_statement" and exhaustion.spawns_forever(text_of(node)):
            self.facts.flag(cat.RESOURCE_EXHAUSTION)  # `while true; do (job &); done`: processes without end
        if kind in ("comment", "heredoc_body", "heredoc_start", "heredoc_end"):
            return EMPTY
        return self._sequence(node.named_children, scope, stdin, depth)

    def _for(self, node: Node, scope: Scope, stdin: Flow, depth: int) -> Flow:
        variable = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        words = [self.with_flow(w, scope, depth) for v in node.children_by_field_name("value")
                 for w in evaluate(v, scope.vars)]
        if variable is None or body is None:
            return EMPTY
        name = text_of(variable)
        facts = self.facts
        if words and all(w.exact for w in words) and len(words) <= facts.loop_budget:
            # `for d in build dist; do rm -rf "$d"; done`: unroll over the literal items.
            facts.loop_budget -= len(words)
            out = EMPTY
            for word in words:
                scope.vars[name] = word.value
                scope.flows.pop(name, None)
                out = out.merge(self.visit(body, scope, stdin, depth))
            return out
        # Otherwise the variable is unknowable; it still carries what produced it, so that
        # `for f in $(find / -name x); do rm "$f"; done` deletes find's results.
        items = EMPTY
        for word in words:
            items = items.merge(word.flow)
        if items.many and exhaustion.creates_things(text_of(body)):
            facts.flag(cat.RESOURCE_EXHAUSTION)  # `for i in $(seq 1 10000000); do touch f$i; done`
        scope.vars.pop(name, None)
        scope.flows[name] = items
        return self.visit(body, scope, stdin, depth)

    def _sequence(self, nodes: list[Node], scope: Scope, stdin: Flow, depth: int) -> Flow:
        out = EMPTY
        for child in nodes:
            out = out.merge(self.visit(child, scope, stdin, depth))
        return out

    def _pipeline(self, stages: list[Node], scope: Scope, depth: int, first: Flow,
                  last_redirects: list[Node] | None = None) -> Flow:
        roles_start = len(self.facts.roles)
        flow = first
        stages = [s for s in stages if s.type != "comment"]
        for index, stage in enumerate(stages):
            # Every stage runs in its own subshell: a `cd` in one does not move the others.
            if last_redirects and index == len(stages) - 1:
                flow = self._with_redirects(stage, last_redirects, scope.copy(), flow, depth)
            else:
                flow = self.visit(stage, scope.copy(), flow, depth)
        self._check_shell_on_network(roles_start)
        return flow

    def _check_shell_on_network(self, roles_start: int) -> None:
        roles = self.facts.roles[roles_start:]
        if SHELL_READS_STDIN in roles and NETWORK_STREAM in roles:
            self.facts.flag(cat.REVERSE_SHELL)

    def _function(self, node: Node, scope: Scope, depth: int) -> Flow:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if body is None:
            return EMPTY
        if name_node is not None and calls_itself_in_parallel(body, text_of(name_node)):
            self.facts.flag(cat.FORK_BOMB)
        self.visit(body, scope.copy(), EMPTY, depth)  # it may run any number of times later: once, as if here
        handoff.remember_forwarder(scope, name_node, body)
        return EMPTY

    # -- simple commands ------------------------------------------------------------------------

    def _redirected(self, node: Node, scope: Scope, stdin: Flow, depth: int, outer: list[Node] | None = None) -> Flow:
        body = node.child_by_field_name("body")
        redirects = node.children_by_field_name("redirect") + (outer or [])
        if body is not None and body.type in ("command", "list", "pipeline", "redirected_statement"):
            return self._with_redirects(body, redirects, scope, stdin, depth)
        roles_start = len(self.facts.roles)
        io = read_redirections(self, redirects, scope, stdin, depth)
        out = self.visit(body, scope, io.stdin, depth) if body is not None else EMPTY
        return self._finish(io, out, scope, depth, roles_start)

    def _with_redirects(self, node: Node, redirects: list[Node], scope: Scope, stdin: Flow, depth: int) -> Flow:
        """tree-sitter attaches `a && b > f` and `a | b > f` to the whole list; bash to `b` only."""
        kind = node.type
        if kind == "command":
            return self._command(node, scope, stdin, depth, redirects)
        if kind == "redirected_statement":
            return self._redirected(node, scope, stdin, depth, redirects)
        if kind == "pipeline":
            return self._pipeline(node.named_children, scope, depth, stdin, redirects)
        if kind == "list":
            parts = [c for c in node.named_children if c.type != "comment"]
            out = EMPTY
            for part in parts[:-1]:
                out = out.merge(self.visit(part, scope, stdin, depth))
            if parts:
                out = out.merge(self._with_redirects(parts[-1], redirects, scope, stdin, depth))
            return out
        roles_start = len(self.facts.roles)
        io = read_redirections(self, redirects, scope, stdin, depth)
        return self._finish(io, self.visit(node, scope, io.stdin, depth), scope, depth, roles_start)

    def _command(self, node: Node, scope: Scope, stdin: Flow, depth: int, outer: list[Node]) -> Flow:
        roles_start = len(self.facts.roles)
        name_node = node.child_by_field_name("name")
        assignments: list[Node] = []
        redirects = list(outer)
        for child in node.named_children:
            kind = child.type
            if kind == "variable_assignment":
                assignments.append(child)
            elif kind.endswith("_redirect"):
                redirects.append(child)
        # tree-sitter-bash reads the `0` of `sh 0<&2` as an argument: a number glued to the redirection
        # that follows it is that redirection's descriptor, not a word the command receives.
        starts = {r.start_byte for r in redirects if r.type == "file_redirect"}
        arg_nodes = [a for a in node.children_by_field_name("argument")
                     if a.is_named and not (a.type == "number" and a.end_byte in starts)]
        io = read_redirections(self, redirects, scope, stdin, depth)
        prefix = [self._assignment(a, scope, depth) for a in assignments]
        if name_node is None:
            for var, value in prefix:
                self._set_variable(scope, var, value)
            return self._finish(io, EMPTY, scope, depth, roles_start)
        for var, value in prefix:
            # `HISTFILE=/dev/null cmd`: only for that command, but still tampering.
            self._check_history_variable(var, value)
            self._check_command_variable(var, value, scope, depth)
        argv: list[Word] = []
        flows: dict[int, Flow] = {}
        ifs = scope.vars.get("IFS")
        splits = ifs is not None and bool(ifs.strip(" \t\n"))
        previous_end = -1
        for arg in (name_node, *arg_nodes):
            # tree-sitter-bash splits `A=`cmd`:0` into two arguments with nothing between them: one word.
            glued = arg.start_byte == previous_end and argv
            previous_end = arg.end_byte
            for n, word in enumerate(evaluate(arg, scope.vars)):
                word = self.with_flow(word, scope, depth, flows)
                if glued and n == 0:
                    argv[-1] = fields.glue(argv[-1], word)
                elif splits and fields.unquoted_expansion(arg):
                    argv.extend(fields.split_fields(word, ifs or ""))  # `IFS=:; c=rm:-rf:/x; $c`
                else:
                    argv.append(word)
        # `GIT_DIR=/elsewhere git …`: the command's environment has them (its own words were expanded
        # before, and the shell after it never sees them).
        command_scope = _with_environment(scope, prefix) if prefix else scope
        out = self.invoke(argv, command_scope, io.stdin, depth)
        return self._finish(io, out, scope, depth, roles_start)

    def with_flow(self, word: Word, scope: Scope, depth: int, cache: dict[int, Flow] | None = None) -> Word:
        if not word.subs and not word.variables:
            return word
        flow = EMPTY
        for name in word.variables:
            flow = flow.merge(scope.flows.get(name, EMPTY))
        outputs: list[Flow] = []
        for sub in word.subs:
            key = sub.id
            if cache is not None and key in cache:
                sub_flow = cache[key]
            else:
                sub_flow = self.visit(sub, scope, EMPTY, depth)
                if cache is not None:
                    cache[key] = sub_flow
            outputs.append(sub_flow)
            flow = flow.merge(sub_flow)
        known = fields.substituted(word, outputs)
        return replace(word, flow=flow) if known is None else replace(known, flow=flow)

    def _dynamic_command(self, argv: list[Word], scope: Scope, depth: int) -> Flow:
        head = argv[0]
        flow = head.flow
        known = flow.script is not None and not (flow.opaque or flow.payload or flow.local_data)
        if known and head.value.startswith(("$(", "`")) and all(w.exact for w in argv[1:]):
            # `$(echo hello)`: the command word is knowable after all; judge the command it names.
            command = " ".join([*(flow.script or "").split(), *(shlex.quote(w.value) for w in argv[1:])])
            self.run_script(command, scope.copy(), EMPTY, depth + 1)
            return OPAQUE
        self.facts.flag(cat.DYNAMIC_COMMAND)
        if flow.script is not None and head.value.startswith(("$(", "`")):
            # `$(echo rm) -rf /`: the substitution's output, split into words, becomes the command.
            command = " ".join([*flow.script.split(), *(w.value for w in argv[1:])])
            flow = Flow(payload=flow.payload, local_data=flow.local_data, script=command)
        self._execute(flow, scope, depth)
        return OPAQUE

    def _execute(self, flow: Flow, scope: Scope, depth: int) -> None:
        """Content that is about to be executed as shell code."""
        if flow.payload:
            self.facts.flag(cat.REMOTE_CODE)
        if flow.script is not None:
            self.run_script(flow.script, scope.copy(), EMPTY, depth + 1)
        elif flow.opaque:
            self.facts.flag(cat.DYNAMIC_COMMAND)

    def _xargs_argv(self, argv: list[Word], replace_str: str | None, stdin: Flow) -> list[Word]:
        item = placeholder("{}", stdin.listing, Flow(processes=stdin.processes) if stdin.processes else None)
        if replace_str:
            inside = f"{stdin.listing.path.rstrip('/')}/*" if stdin.listing and stdin.listing.path else "./*"
            replaced = [item if w.value == replace_str else
                        Word(w.value.replace(replace_str, inside), literal=False, wild=0) if replace_str in w.value
                        else w for w in argv]
            return replaced if len(argv) > 1 else [*replaced, item]
        return [*argv, item]

    # -- assignments ----------------------------------------------------------------------------

    def _assignment(self, node: Node, scope: Scope, depth: int) -> tuple[str, Word]:
        name_node = node.child_by_field_name("name")
        name = text_of(name_node) if name_node is not None else ""
        value = evaluate_assignment_value(node.child_by_field_name("value"), scope.vars)
        if any(child.type == "+=" for child in node.children):
            value = variables.appended(name, value, scope)
        return name, self.with_flow(value, scope.copy(), depth)

    def _set_variable(self, scope: Scope, name: str, value: Word) -> None:
        self._check_history_variable(name, value)
        scope.flows.pop(name, None)
        if value.exact:
            scope.vars[name] = value.value
        else:
            scope.vars.pop(name, None)
            if value.flow is not EMPTY:
                scope.flows[name] = value.flow

    def _check_command_variable(self, name: str, value: Word, scope: Scope, depth: int) -> None:
        variables.check_command_variable(self, self.facts, name, value, scope, depth)

    def _check_history_variable(self, name: str, value: Word) -> None:
        variables.check_history_variable(self.facts, name, value)

    def _declaration(self, node: Node, scope: Scope, depth: int) -> Flow:
        keyword = node.children[0].type if node.child_count else "declare"
        self.facts.executable(keyword)
        self.facts.command(text_of(node))
        named = False
        flags = ""
        for child in node.named_children:
            if child.type == "variable_assignment":
                named = True
                name, value = self._assignment(child, scope, depth)
                self._set_variable(scope, name, value)
            else:
                text = text_of(child)
                if text.startswith("-"):
                    flags += text[1:]
                else:
                    named = True
                self._sequence([child], scope, EMPTY, depth)
        # `export`, `export -p`, `declare -x`, `declare -px`, `typeset -x`: every exported variable, printed.
        if not named and keyword in ("export", "declare", "typeset") and (
                not flags or "p" in flags or "x" in flags) and "f" not in flags.lower():
            return ENVIRONMENT
        return EMPTY

    def _unset(self, node: Node, scope: Scope) -> Flow:
        self.facts.executable("unset")
        self.facts.command(text_of(node))
        for child in node.named_children:
            name = text_of(child)
            if name in ("HISTFILE", *variables.HISTORY_SIZE_VARS):
                self.facts.flag(cat.HISTORY_TAMPER)
            scope.vars.pop(name, None)
        return EMPTY

    # -- redirections ---------------------------------------------------------------------------

    def _finish(self, io: Redirections, out: Flow, scope: Scope, depth: int, roles_start: int) -> Flow:
        if io.stdout is not None:
            if out.secrets:
                self.facts.flag(cat.CREDENTIAL_ACCESS)  # `env > dump.txt`: the secrets, saved
            if out.unbounded and not is_harmless_sink(io.stdout):
                self.facts.flag(cat.RESOURCE_EXHAUSTION)  # `yes > f`: until the disk is full
            if out is not EMPTY:
                # Remember what went into the file: `curl -s u > x.sh; bash x.sh`.
                self.facts.keeps(scope, io.stdout, out)
                handoff.plants_command(self.facts, io.stdout, out)
            out = EMPTY
        elif io.stdout_elsewhere:
            out = EMPTY
        for pipe in io.pipes:
            out = self._pipeline(pipe.named_children, scope, depth, out)
        for sequel in io.sequels:
            out = out.merge(self.visit(sequel, scope, io.stdin, depth))
        self._check_shell_on_network(roles_start)
        return out


def _with_environment(scope: Scope, assignments: list[tuple[str, Word]]) -> Scope:
    """``scope`` as one command sees it with ``VAR=value`` prefixes (or ``env VAR=value``) applied."""
    inner = scope.copy()
    for name, value in assignments:
        if value.exact:
            inner.vars[name] = value.value
        else:
            inner.vars.pop(name, None)
    return inner


def _render(argv: list[Word]) -> str:
    return " ".join(shlex.quote(w.value) if w.exact else w.value for w in argv)
