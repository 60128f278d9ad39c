"""SparseTensorProto <-> dense numpy array (onnx has neither direction).

The rules are those of onnx's checker (``check_sparse_tensor``, onnx 1.23.2):
``values`` is set and has rank 1 (``[NNZ]``); the dense ``dims`` have rank at
least 1 and every dimension is positive; ``indices`` is an INT64 tensor of
shape ``[NNZ]`` (linear indices into the row-major dense array) or
``[NNZ, rank]`` (one coordinate row per value), every index is in range, and
the indices are strictly ascending (lexicographic order for coordinates), so
no position is given twice.  ``indices`` may be absent only when NNZ is 0.

The default value is the all-zero bit pattern, for STRING the empty string.
That is zero for every numeric type except FLOAT8E8M0, which has no zero (its
all-zero pattern is 2**-127); ``from_dense`` uses the same rule, so a round
trip returns the exact bits, ``-0.0`` and NaN payloads included.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .._core.schema import spec_of as message_spec
from .._messages.declarations import SparseTensorProto, TensorProto
from .dtypes import np_dtype_to_tensor_dtype, spec_of
from .shape import shape_of
from .tensor import array_to_tensor, tensor_to_array

NDArray = npt.NDArray[Any]
# The tensors as set, None while unset (onnx's HasField): reading the fields
# by name gives an empty stand-in instead.
_held_values = message_spec(SparseTensorProto).named.values.held
_held_indices = message_spec(SparseTensorProto).named.indices.held


def _label(sparse: SparseTensorProto) -> str:
    values = _held_values(sparse)
    name = values.name if values is not None else None
    return f"SparseTensorProto {name!r}" if name else "SparseTensorProto"


def sparse_to_array(
    sparse: SparseTensorProto, base_dir: str = "", storage_view: bool = False
) -> NDArray:
    """The dense array of ``sparse``; see ``numpy_helper.to_array``."""
    label = _label(sparse)
    values_tensor = _held_values(sparse)
    if values_tensor is None:
        raise ValueError(f"{label} has no values tensor")
    values = tensor_to_array(values_tensor, base_dir, storage_view)
    if values.ndim != 1:
        raise ValueError(f"{label}: values must have rank 1, got dims {list(values.shape)}")
    if not sparse.dims:
        raise ValueError(f"{label} must have a dense rank > 0 (dims is empty)")
    dims, size = shape_of(sparse.dims, values.dtype.itemsize, lambda: label)
    if min(dims) == 0:  # (shape_of refused negative dims)
        raise ValueError(f"{label}: dense dims {list(dims)} are not all positive")
    nnz = values.shape[0]
    indices = _held_indices(sparse)
    if indices is None:
        if nnz:
            raise ValueError(f"{label} has {nnz} values but no indices")
        linear: NDArray = np.zeros(0, dtype=np.int64)
    else:
        linear = _linear_indices(indices, label, dims, nnz, size, base_dir)
    if values.dtype == object:
        dense = np.full(size, "", dtype=object)
    else:
        dense = np.zeros(size, dtype=values.dtype)
    dense[linear] = values
    return dense.reshape(dims)


def _linear_indices(
    tensor: TensorProto,
    label: str,
    dims: tuple[int, ...],
    nnz: int,
    size: int,
    base_dir: str,
) -> NDArray:
    if tensor.data_type != TensorProto.INT64:
        raise ValueError(f"{label}: indices must have data_type INT64, got {tensor.data_type}")
    indices = tensor_to_array(tensor, base_dir)
    if indices.ndim == 1:
        if indices.shape[0] != nnz:
            raise ValueError(f"{label}: {indices.shape[0]} indices for {nnz} values")
        bad = np.flatnonzero((indices < 0) | (indices >= size))
        if bad.size:
            raise ValueError(
                f"{label}: index {int(indices[bad[0]])} at position [{int(bad[0])}] "
                f"out of range [0, {size - 1}]"
            )
        linear = indices
    elif indices.ndim == 2:
        if indices.shape != (nnz, len(dims)):
            raise ValueError(
                f"{label}: indices have shape {list(indices.shape)}, "
                f"expected [{nnz}, {len(dims)}] (NNZ, rank)"
            )
        upper = np.array(dims, dtype=np.int64)
        bad_rows, bad_cols = np.nonzero((indices < 0) | (indices >= upper))
        if bad_rows.size:
            i, j = int(bad_rows[0]), int(bad_cols[0])
            raise ValueError(
                f"{label}: index {int(indices[i, j])} at position [{i},{j}] "
                f"out of range [0, {dims[j] - 1}]"
            )
        linear = np.zeros(nnz, dtype=np.int64)
        for j, d in enumerate(dims):  # one vector step per dimension, not per value
            linear *= d
            linear += indices[:, j]
    else:
        raise ValueError(f"{label}: indices must have rank 1 or 2, got {indices.ndim}")
    if nnz > 1:
        unordered = np.flatnonzero(linear[1:] <= linear[:-1])
        if unordered.size:
            raise ValueError(
                f"{label}: index at position [{int(unordered[0]) + 1}] is not in ascending "
                "order (or repeats a position)"
            )
    return linear


def dense_to_sparse(
    array: Any, name: str | None = None, *, coordinates: bool = False
) -> SparseTensorProto:
    """The SparseTensorProto of ``array``; see ``numpy_helper.from_dense``."""
    if isinstance(array, np.generic):
        array = np.asarray(array)
    elif not isinstance(array, np.ndarray):
        raise TypeError(
            f"from_dense expects a numpy array, not {type(array).__name__}; "
            "convert it with numpy.asarray first"
        )
    shape = tuple(int(d) for d in array.shape)
    if not shape or min(shape) <= 0:
        raise ValueError(
            f"a sparse tensor needs rank > 0 and positive dimensions, got shape {list(shape)}"
        )
    flat = np.ascontiguousarray(array).reshape(-1)
    packed_bits = spec_of(np_dtype_to_tensor_dtype(flat.dtype)).bits
    if flat.dtype.kind in "OUS":
        mask = np.fromiter((len(e) > 0 for e in flat.tolist()), dtype=bool, count=flat.size)
    elif packed_bits:  # only the low bits of a 4-, 2- or 6-bit element's byte count
        mask = (flat.view(np.uint8) & ((1 << packed_bits) - 1)) != 0
    else:
        mask = _nonzero_bits(flat)
    linear = np.flatnonzero(mask).astype(np.int64)
    values = array_to_tensor(flat[mask], name)
    if coordinates:
        index_array = np.stack(np.unravel_index(linear, shape), axis=1).astype(np.int64)
    else:
        index_array = linear
    sparse = SparseTensorProto()
    sparse.values = values
    sparse.indices = array_to_tensor(index_array)
    sparse.dims = list(shape)
    return sparse


def _nonzero_bits(flat: NDArray) -> NDArray:
    """Per element: does any bit differ from zero (so -0.0 and NaN count)."""
    size = flat.dtype.itemsize
    uint = _UINT_BY_SIZE.get(size)
    mask: NDArray
    if uint is not None:
        mask = np.not_equal(flat.view(uint), 0)
    else:
        mask = np.any(flat.view(np.uint8).reshape(flat.size, size), axis=1)
    return mask


_UINT_BY_SIZE: dict[int, np.dtype[Any]] = {n: np.dtype(f"u{n}") for n in (1, 2, 4, 8)}
