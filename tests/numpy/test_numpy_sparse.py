"""Sparse tensors: to_array(SparseTensorProto) -> dense, and from_dense.

onnx has neither direction (its to_array fails on a SparseTensorProto), so
the oracle here is onnx's checker: to_array accepts a sparse tensor exactly
when ``onnx.checker.check_sparse_tensor`` does, and the dense array equals a
plain per-element reference.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np
import onnx
import onnx.checker
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import numpy_helper as nh
from tests.support import message_strategies as ms
from tests.support.numpy_support import NUMPY_DTYPES, PACKED_BITS, arrays, assert_same_value

T = onnxdata.TensorProto


def _oracle(sparse: onnxdata.SparseTensorProto) -> Any:
    return onnx.SparseTensorProto.FromString(sparse.encode())


def _checker_accepts(sparse: onnxdata.SparseTensorProto) -> bool:
    try:
        onnx.checker.check_sparse_tensor(_oracle(sparse))
    except onnx.checker.ValidationError:
        return False
    return True


def _expected_dense(a: np.ndarray) -> np.ndarray:
    return a.astype(object) if a.dtype.kind == "U" else a


@settings(max_examples=ms.scaled(0.6))
@given(a=arrays(), coordinates=st.booleans(), name=st.text(min_size=1, max_size=3))
def test_from_dense_round_trip(a: np.ndarray, coordinates: bool, name: str) -> None:
    if a.ndim == 0 or a.size == 0:
        with pytest.raises(ValueError, match="rank > 0 and positive dimensions"):
            nh.from_dense(a)
        return
    sparse = nh.from_dense(a, name, coordinates=coordinates)
    assert sparse.HasField("values") and sparse.HasField("indices")
    assert sparse.values.name == name and sparse.dims == list(a.shape)
    assert sparse.indices.data_type == T.INT64
    assert _checker_accepts(sparse)
    decoded = onnxdata.SparseTensorProto.decode(sparse.encode())
    assert_same_value(nh.to_array(decoded), _canonical(a))


def _canonical(a: np.ndarray) -> np.ndarray:
    """``a`` as a tensor holds it: sub-byte elements keep only their low bits."""
    if a.dtype.kind not in "OUS" and nh.np_dtype_to_tensor_dtype(a.dtype) in PACKED_BITS:
        return nh.to_array(nh.from_array(a))
    return np.ascontiguousarray(a)


@settings(max_examples=ms.scaled(0.3))
@given(
    strs=st.lists(st.sampled_from(["", "", "a", "é\x00"]), min_size=1, max_size=9),
    coordinates=st.booleans(),
)
def test_from_dense_strings(strs: list[str], coordinates: bool) -> None:
    a = np.array(strs, dtype=object).reshape(1, -1)
    sparse = nh.from_dense(a, "s", coordinates=coordinates)
    assert sparse.HasField("values")
    assert sparse.values.string_data == [s.encode() for s in strs if s]
    assert_same_value(nh.to_array(sparse), a)
    u = np.array(strs)
    assert_same_value(nh.to_array(nh.from_dense(u)), _expected_dense(u))


def test_zero_is_all_bits_zero() -> None:
    a = np.array([0.0, -0.0, np.nan, 0.0, 1.0], dtype=np.float32)
    sparse = nh.from_dense(a)
    assert sparse.HasField("indices")
    assert nh.to_array(sparse.indices).tolist() == [1, 2, 4]  # -0.0 and NaN are kept
    assert nh.to_array(sparse).tobytes() == a.tobytes()
    e8m0 = np.array([1.0, 2.0**-127, 4.0], dtype=ml_dtypes.float8_e8m0fnu)
    assert nh.to_array(nh.from_dense(e8m0)).tobytes() == e8m0.tobytes()
    assert nh.from_dense(e8m0).dims == [3] and nh.to_array(nh.from_dense(e8m0).indices).size == 2


def test_linear_and_coordinate_layouts() -> None:
    a = np.zeros((3, 4), dtype=np.int32)
    a[0, 1], a[2, 0], a[2, 3] = 5, -6, 7
    linear = nh.from_dense(a)
    coords = nh.from_dense(a, coordinates=True)
    assert nh.to_array(linear.indices).tolist() == [1, 8, 11]  # type: ignore[arg-type]
    assert nh.to_array(coords.indices).tolist() == [[0, 1], [2, 0], [2, 3]]  # type: ignore[arg-type]
    for sparse in (linear, coords):
        assert nh.to_array(sparse).tolist() == a.tolist()
        assert nh.to_array(sparse.values).tolist() == [5, -6, 7]  # type: ignore[arg-type]


@st.composite
def raw_sparse(draw: Any) -> onnxdata.SparseTensorProto:
    """Sparse tensors whose indices may be out of range, unsorted or repeated."""
    dims = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    size = math.prod(dims)
    nnz = draw(st.integers(0, min(size, 6)))
    dtype = draw(st.sampled_from([np.float32, np.int8, np.bool_, ml_dtypes.bfloat16]))
    values = np.arange(1, nnz + 1).astype(dtype)
    sparse = onnxdata.SparseTensorProto(values=nh.from_array(values, "v"), dims=dims)
    layout = draw(st.sampled_from(["linear", "coordinates", "none"]))
    if layout == "linear":
        idx = draw(st.lists(st.integers(-1, size), min_size=nnz, max_size=nnz))
        if draw(st.booleans()):
            idx = sorted(set(i % size for i in idx))
            idx = (idx + [size - 1] * nnz)[:nnz] if len(idx) < nnz else idx
        sparse.indices = nh.from_array(np.array(idx, dtype=np.int64).reshape(nnz))
    elif layout == "coordinates":
        rows = [
            [draw(st.integers(-1, d)) for d in dims] for _ in range(nnz)
        ]  # fmt: skip
        if draw(st.booleans()):
            rows = sorted(rows)
        sparse.indices = nh.from_array(np.array(rows, dtype=np.int64).reshape(nnz, len(dims)))
    return sparse


def _reference(sparse: onnxdata.SparseTensorProto) -> np.ndarray:
    values = nh.to_array(sparse.values)  # type: ignore[arg-type]
    dense = np.zeros(math.prod(sparse.dims), dtype=values.dtype)
    if sparse.HasField("indices"):  # unset: read as an empty stand-in
        idx = nh.to_array(sparse.indices)
        for i, v in enumerate(values):
            pos = (
                int(np.ravel_multi_index(tuple(idx[i]), sparse.dims))
                if idx.ndim == 2
                else int(idx[i])
            )
            dense[pos] = v
    return dense.reshape(sparse.dims)


@settings(max_examples=ms.scaled(0.8))
@given(sparse=raw_sparse())
def test_to_array_accepts_what_the_checker_accepts(sparse: onnxdata.SparseTensorProto) -> None:
    accepted = _checker_accepts(sparse)
    decoded = onnxdata.SparseTensorProto.decode(sparse.encode())
    if not accepted:
        with pytest.raises(ValueError):
            nh.to_array(decoded)
        return
    assert_same_value(nh.to_array(decoded), _reference(sparse))


def _sp(values: Any = None, indices: Any = None, dims: Any = (4,)) -> Any:
    sparse = onnxdata.SparseTensorProto(dims=list(dims))
    if values is not None:
        sparse.values = nh.from_array(np.asarray(values), "v")
    if indices is not None:
        sparse.indices = nh.from_array(np.asarray(indices))
    return sparse


@pytest.mark.parametrize(
    ("sparse", "message"),
    [
        (_sp(None, [0]), "no values tensor"),
        (_sp([[1.0]], [0]), "values must have rank 1"),
        (_sp([1.0], [0], dims=()), "dense rank > 0"),
        (_sp([1.0], [0], dims=(2, 0)), "not all positive"),
        (_sp([1.0], [0], dims=(-2,)), "negative dimension"),
        (_sp([1.0], np.array([0], dtype=np.int32)), "must have data_type INT64"),
        (_sp([1.0], np.zeros((1, 1, 1), dtype=np.int64)), "rank 1 or 2"),
        (_sp([1.0, 2.0], np.array([0], dtype=np.int64)), "1 indices for 2 values"),
        (_sp([1.0], np.array([4], dtype=np.int64)), r"out of range \[0, 3\]"),
        (_sp([1.0], np.array([-1], dtype=np.int64)), "out of range"),
        (_sp([1.0, 2.0], np.array([2, 1], dtype=np.int64)), "not in ascending order"),
        (_sp([1.0, 2.0], np.array([2, 2], dtype=np.int64)), "repeats a position"),
        (_sp([1.0], np.array([[0, 0]], dtype=np.int64), dims=(2,)), r"expected \[1, 1\]"),
        (_sp([1.0], np.array([[0, 2]], dtype=np.int64), dims=(2, 2)), r"position \[0,1\]"),
        (_sp([1.0, 2.0], np.array([[1, 0], [0, 1]], dtype=np.int64), dims=(2, 2)), "order"),
        (_sp([1.0]), "no indices"),
    ],
)
def test_refused_sparse_tensors(sparse: onnxdata.SparseTensorProto, message: str) -> None:
    if sparse.HasField("values"):
        assert not _checker_accepts(sparse)
    with pytest.raises(ValueError, match=message):
        nh.to_array(sparse)


def test_no_values_no_indices_is_all_zero() -> None:
    sparse = _sp(np.zeros(0, dtype=np.float16), None, dims=(2, 3))
    assert _checker_accepts(sparse)
    out = nh.to_array(sparse)
    assert out.dtype == np.float16 and out.shape == (2, 3) and not out.any()
    strings = _sp(np.array([], dtype=object), None, dims=(2,))
    assert nh.to_array(strings).tolist() == ["", ""]


def test_from_dense_refuses() -> None:
    with pytest.raises(ValueError, match="rank > 0"):
        nh.from_dense(np.float32(1))
    with pytest.raises(ValueError, match="positive dimensions"):
        nh.from_dense(np.zeros((2, 0)))
    with pytest.raises(TypeError, match="numpy array"):
        nh.from_dense([1, 2])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Unable to convert"):
        nh.from_dense(np.zeros(2, dtype=np.float128))


def test_sparse_of_every_dtype() -> None:
    rng = np.random.default_rng(5)
    for dtype in NUMPY_DTYPES:
        raw = rng.integers(0, 256, 24 * dtype.itemsize, dtype=np.uint8)
        raw[: 8 * dtype.itemsize] = 0
        a = np.frombuffer(raw.tobytes(), dtype=dtype).reshape(2, 3, 4)
        if dtype == np.bool_:
            a = (a.view(np.uint8) & 1).view(np.bool_)
        assert_same_value(nh.to_array(nh.from_dense(a, coordinates=True)), _canonical(a))


def test_dense_too_large_for_one_array() -> None:
    sparse = _sp(np.zeros(0, dtype=np.float32), None, dims=(2**40, 2**40))
    with pytest.raises(ValueError, match="too large for one array"):
        nh.to_array(sparse)
