"""JavaScript, Ruby, Perl and PHP program text → effects, with tree-sitter grammars.

One walk serves the four languages: every call node's callee is reduced to its last name (``fs.rmSync``,
``require('fs').rmSync`` and ``rmSync`` are all ``rmSync``; Ruby keeps its receiver, ``FileUtils.rm_rf``),
looked up in the language's table of APIs, and its literal string arguments become the effect's value.
Command strings (backquotes, ``%x()``, ``qx``) are commands too. A string with interpolation is not a
literal: a command built at run time is ``DYNAMIC``, a recursive delete of a built path is destructive.
"""

from __future__ import annotations

import re
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from tree_sitter import Language, Node, Parser

from gateway.shell.code.effects import (
    DELETE,
    DELETE_TREE,
    DYNAMIC,
    ENVIRONMENT,
    EXEC,
    MAX_EFFECTS,
    READ,
    WRITE,
    Effect,
    command_line,
)

_MAX_NODES = 50_000  # the command line is already bounded (64 KiB); this bounds the walk too


@dataclass(frozen=True)
class _Grammar:
    calls: frozenset[str]  # node types that are calls
    command_strings: frozenset[str]  # `…` / %x() / qx / shell_exec literals
    strings: frozenset[str]  # string literal node types
    content: frozenset[str]  # literal pieces inside them
    apis: dict[str, tuple[str, int]]  # callee → (effect, argument index; -1 = every argument)


_JS_STRINGS = frozenset({"string", "template_string"})
_JS = _Grammar(
    calls=frozenset({"call_expression", "new_expression"}),
    command_strings=frozenset(),
    strings=_JS_STRINGS,
    content=frozenset({"string_fragment", "escape_sequence"}),
    apis={
        **dict.fromkeys(["rmSync", "rm", "rmdirSync", "rmdir"], (DELETE, 0)),  # recursive: see _recursive
        **dict.fromkeys(["unlinkSync", "unlink"], (DELETE, 0)),
        **dict.fromkeys(["writeFileSync", "writeFile", "appendFileSync", "appendFile", "createWriteStream",
                         "truncateSync", "truncate", "chmodSync", "chmod", "openSync"], (WRITE, 0)),
        **dict.fromkeys(["copyFileSync", "copyFile", "cpSync", "cp", "renameSync", "rename", "symlinkSync",
                         "symlink", "linkSync"], (WRITE, 1)),
        **dict.fromkeys(["readFileSync", "readFile", "createReadStream"], (READ, 0)),
        **dict.fromkeys(["execSync", "exec", "execaCommand", "execaCommandSync"], (EXEC, 0)),
        **dict.fromkeys(["spawnSync", "spawn", "execFileSync", "execFile", "execa", "fork"], (EXEC, -1)),
        **dict.fromkeys(["eval", "Function", "runInThisContext", "runInNewContext"], (DYNAMIC, 0)),
        # Deno's and Bun's own file APIs (`Deno.remove(p, {recursive: true})`, `Bun.write(p, data)`)
        **dict.fromkeys(["Deno.remove", "Deno.removeSync"], (DELETE, 0)),
        **dict.fromkeys(["Deno.writeTextFile", "Deno.writeTextFileSync", "Deno.writeFileSync", "Deno.truncate",
                         "Deno.chmod", "Bun.write"], (WRITE, 0)),
        **dict.fromkeys(["Deno.copyFile", "Deno.rename", "Deno.symlink"], (WRITE, 1)),
        **dict.fromkeys(["Deno.readTextFile", "Deno.readTextFileSync", "Deno.readFileSync"], (READ, 0)),
    },
)
_RUBY = _Grammar(
    calls=frozenset({"call", "command", "method_call"}),
    command_strings=frozenset({"subshell"}),
    strings=frozenset({"string", "subshell"}),
    content=frozenset({"string_content", "escape_sequence"}),
    apis={
        **dict.fromkeys(["rm_rf", "rm_r", "remove_dir", "remove_entry", "remove_entry_secure", "rmtree",
                         "FileUtils.rm_rf", "FileUtils.rm_r"], (DELETE_TREE, -1)),
        **dict.fromkeys(["rm", "rm_f", "delete", "unlink", "remove_file", "rmdir"], (DELETE, -1)),
        **dict.fromkeys(["write", "binwrite", "chmod", "truncate", "touch"], (WRITE, 0)),
        **dict.fromkeys(["cp", "copy_file", "mv", "move", "install", "cp_r", "ln_s", "symlink"], (WRITE, 1)),
        **dict.fromkeys(["read", "readlines", "binread", "foreach"], (READ, 0)),
        **dict.fromkeys(["open", "new"], (READ, -3)),  # File.open(path, "w"): the mode decides
        "copy_stream": (WRITE, 1),
        **dict.fromkeys(["system", "exec", "spawn", "popen", "capture2", "capture2e", "capture3",
                         "popen3", "syscall"], (EXEC, -1)),
        **dict.fromkeys(["eval", "instance_eval", "class_eval", "module_eval"], (DYNAMIC, 0)),
    },
)
_PERL = _Grammar(
    calls=frozenset({"function_call_expression", "ambiguous_function_call_expression", "method_call_expression",
                     "func1op_call_expression", "func0op_call_expression"}),
    command_strings=frozenset({"command_string"}),
    strings=frozenset({"string_literal", "interpolated_string_literal", "command_string"}),
    content=frozenset({"string_content", "escape_sequence"}),
    apis={
        **dict.fromkeys(["rmtree", "remove_tree"], (DELETE_TREE, -1)),
        **dict.fromkeys(["unlink", "rmdir"], (DELETE, -1)),
        **dict.fromkeys(["open", "sysopen"], (WRITE, -2)),  # -2: only with a write mode (see _perl_open)
        **dict.fromkeys(["rename", "copy", "move", "symlink", "link"], (WRITE, 1)),
        **dict.fromkeys(["chmod", "truncate", "utime"], (WRITE, -1)),
        **dict.fromkeys(["system", "exec", "qx", "readpipe"], (EXEC, -1)),
        **dict.fromkeys(["eval"], (DYNAMIC, 0)),
    },
)
_PHP = _Grammar(
    calls=frozenset({"function_call_expression", "member_call_expression", "scoped_call_expression"}),
    command_strings=frozenset({"shell_command_expression"}),
    strings=frozenset({"string", "encapsed_string", "shell_command_expression"}),
    content=frozenset({"string_content", "string_value", "escape_sequence"}),
    apis={
        **dict.fromkeys(["unlink", "rmdir"], (DELETE, 0)),
        **dict.fromkeys(["file_put_contents", "fopen", "touch", "chmod", "chown", "symlink", "mkdir"], (WRITE, 0)),
        **dict.fromkeys(["copy", "rename", "link", "move_uploaded_file"], (WRITE, 1)),
        **dict.fromkeys(["file_get_contents", "readfile", "file", "parse_ini_file", "highlight_file",
                         "show_source"], (READ, 0)),
        **dict.fromkeys(["system", "exec", "shell_exec", "passthru", "popen", "proc_open", "pcntl_exec"], (EXEC, 0)),
        **dict.fromkeys(["eval", "assert", "create_function"], (DYNAMIC, 0)),
    },
)
_GRAMMARS = {"javascript": _JS, "ruby": _RUBY, "perl": _PERL, "php": _PHP}
_LOCK = threading.Lock()  # a tree-sitter Parser is not safe to share between threads


@cache
def _parser(language: str) -> Parser:
    if language == "javascript":
        import tree_sitter_javascript as grammar

        return Parser(Language(grammar.language()))
    if language == "ruby":
        import tree_sitter_ruby as grammar_rb

        return Parser(Language(grammar_rb.language()))
    if language == "perl":
        import tree_sitter_perl as grammar_pl

        with warnings.catch_warnings():  # this grammar still hands over its language as an int
            warnings.simplefilter("ignore", DeprecationWarning)
            return Parser(Language(grammar_pl.language()))
    import tree_sitter_php as grammar_php

    return Parser(Language(grammar_php.language_php()))


def effects(language: str, source: str) -> list[Effect] | None:
    grammar = _GRAMMARS.get(language)
    if grammar is None:
        return None
    if language == "php" and "<?" not in source:
        source = "<?php " + source  # php -r code has no opening tag
    data = source.encode("utf-8", "surrogatepass")
    with _LOCK:
        tree = _parser(language).parse(data)
    nodes = list(_walk(tree.root_node))
    aliases = _aliases(nodes, grammar)
    out: list[Effect] = []
    if _dumps_environment(nodes, language):
        out.append(Effect(ENVIRONMENT, None))
    for node in nodes:
        if node.type in grammar.command_strings:
            out.append(Effect(EXEC, _literal(node, grammar)))
        elif node.type in grammar.calls:
            out.extend(_call(node, grammar, language, aliases))
        if len(out) >= MAX_EFFECTS:
            break
    return out


# The whole environment in each language (not one variable of it: `process.env.HOME`, `$ENV{HOME}`), and
# the calls that print, serialize, write or send their arguments.
_WHOLE_ENV = {
    "javascript": re.compile(r"process\.env(?![\w.\[])"),
    "ruby": re.compile(r"\bENV(?![\w\[.])|\bENV\.(?:to_h|to_a|to_s|each\w*|map|values|inspect|select|filter)\b"),
    "perl": re.compile(r"%ENV\b"),
    "php": re.compile(r"\$_ENV(?!\s*\[)|\$_SERVER(?!\s*\[)|\bgetenv\(\s*\)"),
}
_ENV_SINKS = {
    "javascript": frozenset({"log", "dir", "info", "error", "warn", "table", "stringify", "inspect", "write",
                             "writeFileSync", "writeFile", "appendFileSync", "fetch", "send", "post", "entries",
                             "values"}),
    "ruby": frozenset({"p", "pp", "puts", "print", "generate", "dump", "write", "to_json", "inspect", "post"}),
    "perl": frozenset({"print", "printf", "say", "Dumper", "encode_json", "to_json", "join", "map"}),
    "php": frozenset({"print_r", "var_dump", "var_export", "json_encode", "echo", "print", "serialize",
                      "file_put_contents", "implode"}),
}
_LOOPS = frozenset({"for_in_statement", "for_statement", "foreach_statement", "for", "loop_expression",
                    "foreach_loop", "cstyle_for_statement"})
_SINK_CALLS = frozenset({"call_expression", "call", "method_call", "function_call_expression", "echo_statement",
                         "print_statement", "ambiguous_function_call_expression", "command", "func1op_call_expression"})


def _dumps_environment(nodes: list[Node], language: str) -> bool:
    """A call that prints, serializes, writes or sends the whole environment (`console.log(process.env)`,
    `p ENV`, `print %ENV`, `print_r($_ENV)`), or a loop over it (`for (k in process.env)`, `ENV.each`,
    `for (keys %ENV)`). Reading one variable is not a dump."""
    whole = _WHOLE_ENV.get(language)
    if whole is None:
        return False
    sinks = _ENV_SINKS[language]
    for node in nodes:
        if node.type in _LOOPS:
            body = node.child_by_field_name("body")
            header = _text(node)[: body.start_byte - node.start_byte] if body is not None else _text(node)
            if whole.search(header.split("\n", 1)[0]):
                return True
        elif node.type in _SINK_CALLS:
            name, receiver = _callee(node)
            text = _text(node)
            callee = text.split("(", 1)[0].split(None, 1)
            head = callee[0] if callee else ""  # `(size / 1024).toFixed(0)`: a call on a parenthesised value
            if (name in sinks or head in sinks) and whole.search(text[len(head):] if head else text):
                return True
            if language == "ruby" and receiver == "ENV" and name.startswith(("each", "map", "select", "sort", "to_",
                                                                              "inspect", "keys", "filter")):
                return True
            if language == "ruby" and text.lstrip().startswith("ENV.") and name.startswith(("each", "map", "select")):
                return True  # `ENV.sort.each { … }`, `ENV.to_h.each`
    return False


def _walk(root: Node) -> Iterator[Node]:
    pending = [root]
    seen = 0
    while pending and seen < _MAX_NODES:
        node = pending.pop()
        seen += 1
        yield node
        pending.extend(reversed(node.named_children))


def _aliases(nodes: list[Node], grammar: _Grammar) -> dict[str, str]:
    """Names bound to an API function (`const del = fs.rmSync`, `run = require('cp').execSync`): calls through
    them are calls of that API."""
    out: dict[str, str] = {}
    for node in nodes:
        if node.type not in ("variable_declarator", "assignment_expression", "assignment"):
            continue
        target = node.child_by_field_name("name") or node.child_by_field_name("left")
        value = node.child_by_field_name("value") or node.child_by_field_name("right")
        if target is None or value is None or target.type not in ("identifier", "variable_name"):
            continue
        if value.type in ("member_expression", "identifier"):
            name = _text(value.child_by_field_name("property") or value) if value.type == "member_expression" \
                else _text(value)
            if name in grammar.apis:
                out[_text(target)] = name
    return out


def _callee(node: Node) -> tuple[str, str]:
    """(name, receiver) of a call: `fs.rmSync` → ('rmSync', 'fs'); `FileUtils.rm_rf` → ('rm_rf', 'FileUtils')."""
    func = node.child_by_field_name("function") or node.child_by_field_name("constructor")
    receiver = ""
    if func is None:  # Ruby `call`, PHP member calls: method + receiver fields
        method = node.child_by_field_name("method") or node.child_by_field_name("name")
        recv = node.child_by_field_name("receiver") or node.child_by_field_name("object") or \
            node.child_by_field_name("scope")
        receiver = _text(recv).rsplit(".", 1)[-1] if recv is not None else ""
        return (_text(method) if method is not None else ""), receiver
    if func.type in ("member_expression", "subscript_expression"):
        prop = func.child_by_field_name("property") or func.child_by_field_name("index")
        obj = func.child_by_field_name("object")
        receiver = _text(obj).rsplit(".", 1)[-1] if obj is not None else ""
        return _text(prop).strip("'\"") if prop is not None else "", receiver
    return _text(func).rsplit("::", 1)[-1].rsplit("->", 1)[-1], receiver


def _call(node: Node, grammar: _Grammar, language: str, aliases: dict[str, str]) -> list[Effect]:
    name, receiver = _callee(node)
    if not receiver and name in aliases:
        name = aliases[name]
    api = grammar.apis.get(f"{receiver}.{name}") or grammar.apis.get(name)
    if api is None:
        return []
    kind, index = api
    if language == "ruby" and name in ("read", "write", "delete", "unlink", "open", "new", "exec") and receiver not in (
            "", "File", "IO", "FileUtils", "Dir", "Pathname", "Kernel", "Process", "Open3"):
        return []  # some_object.read / .delete: not the file system
    args = _arguments(node, grammar)
    if kind == DYNAMIC:
        # Literal code is data the interpreter parses; built code is unknowable.
        return [] if args and args[0] is not None else [Effect(DYNAMIC, None)]
    if kind == DELETE and language == "javascript" and _recursive(node):
        kind = DELETE_TREE
    if index == -2:  # perl open(FH, '>', path) / open(FH, ">path")
        opened = _perl_open(args)
        return [opened] if opened is not None else []
    if index == -3:  # ruby File.open(path, mode) / open("|cmd")
        return [_ruby_open(args)] if args else []
    if kind == EXEC:
        if index == -1 and len(args) > 1:
            return [Effect(EXEC, command_line(args))]
        if args and args[0] is None:
            first = _first_argument(node)
            return [Effect(EXEC, _command_text(first, grammar) if first is not None else None)]
        return [Effect(EXEC, args[0] if args else None)]
    if index == -1:  # every argument is a target: unlink('a', 'b'), FileUtils.rm_rf(['/a', '/b'])
        return [Effect(kind, a) for a in args] or [Effect(kind, None)]
    return [Effect(kind, args[index] if index < len(args) else None)]


_LISTS = frozenset({"arguments", "argument_list", "argument", "list_expression", "parenthesized_expression"})
_ARRAYS = frozenset({"array", "array_creation_expression", "anonymous_array_expression"})
_OPTIONS = frozenset({"object", "hash", "anonymous_hash_expression"})  # spawn('rm', [...], {cwd: …})


def _arguments(node: Node, grammar: _Grammar) -> list[str | None]:
    """The call's arguments, flattened: literal strings as text (the items of a literal array each count
    as one argument, as in spawn('rm', ['-rf', '/'])), anything built at run time as None. Options
    objects are left out."""
    holder = node.child_by_field_name("arguments")
    if holder is None:
        items = list(node.named_children[1:])
    elif holder.type in _LISTS:
        items = list(holder.named_children)
    else:  # perl `rmtree('/x')`: the single argument is the field itself
        items = [holder]
    out: list[str | None] = []
    for item in items:
        while item.type == "argument" and item.named_children:
            item = item.named_children[0]
        if item.type in _LISTS:
            out.extend(_arguments(item, grammar) if item.child_by_field_name("arguments") else
                       [v for c in item.named_children for v in _values(c, grammar)])
        else:
            out.extend(_values(item, grammar))
    return out


def _values(node: Node, grammar: _Grammar) -> list[str | None]:
    if node.type in grammar.strings:
        return [_literal(node, grammar)]
    if node.type in _ARRAYS:
        return [v for c in node.named_children for v in _values(
            c.named_children[0] if c.type == "array_element_initializer" and c.named_children else c, grammar)]
    if node.type in _OPTIONS:
        return []
    if node.type in grammar.calls:
        # `unlink glob("/etc/*")`, `rm_rf(File.expand_path("~/x"))`: a path function's literal is what gets
        # deleted. Any other call computes its value — `system(base64_decode("cm0g…"))` runs what the decoder
        # returns, not the literal it was given — so it is built at run time.
        if _callee(node)[0] not in _PATH_FUNCTIONS:
            return [None]
        inner = _arguments(node, grammar)
        return [inner[0] if inner and inner[0] is not None else None]
    return [None]


_PATH_FUNCTIONS = frozenset({"glob", "realpath", "expand_path", "join", "resolve", "normalize", "abspath",
                             "absolute_path", "canonpath", "rel2abs", "catfile", "catdir", "path", "new"})


def _first_argument(node: Node) -> Node | None:
    holder = node.child_by_field_name("arguments")
    items = list(holder.named_children) if holder is not None and holder.type in _LISTS else \
        [holder] if holder is not None else list(node.named_children[1:2])
    item = items[0] if items else None
    while item is not None and item.type == "argument" and item.named_children:
        item = item.named_children[0]
    return item


_HOME = re.compile(r"homedir|getenv\(\s*['\"]HOME|ENV\[\s*['\"]HOME|ENV\{\s*['\"]?HOME|Dir\.home|env\.HOME|\$HOME"
                   r"|\['HOME'\]")
_CONCATENATIONS = frozenset({"binary_expression", "binary_operator", "string_concatenation"})


def _command_text(node: Node, grammar: _Grammar, depth: int = 0) -> str | None:
    """A command line built by concatenation or interpolation (`'rm -rf ' . getenv('HOME') . '/x'`,
    `"rm -rf #{Dir.home}/x"`), with what the program computes as shell variables: the home directory as
    `$HOME`, anything else as an unknown `$ARGUMENT` — so the shell analysis still judges what it can see.
    None when no part of it is literal."""
    if depth > 16:
        return None
    if node.type in grammar.strings:
        parts = []
        for child in node.named_children:
            parts.append(_text(child) if child.type in grammar.content else _placeholder(child))
        return "".join(parts)
    if node.type in _CONCATENATIONS and node.named_children:
        pieces = [_command_text(c, grammar, depth + 1) for c in node.named_children]
        texts = [p if p is not None else _placeholder(c) for p, c in zip(pieces, node.named_children, strict=True)]
        return "".join(texts) if any(p is not None for p in pieces) else None
    return None


def _placeholder(node: Node) -> str:
    return "$HOME" if _HOME.search(_text(node)) else '"$ARGUMENT"'


def _literal(node: Node, grammar: _Grammar) -> str | None:
    parts = []
    for child in node.named_children:
        if child.type not in grammar.content:
            return None  # interpolation: built at run time
        parts.append(_text(child))
    return "".join(parts)


def _recursive(node: Node) -> bool:
    holder = node.child_by_field_name("arguments")
    return holder is not None and "recursive" in _text(holder)


def _ruby_open(args: list[str | None]) -> Effect:
    path = args[0]
    if path is not None and path.startswith("|"):
        return Effect(EXEC, path[1:].strip() or None)
    mode = args[1] if len(args) > 1 else "r"
    writes = mode is None or any(c in mode for c in "wa+")
    return Effect(WRITE if writes else READ, path)


def _perl_open(args: list[str | None]) -> Effect | None:
    literals = [a for a in args if a is not None]
    for i, text in enumerate(literals):
        stripped = text.strip()
        if stripped in (">", ">>", "+<", "+>", "|-", "-|"):
            return Effect(WRITE, literals[i + 1] if i + 1 < len(literals) else None)
        if stripped.startswith((">", "+<", "+>")):
            return Effect(WRITE, stripped.lstrip(">+<").strip() or None)
        if stripped.endswith("|") or stripped.startswith("|"):
            return Effect(EXEC, stripped.strip("|").strip() or None)
    return Effect(READ, literals[-1]) if literals else None


def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")
