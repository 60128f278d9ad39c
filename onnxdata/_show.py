"""A human-readable outline of a message: types, names, shapes, a few values.

Needs no numpy: fixed-width ``raw_data`` is previewed through ``struct``, and
only the first few values are ever unpacked, so showing a huge tensor is cheap.
"""

from __future__ import annotations

import struct

from ._messages import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)

PREVIEW = 6

# data_type -> struct code of one element in raw_data (little-endian).
_RAW_FORMATS = {1: "f", 2: "B", 3: "b", 4: "H", 5: "h", 6: "i", 7: "q", 9: "?", 10: "e",
                11: "d", 12: "I", 13: "Q"}  # fmt: skip


def type_name(enum: type, value: int | None) -> str:
    if value is None:
        return "unset"
    try:
        return str(enum(value).name)
    except ValueError:
        return f"unknown({value})"


def outline(msg: Message, indent: str = "") -> list[str]:
    """The lines that describe ``msg``, nested parts indented by two spaces."""
    kind = type(msg).__qualname__
    name = getattr(msg, "name", None)
    head = f"{indent}{kind}" + (f" {name!r}" if name else "")
    lines: list[str]
    inner = indent + "  "
    if isinstance(msg, TensorProto):
        dtype = type_name(TensorProto.DataType, msg.data_type)
        lines = [f"{head} {dtype} shape={list(msg.dims)} {_values(msg)}"]
        if msg.segment is not None:
            lines.append(f"{inner}segment [{msg.segment.begin}, {msg.segment.end})")
        for entry in msg.external_data:
            lines.append(f"{inner}external_data {entry.key}={entry.value!r}")
        for entry in msg.metadata_props:
            lines.append(f"{inner}metadata {entry.key}={entry.value!r}")
    elif isinstance(msg, SparseTensorProto):
        lines = [f"{head} dense shape={list(msg.dims)}"]
        for label, part in (("values", msg.values), ("indices", msg.indices)):
            if part is not None:
                lines.append(f"{inner}{label}:")
                lines.extend(outline(part, inner + "  "))
    elif isinstance(msg, SequenceProto):
        elems: list[Message] = [
            *msg.tensor_values,
            *msg.sparse_tensor_values,
            *msg.sequence_values,
            *msg.map_values,
            *msg.optional_values,
        ]
        elem = type_name(SequenceProto.DataType, msg.elem_type)
        lines = [f"{head} of {elem}, {len(elems)} element{'s' * (len(elems) != 1)}"]
        for i, elem_msg in enumerate(elems):
            if i == PREVIEW:
                lines.append(f"{inner}... {len(elems) - PREVIEW} more")
                break
            lines.extend(outline(elem_msg, inner))
    elif isinstance(msg, MapProto):
        key = type_name(TensorProto.DataType, msg.key_type)
        keys: list[object] = [*msg.keys, *msg.string_keys]
        lines = [f"{head} {key} keys={_preview(keys[:PREVIEW], len(keys))}"]
        if msg.values is not None:
            lines.extend(outline(msg.values, inner))
    elif isinstance(msg, OptionalProto):
        elem = type_name(OptionalProto.DataType, msg.elem_type)
        subs: list[Message | None] = [
            msg.tensor_value,
            msg.sparse_tensor_value,
            msg.sequence_value,
            msg.map_value,
            msg.optional_value,
        ]
        present = [s for s in subs if s is not None]
        lines = [f"{head} of {elem}" + ("" if present else ", empty")]
        for value in present:
            lines.extend(outline(value, inner))
    elif isinstance(msg, StringStringEntryProto):
        lines = [f"{head} {msg.key!r}={msg.value!r}"]
    else:  # TensorProto.Segment
        lines = [f"{head} {msg!r}"]
    unknown = len(msg.unknown_fields)  # type: ignore[attr-defined]
    if unknown:
        lines.append(f"{inner}({unknown} bytes of unknown fields)")
    return lines


def _preview(head: list[object] | tuple[object, ...], total: int, code: str = "") -> str:
    """The first values, and how many there are in all when that is more."""
    if code in ("f", "e"):  # float32/float16 values, not their double expansions
        shown = ", ".join(f"{v:.7g}" for v in head)
    else:
        shown = ", ".join(repr(v) for v in head)
    more = f", ... ({total} in all)" if total > len(head) else ""
    return f"[{shown}{more}]"


def _values(t: TensorProto) -> str:
    for field in ("float_data", "int32_data", "string_data", "int64_data", "double_data",
                  "uint64_data"):  # fmt: skip
        values = getattr(t, field)
        if len(values):
            code = "f" if field == "float_data" else ""
            return f"{field}={_preview(list(values[:PREVIEW]), len(values), code)}"
    if t.raw_data is not None:
        raw_code = _RAW_FORMATS.get(t.data_type or 0)
        size = len(t.raw_data)
        if raw_code is None:
            return f"raw_data={size} bytes"
        width = struct.calcsize(raw_code)
        count = size // width
        head = struct.unpack_from(f"<{min(count, PREVIEW)}{raw_code}", t.raw_data)
        return f"raw_data={_preview(head, count, raw_code)}"
    if t.data_location == TensorProto.EXTERNAL:
        return "external"
    return "no values"
