"""Command-line option scanning (getopt-style) over evaluated words.

Each command declares which of its short and long options take a value; everything else starting
with ``-`` is a flag. Short flags may be combined (``-rf``, ``-sSLo out``), long ones may carry their
value after ``=`` or in the next word, and GNU-style unambiguous abbreviations of declared long
options (``--recur``) are recognised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gateway.shell.words import Word


@dataclass(slots=True)
class Options:
    flags: list[tuple[str, Word | None]] = field(default_factory=list)  # ("-o", value) / ("--x", None)
    operands: list[Word] = field(default_factory=list)

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.flags)

    def values(self, *names: str) -> list[Word]:
        return [value for name, value in self.flags if name in names and value is not None]

    def value(self, *names: str) -> Word | None:
        found = self.values(*names)
        return found[-1] if found else None


@dataclass(frozen=True, slots=True)
class Spec:
    short_with_value: str = ""
    long_with_value: frozenset[str] = frozenset()
    long_flags: frozenset[str] = frozenset()  # only needed for abbreviation matching
    stop_at_operand: bool = False  # POSIX: options end at the first operand (wrappers, find, ssh)
    abbreviations: bool = True  # getopt_long's unique prefixes (`--verb` for `--verbose`); curl has none

    def canonical_long(self, name: str) -> str:
        if name in self.long_with_value or name in self.long_flags or not self.abbreviations:
            return name
        matches = [n for n in (*self.long_with_value, *self.long_flags) if n.startswith(name)]
        return matches[0] if len(matches) == 1 else name


def spec(short: str = "", long: Sequence[str] = (), flags: Sequence[str] = (), *, stop: bool = False,
         abbreviations: bool = True) -> Spec:
    return Spec(short, frozenset(long), frozenset(flags), stop, abbreviations)


def scan(args: Sequence[Word], option_spec: Spec) -> Options:
    out = Options()
    i = 0
    n = len(args)
    while i < n:
        word = args[i]
        text = word.value
        is_option = (
            len(text) > 1
            and text[0] == "-"
            and word.wild != 0  # a leading expansion could be anything, so it is an operand
        )
        if not is_option:
            if option_spec.stop_at_operand:
                out.operands.extend(args[i:])
                return out
            out.operands.append(word)
            i += 1
            continue
        if text == "--":
            out.operands.extend(args[i + 1 :])
            return out
        if text.startswith("--"):
            name, eq, _ = text.partition("=")
            name = option_spec.canonical_long(name)
            if eq:
                out.flags.append((name, word.tail(len(text.partition("=")[0]) + 1)))
            elif name in option_spec.long_with_value and i + 1 < n:
                out.flags.append((name, args[i + 1]))
                i += 1
            else:
                out.flags.append((name, None))
            i += 1
            continue
        j = 1
        while j < len(text):
            letter = text[j]
            if letter in option_spec.short_with_value:
                if j + 1 < len(text):
                    out.flags.append(("-" + letter, word.tail(j + 1)))
                elif i + 1 < n:
                    out.flags.append(("-" + letter, args[i + 1]))
                    i += 1
                else:
                    out.flags.append(("-" + letter, None))
                break
            out.flags.append(("-" + letter, None))
            j += 1
        i += 1
    return out


def short_letters(options: Options) -> str:
    """All short option letters seen, e.g. 'rfv' for `-rf -v`."""
    return "".join(name[1] for name, _ in options.flags if len(name) == 2 and name[0] == "-")
