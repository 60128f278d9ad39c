"""The numpy dtype of each TensorProto data type, and the way back.

The dtypes are those of ``_messages.datatypes.DATA_TYPES``, which follows
``onnx._mapping.TENSOR_TYPE_MAP`` (onnx 1.23.2): the same numpy or
``ml_dtypes`` dtype, the same storage field.  ``ml_dtypes`` is
optional: without it (or with an old version lacking a type) the types numpy
lacks fall back to the unsigned integer of the same width, holding exactly the
bytes the ``ml_dtypes`` array would hold, so ``a.view(ml_dtypes.bfloat16)``
recovers the real dtype later.
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

import numpy as np

from .._messages.datatypes import DATA_TYPES
from .._messages.declarations import TensorProto

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


def _build() -> dict[int, DtypeSpec]:
    specs: dict[int, DtypeSpec] = {}
    for data_type, info in DATA_TYPES.items():
        numpy_name = info.numpy
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
        specs[data_type] = DtypeSpec(
            data_type, info.name, dtype, exact, info.storage, info.per_value, info.packed
        )
    return specs


SPECS: dict[int, DtypeSpec] = _build()
"""data_type -> spec, for every defined type (UNDEFINED excluded)."""
_LAST = max(SPECS)
_STRING = int(TensorProto.STRING)

HAVE_ML_DTYPES: bool = all(spec.exact for spec in SPECS.values())
"""True when every type numpy lacks comes back as its ml_dtypes dtype."""

_BY_DTYPE: dict[np.dtype[Any], int] = {
    spec.dtype: code for code, spec in SPECS.items() if spec.exact and code != _STRING
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
        raise TypeError(f"data_type {data_type} is not a TensorProto.DataType (1..{_LAST})")
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
        return _STRING
    if not dtype.isnative:
        dtype = dtype.newbyteorder("=")
    code = _BY_DTYPE.get(dtype)
    if code is None:
        raise ValueError(f"Unable to convert type {dtype!r} into TensorProto element type.")
    return code
