"""A tiny protobuf wire toolkit for the tests, independent of onnxdata.

It builds exact byte strings (including over-long varints and malformed
encodings) and splits valid encodings into a tree of raw fields that the
mutation strategies rearrange.  It knows the schema only through the oracle's
descriptors, so it cannot share a mistake with the codec under test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

VARINT, I64, LEN, SGROUP, EGROUP, I32 = 0, 1, 2, 3, 4, 5


def varint(value: int, size: int = 0) -> bytes:
    """``value`` as a varint, padded with continuation bytes to ``size`` bytes.

    Negative values are taken as 64-bit two's complement.  Values of 2**64 and
    more are allowed (their extra bits land in the 10th byte, where a decoder
    must drop them).
    """
    if value < 0:
        value &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            break
    while len(out) < size:
        out[-1] |= 0x80
        out.append(0)
    return bytes(out)


def tag(number: int, wire_type: int, size: int = 0) -> bytes:
    return varint(number << 3 | wire_type, size)


def f_varint(number: int, value: int) -> bytes:
    return tag(number, VARINT) + varint(value)


def f_len(number: int, payload: bytes) -> bytes:
    return tag(number, LEN) + varint(len(payload)) + payload


def f_group(number: int, contents: bytes = b"") -> bytes:
    return tag(number, SGROUP) + contents + tag(number, EGROUP)


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """(value, new position) for a well-formed varint (no limits: test input only)."""
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return result & ((1 << 64) - 1), pos


# --------------------------------------------------------------------------
# A tree of raw fields


@dataclass
class RawField:
    """One field as it sits on the wire.

    ``value`` is an int for varints (may exceed 64 bits: the extra bits go to
    the 10th byte), bytes for fixed32/fixed64 (exact bits) and for opaque
    length-delimited payloads, and a list of :class:`RawField` for groups and
    for parsed sub-messages.  ``tag_size``/``size`` pad the tag and the
    varint value or length prefix with continuation bytes (0 = minimal).
    """

    number: int
    wire_type: int
    value: Any
    tag_size: int = 0
    size: int = 0
    desc: Any = field(default=None, repr=False)  # message descriptor of a parsed payload

    def clone(self) -> RawField:
        """A deep copy (the descriptor is shared, not copied)."""
        value = [f.clone() for f in self.value] if isinstance(self.value, list) else self.value
        return RawField(self.number, self.wire_type, value, self.tag_size, self.size, self.desc)

    def encode(self) -> bytes:
        t = tag(self.number, self.wire_type, self.tag_size)
        wt = self.wire_type
        if wt == VARINT:
            return t + varint(self.value, self.size)
        if wt in (I32, I64):
            return t + self.value
        if wt == SGROUP:
            return t + encode_fields(self.value) + tag(self.number, EGROUP)
        payload = self.value if isinstance(self.value, bytes) else encode_fields(self.value)
        return t + varint(len(payload), self.size) + payload


def encode_fields(fields: list[RawField]) -> bytes:
    return b"".join(f.encode() for f in fields)


def parse_fields(data: bytes, desc: Any = None) -> list[RawField]:
    """Split a *valid* encoding into raw fields.

    With a message descriptor, payloads of message-typed fields are parsed
    recursively (and remember their descriptor); everything else stays opaque.
    """
    by_number = {f.number: f for f in desc.fields} if desc is not None else {}
    out: list[RawField] = []
    pos = 0
    end = len(data)
    stack: list[tuple[int, list[RawField]]] = []
    current = out
    while pos < end:
        key, pos = read_varint(data, pos)
        number, wt = key >> 3, key & 7
        if wt == VARINT:
            value, pos = read_varint(data, pos)
            current.append(RawField(number, wt, value))
        elif wt == I64:
            current.append(RawField(number, wt, data[pos : pos + 8]))
            pos += 8
        elif wt == I32:
            current.append(RawField(number, wt, data[pos : pos + 4]))
            pos += 4
        elif wt == LEN:
            n, pos = read_varint(data, pos)
            payload = data[pos : pos + n]
            pos += n
            fd = by_number.get(number) if not stack else None
            if fd is not None and fd.type == FieldDescriptor.TYPE_MESSAGE:
                current.append(
                    RawField(
                        number, wt, parse_fields(payload, fd.message_type), desc=fd.message_type
                    )
                )
            else:
                current.append(RawField(number, wt, payload))
        elif wt == SGROUP:
            group = RawField(number, wt, [])
            current.append(group)
            stack.append((number, current))
            current = group.value
        elif wt == EGROUP:
            _, current = stack.pop()
        else:  # pragma: no cover - test input is valid
            raise AssertionError(f"bad wire type {wt}")
    return out
