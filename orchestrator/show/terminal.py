"""How the CLI prints: Rich on a terminal, whole lines in a pipe, flags without a type label.

Rich draws for a terminal; in a pipe it still assumes 80 columns and wraps tables and long lines, which
breaks `grep`, `awk` and anything reading the output. So consoles for a stream that is not a terminal get
a width nothing real reaches and soft wrapping (a line stays one line).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

_PIPE_WIDTH = 4096


def console(*, stderr: bool = False) -> Console:
    from rich.console import Console  # only when something is printed: `--help` and `status` start fast

    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty():
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=_PIPE_WIDTH, soft_wrap=True)


def plain_flags() -> None:
    """typer (0.29) labels every flag `<bool>` in its help, as if it took a value; a flag takes none, so it
    shows no type. Called once when the CLI module loads."""
    from typer.core import TyperOption

    original = TyperOption.display_type_rich
    if getattr(original, "_acteon_plain", False):
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag else original(self, ctx)

    display_type_rich._acteon_plain = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]
