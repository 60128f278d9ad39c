"""Number literals to values, as onnx's C++ parser converts them.

onnx converts a literal's text with ``std::stoll``/``std::stoull`` (integers)
and ``std::from_chars`` (floats, with ``strtof``'s result for underflow): a
float is rounded once, from the decimal text straight to float32 (not through
a double), underflow gives zero or a subnormal, overflow is an error, and an
integer out of range is an error (``stoull`` takes ``-N`` as ``2**64 - N``).
The literal's text may hold whitespace or a comment after a leading ``-``
(onnx's lexer skips them there); every conversion then fails, as in C++.

Each function raises :class:`ValueError` with a short reason when the C++
conversion throws; the caller turns it into a located ``ParseError``.
"""

from __future__ import annotations

import math
import re
import struct
from decimal import Decimal

__all__ = ["to_double", "to_float", "to_int64", "to_uint64"]

_INT = re.compile(r"(-?)0*([0-9]+)")
_FLOAT = re.compile(
    r"-?(?:[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])"
)
_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
_INT64_MAX = 2**63 - 1
_UINT64_MAX = 2**64 - 1
_FLT_MAX = 3.4028234663852886e38
_OVERFLOW = 3.4028235677973366e38  # _FLT_MAX and half its last step: the rounding's edge
_MAX_DIGITS = 21  # more significant digits than any 64-bit integer has


def _integer(text: str) -> tuple[bool, int]:
    """(negative, magnitude) of an integer literal; ``ValueError`` as stoll's
    ``invalid_argument`` (no digits after the sign) or ``out_of_range`` (too
    many digits to be any 64-bit integer: not converted, whatever its length)."""
    found = _INT.fullmatch(text)
    if found is None:
        raise ValueError(f"not an integer: {text!r}")
    sign, digits = found.groups()
    if len(digits) > _MAX_DIGITS:
        raise ValueError("integer out of range")
    return bool(sign), int(digits)


def to_int64(text: str) -> int:
    """``std::stoll(text)``.

    Raises:
        ValueError: not an integer, or outside the int64 range.
    """
    negative, magnitude = _integer(text)
    value = -magnitude if negative else magnitude
    if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
        raise ValueError("integer out of range")
    return value


def to_uint64(text: str) -> int:
    """``std::stoull(text)``: a negative ``-N`` wraps to ``2**64 - N``.

    Raises:
        ValueError: not an integer, or a magnitude above ``2**64 - 1``.
    """
    negative, magnitude = _integer(text)
    if magnitude > _UINT64_MAX:
        raise ValueError("integer out of range")
    return (-magnitude) % (_UINT64_MAX + 1) if negative else magnitude


def _checked(text: str) -> float:
    """The correctly rounded double of ``text``, checked to be a float literal
    as ``from_chars`` reads one, and not overflowing."""
    if _FLOAT.fullmatch(text) is None:
        raise ValueError(f"Failed to parse float from string: {text}")
    value = float(text)
    if math.isinf(value) and not text.lstrip("-")[:1].isalpha():
        raise ValueError(f"Failed to parse float from string: {text}")
    return value


def to_double(text: str) -> float:
    """``from_chars`` to a double: Python's ``float`` rounds the same way.

    Raises:
        ValueError: not a float literal, or it overflows.
    """
    return _checked(text)


def to_float(text: str) -> float:
    """``from_chars`` to a float32, rounded once from the decimal text; the
    result is a Python float that float32 holds exactly.

    Raises:
        ValueError: not a float literal, or it overflows float32.
    """
    value = _checked(text)
    try:
        single: float = _F32.unpack(_F32.pack(value))[0]
    except OverflowError:
        # Rounded onto the midpoint above the largest float32, the double packs as
        # infinity; the text itself may be below it.
        if abs(value) != _OVERFLOW or Decimal(text).copy_abs() >= Decimal(_OVERFLOW):
            raise ValueError(f"Failed to parse float from string: {text}") from None
        return math.copysign(_FLT_MAX, value)
    if single == value or math.isnan(value) or math.isinf(value):
        return single
    # The double may have rounded onto a midpoint between two float32s, which the
    # second rounding then breaks to even: only the exact text can tell the side.
    other = _neighbour(single, value)
    if (single + other) / 2 != value:
        return single
    exact = Decimal(text)
    if exact == Decimal(value):
        return single  # a true tie: to even, as the pack did
    closer = other if (exact > Decimal(value)) == (other > single) else single
    if math.isinf(closer):
        raise ValueError(f"Failed to parse float from string: {text}")
    return closer


def _neighbour(single: float, toward: float) -> float:
    """The float32 next to ``single`` on the side of ``toward`` (of the same sign;
    infinity past the largest)."""
    magnitude = abs(single)
    bits = _U32.unpack(_F32.pack(magnitude))[0]
    bits += 1 if abs(toward) > magnitude else -1
    return math.copysign(_F32.unpack(_U32.pack(bits))[0], toward)
