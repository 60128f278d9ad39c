"""The numpy dtype of each of the 28 TensorProto data types, and the way back.

The table follows ``onnx._mapping.TENSOR_TYPE_MAP`` (onnx 1.23.2): the same
numpy or ``ml_dtypes`` dtype, the same storage field.  ``ml_dtypes`` is
optional: without it (or with an old version lacking a type) the types numpy
lacks fall back to the unsigned integer of the same width, holding exactly the
bytes the ``ml_dtypes`` array would hold, so ``a.view(ml_dtypes.bfloat16)``
recovers the real dtype later.
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

import numpy as np

try:
    _ml: Any = importlib.import_module("ml_dtypes")
except ImportError:  # pragma: no cover - exercised in a subprocess by the tests
    _ml = None


class DtypeSpec(NamedTuple):
    """How one data type is stored in a TensorProto and returned as an array."""

    data_type: int
    name: str
    dtype: np.dtype[Any]
    """What ``to_array`` returns: the numpy/ml_dtypes dtype, or its fallback."""
    exact: bool
    """False when ``dtype`` is the unsigned fallback because ml_dtypes is missing."""
    field: str
    """The typed storage field, used when ``raw_data`` is not set."""
    per_value: int
    """Storage-field values per element: 2 for complex numbers, else 1."""
    bits: int
    """0 for whole-byte types; 4, 2 or 6 for the types packed in raw_data."""


_FLOAT, _INT32, _INT64, _STRING = "float_data", "int32_data", "int64_data", "string_data"
_DOUBLE, _UINT64 = "double_data", "uint64_data"

# data_type, name, numpy dtype name or ("ml_dtypes attribute", fallback), field,
# values per element, packed bit width.
_TABLE: tuple[tuple[int, str, str | tuple[str, str], str, int, int], ...] = (
    (1, "FLOAT", "float32", _FLOAT, 1, 0),
    (2, "UINT8", "uint8", _INT32, 1, 0),
    (3, "INT8", "int8", _INT32, 1, 0),
    (4, "UINT16", "uint16", _INT32, 1, 0),
    (5, "INT16", "int16", _INT32, 1, 0),
    (6, "INT32", "int32", _INT32, 1, 0),
    (7, "INT64", "int64", _INT64, 1, 0),
    (8, "STRING", "object", _STRING, 1, 0),
    (9, "BOOL", "bool", _INT32, 1, 0),
    (10, "FLOAT16", "float16", _INT32, 1, 0),
    (11, "DOUBLE", "float64", _DOUBLE, 1, 0),
    (12, "UINT32", "uint32", _UINT64, 1, 0),
    (13, "UINT64", "uint64", _UINT64, 1, 0),
    (14, "COMPLEX64", "complex64", _FLOAT, 2, 0),
    (15, "COMPLEX128", "complex128", _DOUBLE, 2, 0),
    (16, "BFLOAT16", ("bfloat16", "uint16"), _INT32, 1, 0),
    (17, "FLOAT8E4M3FN", ("float8_e4m3fn", "uint8"), _INT32, 1, 0),
    (18, "FLOAT8E4M3FNUZ", ("float8_e4m3fnuz", "uint8"), _INT32, 1, 0),
    (19, "FLOAT8E5M2", ("float8_e5m2", "uint8"), _INT32, 1, 0),
    (20, "FLOAT8E5M2FNUZ", ("float8_e5m2fnuz", "uint8"), _INT32, 1, 0),
    (21, "UINT4", ("uint4", "uint8"), _INT32, 1, 4),
    (22, "INT4", ("int4", "uint8"), _INT32, 1, 4),
    (23, "FLOAT4E2M1", ("float4_e2m1fn", "uint8"), _INT32, 1, 4),
    (24, "FLOAT8E8M0", ("float8_e8m0fnu", "uint8"), _INT32, 1, 0),
    (25, "UINT2", ("uint2", "uint8"), _INT32, 1, 2),
    (26, "INT2", ("int2", "uint8"), _INT32, 1, 2),
    (27, "FLOAT6E2M3", ("float6_e2m3fn", "uint8"), _INT32, 1, 6),
    (28, "FLOAT6E3M2", ("float6_e3m2fn", "uint8"), _INT32, 1, 6),
)


def _build() -> dict[int, DtypeSpec]:
    specs: dict[int, DtypeSpec] = {}
    for data_type, name, numpy_name, field, per_value, bits in _TABLE:
        exact = True
        if isinstance(numpy_name, tuple):
            ml_name, fallback = numpy_name
            scalar = getattr(_ml, ml_name, None) if _ml is not None else None
            if scalar is None:
                dtype: np.dtype[Any] = np.dtype(fallback)
                exact = False
            else:
                dtype = np.dtype(scalar)
        else:
            dtype = np.dtype(numpy_name)
        specs[data_type] = DtypeSpec(data_type, name, dtype, exact, field, per_value, bits)
    return specs


SPECS: dict[int, DtypeSpec] = _build()
"""data_type -> spec, for the 28 defined types (UNDEFINED excluded)."""

HAVE_ML_DTYPES: bool = all(spec.exact for spec in SPECS.values())
"""True when every type numpy lacks comes back as its ml_dtypes dtype."""

_BY_DTYPE: dict[np.dtype[Any], int] = {
    spec.dtype: code for code, spec in SPECS.items() if spec.exact and spec.name != "STRING"
}


def spec_of(data_type: int | None) -> DtypeSpec:
    """The spec of ``data_type``.

    Raises:
        TypeError: ``data_type`` is unset, UNDEFINED or not a TensorProto.DataType
            (onnx raises the TypeError for UNDEFINED, a KeyError for the rest).
    """
    if not data_type:
        raise TypeError("The element type in the input tensor is UNDEFINED.")
    spec = SPECS.get(data_type)
    if spec is None:
        raise TypeError(f"data_type {data_type} is not a TensorProto.DataType (1..28)")
    return spec


def tensor_dtype_to_np_dtype(data_type: int) -> np.dtype[Any]:
    """The numpy dtype ``to_array`` returns for ``data_type``.

    Same as ``onnx.helper.tensor_dtype_to_np_dtype`` when ml_dtypes is installed;
    without it, the unsigned storage dtype for the types numpy lacks.

    Raises:
        TypeError: ``data_type`` is UNDEFINED or unknown.
    """
    return spec_of(data_type).dtype


def np_dtype_to_tensor_dtype(dtype: Any) -> int:
    """The TensorProto data type ``from_array`` writes for arrays of ``dtype``.

    Byte order does not matter (``>f4`` is FLOAT, written little-endian);
    ``str``, ``bytes`` and ``object`` dtypes are STRING.

    Raises:
        ValueError: no data type matches, with onnx's message.
    """
    dtype = np.dtype(dtype)
    if dtype.kind in "OUS":
        return 8
    if not dtype.isnative:
        dtype = dtype.newbyteorder("=")
    code = _BY_DTYPE.get(dtype)
    if code is None:
        raise ValueError(f"Unable to convert type {dtype!r} into TensorProto element type.")
    return code
