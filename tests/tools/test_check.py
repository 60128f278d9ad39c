"""onnxdata.check: one valid and one broken message for every MUST of the reference protos."""

from __future__ import annotations

import struct

import pytest

from onnxdata import (
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
    Violation,
    check,
)
from tests.support.paths import DATA

T = TensorProto
DT = TensorProto.DataType


def f32(n: int = 1, **kw: object) -> TensorProto:
    return T(dims=[n], data_type=T.FLOAT, float_data=[1.0] * n, **kw)  # type: ignore[arg-type]


def i64(n: int = 1) -> TensorProto:
    return T(dims=[n], data_type=T.INT64, int64_data=list(range(n)))


def sparse(idx: list[int], idims: list[int] | None = None, dims: list[int] | None = None,
           name: str | None = "v", **over: object) -> SparseTensorProto:  # fmt: skip
    nnz = idims[0] if idims else len(idx)
    values = T(dims=[nnz], data_type=T.FLOAT, float_data=[1.0] * nnz, name=name)
    indices = T(dims=idims or [len(idx)], data_type=T.INT64, int64_data=idx)
    s = SparseTensorProto(values=values, indices=indices, dims=dims or [10])
    for k, v in over.items():
        setattr(s, k, v)
    return s


# (rule, valid message, broken message, path of the expected violation)
CASES: list[tuple[str, object, object, str]] = [
    ("data_type valid", f32(), T(dims=[1], data_type=99, raw_data=b"x"), "TensorProto.data_type"),
    (
        "dims non-negative",
        T(dims=[0], data_type=T.FLOAT),
        T(dims=[-1], data_type=T.FLOAT),
        "TensorProto.dims[0]",
    ),
    (
        "float_data for FLOAT/COMPLEX64",
        T(dims=[1], data_type=T.COMPLEX64, float_data=[1.0, 2.0]),
        T(dims=[1], data_type=T.INT64, float_data=[1.0]),
        "TensorProto.float_data",
    ),
    (
        "int32_data types",
        T(dims=[2], data_type=T.FLOAT16, int32_data=[1, 2]),
        T(dims=[1], data_type=T.FLOAT, int32_data=[1]),
        "TensorProto.int32_data",
    ),
    (
        "string_data for STRING",
        T(dims=[1], data_type=T.STRING, string_data=[b"a"]),
        T(dims=[1], data_type=T.INT8, string_data=[b"a"]),
        "TensorProto.string_data",
    ),
    (
        "int64_data for INT64",
        i64(),
        T(dims=[1], data_type=T.INT32, int64_data=[1]),
        "TensorProto.int64_data",
    ),
    (
        "double_data for DOUBLE/COMPLEX128",
        T(dims=[1], data_type=T.DOUBLE, double_data=[1.0]),
        T(dims=[1], data_type=T.FLOAT, double_data=[1.0]),
        "TensorProto.double_data",
    ),
    (
        "uint64_data for UINT32/UINT64",
        T(dims=[1], data_type=T.UINT32, uint64_data=[1]),
        T(dims=[1], data_type=T.INT64, uint64_data=[1]),
        "TensorProto.uint64_data",
    ),
    (
        "STRING never raw_data",
        T(dims=[1], data_type=T.STRING, string_data=[b"x"]),
        T(dims=[1], data_type=T.STRING, raw_data=b"x"),
        "TensorProto.raw_data",
    ),
    (
        "UNDEFINED never raw_data",
        T(dims=[0], data_type=T.UNDEFINED),
        T(dims=[1], raw_data=b"x"),
        "TensorProto.raw_data",
    ),
    (
        "one storage field",
        f32(),
        T(dims=[1], data_type=T.FLOAT, float_data=[1.0], raw_data=b"1234"),
        "TensorProto.raw_data",
    ),
    (
        "float count",
        f32(3),
        T(dims=[3], data_type=T.FLOAT, float_data=[1.0]),
        "TensorProto.float_data",
    ),
    (
        "complex64 count",
        T(dims=[1], data_type=T.COMPLEX64, float_data=[1.0, 2.0]),
        T(dims=[1], data_type=T.COMPLEX64, float_data=[1.0]),
        "TensorProto.float_data",
    ),
    (
        "int4 int32_data count",
        T(dims=[3], data_type=T.INT4, int32_data=[1, 2]),
        T(dims=[3], data_type=T.INT4, int32_data=[1, 2, 3]),
        "TensorProto.int32_data",
    ),
    (
        "uint2 int32_data count",
        T(dims=[5], data_type=T.UINT2, int32_data=[1, 2]),
        T(dims=[5], data_type=T.UINT2, int32_data=[1]),
        "TensorProto.int32_data",
    ),
    (
        "float6 int32_data count",
        T(dims=[2], data_type=T.FLOAT6E2M3, int32_data=[1, 63]),
        T(dims=[2], data_type=T.FLOAT6E2M3, int32_data=[1]),
        "TensorProto.int32_data",
    ),
    (
        "float6 high bits zero",
        T(dims=[1], data_type=T.FLOAT6E3M2, int32_data=[63]),
        T(dims=[1], data_type=T.FLOAT6E3M2, int32_data=[64]),
        "TensorProto.int32_data[0]",
    ),
    (
        "string count",
        T(dims=[2, 1], data_type=T.STRING, string_data=[b"a", b"b"]),
        T(dims=[2, 1], data_type=T.STRING, string_data=[b"a"]),
        "TensorProto.string_data",
    ),
    (
        "scalar count",
        T(data_type=T.INT64, int64_data=[5]),
        T(data_type=T.INT64, int64_data=[5, 6]),
        "TensorProto.int64_data",
    ),
    (
        "no values for non-empty dims",
        T(dims=[0, 4], data_type=T.FLOAT),
        T(dims=[2], data_type=T.FLOAT),
        "TensorProto.dims",
    ),
    (
        "raw_data length",
        T(dims=[2], data_type=T.FLOAT, raw_data=bytes(8)),
        T(dims=[2], data_type=T.FLOAT, raw_data=bytes(7)),
        "TensorProto.raw_data",
    ),
    (
        "raw 4-bit length",
        T(dims=[3], data_type=T.UINT4, raw_data=bytes(2)),
        T(dims=[3], data_type=T.UINT4, raw_data=bytes(3)),
        "TensorProto.raw_data",
    ),
    (
        "raw 2-bit length",
        T(dims=[5], data_type=T.INT2, raw_data=bytes(2)),
        T(dims=[5], data_type=T.INT2, raw_data=bytes(1)),
        "TensorProto.raw_data",
    ),
    (
        "raw 6-bit length",
        T(dims=[5], data_type=T.FLOAT6E2M3, raw_data=bytes(4)),
        T(dims=[5], data_type=T.FLOAT6E2M3, raw_data=bytes(5)),
        "TensorProto.raw_data",
    ),
    (
        "raw complex128 length",
        T(dims=[1], data_type=T.COMPLEX128, raw_data=bytes(16)),
        T(dims=[1], data_type=T.COMPLEX128, raw_data=bytes(8)),
        "TensorProto.raw_data",
    ),
    (
        "raw bool bytes 0/1",
        T(dims=[2], data_type=T.BOOL, raw_data=b"\0\1"),
        T(dims=[2], data_type=T.BOOL, raw_data=b"\0\2"),
        "TensorProto.raw_data",
    ),
    (
        "EXTERNAL has location",
        T(
            dims=[9],
            data_type=T.FLOAT,
            data_location=T.EXTERNAL,
            external_data=[StringStringEntryProto(key="location", value="w.bin")],
        ),
        T(
            dims=[9],
            data_type=T.FLOAT,
            data_location=T.EXTERNAL,
            external_data=[StringStringEntryProto(key="offset", value="0")],
        ),
        "TensorProto.external_data",
    ),
    (
        "data_location 0/1",
        T(dims=[0], data_type=T.FLOAT, data_location=0),
        T(dims=[0], data_type=T.FLOAT, data_location=2),
        "TensorProto.data_location",
    ),
    # sparse
    (
        "sparse values present",
        sparse([1, 3]),
        SparseTensorProto(dims=[4]),
        "SparseTensorProto.values",
    ),
    ("sparse values named", sparse([1]), sparse([1], name=None), "SparseTensorProto.values.name"),
    (
        "sparse values 1-D",
        sparse([1]),
        sparse([1], values=T(dims=[1, 1], data_type=T.FLOAT, float_data=[1.0], name="v")),
        "SparseTensorProto.values.dims",
    ),
    (
        "sparse indices INT64",
        sparse([1]),
        sparse([1], indices=T(dims=[1], data_type=T.INT32, int32_data=[1])),
        "SparseTensorProto.indices.data_type",
    ),
    ("sparse indices present", sparse([1]), sparse([1], indices=None), "SparseTensorProto.indices"),
    (
        "sparse indices shape",
        sparse([0, 1, 2, 2], idims=[2, 2], dims=[3, 3]),
        sparse([0, 1, 2, 3], idims=[2, 2], dims=[3, 3, 3]),
        "SparseTensorProto.indices.dims",
    ),
    (
        "sparse NNZ agrees",
        sparse([1, 2]),
        sparse([1, 2], values=T(dims=[3], data_type=T.FLOAT, float_data=[1.0] * 3, name="v")),
        "SparseTensorProto.indices.dims",
    ),
    ("sparse linear in range", sparse([0, 9]), sparse([0, 10]), "SparseTensorProto.indices[1]"),
    (
        "sparse coords in range",
        sparse([0, 2, 1, 0], idims=[2, 2], dims=[2, 3]),
        sparse([0, 3, 1, 0], idims=[2, 2], dims=[2, 3]),
        "SparseTensorProto.indices[0]",
    ),
    ("sparse ascending", sparse([1, 5]), sparse([5, 1]), "SparseTensorProto.indices[1]"),
    ("sparse unique", sparse([1, 2]), sparse([2, 2]), "SparseTensorProto.indices[1]"),
    (
        "sparse coords lexicographic",
        sparse([1, 4, 2, 1], idims=[2, 2], dims=[3, 5]),
        sparse([2, 1, 1, 4], idims=[2, 2], dims=[3, 5]),
        "SparseTensorProto.indices[1]",
    ),
    (
        "sparse raw indices",
        sparse(
            [],
            idims=[2],
            dims=[5],
            indices=T(dims=[2], data_type=T.INT64, raw_data=struct.pack("<2q", 1, 4)),
        ),
        sparse(
            [],
            idims=[2],
            dims=[5],
            indices=T(dims=[2], data_type=T.INT64, raw_data=struct.pack("<2q", 4, 1)),
        ),
        "SparseTensorProto.indices[1]",
    ),
    # sequence
    (
        "sequence elem_type valid",
        SequenceProto(elem_type=SequenceProto.TENSOR, tensor_values=[f32()]),
        SequenceProto(elem_type=9),
        "SequenceProto.elem_type",
    ),
    (
        "sequence elem_type matches",
        SequenceProto(elem_type=SequenceProto.MAP),
        SequenceProto(elem_type=SequenceProto.MAP, tensor_values=[f32()]),
        "SequenceProto.tensor_values",
    ),
    (
        "sequence elem_type set when populated",
        SequenceProto(),
        SequenceProto(tensor_values=[f32()]),
        "SequenceProto.tensor_values",
    ),
    (
        "sequence one element type",
        SequenceProto(elem_type=1, tensor_values=[f32(), f32()]),
        SequenceProto(elem_type=1, tensor_values=[f32()], sequence_values=[SequenceProto()]),
        "SequenceProto",
    ),
    (
        "sequence tensors share data_type",
        SequenceProto(elem_type=1, tensor_values=[f32(), f32(2)]),
        SequenceProto(elem_type=1, tensor_values=[f32(), i64()]),
        "SequenceProto.tensor_values[1].data_type",
    ),
    (
        "sequence recurses",
        SequenceProto(elem_type=1, tensor_values=[f32()]),
        SequenceProto(elem_type=1, tensor_values=[f32(), T(dims=[2], data_type=T.FLOAT)]),
        "SequenceProto.tensor_values[1].dims",
    ),
    # map
    (
        "map key_type allowed",
        MapProto(
            key_type=T.INT64, keys=[1], values=SequenceProto(elem_type=1, tensor_values=[f32()])
        ),
        MapProto(
            key_type=T.FLOAT, keys=[1], values=SequenceProto(elem_type=1, tensor_values=[f32()])
        ),
        "MapProto.key_type",
    ),
    (
        "map string keys field",
        MapProto(
            key_type=T.STRING,
            string_keys=[b"a"],
            values=SequenceProto(elem_type=1, tensor_values=[f32()]),
        ),
        MapProto(
            key_type=T.STRING, keys=[1], values=SequenceProto(elem_type=1, tensor_values=[f32()])
        ),
        "MapProto.keys",
    ),
    (
        "map int keys field",
        MapProto(
            key_type=T.INT32, keys=[1], values=SequenceProto(elem_type=1, tensor_values=[f32()])
        ),
        MapProto(
            key_type=T.INT32,
            string_keys=[b"a"],
            values=SequenceProto(elem_type=1, tensor_values=[f32()]),
        ),
        "MapProto.string_keys",
    ),
    (
        "map key range",
        MapProto(
            key_type=T.UINT8, keys=[255], values=SequenceProto(elem_type=1, tensor_values=[f32()])
        ),
        MapProto(
            key_type=T.UINT8, keys=[256], values=SequenceProto(elem_type=1, tensor_values=[f32()])
        ),
        "MapProto.keys[0]",
    ),
    (
        "map lengths agree",
        MapProto(
            key_type=T.INT64,
            keys=[1, 2],
            values=SequenceProto(elem_type=1, tensor_values=[f32(), f32()]),
        ),
        MapProto(
            key_type=T.INT64, keys=[1, 2], values=SequenceProto(elem_type=1, tensor_values=[f32()])
        ),
        "MapProto.values",
    ),
    (
        "map keys distinct",
        MapProto(
            key_type=T.STRING,
            string_keys=[b"a", b"b"],
            values=SequenceProto(elem_type=1, tensor_values=[f32(), f32()]),
        ),
        MapProto(
            key_type=T.STRING,
            string_keys=[b"a", b"a"],
            values=SequenceProto(elem_type=1, tensor_values=[f32(), f32()]),
        ),
        "MapProto.string_keys[1]",
    ),
    (
        "map values checked",
        MapProto(
            key_type=T.INT64, keys=[1], values=SequenceProto(elem_type=1, tensor_values=[f32()])
        ),
        MapProto(
            key_type=T.INT64, keys=[1], values=SequenceProto(elem_type=2, tensor_values=[f32()])
        ),
        "MapProto.values.tensor_values",
    ),
    (
        "map values not optional",
        MapProto(
            key_type=T.INT64,
            keys=[1],
            values=SequenceProto(elem_type=4, map_values=[MapProto(key_type=T.INT64)]),
        ),
        MapProto(
            key_type=T.INT64,
            keys=[1],
            values=SequenceProto(elem_type=5, optional_values=[OptionalProto()]),
        ),
        "MapProto.values.elem_type",
    ),
    # optional
    (
        "optional elem_type valid",
        OptionalProto(elem_type=OptionalProto.TENSOR, tensor_value=f32()),
        OptionalProto(elem_type=6),
        "OptionalProto.elem_type",
    ),
    (
        "optional elem_type matches",
        OptionalProto(elem_type=OptionalProto.SEQUENCE),
        OptionalProto(elem_type=OptionalProto.SEQUENCE, tensor_value=f32()),
        "OptionalProto.tensor_value",
    ),
    (
        "optional one value",
        OptionalProto(elem_type=5, optional_value=OptionalProto()),
        OptionalProto(elem_type=1, tensor_value=f32(), optional_value=OptionalProto()),
        "OptionalProto",
    ),
    (
        "optional recurses",
        OptionalProto(elem_type=4, map_value=MapProto(key_type=T.INT64)),
        OptionalProto(elem_type=4, map_value=MapProto(key_type=T.INT64, keys=[1])),
        "OptionalProto.map_value.values",
    ),
]


@pytest.mark.parametrize(("rule", "good", "bad", "path"), CASES, ids=[c[0] for c in CASES])
def test_rule(rule: str, good: object, bad: object, path: str) -> None:
    assert check(good) == [], rule  # type: ignore[arg-type]
    found = check(bad)  # type: ignore[arg-type]
    assert path in [v.path for v in found], (rule, [str(v) for v in found])


def test_violation_str_and_eq() -> None:
    v = check(T(dims=[2], data_type=T.FLOAT, float_data=[1.0]))
    assert v == [Violation("TensorProto.float_data", "1 values, but dims [2] of FLOAT need 2")]
    assert str(v[0]) == "TensorProto.float_data: 1 values, but dims [2] of FLOAT need 2"
    assert "Violation(" in repr(v[0])


def test_external_and_segment_skip_counts() -> None:
    seg = T(dims=[100], data_type=T.FLOAT, float_data=[1.0], segment=T.Segment(begin=0, end=1))
    assert check(seg) == []


def test_not_a_message() -> None:
    with pytest.raises(TypeError):
        check(42)  # type: ignore[arg-type]


def test_cycle_is_reported_not_recursion_error() -> None:
    o = OptionalProto(elem_type=5)
    o.optional_value = o
    assert any("nested" in v.message for v in check(o))


def test_decoded_samples_are_valid() -> None:
    # Some hand-built samples mix FLOAT and INT32 tensors in one sequence: that
    # is the only rule they break.

    from onnxdata import load

    for p in sorted(DATA.glob("*.pb")):
        if p.name == "tensor_all_fields.pb":  # every field set: a codec test, not data
            assert len(check(TensorProto.decode(p.read_bytes()))) > 1
            continue
        msg = load(p, copy=True)
        found = [v for v in check(msg) if "share one data_type" not in v.message]
        assert found == [], p.name


def test_mixed_value_types_sample_is_reported() -> None:

    data = DATA.joinpath("map_int64_keys.pb").read_bytes()
    found = check(MapProto.decode(data))
    assert [v.path for v in found] == ["MapProto.values.tensor_values[1].data_type"]


def test_odd_corners() -> None:
    assert check(StringStringEntryProto(key="k")) == []
    assert check(T.Segment(begin=0, end=1)) == []
    assert Violation("a", "b") != "a: b"
    seq = SequenceProto(elem_type=1, tensor_values=[42])  # type: ignore[list-item]
    assert [str(v) for v in check(seq)] == [
        "SequenceProto.tensor_values[0]: expected a TensorProto, found int"
    ]
    s = sparse([1], dims=[-3])
    assert "SparseTensorProto.dims[0]" in [v.path for v in check(s)]
    odd = SparseTensorProto(
        values=T(dims=[1], data_type=T.FLOAT, float_data=[1.0], name="v"),
        indices=T(dims=[1], data_type=T.INT64, raw_data=b"123"),
        dims=[4],
    )
    assert [v.path for v in check(odd)] == ["SparseTensorProto.indices.raw_data"]
    bad_sub = SparseTensorProto(values=MapProto())  # type: ignore[arg-type]
    assert [v.path for v in check(bad_sub)] == ["SparseTensorProto.values"]
    assert [v.path for v in check(MapProto(key_type=7, values=T()))] == ["MapProto.values"]  # type: ignore[arg-type]
    m = MapProto(key_type=77, keys=[1])
    assert [v.path for v in check(m)] == ["MapProto.key_type", "MapProto.values"]
