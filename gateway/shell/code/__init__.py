"""What program text in another language does, read with that language's own parser (docs/rules.md).

``python -c``, ``node -e``, ``ruby -e``, ``perl -e``, ``php -r`` and their here-documents and scripts can
delete, write, run commands and reach the network through an API instead of a shell command. Regexes
over the text miss renamed imports, string building and nesting; so the code is parsed — Python with
its own ``ast``, the others with tree-sitter grammars — and every API call that amounts to a shell
effect becomes an :class:`Effect`, which ``gateway.shell.interpreters`` then judges exactly like the
shell command it amounts to (``shutil.rmtree('/etc')`` is ``rm -rf /etc``).

    effects_of("python", "import shutil as s; s.rmtree('/etc')")  →  [Effect(DELETE_TREE, '/etc')]

An argument that is not a literal is ``None``: a recursive delete of an unknown path is destructive,
a command that cannot be known is dynamic. Code its parser cannot read yields ``None`` (the caller
falls back to its heuristics and the command stays suspect).
"""

from __future__ import annotations

from gateway.shell.code.effects import (
    CONNECT,
    DELETE,
    DELETE_TREE,
    DYNAMIC,
    ENVIRONMENT,
    EXEC,
    READ,
    WRITE,
    Effect,
)


def effects_of(language: str, source: str) -> list[Effect] | None:
    """The effects of ``source`` in ``language`` (python, javascript, ruby, perl, php); None when the
    language has no parser here or the code does not parse."""
    if language == "python":
        from gateway.shell.code.python import effects

        return effects(source)
    from gateway.shell.code.grammars import effects as grammar_effects

    return grammar_effects(language, source)


__all__ = ["CONNECT", "DELETE", "DELETE_TREE", "DYNAMIC", "ENVIRONMENT", "EXEC", "READ", "WRITE", "Effect",
           "effects_of"]
