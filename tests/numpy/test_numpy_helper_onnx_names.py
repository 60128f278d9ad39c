"""The rest of onnx.numpy_helper 1.23.2's names, and onnx's messages taken as they are.

``tobytes_little_endian``, ``create_random_int`` and the packers
(``pack_4bitx2``/``_pack_4bitx2``, ``pack_2bitx4``/``_pack_2bitx4``,
``pack_6bit``/``_pack_6bit``) against onnx's; every public name of onnx's
numpy_helper exists here; ``to_array``, ``to_list``, ``to_dict`` and
``to_optional`` take onnx's protobuf messages and name what they expected
when given anything else.  (``saturate_cast`` and ``to_float8e8m0`` are in
test_helper_casts.py.)
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import numpy_helper as onh

from onnxdata import TensorProto
from onnxdata import numpy_helper as nh
from tests.support import message_strategies as ms
from tests.support.numpy_support import assert_same_value


def test_every_public_name_of_onnx_numpy_helper_is_here() -> None:
    public = {n for n in dir(onh) if not n.startswith("_") and callable(getattr(onh, n))}
    imported = {"Any", "Sequence", "helper", "annotations"}
    missing = sorted(n for n in public - imported if not hasattr(nh, n))
    assert missing == []
    for private in ("_pack_4bitx2", "_pack_2bitx4", "_pack_6bit"):
        assert callable(getattr(nh, private))


byte_codes = st.lists(st.integers(0, 255), max_size=40).map(lambda v: np.array(v, np.uint8))


@settings(max_examples=ms.scaled(0.3))
@given(codes=byte_codes, shape_2d=st.booleans())
def test_packers_match_onnxs(codes: Any, shape_2d: bool) -> None:
    if shape_2d and codes.size % 2 == 0 and codes.size:
        codes = codes.reshape(2, -1)
    for ours, theirs in ((nh.pack_4bitx2, onh._pack_4bitx2), (nh.pack_2bitx4, onh._pack_2bitx4),
                         (nh.pack_6bit, onh._pack_6bit)):  # fmt: skip
        expected = theirs(codes)
        got = ours(codes)
        assert got.dtype == np.uint8 and got.tobytes() == expected.tobytes()
        assert got.flags.writeable
    assert nh._pack_4bitx2 is nh.pack_4bitx2 and nh._pack_2bitx4 is nh.pack_2bitx4


def test_packers_take_ml_dtypes_arrays_as_onnx() -> None:
    values = np.array([-8, 7, -1, 3, 0], dtype=ml_dtypes.int4)
    assert nh.pack_4bitx2(values).tobytes() == onh._pack_4bitx2(values).tobytes()
    values2 = np.array([-2, 1, -1, 0, 1], dtype=ml_dtypes.int2)
    assert nh.pack_2bitx4(values2).tobytes() == onh._pack_2bitx4(values2).tobytes()


def test_packers_refuse_elements_wider_than_a_byte() -> None:
    with pytest.raises(ValueError, match="1-byte elements"):
        nh.pack_4bitx2(np.arange(4, dtype=np.int64))
    with pytest.raises(TypeError):
        nh.pack_2bitx4([1, 2, 3])


@settings(max_examples=ms.scaled(0.3))
@given(
    values=st.lists(st.integers(0, 2**31 - 1), max_size=10),
    dtype=st.sampled_from(["<i4", ">i4", "=i4", "<f8", ">f8", ">u2", "|u1", ">c8"]),
)
def test_tobytes_little_endian_matches_onnx(values: list[int], dtype: str) -> None:
    array = np.array(values).astype(dtype)
    assert nh.tobytes_little_endian(array) == onh.tobytes_little_endian(array)
    little = array.astype(np.dtype(dtype).newbyteorder("<"))
    assert nh.tobytes_little_endian(array) == little.tobytes()


def test_tobytes_little_endian_refuses_what_is_not_an_array() -> None:
    with pytest.raises(TypeError, match="numpy array"):
        nh.tobytes_little_endian([1, 2])
    assert nh.tobytes_little_endian(np.int16(1)) == b"\x01\x00"


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32,
                                   np.uint64, np.int64])  # fmt: skip
def test_create_random_int_matches_onnx(dtype: Any) -> None:
    theirs = onh.create_random_int((3, 4), dtype, seed=7)
    ours = nh.create_random_int((3, 4), dtype, seed=7)
    assert ours.dtype == theirs.dtype and ours.tobytes() == theirs.tobytes()


def test_create_random_int_refuses_non_integers_as_onnx() -> None:
    for module in (onh, nh):
        with pytest.raises(TypeError, match="is not supported by create_random_int"):
            module.create_random_int((2,), np.float32)


# --------------------------------------------------------------------------
# onnx's messages, and what is not a message


def test_to_array_takes_onnx_tensors_and_sparse_tensors() -> None:
    tensor = onh.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "t")
    assert_same_value(nh.to_array(tensor), onh.to_array(tensor))
    dense = np.array([0, 1.5, 0, 2], dtype=np.float32)
    sparse = onnx.SparseTensorProto()
    sparse.values.CopyFrom(onh.from_array(dense[[1, 3]]))
    sparse.indices.CopyFrom(onh.from_array(np.array([1, 3], dtype=np.int64)))
    sparse.dims.extend([4])
    assert_same_value(nh.to_array(sparse), dense)


def test_to_list_to_dict_to_optional_take_onnx_messages() -> None:
    sequence = onh.from_list([np.array([1, 2]), np.array([3])])
    assert_same_value(nh.to_list(sequence), onh.to_list(sequence))
    mapping = onh.from_dict({1: np.array(1.0), 2: np.array(2.0)})
    assert_same_value(nh.to_dict(mapping), onh.to_dict(mapping))
    optional = onh.from_optional(np.array([1.0]))
    assert_same_value(nh.to_optional(optional), onh.to_optional(optional))


@pytest.mark.parametrize(
    ("function", "expected"),
    [(nh.to_array, "TensorProto or SparseTensorProto"), (nh.to_list, "SequenceProto"),
     (nh.to_dict, "MapProto"), (nh.to_optional, "OptionalProto")],
)  # fmt: skip
def test_what_is_not_the_message_is_a_type_error_naming_what_was_expected(
    function: Any, expected: str
) -> None:
    for wrong in (onnx.ModelProto(), TensorProto() if function is not nh.to_array else None, 3):
        with pytest.raises(TypeError, match=f"expected a {expected}"):
            function(wrong)


def test_a_short_map_is_a_value_error_and_onnxs_index_error() -> None:
    mapping = nh.from_dict({1: np.array(1.0), 2: np.array(2.0)})
    mapping.keys = [*mapping.keys, 3]
    with pytest.raises(IndexError, match="not the same"):
        nh.to_dict(mapping)
    with pytest.raises(ValueError, match="not the same"):
        nh.to_dict(mapping)
    theirs = onh.from_dict({1: np.array(1.0), 2: np.array(2.0)})
    theirs.keys.append(3)
    with pytest.raises(IndexError, match="not the same"):
        onh.to_dict(theirs)


def test_from_list_and_from_optional_take_onnx_tensors() -> None:
    theirs = onh.from_array(np.array([1.0, 2.0]), "t")
    ours = nh.from_array(np.array([1.0, 2.0]), "t")
    assert nh.from_list([theirs, theirs]).encode() == nh.from_list([ours, ours]).encode()
    assert nh.from_optional(theirs).encode() == nh.from_optional(ours).encode()
    sparse = nh.from_dense(np.array([0.0, 3.0]))
    foreign = onnx.SparseTensorProto.FromString(sparse.encode())
    expected = nh.from_list([sparse], dtype=onnx.SequenceProto.SPARSE_TENSOR).encode()
    assert nh.from_list([foreign], dtype=onnx.SequenceProto.SPARSE_TENSOR).encode() == expected
    optional = nh.from_optional(foreign, dtype=onnx.OptionalProto.SPARSE_TENSOR)
    assert optional.sparse_tensor_value == sparse
