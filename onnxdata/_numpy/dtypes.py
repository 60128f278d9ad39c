"""The numpy dtype of each TensorProto data type, and the way back.

The dtypes are those of ``_messages.datatypes.DATA_TYPES``, which follows
``onnx._mapping.TENSOR_TYPE_MAP`` (onnx 1.23.2): the same numpy or
``ml_dtypes`` dtype, the same storage field.  The types numpy lacks need
``ml_dtypes`` (the ``numpy`` extra installs it, as onnx does).  Without it (or
with a version lacking a type) asking for such a type's dtype raises
:class:`~.missing.MissingMLDtypesError`: an unsigned integer in its place
would compute differently (``astype`` makes an integer cast), and onnx never
returns one.  Only a caller that asks for the *storage view* gets the
unsigned integer of the same width, holding exactly the bytes the
``ml_dtypes`` array would hold (``a.view(ml_dtypes.bfloat16)`` recovers the
real dtype later); it gets it with or without ml_dtypes, so the result never
depends on what is installed.
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

import numpy as np

from .._messages.datatypes import DATA_TYPES
from .._messages.declarations import TensorProto
from .missing import MissingMLDtypesError

try:
    _ml: Any = importlib.import_module("ml_dtypes")
except ImportError:  # pragma: no cover - exercised in a subprocess by the tests
    _ml = None


class DtypeSpec(NamedTuple):
    """How one data type is stored in a TensorProto and returned as an array."""

    data_type: int
    name: str
    dtype: np.dtype[Any]
    """The numpy/ml_dtypes dtype; the storage dtype when ``exact`` is false
    (for sizes and views only: never returned as the type's dtype)."""
    exact: bool
    """False when ``dtype`` is the unsigned storage dtype because ml_dtypes
    (or a version with the type) is missing."""
    field: str
    """The typed storage field, used when ``raw_data`` is not set."""
    per_value: int
    """Storage-field values per element: 2 for complex numbers, else 1."""
    bits: int
    """0 for whole-byte types; 4, 2 or 6 for the types packed in raw_data."""
    storage: np.dtype[Any]
    """The storage view: the unsigned integer of the same width for the types
    numpy lacks (one code a byte for the packed ones), else ``dtype``."""
    ml_name: str
    """The ml_dtypes name of a type numpy lacks, else ``""``."""

    def result(self, storage_view: bool) -> np.dtype[Any]:
        """The dtype of an array of this type: ``storage`` for the storage view.

        Raises:
            MissingMLDtypesError: the type needs ml_dtypes, which is missing
                (or too old to have it), and the storage view was not asked for.
        """
        if storage_view:
            return self.storage
        if not self.exact:
            raise MissingMLDtypesError(
                self.name, self.ml_name, self.storage.name, getattr(_ml, "__version__", None)
            )
        return self.dtype


def _build() -> dict[int, DtypeSpec]:
    specs: dict[int, DtypeSpec] = {}
    for data_type, info in DATA_TYPES.items():
        numpy_name = info.numpy
        exact = True
        ml_name = ""
        if isinstance(numpy_name, tuple):
            ml_name, fallback = numpy_name
            storage: np.dtype[Any] = np.dtype(fallback)
            scalar = getattr(_ml, ml_name, None) if _ml is not None else None
            if scalar is None:
                dtype: np.dtype[Any] = storage
                exact = False
            else:
                dtype = np.dtype(scalar)
        else:
            dtype = storage = np.dtype(numpy_name)
        specs[data_type] = DtypeSpec(
            data_type,
            info.name,
            dtype,
            exact,
            info.storage,
            info.per_value,
            info.packed,
            storage,
            ml_name,
        )
    return specs


SPECS: dict[int, DtypeSpec] = _build()
"""data_type -> spec, for every defined type (UNDEFINED excluded)."""
_LAST = max(SPECS)
_STRING = int(TensorProto.STRING)

HAVE_ML_DTYPES: bool = all(spec.exact for spec in SPECS.values())
"""True when ml_dtypes is installed with every type numpy lacks."""

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


def tensor_dtype_to_np_dtype(data_type: int, *, storage_view: bool = False) -> np.dtype[Any]:
    """The numpy dtype ``to_array`` returns for ``data_type``, as
    ``onnx.helper.tensor_dtype_to_np_dtype``; with ``storage_view``, the
    unsigned storage dtype for the types numpy lacks (with or without ml_dtypes).

    Raises:
        TypeError: ``data_type`` is UNDEFINED or unknown.
        MissingMLDtypesError: an ImportError: the type needs ml_dtypes, which
            is missing or too old, and ``storage_view`` is false.
    """
    return spec_of(data_type).result(storage_view)


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
