"""Values as upb holds them: a float32 field's value, the bytes a ``bytes``
(sub)class instance holds, the UTF-8 of a ``str`` (sub)class instance.

What assigning, encoding and printing a field make of a Python value, the
same in every layer that does one of them; apart from the wire cursor
(``wire.py``), which reads and writes the encoding around such values.
"""

from __future__ import annotations

import math
import struct

__all__ = ["own_bytes", "own_utf8", "shortest_float32", "to_float32"]

_FLOAT32 = struct.Struct("<f")


def to_float32(value: float) -> float:
    """``value`` as a float32 holds it: the conversion protobuf makes on assignment
    (too large a double becomes an infinity of its sign)."""
    try:
        result: float = _FLOAT32.unpack(_FLOAT32.pack(value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)
    return result


def shortest_float32(value: float) -> float:
    """The double with the fewest digits (from 6) that is the float32 ``value``:
    how protobuf's text format and JSON print a float field."""
    digits = 6
    rounded = float(f"{value:.{digits}g}")
    while to_float32(rounded) != value:
        digits += 1
        rounded = float(f"{value:.{digits}g}")
    return rounded


_WHOLE = slice(None)


def own_bytes(value: bytes | bytearray | memoryview) -> bytes | bytearray | memoryview:
    """The bytes a ``bytes`` or ``bytearray`` (or subclass) instance holds, as
    upb writes them; anything else (a ``memoryview``) as it is.

    A subclass's ``__bytes__``, ``__getitem__`` or ``__len__`` is not its
    value: ``bytes(value)`` would call the first, so a whole slice through
    the base class's own ``__getitem__`` copies what the object holds.
    """
    if isinstance(value, bytes) and type(value) is not bytes:
        return bytes.__getitem__(value, _WHOLE)
    if isinstance(value, bytearray) and type(value) is not bytearray:
        return bytearray.__getitem__(value, _WHOLE)
    return value  # (memoryview cannot be subclassed)


def own_utf8(text: str, errors: str = "surrogateescape") -> bytes:
    """The UTF-8 of the characters a ``str`` (or subclass) instance holds, as
    upb writes them: ``str.encode``, not a subclass's own ``encode``.  With
    ``surrogateescape``, a decoded invalid UTF-8 byte goes back out unchanged.

    Raises:
        UnicodeEncodeError: a surrogate that no invalid byte was decoded to.
    """
    return str.encode(text, "utf-8", errors)
