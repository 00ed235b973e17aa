"""JSON for the hook's hot path, through CPython's C codec ``_json`` directly.

Why: ``import json`` costs the hook about 11 ms on a small machine (it imports ``re`` and ``enum``),
several times the whole gateway round trip, and the hook starts on every tool call. ``json`` itself
uses this same C scanner and encoder, so the results are identical. Where the accelerator is missing
(another Python implementation) the standard ``json`` module is used instead.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only; importing typing costs milliseconds here
    from typing import Any


class DecodeError(ValueError):
    pass


def _constant(name: str) -> float:
    return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


try:
    import _json

    class _Context:
        """The attributes the C scanner reads from its decoder (as json.JSONDecoder has them)."""

        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = staticmethod(_constant)

    _scan = _json.make_scanner(_Context())  # type: ignore[arg-type]
    # markers=None skips the cycle check (the hook only encodes data it built); no default, no indent.
    _encode = _json.make_encoder(
        None, None, _json.encode_basestring_ascii, None, ":", ",", False, False, True  # type: ignore[arg-type]
    )

    def loads(data: bytes | str) -> Any:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        text = text.strip(" \t\n\r")
        try:
            value, end = _scan(text, 0)
        except StopIteration:
            raise DecodeError("not JSON") from None
        except Exception as e:
            # Used bare, the C scanner can fail with SystemError on malformed input instead of
            # JSONDecodeError; either way the input is not valid JSON.
            raise DecodeError(f"not JSON ({type(e).__name__})") from None
        if end != len(text):
            raise DecodeError("extra data after the JSON value")
        return value

    def dumps(value: Any) -> str:
        return "".join(_encode(value, 0))

except ImportError:  # pragma: no cover - CPython always has _json
    import json as _std

    def loads(data: bytes | str) -> Any:
        try:
            return _std.loads(data)
        except ValueError as e:
            raise DecodeError(str(e)) from None

    def dumps(value: Any) -> str:
        return _std.dumps(value, separators=(",", ":"))
