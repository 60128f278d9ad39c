"""Golden byte tables: the exact bytes of small messages, one row per wire rule.

Every row is also checked against the oracle (protobuf's upb parser through
the ``onnx`` classes), so a row cannot encode a wrong belief: if the table
and the oracle disagree, the test fails whatever onnxdata does.
"""

from __future__ import annotations

import mmap
import pickle
from array import array
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
import pytest

import onnxdata
from onnxdata import (
    DecodeError,
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)
from tests.support import wirekit as wk
from tests.support.numpy_support import numpy_bool_is_an_index
from tests.support.oracle import ORACLE, assert_same, check_decode, oracle_parse, to_oracle

Segment = TensorProto.Segment
Entry = StringStringEntryProto


def h(text: str) -> bytes:
    return bytes.fromhex(text)


def f32(*bits: int) -> array:
    a = array("f")
    a.frombytes(array("I", bits).tobytes())
    return a


NEG1 = "ff ff ff ff ff ff ff ff ff 01"  # -1 as a 10-byte varint

# --------------------------------------------------------------------------
# encoding: message -> exact bytes

# fmt: off
ENCODE_TABLE: list[tuple[str, Any, str]] = [
    # presence
    ("empty tensor", TensorProto(), ""),
    ("empty segment", Segment(), ""),
    ("empty entry", Entry(), ""),
    ("empty sparse", SparseTensorProto(), ""),
    ("empty sequence", SequenceProto(), ""),
    ("empty map", MapProto(), ""),
    ("empty optional", OptionalProto(), ""),
    ("data_type=0 is written", TensorProto(data_type=0), "10 00"),
    ("name='' is written", TensorProto(name=""), "42 00"),
    ("raw_data=b'' is written", TensorProto(raw_data=b""), "4a 00"),
    ("empty segment is written", TensorProto(segment=Segment()), "1a 00"),
    ("data_location=0 is written", TensorProto(data_location=0), "70 00"),
    ("data_location=EXTERNAL", TensorProto(data_location=TensorProto.EXTERNAL), "70 01"),
    ("segment begin=0", Segment(begin=0), "08 00"),
    ("segment end=-1", Segment(end=-1), f"10 {NEG1}"),
    ("entry key='' value=''", Entry(key="", value=""), "0a 00 12 00"),
    ("entry non-ASCII", Entry(key="k", value="é"), "0a 01 6b 12 02 c3 a9"),
    ("empty values in sparse", SparseTensorProto(values=TensorProto()), "0a 00"),
    ("empty map values", MapProto(values=SequenceProto()), "2a 00"),
    ("empty optional tensor_value", OptionalProto(tensor_value=TensorProto()), "1a 00"),
    ("elem_type=0 is written", SequenceProto(elem_type=0), "10 00"),
    ("key_type=0 is written", MapProto(key_type=0), "10 00"),
    # packed versus unpacked
    ("dims unpacked", TensorProto(dims=[1, 2]), "08 01 08 02"),
    ("dims negative: 10-byte varint", TensorProto(dims=[-1]), f"08 {NEG1}"),
    ("dims int64 bounds", TensorProto(dims=[2**63 - 1, -(2**63)]),
     "08 ff ff ff ff ff ff ff ff 7f 08 80 80 80 80 80 80 80 80 80 01"),
    ("sparse dims unpacked", SparseTensorProto(dims=[3, 300]), "18 03 18 ac 02"),
    ("map keys unpacked", MapProto(keys=[1, -1]), f"18 01 18 {NEG1}"),
    ("float_data packed", TensorProto(float_data=[1.0, -2.0]), "22 08 00 00 80 3f 00 00 00 c0"),
    ("int32_data packed", TensorProto(int32_data=[1, 300]), "2a 03 01 ac 02"),
    ("int32_data negative: 10 bytes", TensorProto(int32_data=[-1]), f"2a 0a {NEG1}"),
    ("int32_data bounds", TensorProto(int32_data=[2**31 - 1, -(2**31)]),
     "2a 0f ff ff ff ff 07 80 80 80 80 f8 ff ff ff ff 01"),
    ("int64_data packed", TensorProto(int64_data=[0, -1]), f"3a 0b 00 {NEG1}"),
    ("double_data packed", TensorProto(double_data=[1.0]), "52 08 00 00 00 00 00 00 f0 3f"),
    ("uint64_data packed", TensorProto(uint64_data=[2**64 - 1, 0]), f"5a 0b {NEG1} 00"),
    ("empty repeated fields are not written", TensorProto(dims=[], float_data=[], int32_data=[],
                                                          string_data=[]), ""),
    ("string_data unpacked", TensorProto(string_data=[b"", b"a"]), "32 00 32 01 61"),
    ("map string_keys", MapProto(string_keys=[b"\x00\xff"]), "22 02 00 ff"),
    ("data_type negative: 10 bytes", TensorProto(data_type=-1), f"10 {NEG1}"),
    ("elem_type int32 min", OptionalProto(elem_type=-(2**31)), "10 80 80 80 80 f8 ff ff ff ff 01"),
    # field order: field-number order, whatever the declaration order
    (
        "tensor fields in number order",
        TensorProto(
            metadata_props=[Entry(key="k")], data_location=1, external_data=[Entry(value="v")],
            doc_string="b", uint64_data=[2], double_data=[1.0], raw_data=b"c", name="a",
            int64_data=[3], string_data=[b"s"], int32_data=[4], float_data=[0.0],
            segment=Segment(begin=0), data_type=1, dims=[5],
        ),
        "08 05 10 01 1a 02 08 00 22 04 00 00 00 00 2a 01 04 32 01 73 3a 01 03 42 01 61 4a 01 63"
        " 52 08 00 00 00 00 00 00 f0 3f 5a 01 02 62 01 62 6a 03 12 01 76 70 01 82 01 03 0a 01 6b",
    ),
    (
        "sequence fields in number order",
        SequenceProto(optional_values=[OptionalProto()], map_values=[MapProto()],
                      sequence_values=[SequenceProto()], sparse_tensor_values=[SparseTensorProto()],
                      tensor_values=[TensorProto(), TensorProto()], elem_type=1, name="s"),
        "0a 01 73 10 01 1a 00 1a 00 22 00 2a 00 32 00 3a 00",
    ),
    (
        "map fields in number order",
        MapProto(values=SequenceProto(), string_keys=[b"a"], keys=[7], key_type=7, name="m"),
        "0a 01 6d 10 07 18 07 22 01 61 2a 00",
    ),
    (
        "optional fields in number order",
        OptionalProto(optional_value=OptionalProto(), map_value=MapProto(),
                      sequence_value=SequenceProto(), sparse_tensor_value=SparseTensorProto(),
                      tensor_value=TensorProto(), elem_type=1, name="o"),
        "0a 01 6f 10 01 1a 00 22 00 2a 00 32 00 3a 00",
    ),
    ("sparse fields in number order",
     SparseTensorProto(dims=[3], indices=TensorProto(dims=[1]), values=TensorProto()),
     "0a 00 12 02 08 01 18 03"),
    # unknown fields: after the known ones, whatever their numbers
    ("unknown after known", TensorProto(name="a", unknown_fields=h("f8 01 05")),
     "42 01 61 f8 01 05"),
    ("unknown with a low number after known",
     TensorProto(metadata_props=[Entry()], unknown_fields=h("78 05")), "82 01 00 78 05"),
    ("closed-enum unknown kept", TensorProto(data_location=1, unknown_fields=h("70 05")),
     "70 01 70 05"),
    ("unknown group kept", TensorProto(unknown_fields=h("a3 06 08 01 ab 06 ac 06 a4 06")),
     "a3 06 08 01 ab 06 ac 06 a4 06"),
    ("unknown bytes kept verbatim (over-long varint)",
     Segment(begin=1, unknown_fields=h("18 81 80 80 00")), "08 01 18 81 80 80 00"),
    ("unknown in nested message",
     SequenceProto(tensor_values=[TensorProto(unknown_fields=h("78 01"))]), "1a 02 78 01"),
    # floats
    ("float C cast: 1e300 -> inf", TensorProto(float_data=[1e300, -1e300, 1e-50]),
     "22 0c 00 00 80 7f 00 00 80 ff 00 00 00 00"),
    ("float rounds to nearest float32", TensorProto(float_data=[0.1]), "22 04 cd cc cc 3d"),
    ("float -0.0 kept", TensorProto(float_data=[-0.0]), "22 04 00 00 00 80"),
    ("signalling NaN payload kept", TensorProto(float_data=f32(0x7F800001, 0xFFA00005)),
     "22 08 01 00 80 7f 05 00 a0 ff"),
    ("double NaN payload kept", TensorProto(double_data=array("d", [float("nan")])),
     "52 08 00 00 00 00 00 00 f8 7f"),
    ("bool in float field is 1.0", TensorProto(float_data=[True]), "22 04 00 00 80 3f"),
    ("numpy float32 in float field", TensorProto(float_data=[np.float32(1.5)]),
     "22 04 00 00 c0 3f"),
    # strings
    ("invalid UTF-8 kept (surrogateescape)", TensorProto(name="\udcff"), "42 01 ff"),
    ("non-ASCII name", TensorProto(name="日本"), "42 06 e6 97 a5 e6 9c ac"),
    # numpy integers are accepted
    ("numpy ints", TensorProto(dims=[np.int64(3)], data_type=np.int32(1),
                               uint64_data=[np.uint64(2**64 - 1)], int32_data=[np.int8(-1)]),
     f"08 03 10 01 2a 0a {NEG1} 5a 0a {NEG1}"),
    ("IntEnum values", TensorProto(data_type=TensorProto.DataType.FLOAT16), "10 0a"),
    # lengths above one byte
    ("two-byte length", TensorProto(raw_data=b"\x00" * 200), "4a c8 01" + " 00" * 200),
    ("field 16 tag is two bytes", TensorProto(metadata_props=[Entry()]), "82 01 00"),
]
# fmt: on


@pytest.mark.parametrize(
    "msg, expected", [r[1:] for r in ENCODE_TABLE], ids=[r[0] for r in ENCODE_TABLE]
)
def test_encode_table(msg: Any, expected: str) -> None:
    data = h(expected)
    o = to_oracle(msg)
    assert o.SerializeToString() == data, "the table row disagrees with the oracle"
    assert msg.encode() == data
    back = type(msg).decode(data)
    assert back == msg
    assert back.encode() == data
    assert_same(back, ORACLE[type(msg)].FromString(data))


# --------------------------------------------------------------------------
# decoding: input bytes -> canonical re-encoding (and values)

# fmt: off
DECODE_TABLE: list[tuple[str, type, str, str, Callable[[Any], Any] | None]] = [
    # repeated scalars: packed or unpacked, mixed
    ("float_data unpacked", TensorProto, "25 00 00 80 3f 25 00 00 00 c0",
     "22 08 00 00 80 3f 00 00 00 c0", lambda m: list(m.float_data) == [1.0, -2.0]),
    ("float_data mixed", TensorProto, "25 00 00 80 3f 22 04 00 00 00 40 25 00 00 40 40",
     "22 0c 00 00 80 3f 00 00 00 40 00 00 40 40", lambda m: list(m.float_data) == [1, 2, 3]),
    ("double_data unpacked", TensorProto, "51 00 00 00 00 00 00 f0 3f",
     "52 08 00 00 00 00 00 00 f0 3f", None),
    ("int32_data unpacked", TensorProto, "28 01 28 02", "2a 02 01 02", None),
    ("int64_data unpacked", TensorProto, f"38 {NEG1}", f"3a 0a {NEG1}",
     lambda m: m.int64_data.tolist() == [-1]),
    ("uint64_data unpacked", TensorProto, f"58 {NEG1}", f"5a 0a {NEG1}",
     lambda m: m.uint64_data.tolist() == [2**64 - 1]),
    ("dims packed", TensorProto, "0a 02 01 02", "08 01 08 02", lambda m: m.dims == [1, 2]),
    ("dims packed then unpacked", TensorProto, "0a 01 01 08 02 0a 01 03", "08 01 08 02 08 03",
     lambda m: m.dims == [1, 2, 3]),
    ("sparse dims packed", SparseTensorProto, "1a 02 05 06", "18 05 18 06", None),
    ("map keys packed", MapProto, f"1a 0b 07 {NEG1}", f"18 07 18 {NEG1}",
     lambda m: m.keys == [7, -1]),
    ("empty packed payload", TensorProto, "22 00 0a 00 2a 00", "", lambda m: not m.dims),
    # singular scalars: the last wins
    ("data_type twice: last wins", TensorProto, "10 01 10 02", "10 02", lambda m: m.data_type == 2),
    ("name twice: last wins", TensorProto, "42 01 61 42 01 62", "42 01 62",
     lambda m: m.name == "b"),
    ("raw_data twice: last wins", TensorProto, "4a 01 61 4a 00", "4a 00",
     lambda m: m.raw_data == b""),
    ("segment.begin twice", Segment, "08 01 08 02", "08 02", None),
    ("elem_type twice", OptionalProto, "10 01 10 05", "10 05", None),
    # singular messages: merged
    ("segment twice: merged", TensorProto, "1a 02 08 01 1a 02 10 02", "1a 04 08 01 10 02",
     lambda m: m.segment == Segment(begin=1, end=2)),
    ("segment twice: inner last wins", TensorProto, "1a 02 08 01 1a 02 08 02", "1a 02 08 02",
     None),
    ("sparse values twice: repeated fields joined", SparseTensorProto,
     "0a 02 08 01 0a 02 08 02", "0a 04 08 01 08 02", lambda m: m.values.dims == [1, 2]),
    ("sparse indices merged with presence only", SparseTensorProto, "12 00 12 02 10 07",
     "12 02 10 07", None),
    ("map values merged", MapProto, "2a 02 0a 00 2a 02 10 01", "2a 04 0a 00 10 01",
     lambda m: m.values.name == "" and m.values.elem_type == 1),
    ("optional tensor_value merged twice deep", OptionalProto,
     "3a 04 1a 02 08 01 3a 04 1a 02 08 02", "3a 06 1a 04 08 01 08 02",
     lambda m: m.optional_value.tensor_value.dims == [1, 2]),
    ("merged messages keep unknown fields in order", TensorProto,
     "1a 02 78 01 1a 02 78 02", "1a 04 78 01 78 02",
     lambda m: m.segment.unknown_fields == h("78 01 78 02")),
    # varints: over-long forms, 10-byte limit, truncation to 32 bits
    ("5-byte tag", TensorProto, "88 80 80 80 00 01", "08 01", lambda m: m.dims == [1]),
    ("2-byte tag of a message field", SequenceProto, "9a 00 00", "1a 00",
     lambda m: len(m.tensor_values) == 1),
    ("10-byte varint value", TensorProto, "10 81 80 80 80 80 80 80 80 80 00", "10 01",
     lambda m: m.data_type == 1),
    ("10th byte high bits dropped", TensorProto, "08 ff ff ff ff ff ff ff ff ff 7f",
     f"08 {NEG1}", lambda m: m.dims == [-1]),
    ("int32 keeps the low 32 bits", TensorProto, "10 85 80 80 80 10", "10 05",
     lambda m: m.data_type == 5),
    ("int32 low 32 bits negative", TensorProto, "10 ff ff ff ff 0f", f"10 {NEG1}",
     lambda m: m.data_type == -1),
    ("int32_data element truncated to 32 bits", TensorProto, "28 80 80 80 80 10", "2a 01 00",
     lambda m: m.int32_data.tolist() == [0]),
    ("5-byte length prefix", TensorProto, "42 81 80 80 80 00 61", "42 01 61",
     lambda m: m.name == "a"),
    # closed enum
    ("data_location 5 is unknown", TensorProto, "70 05", "70 05",
     lambda m: not m.HasField("data_location") and m.data_location == 0
     and m.unknown_fields == h("70 05")),
    ("data_location over-long 1", TensorProto, "70 81 00", "70 01",
     lambda m: m.data_location == 1),
    ("data_location 2**32+1 is 1", TensorProto, "70 81 80 80 80 10", "70 01",
     lambda m: m.data_location == 1),
    ("data_location 2**32+2 is unknown, kept raw", TensorProto, "70 82 80 80 80 10",
     "70 82 80 80 80 10", lambda m: not m.HasField("data_location")),
    ("data_location -1 is unknown", TensorProto, f"70 {NEG1}", f"70 {NEG1}", None),
    ("unknown data_location after a known one", TensorProto, "70 01 70 07", "70 01 70 07",
     lambda m: m.data_location == 1),
    # unknown fields
    ("unknown fields after known, in arrival order", TensorProto, "f8 01 05 08 01 78 02",
     "08 01 f8 01 05 78 02", lambda m: m.unknown_fields == h("f8 01 05 78 02")),
    ("known number, wrong wire type", TensorProto, "40 05 15 00 00 00 00", "40 05 15 00 00 00 00",
     lambda m: not m.HasField("name") and not m.HasField("data_type")
     and (m.name, m.data_type) == ("", 0)),
    ("message field as varint", SequenceProto, "18 01", "18 01",
     lambda m: not m.tensor_values),
    ("packed encoding of a singular scalar is unknown", TensorProto, "12 01 01", "12 01 01",
     lambda m: not m.HasField("data_type") and m.data_type == 0),
    ("over-long unknown tag kept raw", Segment, "98 80 80 80 00 01", "98 80 80 80 00 01", None),
    ("unknown fixed64", Entry, "19 01 02 03 04 05 06 07 08", "19 01 02 03 04 05 06 07 08", None),
    ("unknown group kept", TensorProto, "a3 06 08 01 a4 06", "a3 06 08 01 a4 06", None),
    ("nested groups kept", MapProto, "a3 06 ab 06 12 01 61 ac 06 a4 06",
     "a3 06 ab 06 12 01 61 ac 06 a4 06", None),
    ("group with a known number", TensorProto, "0b 10 01 0c", "0b 10 01 0c",
     lambda m: not m.dims and not m.HasField("data_type")),
    ("a length-delimited field inside a group is opaque", TensorProto, "0b 1a 01 0c 0c",
     "0b 1a 01 0c 0c", lambda m: not m.HasField("segment") and m.segment.begin == 0),
    ("largest field number", TensorProto, "f8 ff ff ff 0f 00", "f8 ff ff ff 0f 00", None),
    ("group of the largest field number", TensorProto, "fb ff ff ff 0f fc ff ff ff 0f",
     "fb ff ff ff 0f fc ff ff ff 0f", None),
    ("field 0 inside a group (varint)", TensorProto, "0b 00 00 0c", "0b 00 00 0c", None),
    ("field 0 inside a group (length)", TensorProto, "0b 02 00 0c", "0b 02 00 0c", None),
    ("field 0 inside a group (nested group)", TensorProto, "0b 03 04 0c", "0b 03 04 0c", None),
    ("field 0 inside a group in a sub-message", TensorProto, "1a 04 0b 00 00 0c",
     "1a 04 0b 00 00 0c", None),
    # strings
    ("invalid UTF-8 name round-trips", TensorProto, "42 01 ff", "42 01 ff",
     lambda m: m.name == "\udcff"),
    ("UTF-8 encoded surrogate round-trips", Entry, "0a 03 ed a0 80", "0a 03 ed a0 80",
     lambda m: m.key.encode("utf-8", "surrogateescape") == h("ed a0 80")),
    ("overlong UTF-8 round-trips", SequenceProto, "0a 02 c0 80", "0a 02 c0 80", None),
    ("valid UTF-8 name", TensorProto, "42 02 c3 a9", "42 02 c3 a9", lambda m: m.name == "é"),
    # floats keep their bits
    ("signalling NaN survives decode", TensorProto, "22 04 01 00 80 7f", "22 04 01 00 80 7f",
     lambda m: m.float_data.tobytes() == h("01 00 80 7f")),
    ("double signalling NaN survives", TensorProto, "51 01 00 00 00 00 00 f0 7f",
     "52 08 01 00 00 00 00 00 f0 7f", lambda m: m.double_data.tobytes()[:1] == b"\x01"),
    # depth just inside the limit
    ("100 nested groups", TensorProto, "a3 06" * 100 + " a4 06" * 100,
     "a3 06" * 100 + " a4 06" * 100, None),
]
# fmt: on


@pytest.mark.parametrize(
    "cls, data, expected, check", [r[1:] for r in DECODE_TABLE], ids=[r[0] for r in DECODE_TABLE]
)
def test_decode_table(cls: type, data: str, expected: str, check: Any) -> None:
    raw, canon = h(data), h(expected)
    o = oracle_parse(cls, raw)
    assert o is not None, "the oracle rejects this row"
    assert o.SerializeToString() == canon, "the table row disagrees with the oracle"
    m = check_decode(cls, raw)  # equal bytes and field values to the oracle's
    assert m.encode() == canon
    if check is not None:
        assert check(m)


# --------------------------------------------------------------------------
# rejected inputs: DecodeError with offset and path


# fmt: off
REJECT_TABLE: list[tuple[str, type, str, int | None, str | None]] = [
    # (name, type, input, offset, path); None = not pinned
    ("truncated tag", TensorProto, "80", 0, "TensorProto"),
    ("truncated varint value", TensorProto, "10 80", 1, "TensorProto.data_type"),
    ("truncated dims", TensorProto, "08 01 08", 3, "TensorProto.dims"),
    ("truncated length", TensorProto, "42", 1, "TensorProto.name"),
    ("length past the end", TensorProto, "42 05 61", 1, "TensorProto.name"),
    ("length past the end of a sub-message", SparseTensorProto, "0a 03 42 05 61 61 61 61 61",
     3, "SparseTensorProto.values.name"),
    ("sub-message length past the end", TensorProto, "1a 03 08 01", 1, "TensorProto.segment"),
    ("varint runs past a sub-message end", TensorProto, "1a 01 08 01", 3,
     "TensorProto.segment.begin"),
    ("truncated fixed32", TensorProto, "25 00 00", None, "TensorProto.float_data"),
    ("truncated fixed64", TensorProto, "51 00", None, "TensorProto.double_data"),
    ("truncated unknown fixed64", Segment, "19 00", None, "TensorProto.Segment"),
    ("11-byte varint", TensorProto, "10" + " 80" * 10 + " 00", 1, "TensorProto.data_type"),
    ("11-byte varint in a packed field", TensorProto, "3a 0b" + " 80" * 10 + " 00", 2,
     "TensorProto.int64_data"),
    ("truncated varint in a packed field", TensorProto, "3a 01 80", 2, "TensorProto.int64_data"),
    ("truncated varint at the end of packed dims", MapProto, "1a 02 01 80", 3, "MapProto.keys"),
    ("packed float length not a multiple of 4", TensorProto, "22 03 00 00 00", None,
     "TensorProto.float_data"),
    ("packed double length not a multiple of 8", TensorProto, "52 04 00 00 00 00", None,
     "TensorProto.double_data"),
    ("6-byte tag", TensorProto, "88 80 80 80 80 00 01", 0, "TensorProto"),
    ("tag above 32 bits", TensorProto, "ff ff ff ff 1f 00", 0, "TensorProto"),
    ("field number 0", TensorProto, "00 00", 0, "TensorProto"),
    ("field number 0, length", SequenceProto, "02 00", 0, "SequenceProto"),
    ("field number 0, over-long tag", TensorProto, "80 00 00", 0, "TensorProto"),
    ("wire type 6", TensorProto, "0e 00", 0, "TensorProto"),
    ("wire type 7", TensorProto, "0f 00", 0, "TensorProto"),
    ("wire type 7, largest field number", TensorProto, "ff ff ff ff 0f 00", 0, "TensorProto"),
    ("unmatched end-group", TensorProto, "0c", 0, "TensorProto"),
    ("end-group of the wrong number", TensorProto, "0b 14", 1, "TensorProto"),
    ("unclosed group", TensorProto, "0b 08 01", None, "TensorProto"),
    ("end-group inside a sub-message", TensorProto, "1a 01 0c", 2, "TensorProto.segment"),
    ("group end outside its sub-message", TensorProto, "1a 01 0b 0c", None, None),
    ("wire type 6 inside a group", TensorProto, "0b 0e 0c", 1, "TensorProto"),
    ("6-byte tag inside a group", TensorProto, "0b 88 80 80 80 80 00 00 0c", 1, "TensorProto"),
    ("field 0 group not closed", TensorProto, "0b 03 0c", None, "TensorProto"),
    ("length prefix 6 bytes (known field)", TensorProto, "42 81 80 80 80 80 00 61", 1,
     "TensorProto.name"),
    ("length prefix 10 bytes (known field)", TensorProto,
     "42 81 80 80 80 80 80 80 80 80 00 61", 1, "TensorProto.name"),
    ("length prefix 6 bytes (packed field)", TensorProto, "3a 81 80 80 80 80 00 01", 1,
     "TensorProto.int64_data"),
    ("length prefix 6 bytes (packed floats)", TensorProto, "22 84 80 80 80 80 00 00 00 80 3f",
     1, "TensorProto.float_data"),
    ("length prefix 6 bytes (sub-message)", SequenceProto, "1a 80 80 80 80 80 00", 1,
     "SequenceProto.tensor_values[0]"),
    ("length prefix 6 bytes (unknown field)", TensorProto, "aa 01 81 80 80 80 80 00 61", 2,
     "TensorProto"),
    ("length prefix above 32 bits", TensorProto, "42 81 80 80 80 10 61", 1, "TensorProto.name"),
    ("nested path", SequenceProto, "1a 00 1a 02 08 80", 5, "SequenceProto.tensor_values[1].dims"),
    ("nested path through a merge", OptionalProto, "3a 00 3a 04 1a 02 42 01", 7,
     "OptionalProto.optional_value.tensor_value.name"),
    ("nested path through map values", MapProto, "2a 06 32 04 1a 02 01 80", 7,
     "MapProto.values.map_values[0].keys"),
    ("nested path in external_data", TensorProto, "6a 00 6a 00 6a 02 0a 05", 7,
     "TensorProto.external_data[2].key"),
    ("nested path in sparse indices", SparseTensorProto, "12 04 1a 02 10 80", 5,
     "SparseTensorProto.indices.segment.end"),
    ("nested path in metadata_props", TensorProto, "82 01 02 12 01", 4,
     "TensorProto.metadata_props[0].value"),
]
# fmt: on


@pytest.mark.parametrize(
    "cls, data, offset, path", [r[1:] for r in REJECT_TABLE], ids=[r[0] for r in REJECT_TABLE]
)
def test_decode_rejects(cls: type, data: str, offset: int | None, path: str | None) -> None:
    raw = h(data)
    assert oracle_parse(cls, raw) is None, "the oracle accepts this row"
    with pytest.raises(DecodeError) as info:
        cls.decode(raw)
    err = info.value
    assert isinstance(err, ValueError)
    if path is not None:
        assert err.path == path
    if offset is not None:
        assert err.offset == offset, str(err)
    assert str(err) == f"{err.path}: {err.reason}"


# --------------------------------------------------------------------------
# nesting depth: 100 sub-message levels (101 messages) decode, 101 do not


@pytest.mark.parametrize("levels, ok", [(99, True), (100, True), (101, False), (150, False)])
def test_depth_limit_optional_chain(levels: int, ok: bool) -> None:
    data = wk.nest(7, b"", levels)  # OptionalProto.optional_value
    assert (oracle_parse(OptionalProto, data) is not None) == ok
    if ok:
        check_decode(OptionalProto, data)
    else:
        with pytest.raises(DecodeError) as info:
            OptionalProto.decode(data)
        assert "nesting" in info.value.reason
        assert info.value.path.startswith("OptionalProto.optional_value.optional_value.")


@pytest.mark.parametrize("levels", [98, 99, 100])
def test_depth_limit_counts_leaf_messages(levels: int) -> None:
    # levels OptionalProto.optional_value, then tensor_value { segment { } }: 2 more levels.
    inner = b"\x1a" + wk.varint(2) + b"\x1a\x00"  # tensor_value { segment {} }
    data = wk.nest(7, inner, levels - 1)
    ok = oracle_parse(OptionalProto, data) is not None
    assert ok == (levels + 1 <= 100)
    check_decode(OptionalProto, data)


def test_depth_limit_mixed_containers() -> None:
    # SequenceProto.map_values -> MapProto.values -> SequenceProto ... alternating.
    def chain(n: int) -> bytes:
        data = b""
        for i in range(n):
            tag = b"\x32" if i % 2 == 0 else b"\x2a"  # map_values (seq) / values (map)
            data = tag + wk.varint(len(data)) + data
        return data

    for n in (99, 100, 101):
        check_decode(SequenceProto if n % 2 == 0 else MapProto, chain(n))


@pytest.mark.parametrize("groups, ok", [(99, True), (100, True), (101, False)])
def test_group_depth_limit(groups: int, ok: bool) -> None:
    data = wk.tag(100, 3) * groups + wk.tag(100, 4) * groups
    assert (oracle_parse(TensorProto, data) is not None) == ok
    check_decode(TensorProto, data)


@pytest.mark.parametrize("groups, ok", [(98, True), (99, True), (100, False)])
def test_group_depth_counts_with_messages(groups: int, ok: bool) -> None:
    inner = wk.tag(100, 3) * groups + wk.tag(100, 4) * groups
    data = b"\x3a" + wk.varint(len(inner)) + inner  # inside optional_value
    assert (oracle_parse(OptionalProto, data) is not None) == ok
    check_decode(OptionalProto, data)


def test_very_deep_input_raises_decode_error_not_recursion_error() -> None:
    data = wk.nest(7, b"", 100_000)
    with pytest.raises(DecodeError):
        OptionalProto.decode(data)
    groups = wk.tag(1, 3) * 100_000
    with pytest.raises(DecodeError):
        TensorProto.decode(groups)


def test_encode_depth_limit() -> None:
    def nested(levels: int) -> OptionalProto:
        m = OptionalProto()
        for _ in range(levels):
            m = OptionalProto(optional_value=m)
        return m

    data = nested(100).encode()
    assert data == to_oracle(nested(100)).SerializeToString()
    assert OptionalProto.decode(data) == nested(100)
    with pytest.raises(ValueError):  # deeper than any decoder would accept
        nested(101).encode()


def test_encode_cycle_raises_value_error() -> None:
    m = OptionalProto()
    m.optional_value = m
    with pytest.raises(ValueError):
        m.encode()
    seq = SequenceProto()
    seq.sequence_values.append(seq)
    with pytest.raises(ValueError):
        seq.encode()


# --------------------------------------------------------------------------
# value checks on encoding, compared with the oracle's checks on assignment

# fmt: off
BAD_VALUES: list[tuple[str, Callable[[], Any], type[Exception]]] = [
    ("bool in int32 field", lambda: TensorProto(data_type=True), TypeError),
    ("bool in dims", lambda: TensorProto(dims=[1, True]), TypeError),
    ("numpy bool in dims", lambda: TensorProto(dims=[np.bool_(True)]), TypeError),
    ("float in int32 field", lambda: TensorProto(data_type=1.0), TypeError),
    ("float in int64_data", lambda: TensorProto(int64_data=[1.5]), TypeError),
    ("numpy float in dims", lambda: TensorProto(dims=[np.float32(1)]), TypeError),
    ("str in int field", lambda: Segment(begin="1"), TypeError),
    ("None in repeated int", lambda: TensorProto(uint64_data=[None]), TypeError),
    ("bool in data_location", lambda: TensorProto(data_location=True), TypeError),
    ("int32 above range", lambda: TensorProto(data_type=2**31), ValueError),
    ("int32 below range", lambda: OptionalProto(elem_type=-(2**31) - 1), ValueError),
    ("int32_data above range", lambda: TensorProto(int32_data=[2**31]), ValueError),
    ("int64 above range", lambda: TensorProto(dims=[2**63]), ValueError),
    ("int64 below range", lambda: Segment(end=-(2**63) - 1), ValueError),
    ("map keys above range", lambda: MapProto(keys=[2**63]), ValueError),
    ("uint64 negative", lambda: TensorProto(uint64_data=[-1]), ValueError),
    ("uint64 above range", lambda: TensorProto(uint64_data=[2**64]), ValueError),
    ("data_location 5", lambda: TensorProto(data_location=5), ValueError),
    ("data_location -1", lambda: TensorProto(data_location=-1), ValueError),
    ("data_location 2", lambda: TensorProto(data_location=2), ValueError),
    ("str in float field", lambda: TensorProto(float_data=["x"]), TypeError),
    ("None in double field", lambda: TensorProto(double_data=[None]), TypeError),
    ("huge int in float field", lambda: TensorProto(float_data=[10**400]), OverflowError),
    ("int in string field", lambda: TensorProto(name=5), TypeError),
    ("str in bytes field", lambda: TensorProto(raw_data="x"), TypeError),
    ("str in repeated bytes", lambda: TensorProto(string_data=["x"]), TypeError),
    ("str in string_keys", lambda: MapProto(string_keys=["x"]), TypeError),
    ("lone high surrogate", lambda: TensorProto(name="\ud800"), ValueError),
]
# fmt: on


_NUMPY_BOOL_IS_AN_INDEX = numpy_bool_is_an_index()


@pytest.mark.parametrize("make, exc", [r[1:] for r in BAD_VALUES], ids=[r[0] for r in BAD_VALUES])
def test_encode_rejects_bad_values_like_the_oracle(make: Callable[[], Any], exc: type) -> None:
    try:
        has_numpy_bool = any(isinstance(d, np.bool_) for d in make().dims)
    except AttributeError:
        has_numpy_bool = False
    if not (has_numpy_bool and _NUMPY_BOOL_IS_AN_INDEX):
        with pytest.raises(exc):
            to_oracle(make())
    # else: numpy before 2.3 gives its bool an __index__, and protobuf takes it for an
    # integer; onnxdata refuses it on every numpy, as it refuses True.
    with pytest.raises(exc) as info:
        make().encode()
    assert isinstance(info.value, onnxdata.EncodeError)
    assert info.value.path.startswith(type(make()).__qualname__ + ".")


# fmt: off
ENCODE_ERROR_PATHS: list[tuple[Callable[[], Any], str]] = [
    (lambda: SequenceProto(tensor_values=[TensorProto(), TensorProto(dims=[0, 2**63])]),
     "SequenceProto.tensor_values[1].dims[1]"),
    (lambda: TensorProto(dims=[np.bool_(True)]), "TensorProto.dims[0]"),
    (lambda: TensorProto(name="\ud800"), "TensorProto.name"),
    (lambda: TensorProto(float_data=[10**400]), "TensorProto.float_data"),
    (lambda: OptionalProto(map_value=MapProto(values=SequenceProto(elem_type=2**40))),
     "OptionalProto.map_value.values.elem_type"),
    (lambda: TensorProto(external_data=[Entry(), Entry(key=3)]),
     "TensorProto.external_data[1].key"),
    (lambda: TensorProto(segment=TensorProto()), "TensorProto.segment"),
    (lambda: Segment(begin=2**63), "TensorProto.Segment.begin"),
]  # fmt: skip


@pytest.mark.parametrize("make, path", ENCODE_ERROR_PATHS, ids=[p for _, p in ENCODE_ERROR_PATHS])
def test_encode_error_names_the_field(make: Callable[[], Any], path: str) -> None:
    with pytest.raises(onnxdata.EncodeError) as info:
        make().encode()
    assert info.value.path == path
    assert str(info.value) == f"{path}: {info.value.reason}"


# fmt: off
GOOD_VALUES: list[tuple[str, Callable[[], Any]]] = [
    ("numpy int64 dims", lambda: TensorProto(dims=[np.int64(-5), np.uint8(7)])),
    ("numpy uint64 max", lambda: TensorProto(uint64_data=[np.uint64(2**64 - 1)])),
    ("numpy int32 data_type", lambda: TensorProto(data_type=np.int32(-3))),
    ("numpy int in segment", lambda: Segment(begin=np.int16(-2), end=np.int64(2**63 - 1))),
    ("numpy ints in keys", lambda: MapProto(keys=[np.int32(1), np.int64(-(2**63))])),
    ("numpy data_location", lambda: TensorProto(data_location=np.int8(1))),
    ("int bounds", lambda: TensorProto(data_type=2**31 - 1, int32_data=[-(2**31)],
                                       int64_data=[2**63 - 1, -(2**63)], uint64_data=[0])),
    ("int in float field", lambda: TensorProto(float_data=[3, 2**64], double_data=[2**64])),
    ("numpy ints in float fields", lambda: TensorProto(float_data=[np.int64(3)],
                                                       double_data=[np.float64(0.5)])),
    ("bool in double field", lambda: TensorProto(double_data=[False])),
]
# fmt: on


@pytest.mark.parametrize("make", [r[1] for r in GOOD_VALUES], ids=[r[0] for r in GOOD_VALUES])
def test_encode_accepts_values_like_the_oracle(make: Callable[[], Any]) -> None:
    assert make().encode() == to_oracle(make()).SerializeToString()


# Documented deviations from the oracle (see docs/wire-format.md).


def test_string_fields_take_only_str() -> None:
    # The oracle also takes UTF-8 bytes here; onnxdata keeps str and bytes apart.
    with pytest.raises(TypeError):
        TensorProto(name=b"abc").encode()
    with pytest.raises(TypeError):
        Entry(key=b"k").encode()


def test_escaped_surrogates_encode_to_raw_bytes() -> None:
    # U+DC80..U+DCFF stand for the bytes 0x80..0xFF (surrogateescape); the
    # oracle raises UnicodeEncodeError for them.
    assert TensorProto(name="a\udc80\udcff").encode() == h("42 03 61 80 ff")
    with pytest.raises(UnicodeEncodeError):
        to_oracle(TensorProto(name="\udcff")).SerializeToString()  # via str: refused
        onnx.TensorProto(name="\udcff")


def test_bytes_fields_accept_bytes_like() -> None:
    for value in (bytearray(b"ab"), memoryview(b"ab")):
        assert TensorProto(raw_data=value).encode() == h("4a 02 61 62")
        assert TensorProto(string_data=[value]).encode() == h("32 02 61 62")
        assert MapProto(string_keys=[value]).encode() == h("22 02 61 62")


def test_unknown_fields_must_be_well_formed() -> None:
    with pytest.raises(ValueError):
        TensorProto(unknown_fields=b"\x0b").encode()  # an unclosed group would corrupt output
    with pytest.raises(ValueError):
        TensorProto(unknown_fields=b"\x42\x05").encode()


def test_wrong_message_type_in_message_field() -> None:
    with pytest.raises(TypeError):
        SparseTensorProto(values=MapProto()).encode()
    with pytest.raises(TypeError):
        SequenceProto(tensor_values=[SequenceProto()]).encode()
    with pytest.raises(TypeError):
        TensorProto(segment=TensorProto()).encode()


# --------------------------------------------------------------------------
# decode input types


def _sample() -> tuple[bytes, TensorProto]:
    m = TensorProto(
        dims=[2],
        float_data=[1.0, 2.0],
        name="x",
        raw_data=b"raw",
        string_data=[b"s"],
        unknown_fields=h("f8 01 05"),
    )
    return m.encode(), m


@pytest.mark.parametrize("kind", ["bytes", "bytearray", "memoryview", "array"])
def test_decode_accepts_buffers(kind: str) -> None:
    data, m = _sample()
    buf: Any = {
        "bytes": data,
        "bytearray": bytearray(data),
        "memoryview": memoryview(data),
        "array": array("B", data),
    }[kind]
    got = TensorProto.decode(buf)
    assert got == m
    assert TensorProto.FromString(buf) == m
    _assert_owned(got)


def _assert_owned(m: TensorProto) -> None:
    # Decoded values are independent copies, never views into the input.
    assert type(m.raw_data) is bytes
    assert type(m.unknown_fields) is bytes
    assert all(type(s) is bytes for s in m.string_data)
    # packed numeric fields are arrays (every bit kept; protobuf-like RepeatedScalars);
    # dims and keys are lists
    codes = {"float_data": "f", "double_data": "d", "int64_data": "q", "uint64_data": "Q"}
    for name, code in codes.items():
        value = getattr(m, name)
        assert isinstance(value, array) and value.typecode == code, name
    assert isinstance(m.int32_data, array) and m.int32_data.itemsize == 4
    assert type(m.dims) is list and type(m.name) is str


def test_decode_accepts_memoryview_slice() -> None:
    data, m = _sample()
    padded = b"\xff\xff" + data + b"\x0f"
    assert TensorProto.decode(memoryview(padded)[2 : 2 + len(data)]) == m
    # offsets are relative to the buffer handed in
    with pytest.raises(DecodeError) as info:
        TensorProto.decode(memoryview(b"\x00\x00\x10\x80")[2:])
    assert info.value.offset == 1


def test_decode_accepts_non_byte_memoryview() -> None:
    data, m = _sample()
    padded = data + b"\x00" * (-len(data) % 4)  # trailing zeros would be field 0: cut them
    view = memoryview(array("I", padded[: len(padded)]))
    assert TensorProto.decode(view.cast("B")[: len(data)]) == m


def test_decode_accepts_mmap(tmp_path: Any) -> None:
    data, m = _sample()
    path = tmp_path / "t.pb"
    path.write_bytes(data)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        got = TensorProto.decode(mm)
        assert got == m
        _assert_owned(got)
    # the mmap closed cleanly: decoding kept no view into it (else BufferError)
    assert got == m


def test_decode_rejects_str() -> None:
    with pytest.raises(TypeError):
        TensorProto.decode("08 01")  # type: ignore[arg-type]


def test_decode_error_is_value_error_and_pickles() -> None:
    with pytest.raises(DecodeError) as info:
        SequenceProto.decode(h("1a 00 1a 02 08 80"))
    err = info.value
    assert isinstance(err, ValueError)
    assert onnxdata.DecodeError is DecodeError
    again = pickle.loads(pickle.dumps(err))
    assert (again.path, again.offset, again.reason) == (err.path, err.offset, err.reason)
    assert str(again) == str(err) == f"SequenceProto.tensor_values[1].dims: {err.reason}"


# --------------------------------------------------------------------------
# the API around the codec


def test_enum_values_are_class_attributes() -> None:
    assert TensorProto.FLOAT == TensorProto.DataType.FLOAT == onnx.TensorProto.FLOAT == 1
    assert TensorProto.FLOAT6E3M2 == 28 and len(TensorProto.DataType.keys()) == 29
    for name, number in TensorProto.DataType.items():
        assert getattr(onnx.TensorProto, name) == number
        assert type(getattr(TensorProto, name)) is int
    assert TensorProto.EXTERNAL == onnx.TensorProto.EXTERNAL == 1
    for cls in (SequenceProto, OptionalProto):
        oracle = ORACLE[cls]
        for name, number in cls.DataType.items():
            assert getattr(cls, name) == getattr(oracle, name) == number


def test_field_names_match_the_oracle() -> None:
    for cls, oracle in ORACLE.items():
        ours = [f.name for f in cls._SPEC.fields]
        assert sorted(ours) == sorted(f.name for f in oracle.DESCRIPTOR.fields)


def test_equality_compares_float_bits() -> None:
    nan = f32(0x7FC00000)
    assert TensorProto(float_data=nan) == TensorProto(float_data=f32(0x7FC00000))
    assert TensorProto(float_data=f32(0x7FC00001)) != TensorProto(float_data=nan)
    assert TensorProto(float_data=[0.0]) != TensorProto(float_data=[-0.0])
    assert TensorProto(float_data=[1.5]) == TensorProto(float_data=array("f", [1.5]))
    assert TensorProto(double_data=[float("nan")]) == TensorProto(double_data=[float("nan")])
    assert TensorProto() != Segment()
    assert TensorProto(name="a") != TensorProto(name="b")
    assert TensorProto(unknown_fields=b"\x78\x01") != TensorProto()
    # the oracle agrees on the same cases
    assert onnx.TensorProto(float_data=[0.0]) != onnx.TensorProto(float_data=[-0.0])


def test_decoded_message_shares_nothing_with_defaults() -> None:
    a = TensorProto.decode(h("08 01"))
    b = TensorProto.decode(h("08 02"))
    assert a.dims == [1] and b.dims == [2]
    assert TensorProto().dims == [] and len(TensorProto().float_data) == 0


def test_fixed_width_data_is_little_endian_on_every_host(monkeypatch: Any) -> None:
    """Simulate a big-endian host: arrays hold native (big-endian) bytes there,
    so the codec must byte-swap on the way in and out; the wire stays little-endian."""
    import onnxdata._codec.encode as encode_module
    import onnxdata._core.wire as wire_module

    monkeypatch.setattr(wire_module, "BIG_ENDIAN", True)
    monkeypatch.setattr(encode_module, "BIG_ENDIAN", True)
    wire = h("22 08 00 00 80 3f 00 00 00 40 52 08 00 00 00 00 00 00 f0 3f 25 00 00 40 40")
    m = TensorProto.decode(wire)
    # what a big-endian host's arrays would hold for 1.0f, 2.0f, 3.0f and 1.0
    assert m.float_data.tobytes() == h("3f 80 00 00 40 00 00 00 40 40 00 00")
    assert m.double_data.tobytes() == h("3f f0 00 00 00 00 00 00")
    before = m.float_data.tobytes()
    assert m.encode() == h(
        "22 0c 00 00 80 3f 00 00 00 40 00 00 40 40 52 08 00 00 00 00 00 00 f0 3f"
    )
    assert m.float_data.tobytes() == before  # encoding swapped a copy, not the message's array


@pytest.mark.parametrize("n", [0, 1, 127, 128, 129, 300, 16383, 16384, 2**21])
@pytest.mark.parametrize("room", [-1, 0, 1])
def test_lengths_at_their_size_edges_match_oracle(n: int, room: int) -> None:
    # read_length reads one- and two-byte lengths without its loop: each size's
    # edges, with the payload one byte short, exact, or one byte to spare.
    field = wk.f_len(8, b"x" * n)
    data = field[: len(field) + room] if room < 0 else field + wk.f_varint(2, 1) * room
    check_decode(TensorProto, data)
    # The same length inside a sub-message, where ``end`` is not the buffer's end.
    check_decode(SequenceProto, wk.f_len(3, data) + wk.f_varint(2, 1))


# lengths: 5 bytes as upb reads them, more only where 5 cannot say it


@pytest.mark.parametrize(
    "prefix, value",
    [
        ("ff ff ff ff 7f", (1 << 35) - 1),  # the largest 5-byte length: upb's limit
        ("80 80 80 80 80 01", 1 << 35),  # 32 GiB: the smallest that needs 6 bytes
        ("ff ff ff ff ff ff ff ff ff 01", (1 << 64) - 1),
    ],
)
def test_lengths_past_32_gib_need_and_get_more_bytes(prefix: str, value: int) -> None:
    from onnxdata._codec.encode import encode_varint
    from onnxdata._core.wire import read_length

    raw = bytes.fromhex(prefix)
    assert encode_varint(value) == raw
    # a payload that long cannot be built here: tell the reader the input goes on
    assert read_length(raw, 0, 1 << 70) == (value, len(raw))


@pytest.mark.parametrize(
    "prefix", ["81 80 80 80 80 00", "ff ff ff ff ff 00", "ff ff ff ff ff 80 00"]
)
def test_over_long_lengths_are_still_rejected(prefix: str) -> None:
    from onnxdata._core.wire import read_length

    with pytest.raises(DecodeError, match="longer than 5 bytes"):
        read_length(bytes.fromhex(prefix), 0, 1 << 70)


# --------------------------------------------------------------------------
# the wire toolkit: over-long varints, tags, raw fields, packed elements
# (onnxdata._core.wire: the one place varints, tags and fields are read and written)

from onnxdata._core import wire  # noqa: E402  (this section's own subject)

# value, size, bytes: padded with continuation bytes that carry zero bits
OVERLONG_TABLE: list[tuple[int, int, str]] = [
    (0, 0, "00"),
    (0, 1, "00"),
    (0, 2, "80 00"),
    (0, 5, "80 80 80 80 00"),
    (0, 10, "80 80 80 80 80 80 80 80 80 00"),
    (1, 3, "81 80 00"),
    (127, 2, "ff 00"),
    (128, 0, "80 01"),
    (128, 1, "80 01"),
    (128, 4, "80 81 80 00"),
    (300, 0, "ac 02"),
    (300, 4, "ac 82 80 00"),
    (2**64 - 1, 0, NEG1),
    (-1, 0, NEG1),  # a negative value as its 64-bit two's complement
    (-2, 10, "fe ff ff ff ff ff ff ff ff 01"),
]


@pytest.mark.parametrize("value, size, expected", OVERLONG_TABLE)
def test_overlong_varint_golden_bytes(value: int, size: int, expected: str) -> None:
    got = wire.overlong_varint(value, size)
    assert got == h(expected)
    # protobuf reads the same value: an int64 field (dims) holding it
    signed = value - (1 << 64) if value >= 1 << 63 else value
    assert list(ORACLE[TensorProto].FromString(b"\x08" + got).dims) == [signed]
    assert wire.read_varint(got, 0, len(got)) == (value & wire.MASK64, len(got))


def test_overlong_varint_past_10_bytes_is_refused_by_both() -> None:
    data = b"\x08" + wire.overlong_varint(0, 11)
    assert data[1:] == h("80 80 80 80 80 80 80 80 80 80 00")
    assert oracle_parse(TensorProto, data) is None
    with pytest.raises(DecodeError, match="longer than 10 bytes"):
        TensorProto.decode(data)


# number, wire type, size, bytes
TAG_TABLE: list[tuple[int, int, int, str]] = [
    (1, wire.VARINT, 0, "08"),
    (1, wire.LEN, 0, "0a"),
    (1, wire.I32, 0, "0d"),
    (1, wire.I64, 0, "09"),
    (1, wire.SGROUP, 0, "0b"),
    (1, wire.EGROUP, 0, "0c"),
    (16, wire.LEN, 0, "82 01"),
    (1, wire.VARINT, 3, "88 80 00"),
    (16, wire.LEN, 5, "82 81 80 80 00"),
    ((1 << 29) - 1, wire.I32, 0, "fd ff ff ff 0f"),
]


@pytest.mark.parametrize("number, wire_type, size, expected", TAG_TABLE)
def test_tag_bytes_golden(number: int, wire_type: int, size: int, expected: str) -> None:
    got = wire.tag_bytes(number, wire_type, size)
    assert got == h(expected)
    assert wire.read_tag(got, 0, len(got)) == (number << 3 | wire_type, len(got))


def test_wire_type_names_and_sizes() -> None:
    assert tuple(range(6)) == (wire.VARINT, wire.I64, wire.LEN, wire.SGROUP, wire.EGROUP, wire.I32)
    assert wire.WIRE_TYPE_NAMES == {
        0: "varint", 1: "i64", 2: "len", 3: "sgroup", 4: "egroup", 5: "i32"
    }  # fmt: skip
    assert wire.FIXED_SIZES == {1: 8, 5: 4}
    from onnxdata._core import schema

    assert (schema.VARINT, schema.I64, schema.LEN, schema.I32) == (0, 1, 2, 5)


# bytes, groups=, the fields: (number, wire type, start, tag_end, body_at, end, value)
FIELDS_TABLE: list[tuple[str, bool, list[tuple[int, ...]]]] = [
    ("", True, []),
    ("08 96 01", True, [(1, 0, 0, 1, 1, 3, 150)]),
    ("08 " + NEG1, True, [(1, 0, 0, 1, 1, 11, 2**64 - 1)]),
    ("0a 03 61 62 63", True, [(1, 2, 0, 1, 2, 5, 3)]),
    ("0a 00", True, [(1, 2, 0, 1, 2, 2, 0)]),
    ("0a 83 80 00 61 62 63", True, [(1, 2, 0, 1, 4, 7, 3)]),  # an over-long length
    ("0d 00 00 80 3f", True, [(1, 5, 0, 1, 1, 5, 0x3F800000)]),
    ("09 01 00 00 00 00 00 f0 3f", True, [(1, 1, 0, 1, 1, 9, 0x3FF0000000000001)]),
    ("88 80 00 01", True, [(1, 0, 0, 3, 3, 4, 1)]),  # an over-long tag
    ("0b 10 01 0c", True, [(1, 3, 0, 1, 1, 4, 0)]),  # a group, read whole
    ("0b 10 01 0c", False, [(1, 3, 0, 1, 1, 1, 0), (2, 0, 1, 2, 2, 3, 1), (1, 4, 3, 4, 4, 4, 0)]),
    ("08 01 12 00 1d 00 00 00 00", True,
     [(1, 0, 0, 1, 1, 2, 1), (2, 2, 2, 3, 4, 4, 0), (3, 5, 4, 5, 5, 9, 0)]),
    ("f8 ff ff ff 0f 00", True, [((1 << 29) - 1, 0, 0, 5, 5, 6, 0)]),
]  # fmt: skip


@pytest.mark.parametrize("data, groups, expected", FIELDS_TABLE)
def test_iter_fields_golden(data: str, groups: bool, expected: list[tuple[int, ...]]) -> None:
    buf = h(data)
    got = list(wire.iter_fields(buf, groups=groups))
    assert [tuple(f) for f in got] == expected
    for f in got:  # the field's own bytes, read alone, give the same field
        one = wire.read_field(buf, f.start, f.end, groups=groups)
        assert one == f
    if groups:  # and in a memoryview, a sub-range of a larger buffer
        view = memoryview(b"\xff" + buf + b"\xff")
        shifted = list(wire.iter_fields(view, 1, len(buf) + 1))
        assert [f.start - 1 for f in shifted] == [f.start for f in got]


# Damaged fields of number 15, which no message knows: the decoder skips them with the
# same primitives, so iter_fields and the decoder report the same offset and words.
# bytes, offset, words of the message
FIELD_ERRORS: list[tuple[str, int, str]] = [
    ("00", 0, "field number 0 at offset 0"),
    ("7e 00", 0, "invalid wire type 6 for field 15 at offset 0"),
    ("7f 00", 0, "invalid wire type 7 for field 15 at offset 0"),
    ("78", 1, "varint at offset 1 runs past the end of the input (0 bytes left)"),
    ("78 ff ff ff ff ff ff ff ff ff ff 01", 1, "varint at offset 1 is longer than 10 bytes"),
    ("7a 05 00", 1, "length 5 at offset 1 runs past the end of the input (1 byte left)"),
    ("7a 80 80 80 80 80 00", 1, "length at offset 1 is longer than 5 bytes"),
    ("7d 00 00", 1, "field 15 (fixed32) at offset 1 runs past the end of the input"),
    ("79 00", 1, "field 15 (fixed64) at offset 1 runs past the end of the input"),
    ("7c", 0, "end-group tag for field 15 at offset 0 with no group open"),
    ("7b 08 01", 0, "group of field 15 at offset 0 is not closed"),
    ("7b 84 01", 1, "end-group tag for field 16 at offset 1 closes the group of field 15"),
    ("f8 80 80 80 80 00", 0, "tag at offset 0 is longer than 5 bytes"),
    ("f8 ff ff ff 7f 00", 0, "tag at offset 0 is larger than 32 bits"),
    ("78 01 7a 09", 3, "length 9 at offset 3 runs past the end of the input (0 bytes left)"),
    ("7b" * 101 + "7c" * 101, 100, "nesting deeper than 100 messages or groups at offset 100"),
]


@pytest.mark.parametrize("data, offset, words", FIELD_ERRORS)
def test_iter_fields_reports_errors_as_the_decoder_does(data: str, offset: int, words: str) -> None:
    buf = h(data)
    with pytest.raises(DecodeError) as ours:
        list(wire.iter_fields(buf))
    assert ours.value.offset == offset
    assert words in str(ours.value)
    with pytest.raises(DecodeError) as theirs:
        Segment.decode(buf)
    assert theirs.value.offset == offset
    assert str(ours.value) in str(theirs.value)
    assert oracle_parse(Segment, buf) is None


def test_iter_fields_yields_every_field_before_the_damaged_one() -> None:
    buf = h("08 01 10 02 7e")
    seen = []
    with pytest.raises(DecodeError):
        for f in wire.iter_fields(buf):
            seen.append(f.number)
    assert seen == [1, 2]


# payload, wire type of the elements, the elements
PACKED_TABLE: list[tuple[str, int, list[str]]] = [
    ("", wire.VARINT, []),
    ("01 ac 02 7f", wire.VARINT, ["01", "ac 02", "7f"]),
    ("80 00 " + NEG1, wire.VARINT, ["80 00", NEG1]),
    ("00 00 80 3f 00 00 00 40", wire.I32, ["00 00 80 3f", "00 00 00 40"]),
    ("00 00 00 00 00 00 f0 3f", wire.I64, ["00 00 00 00 00 00 f0 3f"]),
]


@pytest.mark.parametrize("payload, wire_type, expected", PACKED_TABLE)
def test_packed_elements_golden(payload: str, wire_type: int, expected: list[str]) -> None:
    assert wire.packed_elements(h(payload), wire_type) == [h(e) for e in expected]


@pytest.mark.parametrize(
    "payload, wire_type, words",
    [
        ("01 80", wire.VARINT, "runs past"),
        ("ff ff ff ff ff ff ff ff ff ff 01", wire.VARINT, "longer than 10 bytes"),
        ("00 00 00", wire.I32, "not a multiple of 4"),
        ("00 00 00 00", wire.I64, "not a multiple of 8"),
    ],
)
def test_packed_elements_errors(payload: str, wire_type: int, words: str) -> None:
    with pytest.raises(DecodeError, match=words):
        wire.packed_elements(h(payload), wire_type)


# --------------------------------------------------------------------------
# one toolkit: no module outside _core reads varints or tags or defines the wire types

import ast  # noqa: E402
from pathlib import Path  # noqa: E402

_PACKAGE = Path(onnxdata.__file__).parent
_WIRE_TYPE_NAMES = {"VARINT", "I64", "LEN", "SGROUP", "EGROUP", "I32"}
# Modules allowed a wire reader of their own besides the cursor (_core/wire.py, _core/inline.py):
# none (tests/core/test_wire_cursor.py scans for the one-byte reads as well).
_KNOWN_WIRE_COPIES: set[str] = set()


def _reads_varints(fn: ast.AST) -> bool:
    """A function that masks with 0x7F and shifts or steps by 7: a varint loop."""
    mask = seven = False
    for node in ast.walk(fn):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
            mask |= any(isinstance(s, ast.Constant) and s.value == 0x7F
                        for s in (node.left, node.right))  # fmt: skip
        if isinstance(node, ast.BinOp) and isinstance(
            node.op, (ast.LShift, ast.RShift, ast.Mult, ast.Add)
        ):
            seven |= any(isinstance(s, ast.Constant) and s.value == 7
                         for s in (node.left, node.right))  # fmt: skip
        if isinstance(node, ast.AugAssign) and isinstance(node.value, ast.Constant):
            seven |= node.value.value == 7
    return mask and seven


def _defines_wire_types(node: ast.AST) -> bool:
    """An assignment of small ints to names like VARINT or _LEN."""
    if not isinstance(node, ast.Assign):
        return False
    names = []
    for target in node.targets:
        names += [target] if isinstance(target, ast.Name) else getattr(target, "elts", [])
    values = getattr(node.value, "elts", [node.value])
    return any(
        isinstance(n, ast.Name) and n.id.lstrip("_") in _WIRE_TYPE_NAMES for n in names
    ) and all(isinstance(v, ast.Constant) and isinstance(v.value, int) for v in values)


def _wire_copies() -> list[str]:
    found = []
    for path in sorted(_PACKAGE.rglob("*.py")):
        rel = path.relative_to(_PACKAGE).as_posix()
        if rel in ("_core/wire.py", "_core/inline.py") or rel in _KNOWN_WIRE_COPIES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _reads_varints(node):
                found.append(f"{rel}: {node.name}() reads varints")
            elif _defines_wire_types(node):
                found.append(f"{rel}:{node.lineno} defines wire types")
    return found


def test_no_module_outside_core_reads_varints_or_defines_wire_types() -> None:
    assert _wire_copies() == []


def test_the_scan_finds_what_it_looks_for() -> None:
    loop = ast.parse(
        "def f(b, p):\n    r = s = 0\n    while True:\n        r |= (b[p] & 0x7F) << s\n"
        "        s += 7\n"
    )
    assert _reads_varints(loop)
    stepped = ast.parse(  # the shift stepped in a tuple assignment, as a checker once did
        "def f(v, at):\n    tag = shift = 0\n    while shift < 70:\n"
        "        tag |= (v[at] & 0x7F) << shift\n        at, shift = at + 1, shift + 7\n"
    )
    assert _reads_varints(stepped)
    assert _defines_wire_types(ast.parse("VARINT, _LEN = 0, 2").body[0])
    assert not _defines_wire_types(ast.parse("_VARINT = re.compile(b'x')").body[0])
    core = [_PACKAGE / "_core" / "wire.py"]
    assert any(_reads_varints(n) for p in core for n in ast.walk(ast.parse(p.read_text())))
