"""A length-delimited field is read the same whatever the size of its length.

The generated decoder reads lengths of one and two bytes inline and leaves
every other length, and every error, to the general varint reader.  Each
length-delimited field of every message (strings, bytes, messages; singular
and repeated) is checked against the oracle with lengths on both sides of
each boundary, written in their shortest form and padded (over-long varints
are valid), declared one byte longer than what follows, and cut off inside
the length itself.
"""

from __future__ import annotations

from typing import Any

import pytest

import onnxdata
from onnxdata._core.schema import spec_of
from tests.support import wirekit as wk
from tests.support.oracle import ALL_MESSAGE_TYPES, check_decode

LEN = 2


def unused(cls: type) -> int:
    """A field number ``cls`` does not declare, with a one-byte tag."""
    return min(n for n in range(1, 16) if n not in spec_of(cls).by_number)


# (message, field) for every field whose wire form is one length-delimited value.
FIELDS = [
    (cls, f)
    for cls in ALL_MESSAGE_TYPES
    for f in spec_of(cls).fields
    if f.kind in ("string", "bytes", "message")
]
SIZES = [0, 2, 127, 128, 129, 300, 16383, 16384, 20000]


def _payload(f: Any, size: int) -> bytes:
    """``size`` bytes that are a valid value of ``f``: text, or a message
    holding one unknown field."""
    if f.kind != "message":
        return b"a" * size
    if size == 0:
        return b""
    head = wk.tag(unused(f.message), LEN)
    body = size - len(head) - 1
    if body >= 128:
        body -= 1
    if body >= 16384:
        body -= 1
    out = head + wk.varint(body) + b"x" * body
    assert len(out) == size
    return out


def _field(f: Any, payload: bytes, length_size: int = 0, declared: int | None = None) -> bytes:
    n = len(payload) if declared is None else declared
    return wk.tag(f.number, LEN) + wk.varint(n, length_size) + payload


def test_every_length_delimited_field_is_covered() -> None:
    assert {cls for cls, _ in FIELDS} >= {onnxdata.SequenceProto, onnxdata.TensorProto}
    assert {cls for cls, _ in FIELDS} >= {onnxdata.ModelProto, onnxdata.AttributeProto}
    assert all(unused(cls) for cls in ALL_MESSAGE_TYPES)


@pytest.mark.parametrize(("cls", "f"), FIELDS, ids=lambda x: getattr(x, "name", None))
def test_lengths_of_each_size_are_read_as_the_oracle_reads_them(cls: type, f: Any) -> None:
    for size in SIZES:
        payload = _payload(f, size)
        shortest = len(wk.varint(size))
        for length_size in sorted({shortest, 2, 3} - {1} if shortest > 1 else {1, 2, 3}):
            one = _field(f, payload, length_size)
            check_decode(cls, one)
            check_decode(cls, one + one)  # a second element, or a merge / replace
            check_decode(cls, one + wk.f_varint(unused(cls), 1))
            # declared one byte longer than what follows
            check_decode(cls, _field(f, payload, length_size, size + 1))
            check_decode(cls, _field(f, payload, length_size, size + 1)[:-1])


@pytest.mark.parametrize(("cls", "f"), FIELDS, ids=lambda x: getattr(x, "name", None))
def test_lengths_cut_off_inside_the_varint_are_rejected_as_the_oracle_does(
    cls: type, f: Any
) -> None:
    for size in (128, 300, 16384):
        whole = _field(f, _payload(f, size))
        head = len(wk.tag(f.number, LEN))
        for cut in range(head, head + len(wk.varint(size))):
            check_decode(cls, whole[:cut])
            check_decode(cls, wk.f_varint(unused(cls), 1) + whole[:cut])


def test_two_byte_lengths_of_nested_messages_at_every_level() -> None:
    # Outer levels over 127 bytes, inner ones under: both forms in one input.
    inner = wk.f_varint(2, 2)
    for _ in range(60):
        inner = wk.f_varint(2, 2) + wk.f_len(
            5, inner + wk.f_len(unused(onnxdata.SequenceProto), b"y" * 3)
        )
    msg = check_decode(onnxdata.SequenceProto, inner)
    assert msg is not None and len(msg.sequence_values) == 1
