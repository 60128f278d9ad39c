"""A message's unknown fields split into raw fields, as protobuf's printer reads them.

``print_unknown_fields`` prints what protobuf's Python unknown-field reader
(``decoder._DecodeUnknownFieldSet``) finds, and a length-delimited field is
printed as a nested message exactly when that reader takes its payload whole.
Its rules are looser than the decoder's in ``_core.wire``, and the printer
must keep them: a tag may take up to 10 bytes and a length any number of
bytes up to 10 (``read_tag`` and ``read_length`` stop at 5, as upb does), and
field number 0 may appear inside a payload.  So the fields are split here with
``read_varint``, ``tag_bytes`` and the wire-type constants of ``_core.wire``.
"""

from __future__ import annotations

from .._core.errors import DecodeError
from .._core.wire import EGROUP, I32, I64, LEN, SGROUP, VARINT, read_varint, split_tag, tag_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["RawField", "split_fields", "unknown_fields"]

# protobuf's Python reader stops a group nested this deep (its recursion limit).
_GROUP_DEPTH = 100


class RawField:
    """One field as it is on the wire: its number, wire type and value (an int, the
    payload's bytes, or a group's fields)."""

    __slots__ = ("data", "number", "wire_type")

    def __init__(self, number: int, wire_type: int, data: Any) -> None:
        self.number = number
        self.wire_type = wire_type
        self.data = data


def split_fields(buf: bytes, pos: int, end: int, depth: int = 0) -> tuple[list[RawField], int]:
    """The fields from ``pos``: the reader stops at ``end`` or after any end-group
    tag, and returns where it stopped.

    Raises:
        DecodeError: the bytes are not fields (a truncated value, a varint of
            more than 10 bytes, wire type 6 or 7, a group not closed).
    """
    found: list[RawField] = []
    while pos < end:
        tag, pos = read_varint(buf, pos, len(buf))  # protobuf reads a tag past ``end``
        number, wire_type = split_tag(tag)
        if wire_type == EGROUP:
            break
        data, pos = _value(buf, pos, end, number, wire_type, depth)
        found.append(RawField(number, wire_type, data))
    return found, pos


def _value(
    buf: bytes, pos: int, end: int, number: int, wire_type: int, depth: int
) -> tuple[Any, int]:
    data: Any
    if wire_type == VARINT:
        data, pos = read_varint(buf, pos, len(buf))
    elif wire_type in (I64, I32):
        width = 8 if wire_type == I64 else 4
        if width > len(buf) - pos:
            raise DecodeError(f"fixed-width field {number} at offset {pos} is truncated", pos)
        data = int.from_bytes(buf[pos : pos + width], "little")
        pos += width
    elif wire_type == LEN:
        size, pos = read_varint(buf, pos, len(buf))
        data = bytes(buf[pos : pos + size])
        pos += size
    elif wire_type == SGROUP:
        if depth + 1 >= _GROUP_DEPTH:
            raise DecodeError(f"groups nested {_GROUP_DEPTH} deep at offset {pos}", pos)
        data, pos = split_fields(buf, pos, end, depth + 1)
        end_tag = tag_bytes(number, EGROUP)
        if buf[max(pos - len(end_tag), 0) : pos] != end_tag:
            raise DecodeError(f"group of field {number} has no end tag", pos)
    else:
        raise DecodeError(f"wire type {wire_type} of field {number} is invalid", pos)
    if pos > end:
        raise DecodeError(f"field {number} runs past the end at offset {end}", pos)
    return data, pos


def unknown_fields(data: bytes) -> list[RawField]:
    """A message's unknown fields (as read when it was decoded: well formed).

    Raises:
        ValueError: ``unknown_fields`` holds bytes that are not protobuf fields.
    """
    try:
        found, pos = split_fields(data, 0, len(data))
    except DecodeError as err:
        raise ValueError(f"unknown_fields are not valid protobuf fields: {err}") from None
    if pos != len(data) or any(f.number == 0 for f in found):
        raise ValueError("unknown_fields are not valid protobuf fields")
    return found
