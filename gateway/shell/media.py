"""Media converters: what they read and the files they write (`ffmpeg … OUT`, `convert IN … OUT`).

A converter's output is a write like `cp`'s destination: `ffmpeg -y -i clip.mov /mnt/nas/masters/clip.mov`
overwrites a file outside the workspace as surely as `cp` would, so its paths get the same judgement
(system writes, other projects, secrets, persistence).
"""

from __future__ import annotations

from gateway.shell.flow import EMPTY, Flow
from gateway.shell.invocation import Invocation

# ffmpeg options that take no value (every other `-x` takes one: `-c:v prores_ks`, `-vf scale=…`).
_FFMPEG_FLAGS = frozenset({"-y", "-n", "-an", "-vn", "-sn", "-dn", "-nostdin", "-hide_banner", "-stats", "-nostats",
                           "-shortest", "-re", "-copyts", "-start_at_zero", "-benchmark", "-benchmark_all",
                           "-ignore_unknown", "-copy_unknown", "-accurate_seek", "-noaccurate_seek", "-dump",
                           "-hex", "-debug_ts", "-xerror", "-autorotate", "-noautorotate", "-autoscale",
                           "-noautoscale", "-fix_sub_duration", "-stdin", "-version", "-help", "-h", "-formats",
                           "-codecs", "-encoders", "-decoders", "-filters", "-pix_fmts", "-layouts", "-sample_fmts"})
# Most ImageMagick settings and operators take one argument; these few do not.
_MAGICK_NO_VALUE = frozenset({"flip", "flop", "strip", "negate", "normalize", "monochrome", "trim", "auto-orient",
                              "auto-level", "equalize", "verbose", "append", "flatten", "coalesce", "adjoin",
                              "antialias", "despeckle", "enhance", "mosaic", "layers-optimize", "reverse", "version",
                              "help", "render", "ping"})
# ImageMagick's `magick` tools that only read (`magick identify x.png`).
_MAGICK_READERS = frozenset({"identify", "compare", "display", "stream"})


def ffmpeg(call: Invocation) -> Flow:
    args = call.args
    i = 0
    while i < len(args):
        value = args[i].value
        if value in _FFMPEG_FLAGS:
            i += 1
        elif value.startswith("-") and len(value) > 1:
            if value == "-i" and i + 1 < len(args):
                call.read(args[i + 1])
            i += 2
        else:
            call.write(args[i])  # an output file
            i += 1
    return EMPTY


def imagemagick(call: Invocation) -> Flow:
    """`convert IN… [options] OUT`, `magick IN… OUT`: the last operand is written; `mogrify` rewrites its
    operands in place (unless `-path DIR` sends them elsewhere)."""
    args = [w for w in call.args if w.value != "--"]
    name = call.name
    if name == "magick" and args and args[0].value in _MAGICK_READERS:
        return EMPTY
    if name == "magick" and args and args[0].value in ("convert", "mogrify", "montage", "composite"):
        name, args = args[0].value, args[1:]
    operands = [w for i, w in enumerate(args) if not w.value.startswith(("-", "+"))
                and not (i > 0 and args[i - 1].value.startswith(("-", "+")) and _takes_value(args[i - 1].value))]
    if name == "mogrify":
        if not any(w.value == "-path" for w in args):
            for word in operands:
                call.write(word)
        return EMPTY
    if len(operands) >= 2:
        for word in operands[:-1]:
            call.read(word)
        call.write(operands[-1])
    return EMPTY


def _takes_value(option: str) -> bool:
    return option.lstrip("-+") not in _MAGICK_NO_VALUE
