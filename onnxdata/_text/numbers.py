"""Numbers as the text format spells them: reading integers, floats and bools, and
upb's C-style float formatting (``%.6g``, ``%.9g``, ``%.15g``, ``%.17g``).

The readers are protobuf's own (``ParseInteger``, ``ParseFloat``,
``ParseBool``), public in ``text_format``; the integer ranges are the kinds'
(:mod:`.._core.kinds`).
"""

from __future__ import annotations

import math
import re
import struct

from .._core.kinds import int_bounds
from .._core.own_values import to_float32

__all__ = [
    "ParseBool",
    "ParseFloat",
    "ParseInteger",
    "parse_any_integer",
    "upb_double",
    "upb_float",
]

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
_OCTAL = re.compile(r"(-?)0(\d+)$")


def parse_any_integer(text: str) -> int:
    """An integer in any of the text format's spellings (C octal ``017`` included).

    Raises:
        ValueError: ``text`` is no integer.
    """
    spelled = text
    octal = _OCTAL.match(text)
    if octal:
        spelled = f"{octal.group(1)}0o{octal.group(2)}"
    try:
        return int(spelled, 0)
    except ValueError:
        raise ValueError(f"Couldn't parse integer: {text}") from None


def ParseInteger(text: str, is_signed: bool = False, is_long: bool = False) -> int:  # noqa: N802
    """An integer of text format, checked against int32/uint32/int64/uint64's range.

    Raises:
        ValueError: not an integer, or out of range.
    """
    result = parse_any_integer(text)
    lo, hi = int_bounds(bool(is_signed), 64 if is_long else 32)
    if not lo <= result <= hi:
        raise ValueError(f"Value out of range: {result}")
    return result


_FLOAT_INFINITY = re.compile("-?inf(?:inity)?f?$", re.IGNORECASE)
_FLOAT_NAN = re.compile("nanf?$", re.IGNORECASE)
_FLOAT_OCTAL_PREFIX = re.compile("-?0[0-9]+")


def ParseFloat(text: str) -> float:  # noqa: N802 - protobuf's name
    """A float of text format: Python's spellings, ``inf``/``infinity``/``nan``
    in any case, and a trailing ``f``.

    Raises:
        ValueError: not a float, or a leading zero (``01.5``).
    """
    if _FLOAT_OCTAL_PREFIX.match(text):
        raise ValueError(f"Invalid octal float: {text}")
    try:
        return float(text)
    except ValueError:
        pass
    if _FLOAT_INFINITY.match(text):
        return -math.inf if text[0] == "-" else math.inf
    if _FLOAT_NAN.match(text):
        return math.nan
    try:
        return float(text.rstrip("fF"))
    except ValueError:
        raise ValueError(f"Couldn't parse float: {text}") from None


def ParseBool(text: str) -> bool:  # noqa: N802 - protobuf's name
    """``true``/``t``/``1``/``True`` or ``false``/``f``/``0``/``False``.

    Raises:
        ValueError: anything else.
    """
    if text in ("true", "t", "1", "True"):
        return True
    if text in ("false", "f", "0", "False"):
        return False
    raise ValueError('Expected "true" or "false".')


# -- upb's formatting --------------------------------------------------------------


def _strtof(text: str) -> float:
    """The float32 nearest the decimal ``text``, rounded once (C's ``strtof``)."""
    near = float(text)
    single = to_float32(near)
    if math.isinf(single) or math.isnan(single) or single == near:
        return single
    # Rounding to double first may land exactly between two float32s; decide exactly.
    below, above = sorted((single, _neighbour(single, near)))
    if near * 2 != below + above:  # both sides exact in double arithmetic
        return single
    from fractions import Fraction  # rare: only for a decimal exactly between two float32s

    middle = (Fraction(below) + Fraction(above)) / 2
    exact = Fraction(text)
    if exact != middle:
        return below if exact < middle else above
    return single  # a true tie: to even, as the double was


def _neighbour(single: float, toward: float) -> float:
    """The float32 next to ``single`` on the side of ``toward``."""
    bits = _U32.unpack(_F32.pack(single))[0]
    step = 1 if (toward > single) == (single >= 0) else -1
    if single == 0:
        return math.copysign(_F32.unpack(_U32.pack(1))[0], toward)
    result: float = _F32.unpack(_U32.pack(bits + step))[0]
    return result


def upb_float(value: float) -> str:
    """upb's text for a float32: ``%.6g``, else ``%.9g`` (its round-trip rule)."""
    text = _c_g(value, 6)
    if math.isnan(value) or _strtof(text) != value:
        text = _c_g(value, 9)
    return text


def upb_double(value: float) -> str:
    """upb's text for a double: ``%.15g``, else ``%.17g``."""
    text = _c_g(value, 15)
    if math.isnan(value) or float(text) != value:
        text = _c_g(value, 17)
    return text


def _c_g(value: float, digits: int) -> str:
    """C's ``printf("%.*g")`` as upb prints: Python's ``%g``, a NaN of either sign ``nan``."""
    return f"{value:.{digits}g}"
