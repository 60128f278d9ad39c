"""numpy_helper's arrays-only functions: little-endian bytes, packing, casts, random ints.

As ``onnx.numpy_helper`` 1.23.2 (same results, bit for bit), with a
``ValueError`` where onnx would return wrong values (packing elements wider
than a byte) and a few inputs onnx fails on accepted (a 0-d ``to_float8e8m0``,
a data type as ``saturate_cast``'s target); docs/numpy.md lists them.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import numpy.typing as npt

from .._messages.declarations import TensorProto
from . import bits as _numpy_bits
from . import floats as _numpy_floats
from .dtypes import SPECS


def tobytes_little_endian(array: npt.NDArray[Any] | np.generic) -> bytes:
    """The bytes of ``array`` in little-endian order (row-major), whatever its byte order.

    Raises:
        TypeError: ``array`` is not a numpy array or scalar.
    """
    if isinstance(array, np.generic):
        array = np.asarray(array)
    elif not isinstance(array, np.ndarray):
        raise TypeError(f"tobytes_little_endian expects a numpy array, not {type(array).__name__}")
    order = array.dtype.byteorder
    if order == ">" or (sys.byteorder == "big" and order == "="):
        array = array.astype(array.dtype.newbyteorder("<"))
    return array.tobytes()


def _packed(array: Any, bits: int) -> npt.NDArray[np.uint8]:
    if not isinstance(array, (np.ndarray, np.generic)):
        raise TypeError(f"expected a numpy array of 1-byte elements, not {type(array).__name__}")
    array = np.asarray(array)
    if array.dtype.itemsize != 1:
        raise ValueError(
            f"expected an array of 1-byte elements (codes), got {array.dtype}; "
            "cast it first (for example with saturate_cast or astype(numpy.uint8))"
        )
    return np.frombuffer(bytearray(_numpy_bits.pack(array, bits)), dtype=np.uint8)


def pack_4bitx2(array: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """The 1-D ``uint8`` array of ``array``'s elements packed two per byte.

    The layout of raw_data for INT4, UINT4 and FLOAT4E2M1: the low nibble of
    each element's byte, the first element in the low half; an odd count
    leaves the last high nibble zero.  onnx calls it ``_pack_4bitx2``.

    Raises:
        TypeError: ``array`` is not a numpy array.
        ValueError: its elements are not 1 byte wide (onnx packs the bytes
            of wider elements as if each were an element).
    """
    return _packed(array, 4)


def pack_2bitx4(array: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """The 1-D ``uint8`` array of ``array``'s elements packed four per byte.

    The layout of raw_data for INT2 and UINT2: the low 2 bits of each
    element's byte, the first element in the lowest bits.  onnx calls it
    ``_pack_2bitx4``.

    Raises:
        TypeError: ``array`` is not a numpy array.
        ValueError: its elements are not 1 byte wide.
    """
    return _packed(array, 2)


def pack_6bit(array: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """The 1-D ``uint8`` array of ``array``'s 6-bit codes packed four per three bytes.

    The layout of raw_data for FLOAT6E2M3 and FLOAT6E3M2 (a little-endian
    bit stream, trimmed to ``ceil(6 * n / 8)`` bytes).  onnx calls it
    ``_pack_6bit``.

    Raises:
        TypeError: ``array`` is not a numpy array.
        ValueError: its elements are not 1 byte wide.
    """
    return _packed(array, 6)


_NATIVE_INTS = frozenset(np.dtype(c) for c in "bBhHiIlLqQ")


def _target(dtype: Any) -> tuple[np.dtype[Any] | None, int | None]:
    """(numpy dtype, or None) and (the data type numpy lacks, or None) of ``dtype``."""
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        spec = SPECS.get(dtype)
        if spec is None:
            raise TypeError(f"{dtype} is not a TensorProto.DataType")
        if spec.exact and spec.dtype.type.__module__ == "numpy":
            return spec.dtype, None
        return None, dtype
    np_dtype = np.dtype(dtype)
    for code, spec in SPECS.items():
        if spec.exact and spec.dtype == np_dtype and spec.dtype.type.__module__ != "numpy":
            return None, code
    return np_dtype, None


def _as_data_type(codes: npt.NDArray[Any], data_type: int, storage_view: bool) -> npt.NDArray[Any]:
    """``codes`` (unsigned, one element a byte or two) as ``data_type``'s dtype.

    Raises:
        MissingMLDtypesError: the type needs ml_dtypes, missing, without the storage view.
    """
    return codes.view(SPECS[data_type].result(storage_view))


def saturate_cast(x: Any, dtype: Any, *, storage_view: bool = False) -> npt.NDArray[Any]:
    """``x`` cast to ``dtype``, values beyond its range clamped to its ends.

    As ``onnx.numpy_helper.saturate_cast``: integer targets round ``x`` (half
    to even) then clip; float targets clip (inf becomes the largest finite
    value, NaN stays NaN where the type has one) then round to nearest even.
    ``dtype`` is a numpy or ml_dtypes dtype, or (beyond onnx) a
    ``TensorProto`` data type.  The casts to the types numpy lacks do not
    use ml_dtypes but give its results bit for bit; the result has the
    ml_dtypes dtype, or with ``storage_view=True`` (for a data type) the
    unsigned codes of the same width, with or without ml_dtypes.

    Raises:
        TypeError: ``dtype`` is not a numeric type (or an unknown data type),
            or ``x`` is complex.
        MissingMLDtypesError: an ImportError: ``dtype`` is a data type that
            needs ml_dtypes, which is missing, and ``storage_view`` is false.
    """
    target, data_type = _target(dtype)
    if data_type is not None:
        if data_type in _numpy_floats.FORMATS:
            codes = _numpy_floats.float_codes(x, data_type, saturate=True)
        elif data_type in _numpy_floats.INT_RANGES:
            low, high = _numpy_floats.INT_RANGES[data_type]
            codes = _numpy_floats.int_codes(np.clip(np.round(np.asarray(x)), low, high), data_type)
        elif data_type == TensorProto.FLOAT8E8M0:
            codes = _numpy_floats.float8e8m0_cast_codes(x)
        else:
            raise TypeError(f"saturate_cast cannot cast to {SPECS[data_type].name}")
        return _as_data_type(codes, data_type, storage_view)
    assert target is not None
    if target in _NATIVE_INTS:
        limits: Any = np.iinfo(target)
        x = np.round(x)
    elif target.kind == "f":
        limits = np.finfo(target)
    else:
        raise TypeError(f"saturate_cast casts to numeric types, not {target}")
    return np.asarray(np.clip(x, limits.min, limits.max).astype(target))


def to_float8e8m0(
    x: Any, saturate: bool = True, round_mode: str = "up", *, storage_view: bool = False
) -> npt.NDArray[Any]:
    """``x`` as FLOAT8E8M0 (powers of two), as ``onnx.numpy_helper.to_float8e8m0``.

    ``x`` is first cast to float32.  The result keeps each value's float32
    exponent, whatever its sign, raised by one when ``round_mode`` says so:
    ``"up"`` (any nonzero mantissa), ``"nearest"`` (onnx's rule), ``"down"``
    (never); with ``saturate`` the largest code 0xFE is never rounded up to
    0xFF, which is NaN (as are NaN and inf).  The result's dtype is
    ``ml_dtypes.float8_e8m0fnu``, or with ``storage_view=True`` the ``uint8``
    codes (with or without ml_dtypes); unlike onnx, a 0-d ``x`` works.

    Raises:
        ValueError: ``round_mode`` is not "up", "down" or "nearest" (onnx's
            message).
        TypeError: ``x`` cannot be cast to float32.
        MissingMLDtypesError: an ImportError: ml_dtypes is missing and
            ``storage_view`` is false.
    """
    codes = _numpy_floats.float8e8m0_codes(x, saturate=saturate, round_mode=round_mode)
    return _as_data_type(codes, TensorProto.FLOAT8E8M0, storage_view)


_RANDOM_INTS = frozenset(np.dtype(c) for c in ("uint8", "uint16", "uint32", "uint64",
                                               "int8", "int16", "int32", "int64"))  # fmt: skip


def create_random_int(input_shape: tuple[int, ...], dtype: Any, seed: int = 1) -> npt.NDArray[Any]:
    """Random integers of ``dtype``, as ``onnx.numpy_helper.create_random_int``.

    Seeds numpy's global generator with ``seed`` (as onnx does, so the values
    are the same) and draws from the type's range cut to int32's.

    Raises:
        TypeError: ``dtype`` is not an 8- to 64-bit integer type (onnx's message).
    """
    try:
        known = np.dtype(dtype) in _RANDOM_INTS
    except TypeError:
        known = False
    if not known:
        raise TypeError(f"{dtype} is not supported by create_random_int.")
    np.random.seed(seed)
    info = np.iinfo(dtype)
    end = min(int(info.max), int(np.iinfo(np.int32).max))
    start = max(int(info.min), int(np.iinfo(np.int32).min))
    return np.random.randint(start, end, size=input_shape).astype(dtype)
