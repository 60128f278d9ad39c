"""Errors that help: every kind of malformation names where and what.

For each kind of bad input (truncated varint, length past the end, bad tag,
wire type 6/7, field 0, stray or mismatched end-group, unclosed group, nesting
past 100, packed fixed-width payloads of the wrong size, truncated packed
varints) at the top level and nested deep inside other messages, the
:class:`onnxdata.DecodeError` must give

* ``offset``: the absolute offset, in the input, of the item that is wrong
  (the tag, the varint, the length prefix, the packed payload);
* ``path``: the message type and the field path down to the field being read,
  with list indexes (``SequenceProto.tensor_values[2].raw_data``); a bad tag
  or an unknown field stops at the message that holds it;
* ``reason``: says what was read and what was expected, with the offset and the
  counts that show it (``length 10 at offset 7 runs past the end (7 bytes left)``);
* ``str(err) == f"{path}: {reason}"``, and the oracle rejects the same bytes.

``test_errors_name_what_is_left_and_where`` pins the phrasing (bugs-core.md R9,
fixed): "of the input" or "of the enclosing message at offset N", the bytes
left, where an unclosed group opened, the field number of a cut unknown field.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

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
from tests.support.oracle import oracle_parse

Segment = TensorProto.Segment


def nest(outer: list[tuple[int, bytes]], inner: bytes) -> tuple[bytes, int]:
    """``inner`` wrapped in sub-messages: ``outer`` is [(field number, bytes before it)]
    from the outermost in.  Returns the input and the offset where ``inner`` starts."""
    data = inner
    for number, before in reversed(outer):
        data = before + wk.f_len(number, data)
    return data, len(data) - len(inner)


def case(
    label: str,
    cls: type,
    outer: list[tuple[int, bytes]],
    before: bytes,
    bad: bytes,
    at: int,
    path: str,
    reason: str,
) -> Any:
    """One row: ``before + bad`` nested in ``outer``; the error is at ``bad[at]``.

    ``reason`` is a regular expression, with ``{offset}`` for the expected offset
    and ``{past}`` for "runs past the end" and what of.
    """
    data, start = nest(outer, before + bad)
    offset = start + len(before) + at
    return pytest.param(cls, data, offset, path, reason.format(offset=offset, past=PAST), id=label)


# "runs past the end", perhaps saying of what ("of the input", "of the enclosing message ...").
PAST = r"runs past the end(?: of [^()]*)?"


T = "TensorProto"
ROWS = [
    # -- varints
    case("truncated varint", TensorProto, [], b"\x08\x01", b"\x10\x80", 1,
         f"{T}.data_type", r"^varint at offset {offset} {past} \(1 byte left\)$"),
    case("truncated varint, 3 bytes", TensorProto, [], b"", b"\x10\x80\x80\x80", 1,
         f"{T}.data_type", r"^varint at offset {offset} {past} \(3 bytes left\)$"),
    case("11-byte varint", TensorProto, [], b"", b"\x10" + b"\xff" * 10 + b"\x01", 1,
         f"{T}.data_type", r"^varint at offset {offset} is longer than 10 bytes$"),
    case("truncated varint in a segment", TensorProto, [(3, b"\x08\x01")], b"\x08\x05",
         b"\x10\xff", 1, f"{T}.segment.end",
         r"^varint at offset {offset} {past} \(1 byte left\)$"),
    case("truncated dims in sequence_values[1].tensor_values[0]", SequenceProto,
         [(5, wk.f_len(5, b"")), (3, b"")], b"\x08\x01", b"\x08\x80", 1,
         "SequenceProto.sequence_values[1].tensor_values[0].dims",
         r"^varint at offset {offset} {past} \(1 byte left\)$"),
    case("truncated map key", MapProto, [], b"\x18\x01\x18\x02", b"\x18\x81", 1,
         "MapProto.keys", r"^varint at offset {offset} {past} \(1 byte left\)$"),
    # -- lengths
    case("length past the end", TensorProto, [], b"\x42\x01a", b"\x4a\x05ab", 1,
         f"{T}.raw_data", r"^length 5 at offset {offset} {past} \(2 bytes left\)$"),
    case("length past the end of tensor_values[2]", SequenceProto,
         [(3, b"\x1a\x00\x1a\x00")], b"\x08\x01", b"\x4a\x0a" + b"x" * 7, 1,
         "SequenceProto.tensor_values[2].raw_data",
         r"^length 10 at offset {offset} {past} \(7 bytes left\)$"),
    case("length past the end of its sub-message, input goes on", SequenceProto, [],
         b"", wk.tag(3, 2) + b"\x03" + b"\x4a\x05ab" + b"\x4a\x05abcde", 3,
         "SequenceProto.tensor_values[0].raw_data",
         r"^length 5 at offset {offset} {past} \(1 byte left\)$"),
    case("length of a key past the end of external_data[1]", TensorProto,
         [(13, wk.f_len(13, b""))], b"", b"\x0a\x09abc", 1, f"{T}.external_data[1].key",
         r"^length 9 at offset {offset} {past} \(3 bytes left\)$"),
    case("string_keys[1] past the end", MapProto, [], wk.f_len(4, b"a"), b"\x22\x7f", 1,
         "MapProto.string_keys",
         r"^length 127 at offset {offset} {past} \(0 bytes left\)$"),
    case("6-byte length prefix", TensorProto, [], b"", b"\x42\x81\x80\x80\x80\x80\x00a", 1,
         f"{T}.name", r"^length at offset {offset} is longer than 5 bytes$"),
    case("truncated length prefix", OptionalProto, [(5, b"")], b"", b"\x0a\x80", 1,
         "OptionalProto.sequence_value.name",
         r"^length at offset {offset} {past} \(1 byte left\)$"),
    case("a length of 2**62", TensorProto, [], b"", b"\x4a" + wk.varint(2**62), 1,
         f"{T}.raw_data", r"^length (4611686018427387904 )?at offset {offset} "
         r"({past} \(0 bytes left\)|is longer than 5 bytes)$"),
    # -- tags
    case("truncated tag", TensorProto, [], b"\x08\x01", b"\x80", 0,
         T, r"^tag at offset {offset} {past} \(1 byte left\)$"),
    case("6-byte tag", TensorProto, [], b"", b"\x80\x80\x80\x80\x80\x00", 0,
         T, r"^tag at offset {offset} is longer than 5 bytes$"),
    case("tag above 32 bits", TensorProto, [], b"", b"\xff\xff\xff\xff\x1f", 0,
         T, r"^tag at offset {offset} is larger than 32 bits$"),
    case("wire type 6", TensorProto, [], b"\x08\x01", b"\x0e\x00", 0,
         T, r"^invalid wire type 6 for field 1 at offset {offset}$"),
    case("wire type 7, big field number", TensorProto, [], b"", b"\xff\xff\xff\xff\x0f\x00", 0,
         T, r"^invalid wire type 7 for field 536870911 at offset {offset}$"),
    case("wire type 7 in map_values[0]", SequenceProto, [(6, b"")], b"\x18\x01", b"\x1f", 0,
         "SequenceProto.map_values[0]", r"^invalid wire type 7 for field 3 at offset {offset}$"),
    case("field 0", TensorProto, [], b"", b"\x00\x00", 0,
         T, r"^field number 0 at offset {offset}$"),
    case("field 0, 2-byte tag, in a segment", TensorProto, [(3, b"")], b"", b"\x80\x00\x00", 0,
         f"{T}.segment", r"^field number 0 at offset {offset}$"),
    # -- groups
    case("end-group with no group", TensorProto, [], b"\x08\x01", b"\x0c", 0,
         T, r"^end-group tag for field 1 at offset {offset} with no group open$"),
    case("end-group in optional_value.tensor_value", OptionalProto, [(7, b""), (3, b"")],
         b"", b"\x24", 0, "OptionalProto.optional_value.tensor_value",
         r"^end-group tag for field 4 at offset {offset} with no group open$"),
    case("end-group of another field", TensorProto, [], b"\x0b", b"\x14", 0,
         T, r"^end-group tag for field 2 at offset {offset} closes the group of field 1$"),
    case("wire type 6 inside a group", TensorProto, [], b"\x0b", b"\x0e", 0,
         T, r"^invalid wire type 6 for field 1 at offset {offset}$"),
    # -- packed payloads
    case("packed float of 3 bytes", TensorProto, [], b"\x08\x01", b"\x22\x03abc", 2,
         f"{T}.float_data",
         r"^packed float field of 3 bytes at offset {offset} is not a multiple of 4$"),
    case("packed double of 12 bytes in sparse values", SparseTensorProto, [(1, b"")], b"",
         b"\x52\x0c" + bytes(12), 2, "SparseTensorProto.values.double_data",
         r"^packed double field of 12 bytes at offset {offset} is not a multiple of 8$"),
    case("packed int64 cut varint", SparseTensorProto, [(2, b"")], b"", b"\x3a\x02\x01\x80", 3,
         "SparseTensorProto.indices.int64_data",
         r"^packed varint at offset {offset} {past}"),
    case("packed dims 11-byte varint", TensorProto, [], b"", b"\x0a\x0b" + b"\xff" * 10 + b"\x01",
         2, f"{T}.dims", r"^varint at offset {offset} is longer than 10 bytes$"),
    case("packed keys cut varint", MapProto, [], b"", b"\x1a\x01\x80", 2,
         "MapProto.keys", r"^packed varint at offset {offset} {past}"),
    case("one float cut", TensorProto, [], b"", b"\x25\x00\x00", 1,
         f"{T}.float_data", r"^float at offset {offset} {past}"),
    case("one double cut", TensorProto, [], b"", b"\x51\x00", 1,
         f"{T}.double_data", r"^double at offset {offset} {past}"),
    case("unknown fixed64 cut", StringStringEntryProto, [], b"", b"\x19\x00\x00", 1,
         "StringStringEntryProto",
         r"^field 3 \(fixed64\) at offset {offset} {past} \(2 bytes left\)$"),
    case("unknown fixed32 cut in a segment", TensorProto, [(3, b"")], b"", b"\x1d\x00", 1,
         f"{T}.segment", r"^field 3 \(fixed32\) at offset {offset} {past} \(1 byte left\)$"),
]  # fmt: skip


@pytest.mark.parametrize("cls, data, offset, path, reason", ROWS)
def test_error_offset_path_and_reason(
    cls: type, data: bytes, offset: int, path: str, reason: str
) -> None:
    assert oracle_parse(cls, data) is None, "the oracle accepts it: not a malformation"
    for buf in (data, bytearray(data), memoryview(data)):
        with pytest.raises(DecodeError) as info:
            cls.decode(buf)
        err = info.value
        assert (err.offset, err.path) == (offset, path), str(err)
        assert re.search(reason, err.reason), err.reason
        assert str(err) == f"{err.path}: {err.reason}"
        assert isinstance(err, ValueError)


def test_offsets_are_absolute_in_a_memoryview_slice() -> None:
    # A view that starts inside a bigger buffer: offsets count from the view's start.
    inner = b"\x08\x01\x10\x80"
    with pytest.raises(DecodeError) as info:
        TensorProto.decode(memoryview(b"junk" + inner)[4:])
    assert info.value.offset == 3


@pytest.mark.parametrize(
    "cls, number, step",
    [(SequenceProto, 5, "sequence_values[0]"), (OptionalProto, 7, "optional_value")],
)
def test_nesting_past_100_names_the_level(cls: type, number: int, step: str) -> None:
    data = wk.nest(number, b"", 101)
    assert oracle_parse(cls, data) is None
    cls.decode(wk.nest(number, b"", 100))  # exactly 100 is fine
    with pytest.raises(DecodeError) as info:
        cls.decode(data)
    err = info.value
    # 100 levels entered, then the field that would open the 101st.
    assert err.path == cls.__qualname__ + f".{step}" * 101
    # The 101st sub-message's tag: 100 tags and length prefixes before it.
    assert err.offset == len(data) - 2
    assert data[err.offset] == wk.tag(number, 2)[0]
    assert re.fullmatch(rf"nesting deeper than 100 messages at offset {err.offset}", err.reason)


def test_nesting_past_100_through_a_map_names_every_field() -> None:
    # Optional -> map -> sequence -> optional ... : the path shows each hop.
    data = b""
    levels = 0
    while levels < 101:
        data = wk.f_len(5, data)  # map.values
        data = wk.f_len(6, data)  # optional.map_value
        levels += 2
    data = wk.f_len(6, wk.f_len(5, data))
    with pytest.raises(DecodeError) as info:
        OptionalProto.decode(data)
    assert oracle_parse(OptionalProto, data) is None
    parts = info.value.path.split(".")
    assert parts[0] == "OptionalProto"
    assert parts[1:5] == ["map_value", "values", "map_values[0]", "values"]
    assert len(parts) == 1 + 101  # the type, 100 levels entered, the 101st field


def test_groups_past_100_are_a_nesting_error() -> None:
    data = wk.tag(19999, 3) * 101 + wk.tag(19999, 4) * 101
    assert oracle_parse(TensorProto, data) is None
    with pytest.raises(DecodeError) as info:
        TensorProto.decode(data)
    err = info.value
    assert err.path == "TensorProto"
    assert err.reason.startswith("nesting deeper than 100")
    assert 300 <= err.offset <= 303  # at (or just after) the 101st group's tag


def test_unclosed_group_is_an_error_at_the_end() -> None:
    data = b"\x08\x01" + wk.tag(7, 3) + b"\x08\x01"
    with pytest.raises(DecodeError) as info:
        SequenceProto.decode(data)
    err = info.value
    assert err.path == "SequenceProto"
    assert re.match(r"group of field 7 .*not closed", err.reason)
    assert err.offset in (2, len(data))


# --------------------------------------------------------------------------
# the wording of the errors (bugs-core.md R9)

_WANTED = [
    pytest.param(TensorProto, b"\x25\x00\x00", r"\(2 bytes left\)", id="one float: bytes left"),
    pytest.param(TensorProto, b"\x51\x00", r"\(1 byte left\)", id="one double: bytes left"),
    pytest.param(TensorProto, b"\x3a\x02\x01\x80", r"\(1 byte left\)",
                 id="packed varint: bytes left"),
    pytest.param(TensorProto, b"\x4a\x05ab", r"past the end of the input \(2 bytes left\)",
                 id="top level: of the input"),
    pytest.param(SequenceProto, b"\x1a\x04\x4a\x05ab" + b"\x08\x01",
                 r"past the end of the enclosing message at offset 6 \(2 bytes left\)",
                 id="nested: of the enclosing message"),
    pytest.param(TensorProto, b"\x08\x01\x0b\x08\x01", r"group of field 1 at offset 2 ",
                 id="unclosed group: where it opened"),
    pytest.param(TensorProto, wk.tag(19999, 3) * 101 + wk.tag(19999, 4) * 101,
                 r"^nesting deeper than 100 messages or groups at offset 300$",
                 id="groups: same wording and the tag's offset"),
    pytest.param(StringStringEntryProto, b"\x19\x00\x00", r"field 3",
                 id="unknown field cut: its number"),
]  # fmt: skip


@pytest.mark.parametrize("cls, data, wanted", _WANTED)
def test_errors_name_what_is_left_and_where(cls: type, data: bytes, wanted: str) -> None:
    assert oracle_parse(cls, data) is None
    with pytest.raises(DecodeError) as info:
        cls.decode(data)
    assert re.search(wanted, info.value.reason), info.value.reason


# Every kind of sub-message field at level 101: each has its own depth check.
_LEAVES = [
    # (field of SequenceProto reaching level 100, the level-100 message's sub-field, path tail)
    (3, wk.f_len(3, b""), "tensor_values[0].segment"),
    (3, wk.f_len(13, b""), "tensor_values[0].external_data[0]"),
    (3, wk.f_len(16, b""), "tensor_values[0].metadata_props[0]"),
    (4, wk.f_len(1, b""), "sparse_tensor_values[0].values"),
    (4, wk.f_len(2, b""), "sparse_tensor_values[0].indices"),
    (6, wk.f_len(5, b""), "map_values[0].values"),
    (7, wk.f_len(3, b""), "optional_values[0].tensor_value"),
    (7, wk.f_len(6, b""), "optional_values[0].map_value"),
    (5, wk.f_len(4, b""), "sequence_values[0].sparse_tensor_values[0]"),
]


@pytest.mark.parametrize("number, leaf, tail", _LEAVES, ids=[t for _, _, t in _LEAVES])
def test_nesting_past_100_at_every_kind_of_sub_message(number: int, leaf: bytes, tail: str) -> None:
    def build(levels: int) -> bytes:
        return wk.nest(5, wk.f_len(number, leaf), levels)

    ok = build(98)  # the leaf's sub-message is level 100
    assert oracle_parse(SequenceProto, ok) is not None
    SequenceProto.decode(ok)
    bad = build(99)  # level 101
    assert oracle_parse(SequenceProto, bad) is None
    with pytest.raises(DecodeError) as info:
        SequenceProto.decode(bad)
    err = info.value
    assert err.path == "SequenceProto" + ".sequence_values[0]" * 99 + "." + tail
    assert err.offset == len(bad) - len(leaf)  # the tag of the level-101 field
    assert err.reason == f"nesting deeper than 100 messages at offset {err.offset}"
