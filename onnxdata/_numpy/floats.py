"""Casts to the small float and integer types numpy lacks, without ml_dtypes.

``onnx.helper.make_tensor`` and ``onnx.numpy_helper.saturate_cast`` convert
values with ``ml_dtypes``; onnxdata does it here, in numpy, bit for bit as
ml_dtypes does (0.7 tested; round to nearest even from the exact value of the input,
float64 or narrower, never through float32), so the results are the same with
or without ml_dtypes installed.  Each cast returns the codes (``uint8``, or
``uint16`` for BFLOAT16), which the caller views as the ml_dtypes dtype when
there is one.

The formats, by the ``TensorProto`` data type they stand for:

* IEEE-like (inf and NaN): FLOAT8E5M2, BFLOAT16.  NaN keeps its sign and
  becomes the quiet NaN; overflow gives inf (or the largest finite value
  when saturating).
* ``fn`` (NaN, no inf): FLOAT8E4M3FN.  Overflow and inf give NaN (or the
  largest value when saturating).
* ``fnuz`` (one NaN, ``0x80``, no negative zero): FLOAT8E4M3FNUZ,
  FLOAT8E5M2FNUZ.
* finite (neither): FLOAT4E2M1, FLOAT6E2M3, FLOAT6E3M2.  Overflow and inf
  saturate; NaN becomes a zero whose sign is the opposite of the NaN's (what
  ml_dtypes does: there is nothing better to give).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .._messages.datatypes import DATA_TYPES
from .._messages.declarations import TensorProto

NDArray = npt.NDArray[Any]


class FloatFormat(NamedTuple):
    """A small binary float format (from ``DataTypeInfo.float``)."""

    exponent_bits: int
    mantissa_bits: int
    bias: int
    kind: str
    """"ieee", "fn", "fnuz" or "finite" (see the module docstring)."""

    @property
    def sign_bit(self) -> int:
        return 1 << (self.exponent_bits + self.mantissa_bits)

    @property
    def inf_code(self) -> int:
        """All exponent bits set, mantissa zero (inf in the "ieee" kind)."""
        return ((1 << self.exponent_bits) - 1) << self.mantissa_bits

    @property
    def max_code(self) -> int:
        """The code of the largest finite value (sign bit clear)."""
        if self.kind == "ieee":
            return self.inf_code - 1
        if self.kind == "fn":  # all ones is NaN
            return self.sign_bit - 2
        return self.sign_bit - 1

    @property
    def nan_code(self) -> int:
        """The code of the (positive, quiet) NaN; 0 for the "finite" kind."""
        if self.kind == "ieee":
            return self.inf_code | (1 << (self.mantissa_bits - 1))
        if self.kind == "fn":
            return self.sign_bit - 1
        if self.kind == "fnuz":
            return self.sign_bit
        return 0

    def value(self, code: int) -> float:
        """The value of a (non-NaN, non-inf) code with the sign bit clear."""
        m = self.mantissa_bits
        biased, mantissa = code >> m, code & ((1 << m) - 1)
        if biased == 0:
            return float(np.ldexp(float(mantissa), 1 - self.bias - m))
        return float(np.ldexp(float((1 << m) | mantissa), biased - self.bias - m))


FORMATS: dict[int, FloatFormat] = {
    code: FloatFormat(*d.float) for code, d in DATA_TYPES.items() if d.float is not None
}
"""data_type -> format, for the float types numpy lacks (FLOAT8E8M0 aside: it
has no sign and no mantissa, see :func:`float8e8m0_codes`)."""


def _as_float64(values: Any) -> NDArray:
    """``values`` as float64, exactly for every real input narrower than it."""
    x = np.asarray(values)
    if x.dtype.kind == "c":
        raise TypeError(f"cannot cast complex values ({x.dtype}) to a real float type")
    if x.dtype != np.float64:
        x = x.astype(np.float64)
    return x


def float_codes(values: Any, data_type: int, *, saturate: bool) -> NDArray:
    """The codes of ``values`` rounded (to nearest, ties to even) to ``data_type``.

    ``saturate``: values beyond the largest finite value, and infinities,
    become the largest finite value of their sign (onnx's saturating cast);
    otherwise inf, or NaN for the formats without inf.  The finite formats
    always saturate.  Returns ``uint8`` codes (``uint16`` for BFLOAT16), in the
    shape of ``values``.

    Raises:
        TypeError: complex values, or values numpy cannot make floats of.
        KeyError: ``data_type`` has no entry in :data:`FORMATS` (internal use).
    """
    fmt = FORMATS[data_type]
    x = _as_float64(values)
    m, emin = fmt.mantissa_bits, 1 - fmt.bias
    a = np.abs(x)
    finite = np.isfinite(a)
    a_fin = np.where(finite, a, 0.0)
    # frexp: a = f * 2**k with f in [0.5, 1), so the binade exponent is k - 1.
    _, k = np.frexp(a_fin)
    # (zero has k = 0: its exponent is emin, like the subnormals')
    exponent = np.where(a_fin > 0, np.maximum(k.astype(np.int64) - 1, emin), emin)
    shift = (m - exponent).astype(np.int64)
    # a / quantum is exact (a power-of-two scaling that stays normal); rint rounds
    # half to even; the integer n then fits easily in int64.
    n = np.rint(np.ldexp(a_fin, shift)).astype(np.int64)
    magnitude = ((exponent - emin) << m) + n
    overflow = (magnitude > fmt.max_code) & finite
    code_dtype = np.uint16 if fmt.sign_bit > 0x80 else np.uint8
    negative = np.signbit(x)
    nan = np.isnan(x)
    inf = np.isinf(x)
    big = overflow | inf
    if saturate or fmt.kind == "finite":
        magnitude = np.where(big, fmt.max_code, magnitude)
    elif fmt.kind == "ieee":
        magnitude = np.where(big, fmt.inf_code, magnitude)
    else:  # fn, fnuz: NaN
        magnitude = np.where(big, fmt.nan_code, magnitude)
        if fmt.kind == "fnuz":  # the one NaN has no sign
            negative = negative & ~big
    if fmt.kind == "fnuz":
        negative = negative & (magnitude != 0)  # no negative zero
        codes = np.where(negative, magnitude | fmt.sign_bit, magnitude)
        codes = np.where(nan, fmt.nan_code, codes)
    elif fmt.kind == "finite":
        codes = np.where(negative, magnitude | fmt.sign_bit, magnitude)
        codes = np.where(nan, np.where(negative, 0, fmt.sign_bit), codes)
    else:
        codes = np.where(negative, magnitude | fmt.sign_bit, magnitude)
        codes = np.where(nan, np.where(negative, fmt.nan_code | fmt.sign_bit, fmt.nan_code), codes)
    return np.asarray(codes).astype(code_dtype)


def saturate_infinities(codes: NDArray, data_type: int) -> NDArray:
    """``codes`` with the infinities of ``data_type`` replaced by its largest value."""
    fmt = FORMATS[data_type]
    if fmt.kind != "ieee":
        return codes
    inf = (codes & ~np.asarray(fmt.sign_bit, codes.dtype)) == fmt.inf_code
    return np.where(inf, (codes & fmt.sign_bit) | fmt.max_code, codes).astype(codes.dtype)


def code_values(data_type: int) -> NDArray:
    """The float64 value of every code of ``data_type`` (NaN for NaN codes)."""
    fmt = FORMATS[data_type]
    out = np.empty(fmt.sign_bit * 2, dtype=np.float64)
    for code in range(fmt.sign_bit):
        if fmt.kind == "ieee" and code >= fmt.inf_code:
            value = np.inf if code == fmt.inf_code else np.nan
        elif fmt.kind == "fn" and code == fmt.nan_code:
            value = np.nan
        else:
            value = fmt.value(code)
        out[code] = value
        out[code | fmt.sign_bit] = -value
    if fmt.kind == "fnuz":
        out[fmt.sign_bit] = np.nan
    return out


ROUND_MODES = ("up", "down", "nearest")


def float8e8m0_codes(values: Any, *, saturate: bool = True, round_mode: str = "up") -> NDArray:
    """FLOAT8E8M0 codes of ``values``, as ``onnx.numpy_helper.to_float8e8m0``.

    The values are first cast to float32 (as onnx does).  The code is the
    float32 biased exponent, whatever the sign; NaN and inf give 0xFF.  The
    exponent is raised by one when the mantissa asks for it: ``"up"`` for any
    nonzero mantissa, ``"nearest"`` by onnx's rule (guard bit set and round,
    sticky or a nonzero exponent), ``"down"`` never.  ``saturate`` keeps 0xFE
    from rounding up to 0xFF (NaN).

    Raises:
        ValueError: ``round_mode`` is not one of "up", "down", "nearest".
    """
    if round_mode not in ROUND_MODES:
        raise ValueError(f"Unsupported rounding mode: {round_mode}")
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    exponent = ((bits >> 23) & 0xFF).astype(np.uint16)
    special = exponent == 0xFF
    mantissa = bits & 0x7FFFFF
    if round_mode == "up":
        round_up = mantissa > 0
    elif round_mode == "nearest":
        guard = (bits & 0x400000) > 0
        rest = ((bits & 0x200000) > 0) | ((bits & 0x1FFFFF) > 0) | (exponent > 0)
        round_up = guard & rest
    else:
        round_up = np.zeros(exponent.shape, dtype=bool)
    round_up = round_up & ~special
    if saturate:
        round_up = round_up & (exponent != 0xFE)
    exponent = exponent + round_up.astype(np.uint16)
    out = np.where(special, 0xFF, exponent).astype(np.uint8)
    return np.asarray(out)


INT_RANGES: dict[int, tuple[int, int]] = {
    code: d.values for code, d in DATA_TYPES.items() if d.values is not None
}
"""The sub-byte integer types numpy lacks, and their value ranges."""


def int_codes(values: Any, data_type: int) -> NDArray:
    """``uint8`` codes of ``values`` as the sub-byte integer ``data_type``.

    As ``numpy.asarray(values, dtype=ml_dtypes.int4)`` for integers: floats are
    truncated toward zero, and values out of range wrap (the low bits are
    kept, what packing keeps anyway).

    Raises:
        ValueError: a value is NaN or infinite.
        TypeError: values numpy cannot make numbers of.
    """
    bits = DATA_TYPES[data_type].bits
    x = np.asarray(values)
    if x.dtype.kind == "f":
        if not np.isfinite(x).all():
            raise ValueError(f"cannot cast NaN or inf to {TensorProto.DataType.Name(data_type)}")
        x = np.trunc(x)
    elif x.dtype.kind not in "biu":
        x = x.astype(np.int64)
    mask = (1 << bits) - 1
    return np.asarray(x.astype(np.int64) & mask).astype(np.uint8)


def float8e8m0_cast_codes(values: Any) -> NDArray:
    """FLOAT8E8M0 codes of ``values`` clipped to its range, as ml_dtypes casts them.

    What ``onnx.numpy_helper.saturate_cast(x, ml_dtypes.float8_e8m0fnu)`` gives:
    values are clipped to [2**-127, 2**127] (zero and negative values become
    the smallest code), then rounded to the nearest power of two, halfway
    values (a mantissa of exactly 1.5) up; NaN is 0xFF.
    """
    x = _as_float64(values)
    nan = np.isnan(x)
    clipped = np.clip(np.where(nan, 1.0, x), 2.0**-127, 2.0**127)
    fraction, k = np.frexp(clipped)  # fraction in [0.5, 1)
    codes = k.astype(np.int64) + 126 + (fraction >= 0.75)
    return np.asarray(np.where(nan, 0xFF, codes)).astype(np.uint8)
