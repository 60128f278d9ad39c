"""dims become a shape in one place: a negative, huge or non-integer dim never gives an array.

numpy infers a ``-1`` dimension (``numpy.ndarray`` and ``reshape`` both), so
onnx 1.23.2 reads ``dims=[-1]`` as "whatever the storage holds".  onnxdata
raises ``ValueError`` instead, for every data type and storage (raw_data as
bytes, bytearray or a decode(copy=False) view, the typed fields, string_data,
external data), through every entry point (to_array, to_list, to_dict,
to_optional, sparse tensors, load and iter_sequence).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper as oh
from onnx import numpy_helper as onh

import onnxdata
from onnxdata import helper
from onnxdata import numpy_helper as nh
from tests.support.message_strategies import scaled
from tests.support.numpy_support import ALL_TYPES, PACKED_BITS, assert_same_value, raw_size

T = onnxdata.TensorProto
# Shapes a two-element storage does not fit, though numpy would take them:
# [-1] and [1, -1] are inferred as 2 elements, [-1, -2] multiplies to 2.
BAD_DIMS = [[-1], [1, -1], [-1, -2], [-2, -1, 1]]
STORAGES = ["raw bytes", "raw bytearray", "raw view", "typed", "external"]


def two_elements(data_type: int, storage: str, folder: Path) -> T:
    """A valid tensor of ``data_type`` holding two elements in ``storage``."""
    if data_type == T.STRING:
        return T(name="t", dims=[2], data_type=T.STRING, string_data=[b"a", b"b"])
    if storage == "typed":
        return helper.make_tensor("t", data_type, [2], [1, 0])
    raw = bytes(range(1, raw_size(data_type, 2) + 1))
    tensor = T(name="t", dims=[2], data_type=data_type)
    if storage == "external":
        (folder / "t.bin").write_bytes(raw)
        tensor.data_location = T.EXTERNAL
        tensor.external_data = [onnxdata.StringStringEntryProto(key="location", value="t.bin")]
    elif storage == "raw view":
        return T.decode(T(name="t", dims=[2], data_type=data_type, raw_data=raw).encode(),
                        copy=False)  # fmt: skip
    else:
        tensor.raw_data = raw if storage == "raw bytes" else bytearray(raw)
    return tensor


@pytest.mark.parametrize("storage", STORAGES)
@pytest.mark.parametrize("data_type", ALL_TYPES)
def test_negative_dims_are_refused_for_every_type_and_storage(
    data_type: int, storage: str, tmp_path: Path
) -> None:
    tensor = two_elements(data_type, storage, tmp_path)
    assert nh.to_array(tensor, str(tmp_path)).shape == (2,)  # the valid tensor reads
    for dims in BAD_DIMS:
        tensor.dims = list(dims)
        with pytest.raises(ValueError, match="negative dimension"):
            nh.to_array(tensor, str(tmp_path))


@pytest.mark.parametrize("storage", ["raw bytes", "typed"])
@pytest.mark.parametrize("data_type", ALL_TYPES)
def test_onnx_reads_dims_minus_one_where_onnxdata_refuses(data_type: int, storage: str) -> None:
    tensor = two_elements(data_type, storage, Path())
    tensor.dims = [-1]
    oracle = onnx.TensorProto.FromString(tensor.encode())
    bits = PACKED_BITS.get(data_type)
    if bits in (4, 2):
        with pytest.raises(ValueError):  # onnx's unpacking resizes to dims: numpy refuses
            onh.to_array(oracle)
    elif bits == 6 and storage == "raw bytes":
        assert onh.to_array(oracle).shape == (0,)  # onnx unpacks -1 codes: none
    else:
        assert onh.to_array(oracle).shape == (2,)  # reshape(-1): whatever is stored
    for decoded in (T.decode(tensor.encode()), T.decode(tensor.encode(), copy=False)):
        with pytest.raises(ValueError, match=r"negative dimension: dims=\[-1\]"):
            nh.to_array(decoded)


def _in_sequence(t: T) -> Any:
    return nh.to_list(onnxdata.SequenceProto(elem_type=1, tensor_values=[t]))


def _in_map(t: T) -> Any:
    values = onnxdata.SequenceProto(elem_type=1, tensor_values=[t])
    return nh.to_dict(onnxdata.MapProto(key_type=T.INT64, keys=[7], values=values))


def _in_optional(t: T) -> Any:
    return nh.to_optional(onnxdata.OptionalProto(elem_type=1, tensor_value=t))


def _in_nested_optional(t: T) -> Any:
    inner = onnxdata.OptionalProto(elem_type=1, tensor_value=t)
    return nh.to_optional(onnxdata.OptionalProto(elem_type=5, optional_value=inner))


def _as_sparse_values(t: T) -> Any:
    indices = T(dims=[2], data_type=T.INT64, int64_data=[0, 1])
    return nh.to_array(onnxdata.SparseTensorProto(values=t, indices=indices, dims=[4]))


def _as_sparse_indices(t: T) -> Any:
    indices = T(dims=list(t.dims), data_type=T.INT64, raw_data=np.arange(2).tobytes())
    values = T(dims=[2], data_type=T.FLOAT, float_data=[1.0, 2.0])
    return nh.to_array(onnxdata.SparseTensorProto(values=values, indices=indices, dims=[4]))


ENTRY_POINTS: list[Callable[[T], Any]] = [
    nh.to_array, _in_sequence, _in_map, _in_optional, _in_nested_optional,
    _as_sparse_values, _as_sparse_indices,
]  # fmt: skip


@pytest.mark.parametrize("read", ENTRY_POINTS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("copy", [True, False])
def test_every_entry_point_refuses_negative_dims(read: Callable[[T], Any], copy: bool) -> None:
    good = T(dims=[2], data_type=T.FLOAT, raw_data=np.float32([1, 2]).tobytes())
    read(T.decode(good.encode(), copy=copy))  # reads
    for dims in BAD_DIMS:
        bad = T(dims=dims, data_type=T.FLOAT, raw_data=good.raw_data)
        with pytest.raises(ValueError, match="negative dimension"):
            read(T.decode(bad.encode(), copy=copy))


@pytest.mark.parametrize("dims", [[-4], [2, -2], [-1, -4]])
def test_negative_dense_dims_of_a_sparse_tensor(dims: list[int]) -> None:
    values = T(dims=[1], data_type=T.FLOAT, float_data=[1.0])
    indices = T(dims=[1], data_type=T.INT64, int64_data=[0])
    sparse = onnxdata.SparseTensorProto(values=values, indices=indices, dims=dims)
    with pytest.raises(ValueError, match="negative dimension"):
        nh.to_array(onnxdata.SparseTensorProto.decode(sparse.encode()))


@pytest.mark.parametrize("copy", [True, False])
def test_load_and_iter_sequence_refuse_negative_dims(copy: bool, tmp_path: Path) -> None:
    bad = T(dims=[-1], data_type=T.FLOAT, raw_data=bytes(8))
    onnxdata.save(bad, tmp_path / "t.pb")
    with pytest.raises(ValueError, match="negative dimension"):
        nh.to_array(onnxdata.load(tmp_path / "t.pb", T, copy=copy))
    sequence = onnxdata.SequenceProto(elem_type=1, tensor_values=[bad, bad])
    onnxdata.save(sequence, tmp_path / "s.pb")
    for element in onnxdata.iter_sequence(tmp_path / "s.pb", copy=copy):
        with pytest.raises(ValueError, match="negative dimension"):
            nh.to_array(element)
    with pytest.raises(ValueError, match="negative dimension"):
        nh.to_list(onnxdata.load(tmp_path / "s.pb", onnxdata.SequenceProto, copy=copy))


# --------------------------------------------------------------------------
# dims too many, too large, or not integers


@pytest.mark.parametrize("raw", [bytes(4), bytearray(4)])
def test_more_dims_than_numpy_allows(raw: Any) -> None:
    tensor = T(dims=[1] * 65, data_type=T.FLOAT, raw_data=raw)
    with pytest.raises(ValueError):
        onh.to_array(onnx.TensorProto.FromString(tensor.encode()))  # numpy's limit, as onnx
    with pytest.raises(ValueError, match="65 dims; numpy arrays have at most 64"):
        nh.to_array(tensor)
    tensor.dims = [1] * 64
    ours = nh.to_array(tensor)
    assert_same_value(ours, onh.to_array(onnx.TensorProto.FromString(tensor.encode())))


@pytest.mark.parametrize(
    "dims",
    [[2**62, 2**62], [0, 2**62, 2**62], [2**31, 2**31, 0], [0, 2**63 - 1], [2**63 - 1]],
)
@pytest.mark.parametrize("storage", ["raw_data", "float_data"])
def test_dims_too_large_for_one_array(dims: list[int], storage: str) -> None:
    tensor = T(dims=dims, data_type=T.FLOAT)
    setattr(tensor, storage, b"" if storage == "raw_data" else [])
    with pytest.raises(ValueError):
        onh.to_array(onnx.TensorProto.FromString(tensor.encode()))  # numpy refuses, as here
    for message in (tensor, T.decode(tensor.encode()), T.decode(tensor.encode(), copy=False)):
        with pytest.raises(ValueError, match=r"too large for one array|need"):
            nh.to_array(message)


@pytest.mark.parametrize(("dims", "data_type"), [([3], T.FLOAT), ([5], T.INT4), ([3], T.STRING)])
def test_dims_beyond_the_stored_elements(dims: list[int], data_type: int) -> None:
    tensor = two_elements(data_type, "raw bytes", Path())
    tensor.dims = dims
    with pytest.raises(ValueError, match="need"):
        nh.to_array(tensor)


@pytest.mark.parametrize("dims", [[True], [1.5], [np.float64(1)], ["2"], [None], [np.True_]])
def test_dims_that_are_not_integers_are_type_errors(dims: list[Any]) -> None:
    # Only a hand-built message holds these: protobuf and the decoder never do.
    for raw in (bytes(4), bytearray(4)):
        tensor = T(dims=dims, data_type=T.FLOAT, raw_data=raw)
        with pytest.raises(TypeError, match="dims must be integers"):
            nh.to_array(tensor)


def test_numpy_integer_dims_give_a_shape_of_python_ints() -> None:
    tensor = T(dims=[np.int64(2), np.uint8(1)], data_type=T.FLOAT, raw_data=bytes(8))
    out = nh.to_array(tensor)
    assert out.shape == (2, 1) and all(type(d) is int for d in out.shape)


@settings(max_examples=scaled(0.5))
@given(
    dims=st.lists(st.integers(-3, 3), max_size=3),
    size=st.integers(0, 40),
    data_type=st.sampled_from(ALL_TYPES),
    copy=st.booleans(),
)
def test_an_array_always_has_the_shape_of_dims(
    dims: list[int], size: int, data_type: int, copy: bool
) -> None:
    if data_type == T.STRING:
        tensor = T(dims=dims, data_type=data_type, string_data=[b"x"] * size)
    else:
        tensor = T(dims=dims, data_type=data_type, raw_data=bytes(size))
    decoded = T.decode(tensor.encode(), copy=copy)
    count = math.prod(dims)
    fits = min(dims, default=0) >= 0 and size == (
        count if data_type == T.STRING else raw_size(data_type, count)
    )
    if not fits:
        with pytest.raises(ValueError):
            nh.to_array(decoded)
    else:
        assert nh.to_array(decoded).shape == tuple(dims)


# --------------------------------------------------------------------------
# helper.make_tensor


def test_make_tensor_refuses_negative_dims() -> None:
    # onnx refuses a single negative dim through the count ...
    with pytest.raises(ValueError):
        oh.make_tensor("t", T.FLOAT, [-1], [1.0])
    # ... but writes two, a tensor its own checker refuses.
    written = oh.make_tensor("t", T.FLOAT, [-1, -2], [1.0, 2.0])
    with pytest.raises(onnx.checker.ValidationError, match="Negative dimension"):
        onnx.checker.check_tensor(written)
    for dims, values in (([-1], [1.0]), ([-1, -2], [1.0, 2.0]), ([0, -1], [])):
        with pytest.raises(ValueError, match="negative dimension"):
            helper.make_tensor("t", T.FLOAT, dims, values)
        with pytest.raises(ValueError, match="negative dimension"):
            helper.make_tensor("t", T.FLOAT, dims, np.float32(values).tobytes(), raw=True)
