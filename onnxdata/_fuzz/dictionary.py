"""The corpus's dictionary, ``onnx.dict``, for libFuzzer and AFL++."""

from __future__ import annotations

import struct

from .._core.schema import spec_of
from .._core.wire import (
    EGROUP,
    I32,
    I64,
    LEN,
    MASK32,
    MASK64,
    SGROUP,
    VARINT,
    overlong_varint,
    tag_bytes,
)
from .._io.external import ALLOWED_KEYS
from .._messages.datatypes import DATA_TYPES
from .._messages.declarations import OptionalProto, SequenceProto, TensorProto
from .._messages.graphs import AttributeProto
from .all_messages import ALL_MESSAGES
from .samples import ELEMENT_KINDS, F32, F64, STRING_TYPE, Entry

DICTIONARY_NAME = "onnx.dict"
"""The name of the dictionary in the corpus folder."""


def _escape(data: bytes) -> str:
    return "".join(chr(b) if b < 0x80 and (chr(b).isalnum() or chr(b) in "._-/") else f"\\x{b:02x}"
                   for b in data)  # fmt: skip


def dictionary() -> str:
    """The text of ``onnx.dict``: a libFuzzer/AFL dictionary for ONNX's messages.

    One ``name="bytes"`` entry per line (non-alphanumeric bytes as ``\\xNN``;
    each tag after a comment naming the fields that have it):
    every field's tag in each wire type a parser accepts for it (both for a
    packable field), the data type, element type and location values with
    their tags, a tensor's head (data type, then the tag of its storage
    field), the external-data keys as strings and as whole entries, edge
    varints and floats, group markers and the bytes of common defects.
    """
    entries: dict[bytes, str] = {}

    def add(name: str, data: bytes) -> None:
        entries.setdefault(data, name)

    wire_names = {
        VARINT: "varint",
        I64: "fixed64",
        LEN: "len",
        SGROUP: "group",
        EGROUP: "endgroup",
        I32: "fixed32",
    }
    users: dict[bytes, list[str]] = {}  # a tag -> the fields that have it
    for cls in ALL_MESSAGES:
        spec = spec_of(cls)
        for f in spec.numbered:
            for wt in f.accepted_wire_types():
                users.setdefault(f.tag_for(wt), []).append(f"{spec.name}.{f.name}")
                add(f"tag_{f.number}_{wire_names[wt]}", f.tag_for(wt))
    tensor = spec_of(TensorProto).named
    data_type = tensor.data_type
    for dt, info in DATA_TYPES.items():
        value = data_type.tag + overlong_varint(dt)
        add(f"data_type_{info.name}", value)
        storage = spec_of(TensorProto).by_name[info.storage]
        add(f"head_{info.name}_{info.storage}", value + storage.tag)
        if dt != STRING_TYPE:
            add(f"head_{info.name}_raw_data", value + tensor.raw_data.tag)
    for cls in (SequenceProto, OptionalProto):
        elem = spec_of(cls).named.elem_type
        for kind in ELEMENT_KINDS:
            name = f"{spec_of(cls).name}_elem_type_{cls.DataType.Name(kind)}"
            add(name, elem.tag + overlong_varint(kind))
    location = tensor.data_location
    for name, number in TensorProto.DataLocation.items():
        add(f"data_location_{name}", location.tag + overlong_varint(number))
    entry = spec_of(Entry).numbered  # key, then value
    for k in sorted(ALLOWED_KEYS):
        add(f"key_{k}", k.encode())
        add(f"entry_key_{k}", entry[0].tag + overlong_varint(len(k)) + k.encode() + entry[1].tag)
    attribute_type = spec_of(AttributeProto).named.type
    for name, number in AttributeProto.AttributeType.items():
        add(f"attribute_type_{name}", attribute_type.tag + overlong_varint(number))
    for word in ("If", "Loop", "Scan", "then_branch", "else_branch", "body", "ai.onnx.ml"):
        add(f"word_{word.replace('.', '_')}", word.encode())
    for v in (
        0,
        1,
        127,
        128,
        255,
        300,
        16383,
        16384,
        (1 << 31) - 1,
        1 << 31,
        MASK32,
        1 << 32,
        (1 << 63) - 1,
        -1,
    ):
        add(f"varint_{v & MASK64:x}", overlong_varint(v))
    add("varint_int32_minus_one_5_bytes", overlong_varint(MASK32))
    add("varint_zero_overlong", overlong_varint(0, 2))
    add("varint_zero_10_bytes", overlong_varint(0, 10))
    for bits in F32:
        add(f"float_{bits:08x}", struct.pack("<I", bits))
    for bits in F64:
        add(f"double_{bits:016x}", struct.pack("<Q", bits))
    add("max_field_number_varint", tag_bytes((1 << 29) - 1, VARINT))
    add("field_number_2_29", tag_bytes(1 << 29, VARINT))
    add("field_number_0", b"\x00")
    add("wire_type_6", b"\x0e")
    add("wire_type_7", b"\x0f")
    add("group_start_15", tag_bytes(15, SGROUP))
    add("group_end_15", tag_bytes(15, EGROUP))
    add("tag_6_bytes", tag_bytes(1, VARINT, 6))
    add("length_5_bytes", overlong_varint(0, 5))
    lines = ["# libFuzzer/AFL dictionary for ONNX messages, written by `onnxdata corpus`"]
    for data, name in entries.items():
        if data in users:
            lines.append(f"# {', '.join(users[data])}")
        lines.append(f'{name}="{_escape(data)}"')
    return "\n".join(lines) + "\n"
