"""Numbers as onnx's printer writes them: C++ ``std::to_chars``, shortest form.

onnx prints every number with ``std::to_chars(value)``: for a float or a double, the
fewest significant digits that read back as the same value (of that width: a float32
needs fewer than the double holding it), the closest such decimal to the value, then
written fixed (``0.001``, ``67108864``) or scientific (``1e-07``, ``1.5e+20``, exponent of
two digits at least), whichever is shorter, fixed on a tie; a fixed integer is written
with all its exact digits (``123456792``, not the shortest ``123456790``).  Infinities are
``inf``/``-inf``, a NaN ``nan`` or ``-nan`` by its sign bit, zero ``0``/``-0``.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

__all__ = ["Float32Texts", "double_text", "float32_text"]

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def _shortest32_fast(value: float) -> tuple[str, int] | None:
    """The shortest digits of positive float32 ``value`` (no power of two) and the power
    of ten of the last one, by correctly rounded decimals tested against the value's
    rounding interval (its two halfway points, exact in double); ``None`` where that
    could be wrong: a decimal whose double lands on an end, where only exact arithmetic
    tells which float32 it reads as."""
    # Half a float32 step at the value's binade (subnormals share the smallest one);
    # value plus or minus it is exact in double (26 significant bits at most).
    half = math.ldexp(1.0, max(math.frexp(value)[1], -125) - 25)
    low, high = value - half, value + half
    found: tuple[str, int] | None = None
    # Most float32 weights need 8 digits, a third 7, a few 9: try 8, then fewer while
    # they still read back (the round trip holds from some count on), or else 9.
    digits = 8
    while digits:
        text = "%.*e" % (digits - 1, value)  # noqa: UP031 - the faster form of the two
        near = float(text)
        if near in (low, high):
            return None
        if not low < near < high:
            if found is None and digits == 8:
                digits = 9
                continue
            break
        mantissa, _, exp = text.partition("e")
        found = (mantissa.replace(".", ""), int(exp) - digits + 1)
        if digits == 9:
            break
        digits -= 1
    return found


def _neighbours32(value: float) -> tuple[Fraction, Fraction]:
    """The exact halfway points to the float32s below and above positive ``value``."""
    bits = _U32.unpack(_F32.pack(value))[0]
    below = _F32.unpack(_U32.pack(bits - 1))[0] if bits > 0 else -value
    above_bits = bits + 1
    exact = Fraction(value)
    if above_bits >= 0x7F800000:  # the largest float32: the next step is as wide as the last
        above = exact + (exact - Fraction(below))
    else:
        above = Fraction(_F32.unpack(_U32.pack(above_bits))[0])
    return (exact + Fraction(below)) / 2, (exact + above) / 2


def _shortest32_exact(value: float) -> tuple[str, int]:
    """The shortest digits of positive float32 ``value`` (and the last one's power of ten)
    by exact arithmetic, as Ryu finds them: of the decimals with the fewest digits inside
    the value's rounding interval (its ends included when the value's last bit is even,
    as round-half-even reads them), the closest to the value."""
    low, high = _neighbours32(value)
    even = _U32.unpack(_F32.pack(value))[0] & 1 == 0
    exact = Fraction(value)
    for digits in range(1, 10):
        mantissa, _, exp = f"{value:.{digits - 1}e}".partition("e")
        nearest = int(mantissa.replace(".", ""))
        power = int(exp) - digits + 1
        unit = Fraction(10) ** power
        inside = []
        for candidate in (nearest, nearest - 1, nearest + 1):
            at = candidate * unit
            if (low <= at <= high) if even else (low < at < high):
                inside.append((abs(at - exact), candidate))
        if inside:
            best = min(inside, key=lambda pair: pair[0])[1]
            return str(best), power
    raise AssertionError(f"no 9-digit decimal reads back as the float32 {value!r}")


def _layout(value: float, digits: str, power: int) -> str:
    """``value`` (finite, non-zero) whose shortest digits are ``digits`` times
    ``10**power``, fixed or scientific, whichever is shorter (fixed on a tie)."""
    stripped = digits.rstrip("0")
    power += len(digits) - len(stripped)
    digits = stripped
    count = len(digits)
    exponent = power + count - 1
    scientific = count + (1 if count > 1 else 0) + (5 if abs(exponent) >= 100 else 4)
    if power >= 0:
        fixed = count + power
    elif -power < count:
        fixed = count + 1
    else:
        fixed = 2 - power
    sign = "-" if value < 0 else ""
    if fixed <= scientific:
        if power >= 0:  # an integer: all its exact digits, as to_chars writes them
            return sign + str(int(abs(value)))
        if -power < count:
            return f"{sign}{digits[:power]}.{digits[power:]}"
        return f"{sign}0.{'0' * (-power - count)}{digits}"
    head = digits[0] + ("." + digits[1:] if count > 1 else "")
    return f"{sign}{head}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def _special(value: float) -> str | None:
    if value != value:
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return None


def float32_text(value: float) -> str:
    """A float32 as ``std::to_chars(float)`` writes it; a value that is no float32 (a
    Python float or int put in a field unrounded) is first rounded to one, as encoding
    it would round it."""
    try:
        bits = _U32.unpack(_F32.pack(value))[0]
    except OverflowError:  # past the largest float32: infinity, as C's cast rounds it
        return "-inf" if value < 0 else "inf"
    sign = "-" if bits >> 31 else ""
    bits &= 0x7FFFFFFF
    if bits >= 0x7F800000:
        return sign + ("inf" if bits == 0x7F800000 else "nan")
    if bits == 0:
        return sign + "0"
    magnitude: float = _F32.unpack(_U32.pack(bits))[0]
    # A power of two has a narrower interval below than above: the closest decimal of
    # some length may miss it while a farther one fits, so only exact arithmetic will do
    # (and for the largest float32, whose upper end is past every float32).
    if (bits & 0x7FFFFF == 0 and bits > 0x00800000) or bits == 0x7F7FFFFF:
        found = None
    else:
        found = _shortest32_fast(magnitude)
    if found is None:
        found = _shortest32_exact(magnitude)
    return _layout(-magnitude if sign else magnitude, *found)


def double_text(value: float) -> str:
    """A double as ``std::to_chars(double)`` writes it.

    Python's ``repr`` already gives the shortest digits that read back as the value,
    the closest to it (David Gay's algorithm, as Ryu's); only their layout differs.
    """
    special = _special(value)
    if special is not None:
        return special
    mantissa, _, exp = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0") or "0"
    power = (int(exp) if exp else 0) - len(fraction)
    return _layout(value, digits, power)


class Float32Texts:
    """:func:`float32_text` remembering each value's text, for one printing: weights and
    attribute values repeat, and a text is costly to find.  Made per printing, so
    nothing outlives it."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: dict[float, str] = {}

    def __call__(self, value: float) -> str:
        found = self._known.get(value)
        if found is None or value == 0 or value != value:  # 0.0 == -0.0; NaNs differ by sign
            found = self._known[value] = float32_text(value)
        return found
