"""onnxdata.helper's data-type mappings and container makers against onnx.helper 1.23.2.

The mappings agree for every data type (numpy dtype with ml_dtypes installed,
storage type, storage field, name) and both ways for every numpy dtype onnx
maps; make_sparse_tensor, make_sequence, make_map and make_optional write
onnx's bytes, copy what they are given (as protobuf's CopyFrom does), take
onnx's messages too, and fail with onnx's error classes where onnx fails.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper as oh

from onnxdata import MapProto, OptionalProto, SequenceProto, TensorProto, helper
from tests.support import message_strategies as ms
from tests.support.paths import ROOT

ROOT = ROOT
DT = TensorProto.DataType
ALL = [int(t) for t in oh.get_all_tensor_dtypes()]


def test_all_tensor_dtypes_are_onnxs() -> None:
    assert sorted(helper.get_all_tensor_dtypes()) == sorted(ALL)


@pytest.mark.parametrize("data_type", ALL, ids=oh.tensor_dtype_to_string)
def test_every_mapping_agrees_with_onnx(data_type: int) -> None:
    assert helper.tensor_dtype_to_np_dtype(data_type) == oh.tensor_dtype_to_np_dtype(data_type)
    assert helper.tensor_dtype_to_storage_tensor_dtype(
        data_type
    ) == oh.tensor_dtype_to_storage_tensor_dtype(data_type)
    assert type(helper.tensor_dtype_to_storage_tensor_dtype(data_type)) is int
    assert helper.tensor_dtype_to_field(data_type) == oh.tensor_dtype_to_field(data_type)
    assert helper.tensor_dtype_to_string(data_type) == oh.tensor_dtype_to_string(data_type)


@pytest.mark.parametrize("data_type", [t for t in ALL if t != DT.STRING])
def test_np_dtype_to_tensor_dtype_inverts_onnxs_table(data_type: int) -> None:
    dtype = oh.tensor_dtype_to_np_dtype(data_type)
    assert helper.np_dtype_to_tensor_dtype(dtype) == oh.np_dtype_to_tensor_dtype(dtype)


def test_np_dtype_to_tensor_dtype_of_strings_and_unknowns() -> None:
    for dtype in (np.dtype(object), np.dtype("U3")):
        assert helper.np_dtype_to_tensor_dtype(dtype) == oh.np_dtype_to_tensor_dtype(dtype)
    for module in (oh, helper):
        with pytest.raises(ValueError, match="Unable to convert type"):
            module.np_dtype_to_tensor_dtype(np.dtype("V4"))


@pytest.mark.parametrize("data_type", [0, 29, -3, 1000])
def test_unknown_data_types_are_key_errors_as_onnx_and_type_errors(data_type: int) -> None:
    for name in ("tensor_dtype_to_np_dtype", "tensor_dtype_to_storage_tensor_dtype",
                 "tensor_dtype_to_field", "tensor_dtype_to_string"):  # fmt: skip
        with pytest.raises(KeyError):
            getattr(oh, name)(data_type)
        with pytest.raises(KeyError):
            getattr(helper, name)(data_type)
        with pytest.raises(TypeError) as info:
            getattr(helper, name)(data_type)
        assert str(info.value).startswith(f"{data_type} is not a TensorProto.DataType")


@pytest.mark.parametrize("dims", [[], [3], [2, 3]])
def test_printable_tensor_proto_as_onnx(dims: list[int]) -> None:
    ours = helper.make_tensor("w", DT.INT8, dims, np.zeros(dims, np.int8))
    theirs = oh.make_tensor("w", DT.INT8, dims, np.zeros(dims, np.int8))
    assert helper.printable_tensor_proto(ours) == oh.printable_tensor_proto(theirs)
    assert helper.printable_tensor_proto(theirs) == oh.printable_tensor_proto(theirs)


# --------------------------------------------------------------------------
# containers

arrays = st.lists(st.floats(allow_nan=False, width=32), min_size=0, max_size=5).map(
    lambda v: np.array(v, dtype=np.float32)
)


def pair(values: Any, name: str = "v") -> tuple[Any, Any]:
    """(onnx's, onnxdata's) tensor of ``values``."""
    return (
        oh.make_tensor(name, DT.FLOAT, [len(values)], values),
        helper.make_tensor(name, DT.FLOAT, [len(values)], values),
    )


@settings(max_examples=ms.scaled(0.3))
@given(values=arrays, indices=st.lists(st.integers(0, 100), max_size=5), dims=st.lists(
    st.integers(0, 100), max_size=3))  # fmt: skip
def test_make_sparse_tensor_the_same_bytes_as_onnx(
    values: Any, indices: list[int], dims: list[int]
) -> None:
    o_values, d_values = pair(values)
    o_idx = oh.make_tensor("i", DT.INT64, [len(indices)], indices)
    d_idx = helper.make_tensor("i", DT.INT64, [len(indices)], indices)
    theirs = oh.make_sparse_tensor(o_values, o_idx, dims).SerializeToString()
    assert helper.make_sparse_tensor(d_values, d_idx, dims).encode() == theirs
    assert helper.make_sparse_tensor(o_values, o_idx, dims).encode() == theirs  # onnx's messages


def test_make_sparse_tensor_copies_its_inputs() -> None:
    _, values = pair([1.0, 2.0])
    _, indices = pair([0.0, 3.0])
    sparse = helper.make_sparse_tensor(values, indices, [4])
    values.float_data = [9.0]
    assert sparse.values is not values and sparse.values.float_data == [1.0, 2.0]


@settings(max_examples=ms.scaled(0.3))
@given(items=st.lists(arrays, max_size=4), name=st.text(max_size=5))
def test_make_sequence_and_make_optional_the_same_bytes_as_onnx(
    items: list[Any], name: str
) -> None:
    pairs = [pair(v) for v in items]
    o_seq = oh.make_sequence(name, onnx.SequenceProto.TENSOR, [o for o, _ in pairs])
    d_seq = helper.make_sequence(name, SequenceProto.TENSOR, [d for _, d in pairs])
    assert d_seq.encode() == o_seq.SerializeToString()
    o_opt = oh.make_optional(name, onnx.OptionalProto.SEQUENCE, o_seq)
    d_opt = helper.make_optional(name, OptionalProto.SEQUENCE, d_seq)
    assert d_opt.encode() == o_opt.SerializeToString()
    o_nested = oh.make_sequence(name, onnx.SequenceProto.OPTIONAL, [o_opt, o_opt])
    d_nested = helper.make_sequence(name, SequenceProto.OPTIONAL, [d_opt, o_opt])
    assert d_nested.encode() == o_nested.SerializeToString()


@settings(max_examples=ms.scaled(0.3))
@given(
    keys=st.lists(st.integers(-(2**31), 2**31 - 1), max_size=4, unique=True),
    key_type=st.sampled_from([DT.INT8, DT.INT32, DT.INT64, DT.UINT64]),
)
def test_make_map_the_same_bytes_as_onnx(keys: list[int], key_type: int) -> None:
    pairs = [pair([float(k)]) for k in keys]
    o_values = oh.make_sequence("s", onnx.SequenceProto.TENSOR, [o for o, _ in pairs])
    d_values = helper.make_sequence("s", SequenceProto.TENSOR, [d for _, d in pairs])
    theirs = oh.make_map("m", key_type, keys, o_values).SerializeToString()
    assert helper.make_map("m", key_type, keys, d_values).encode() == theirs


def test_make_map_with_string_keys_as_onnx() -> None:
    o_values = oh.make_sequence("s", onnx.SequenceProto.TENSOR, [pair([1.0])[0]] * 2)
    theirs = oh.make_map("m", DT.STRING, [b"a", b"b"], o_values).SerializeToString()
    assert helper.make_map("m", DT.STRING, [b"a", "b"], o_values).encode() == theirs


def test_make_map_refuses_what_onnx_writes_wrong() -> None:
    values = helper.make_sequence("s", SequenceProto.TENSOR, [pair([1.0])[1]])
    with pytest.raises(ValueError, match="cannot key a map"):
        helper.make_map("m", DT.FLOAT, [1], values)  # onnx drops the keys
    with pytest.raises(ValueError, match="same number"):
        helper.make_map("m", DT.INT64, [1, 2], values)  # onnx writes the bad map
    with pytest.raises(TypeError):
        helper.make_map("m", DT.INT64, ["a"], values)
    with pytest.raises(ValueError, match="out of range"):
        helper.make_map("m", DT.UINT64, [2**64 - 1], values)  # as protobuf: keys are int64
    with pytest.raises(TypeError):
        helper.make_map("m", DT.INT64, [1], MapProto())


def test_make_sequence_and_optional_of_undefined_ignore_the_values_as_onnx() -> None:
    theirs = oh.make_sequence("s", onnx.SequenceProto.UNDEFINED, [1, 2]).SerializeToString()
    assert helper.make_sequence("s", SequenceProto.UNDEFINED, [1, 2]).encode() == theirs
    theirs = oh.make_optional("o", onnx.OptionalProto.UNDEFINED, None).SerializeToString()
    assert helper.make_optional("o", OptionalProto.UNDEFINED, None).encode() == theirs


def test_unknown_element_types_are_type_errors_as_onnx() -> None:
    for module in (oh, helper):
        with pytest.raises(TypeError, match="input sequence is not supported"):
            module.make_sequence("s", 9, [])
        with pytest.raises(TypeError, match="input optional is not supported"):
            module.make_optional("o", 9, None)


def test_make_optional_without_a_value_is_a_type_error_where_onnx_asserts() -> None:
    with pytest.raises(AssertionError):
        oh.make_optional("o", onnx.OptionalProto.TENSOR, None)
    with pytest.raises(TypeError, match="needs a value"):
        helper.make_optional("o", OptionalProto.TENSOR, None)


def test_values_of_the_wrong_message_type_are_type_errors() -> None:
    tensor = pair([1.0])[1]
    with pytest.raises(TypeError, match="expected a SequenceProto"):
        helper.make_optional("o", OptionalProto.SEQUENCE, tensor)
    with pytest.raises(TypeError, match="expected a TensorProto"):
        helper.make_sequence("s", SequenceProto.TENSOR, [np.zeros(2)])


def test_make_optional_copies_its_value() -> None:
    tensor = pair([1.0])[1]
    optional = helper.make_optional("o", OptionalProto.TENSOR, tensor)
    tensor.name = "changed"
    assert optional.tensor_value == pair([1.0])[1]


def test_without_numpy_the_import_error_names_the_extra() -> None:
    code = (
        "import sys\nsys.modules['numpy'] = None\nimport onnxdata\n"
        "try:\n    import onnxdata.helper\nexcept ImportError as exc:\n    print(exc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "onnxdata.helper needs numpy" in proc.stdout and "onnxdata[numpy]" in proc.stdout
