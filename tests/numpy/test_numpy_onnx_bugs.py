"""Where onnx.numpy_helper 1.23.2 is wrong, and what onnxdata does instead.

Each test shows onnx's behaviour first (so a fixed onnx release shows up
here) and then onnxdata's.  docs/numpy.md lists the same cases.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import numpy_helper as onh

import onnxdata
from onnxdata import numpy_helper as nh
from tests.support.numpy_support import assert_same_value

T = onnxdata.TensorProto


def both(ours: onnxdata.Message) -> tuple[Any, onnxdata.Message]:
    """The oracle message with the same bytes, and ours decoded from them."""
    data = ours.encode()
    oracle = {
        T: onnx.TensorProto,
        onnxdata.SequenceProto: onnx.SequenceProto,
        onnxdata.MapProto: onnx.MapProto,
        onnxdata.OptionalProto: onnx.OptionalProto,
    }[type(ours)]
    return oracle.FromString(data), type(ours).decode(data)


# --------------------------------------------------------------------------
# from_dict


@pytest.mark.filterwarnings("ignore:Data type alias 'a':DeprecationWarning")  # onnx's call
@pytest.mark.parametrize(
    "keys",
    [["a", "bc", "é"], ["f"], ["int32"], [np.str_("ab"), np.str_("c")], [b"x", b"yz"]],
)
def test_from_dict_string_keys(keys: list[Any]) -> None:
    d = {k: np.array([i], dtype=np.float32) for i, k in enumerate(keys)}
    # onnx passes the key to numpy.result_type, which reads "f" as float32,
    # "int32" as int32, "a" as bytes...: every string key fails one way or another.
    with pytest.raises((TypeError, ValueError)):
        onh.from_dict(d)
    m = nh.from_dict(d, "strings")
    assert m.key_type == T.STRING
    expected = [k.encode() if isinstance(k, str) else bytes(k) for k in keys]
    assert m.string_keys == expected and m.keys == []
    oracle, decoded = both(m)
    assert list(oracle.string_keys) == expected
    back = nh.to_dict(decoded)
    assert list(back) == expected
    assert_same_value(back, onh.to_dict(oracle))  # onnx reads what we wrote


def test_from_dict_string_keys_must_not_mix() -> None:
    with pytest.raises(TypeError, match="not the same"):
        nh.from_dict({"a": np.zeros(1), b"b": np.zeros(1)})
    with pytest.raises(TypeError, match="not the same"):
        nh.from_dict({"a": np.zeros(1), 1: np.zeros(1)})


@pytest.mark.parametrize(
    "values",
    [["abc", "d"], [b"x", b"yz"], [[np.zeros(1)], [np.ones(2)]], [{1: np.zeros(1)}]],
)
def test_from_dict_string_list_and_dict_values(values: list[Any]) -> None:
    d = dict(enumerate(values))
    # numpy.result_type("abc"): "data type 'abc' not understood"; of a list: a
    # structured dtype field list; of b"x": dtype S1, which onnx cannot store.
    with pytest.raises((TypeError, ValueError)):
        onh.from_dict(d)
    m = nh.from_dict(d)
    oracle, decoded = both(m)
    assert_same_value(nh.to_dict(decoded), onh.to_dict(oracle))
    assert m.HasField("values")
    assert m.values.encode() == nh.from_list(values).encode()
    if not isinstance(values[0], bytes):  # what a correct onnx would write
        assert m.values.encode() == onh.from_list(values).SerializeToString()


# --------------------------------------------------------------------------
# sparse tensors and optional elements inside containers


def _sparse() -> onnxdata.SparseTensorProto:
    return nh.from_dense(np.array([[0, 1.5], [0, -2]], dtype=np.float32), "sp")


def test_to_list_of_sparse_tensors() -> None:
    seq = onnxdata.SequenceProto(elem_type=2, sparse_tensor_values=[_sparse(), _sparse()])
    oracle, decoded = both(seq)
    with pytest.raises(ValueError, match="segment"):  # onnx calls to_array on a sparse tensor
        onh.to_list(oracle)
    out = nh.to_list(decoded)
    assert [a.tolist() for a in out] == [[[0, 1.5], [0, -2]]] * 2


def test_to_list_of_optionals() -> None:
    items = [nh.from_optional(np.arange(3)), nh.from_optional(None), nh.from_optional([])]
    seq = onnxdata.SequenceProto(elem_type=5, optional_values=items)
    oracle, decoded = both(seq)
    with pytest.raises(TypeError, match="not supported"):
        onh.to_list(oracle)
    out = nh.to_list(decoded)
    assert out[0].tolist() == [0, 1, 2] and out[1] is None and out[2] == []
    with pytest.raises(TypeError, match="not the same"):
        nh.from_list([np.arange(2), None, [np.zeros(1)]], dtype=5)
    with pytest.raises(TypeError, match="dtype must be an int"):
        nh.from_list([], dtype="5")  # type: ignore[arg-type]


def test_to_optional_of_sparse_tensor() -> None:
    opt = onnxdata.OptionalProto(elem_type=2, sparse_tensor_value=_sparse())
    oracle, decoded = both(opt)
    with pytest.raises(ValueError, match="segment"):
        onh.to_optional(oracle)
    assert nh.to_optional(decoded).tolist() == [[0, 1.5], [0, -2]]


@pytest.mark.parametrize("dtype", [1, 2, 3, 4, 5])
def test_to_optional_of_absent_value(dtype: int) -> None:
    """from_optional(None, dtype=...) writes elem_type without a value; onnx cannot read it."""
    oracle = onh.from_optional(None, dtype=dtype)
    ours = onnxdata.OptionalProto.decode(oracle.SerializeToString())
    if dtype != 5:
        with pytest.raises((TypeError, ValueError)):
            onh.to_optional(oracle)
    assert nh.to_optional(ours) is None


def test_from_list_sparse_and_optional_round_trip() -> None:
    dense = [np.array([0, 3, 0], dtype=np.int64), np.array([[0.0], [-0.0]])]
    with pytest.raises(TypeError, match="not supported"):
        onh.from_list(dense, dtype=2)
    seq = nh.from_list(dense, "s", onnxdata.SequenceProto.SPARSE_TENSOR)
    assert seq.elem_type == 2 and len(seq.sparse_tensor_values) == 2
    assert_same_value(nh.to_list(onnxdata.SequenceProto.decode(seq.encode())), dense)
    assert nh.from_list([_sparse()], dtype=2).sparse_tensor_values[0] == _sparse()

    values = [np.arange(2), None, np.zeros((1, 2))]
    with pytest.raises(TypeError, match="not supported"):
        onh.from_list(values, dtype=5)
    seq = nh.from_list(values, dtype=onnxdata.SequenceProto.OPTIONAL)
    assert_same_value(nh.to_list(onnxdata.SequenceProto.decode(seq.encode())), values)


def test_from_optional_extensions() -> None:
    with pytest.raises(AttributeError):  # onnx calls from_array on the int
        onh.from_optional(5)
    ours = nh.from_optional(5, "five")
    assert ours.encode() == onh.from_optional(np.asarray(5), "five").SerializeToString()
    with pytest.raises(AttributeError):
        onh.from_optional("text")
    assert nh.to_optional(nh.from_optional("text")).tolist() == "text"

    with pytest.raises(TypeError, match="not supported"):
        onh.from_optional(np.eye(2), dtype=2)
    sparse = nh.from_optional(np.eye(2), dtype=onnxdata.OptionalProto.SPARSE_TENSOR)
    assert nh.to_optional(sparse).tolist() == np.eye(2).tolist()

    nested = nh.from_optional(np.arange(2), dtype=onnxdata.OptionalProto.OPTIONAL)
    assert nested.HasField("optional_value") and nested.optional_value.elem_type == 1
    assert nh.to_optional(nested).tolist() == [0, 1]
    with pytest.raises(TypeError, match=r"valid OptionalProto\.DataType"):
        nh.from_optional(np.zeros(1), dtype=True)

    tensor = nh.from_array(np.arange(3))  # messages are stored as they are
    assert nh.from_optional(tensor).tensor_value is tensor
    assert nh.from_list([tensor, tensor]).tensor_values == [tensor, tensor]


# --------------------------------------------------------------------------
# from_array


def test_from_array_big_endian() -> None:
    a = np.arange(6, dtype=">f4").reshape(2, 3)
    with pytest.raises(ValueError, match="Unable to convert"):
        onh.from_array(a)
    ours = nh.from_array(a)
    assert ours.data_type == T.FLOAT
    assert ours.encode() == onh.from_array(a.astype("<f4")).SerializeToString()
    assert nh.to_array(ours).tolist() == a.tolist()


def test_from_array_bytes_dtype() -> None:
    a = np.array([[b"ab", b""], [b"\xff", b"c"]])
    with pytest.raises(ValueError, match="Unable to convert"):
        onh.from_array(a)
    ours = nh.from_array(a, "b")
    assert ours.encode() == onh.from_array(a.astype(object), "b").SerializeToString()


# --------------------------------------------------------------------------
# to_array: values onnx gets wrong


def test_string_trailing_nul_is_kept() -> None:
    t = T(dims=[3], data_type=T.STRING, string_data=[b"a\x00", b"\x00", b"b\x00c"])
    oracle, decoded = both(t)
    assert onh.to_array(oracle).tolist() == ["a", "", "b\x00c"]  # numpy "U" strips NULs
    assert nh.to_array(decoded).tolist() == ["a\x00", "\x00", "b\x00c"]


@pytest.mark.parametrize("dims", [[-1], [2, -1], [-2, -3]])
def test_negative_dims(dims: list[int]) -> None:
    t = T(dims=dims, data_type=T.FLOAT, float_data=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    oracle, decoded = both(t)
    if dims in ([-1], [2, -1]):
        assert onh.to_array(oracle).size == 6  # reshape(-1) infers a dimension
    with pytest.raises(ValueError, match="negative dimension"):
        nh.to_array(decoded)


# --------------------------------------------------------------------------
# MUST rules of onnx.proto: a clear ValueError, never a wrong array

_WRONG_SIZE = [
    # (data_type, dims, field, value): onnx returns an array for each
    (T.INT4, [3], "raw_data", b"\x21\x43\x65\x87"),  # 4 bytes for 3 int4 (2 needed)
    (T.UINT4, [2], "raw_data", b"\x21\x43"),
    (T.FLOAT4E2M1, [2], "raw_data", b"\x21\x43\x00"),
    (T.INT2, [5], "raw_data", b"\xff\xff\xff"),  # 3 bytes for 5 int2 (2 needed)
    (T.UINT2, [4], "raw_data", b"\xff\xff"),
    (T.FLOAT6E2M3, [4], "raw_data", b"\x01\x02\x03\x04\x05"),  # 5 bytes, 3 needed
    (T.FLOAT6E3M2, [1], "raw_data", b"\x01\x02"),
    (T.INT4, [3], "int32_data", [1, 2, 3, 4]),  # 4 packed pairs for 3 values
    (T.UINT2, [3], "int32_data", [1, 2]),
]


@pytest.mark.parametrize(("data_type", "dims", "field", "value"), _WRONG_SIZE)
def test_packed_size_mismatch(data_type: int, dims: list[int], field: str, value: Any) -> None:
    t = T(dims=dims, data_type=data_type)
    setattr(t, field, value)
    oracle, decoded = both(t)
    assert onh.to_array(oracle).shape == tuple(dims)  # onnx drops the extra data silently
    with pytest.raises(ValueError, match=r"holds \d+, dims \[\d+\] need \d+"):
        nh.to_array(decoded)


@pytest.mark.parametrize(
    ("data_type", "field", "value"),
    [
        (T.FLOAT, "raw_data", b"\x00" * 7),
        (T.FLOAT, "raw_data", b"\x00" * 20),
        (T.FLOAT, "float_data", [1.0, 2.0, 3.0]),
        (T.COMPLEX64, "float_data", [1.0, 2.0, 3.0, 4.0, 5.0]),
        (T.INT64, "int64_data", [1]),
        (T.UINT32, "uint64_data", [1, 2, 3, 4, 5]),
        (T.BFLOAT16, "int32_data", [1, 2, 3]),
        (T.STRING, "string_data", [b"a"]),
    ],
)
def test_size_mismatch(data_type: int, field: str, value: Any) -> None:
    t = T(dims=[2, 2], data_type=data_type)
    setattr(t, field, value)
    oracle, decoded = both(t)
    with pytest.raises(ValueError):  # onnx fails too, in numpy's words
        onh.to_array(oracle)
    with pytest.raises(ValueError, match="dims \\[2, 2\\] need"):
        nh.to_array(decoded)


def test_float6_int32_data_high_bits() -> None:
    t = T(dims=[3], data_type=T.FLOAT6E2M3, int32_data=[1, 64, -1])
    oracle, decoded = both(t)
    assert onh.to_array(oracle).view(np.uint8).tolist() == [1, 0, 63]  # masked
    with pytest.raises(ValueError, match=r"int32_data\[1\] = 64 .*MUST be zero"):
        nh.to_array(decoded)


@pytest.mark.parametrize(
    ("data_type", "fields"),
    [
        (T.FLOAT, {"raw_data": np.float32([1, 2]).tobytes(), "float_data": [5.0, 6.0]}),
        (T.FLOAT, {"float_data": [5.0, 6.0], "double_data": [1.0]}),
        (T.INT64, {"int64_data": [1, 2], "int32_data": [3]}),
        (T.STRING, {"string_data": [b"a", b"b"], "raw_data": b""}),
        (T.INT32, {"int32_data": [1, 2], "uint64_data": [3]}),
    ],
)
def test_second_storage_field(data_type: int, fields: dict[str, Any]) -> None:
    t = T(dims=[2], data_type=data_type, **fields)
    oracle, decoded = both(t)
    onh.to_array(oracle)  # onnx picks one field and ignores the other
    with pytest.raises(ValueError, match="too"):
        nh.to_array(decoded)


def _map(key_type: int | None, keys: Any = (), string_keys: Any = (), n_values: int = 1) -> Any:
    values = nh.from_list([np.float32(i) for i in range(n_values)]) if n_values >= 0 else None
    return onnxdata.MapProto(
        key_type=key_type, keys=list(keys), string_keys=list(string_keys), values=values
    )


def test_map_keys_and_values_differ_in_length() -> None:
    oracle, decoded = both(_map(T.INT64, keys=[1, 2], n_values=1))
    with pytest.raises(IndexError):
        onh.to_dict(oracle)
    with pytest.raises(ValueError, match="2 keys, 1 values") as info:
        nh.to_dict(decoded)
    assert isinstance(info.value, IndexError)  # onnx's class too: except IndexError still works
    with pytest.raises(ValueError, match="no values"):
        nh.to_dict(_map(T.INT64, keys=[1], n_values=-1))


def test_empty_map_without_values() -> None:
    oracle, decoded = both(_map(T.INT64, n_values=-1))
    with pytest.raises(TypeError, match="not supported"):  # to_list of an unset sequence
        onh.to_dict(oracle)
    assert nh.to_dict(decoded) == {}


def test_map_repeated_key() -> None:
    oracle, decoded = both(_map(T.INT64, keys=[7, 7], n_values=2))
    assert list(onh.to_dict(oracle)) == [7]  # the first value is lost
    with pytest.raises(ValueError, match="repeats a key"):
        nh.to_dict(decoded)


@pytest.mark.parametrize("key_type", [None, 0, T.FLOAT, T.BOOL, T.FLOAT16, 99])
def test_map_key_type_invalid(key_type: int | None) -> None:
    oracle, decoded = both(_map(key_type, keys=[1]))
    onh.to_dict(oracle)  # onnx reads the integer keys whatever key_type says
    with pytest.raises(ValueError, match="key_type"):
        nh.to_dict(decoded)


def test_map_both_key_fields() -> None:
    with pytest.raises(ValueError, match="string_keys field is set"):
        nh.to_dict(_map(T.INT32, keys=[1], string_keys=[b"a"]))
    with pytest.raises(ValueError, match="integer keys field is set"):
        nh.to_dict(_map(T.STRING, keys=[1], string_keys=[b"a"]))


def test_sequence_with_values_of_another_type() -> None:
    seq = onnxdata.SequenceProto(
        elem_type=1, tensor_values=[nh.from_array(np.zeros(1))], map_values=[_map(T.INT64)]
    )
    oracle, decoded = both(seq)
    assert len(onh.to_list(oracle)) == 1  # the map is ignored
    with pytest.raises(ValueError, match="map_values is set"):
        nh.to_list(decoded)


def test_optional_with_value_of_another_type() -> None:
    opt = onnxdata.OptionalProto(elem_type=1, map_value=_map(T.INT64))
    with pytest.raises(ValueError, match="map_value is set"):
        nh.to_optional(opt)
    opt = onnxdata.OptionalProto(elem_type=0, tensor_value=nh.from_array(np.zeros(1)))
    assert onh.to_optional(both(opt)[0]) is None  # onnx: "no value", silently
    with pytest.raises(ValueError, match="tensor_value is set"):
        nh.to_optional(opt)


def test_int32_data_values_outside_int32() -> None:
    """Hand-built messages may hold anything; decoded ones never do."""
    t = T(dims=[1], data_type=T.INT32, int32_data=[2**31])
    with pytest.raises(ValueError, match="not a int32"):
        nh.to_array(t)
    t = T(dims=[1], data_type=T.UINT64, uint64_data=[-1])
    with pytest.raises(ValueError, match="not a uint64"):
        nh.to_array(t)
    t = T(dims=[2], data_type=T.INT64, int64_data=np.array([1, 2], dtype=np.int32))
    assert nh.to_array(t).tolist() == [1, 2]
    given = np.array([3, 4], dtype=np.int64)
    t = T(dims=[2], data_type=T.INT64, int64_data=given)
    out = nh.to_array(t)
    assert out.tolist() == [3, 4] and not np.shares_memory(out, given)
    t = T(dims=[2], data_type=T.INT8, int32_data=np.array([1, 2**40], dtype=np.int64))
    with pytest.raises(ValueError, match="outside"):
        nh.to_array(t)


def test_narrow_values_keep_low_bits_like_onnx() -> None:
    """Not a MUST rule: values wider than the type keep their low bits, as in onnx."""
    cases = [
        (T.UINT8, [256 + 7, -1]),
        (T.INT8, [200, -129]),
        (T.FLOAT16, [0x1_3C00, -1]),
        (T.BOOL, [2, 255]),
        (T.BFLOAT16, [0x7FC0_3F80, -0x10000]),
    ]
    for data_type, values in cases:
        t = T(dims=[2], data_type=data_type, int32_data=values)
        oracle, decoded = both(t)
        assert_same_value(nh.to_array(decoded), onh.to_array(oracle))
    t = T(dims=[2], data_type=T.UINT32, uint64_data=[2**32 + 5, 2**64 - 1])
    oracle, decoded = both(t)
    assert_same_value(nh.to_array(decoded), onh.to_array(oracle))
    assert nh.to_array(decoded).dtype == np.uint32


def test_ml_dtypes_values() -> None:
    """int4 -1 is stored as nibble 0xF; the array reads back as -1 (ml_dtypes masks)."""
    t = nh.from_array(np.array([-1, 7, -8], dtype=ml_dtypes.int4))
    assert t.raw_data == b"\x7f\x08"
    assert nh.to_array(t).tolist() == [-1, 7, -8]


# --------------------------------------------------------------------------
# casts and packing


def test_to_float8e8m0_of_a_scalar() -> None:
    with pytest.raises(TypeError):
        onh.to_float8e8m0(np.array(3.0, dtype=np.float32))
    assert nh.to_float8e8m0(np.array(3.0, dtype=np.float32)).view(np.uint8) == 129


def test_packing_elements_wider_than_a_byte() -> None:
    values = np.array([1, 2, 3, 4], dtype=np.int16)
    # onnx packs each byte as an element: 4 values take 4 bytes (8 nibbles), not 2
    assert onh._pack_4bitx2(values).tobytes() == bytes([0x01, 0x02, 0x03, 0x04])
    with pytest.raises(ValueError, match="1-byte elements"):
        nh._pack_4bitx2(values)
