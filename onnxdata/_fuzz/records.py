"""Whole fields as ``(number, wire type, body)`` records, for the seed and strategy builders.

A record is what the wire toolkit's :func:`~onnxdata._core.wire.iter_fields`
reads, with the body as bytes: a varint's bytes, the fixed bytes, a LEN
payload (without its length), or a group's fields with its end-group tag.
Writing one back may make its tag or length prefix over-long, the one way
the package writes them (:func:`~onnxdata._core.wire.overlong_varint`).
"""

from __future__ import annotations

import random

from .._core.schema import MessageSpec
from .._core.wire import (
    EGROUP,
    I32,
    I64,
    LEN,
    SGROUP,
    VARINT,
    iter_fields,
    overlong_varint,
    packed_elements,
    read_varint,
    tag_bytes,
)

Record = tuple[int, int, bytes]  # field number, wire type, what follows the tag (LEN: the payload)


def record(
    number: int, wire_type: int, body: bytes, *, tag_size: int = 0, len_size: int = 0
) -> bytes:
    """One field's bytes; ``tag_size`` and ``len_size`` pad the tag and a LEN field's length
    prefix to that many bytes (over-long, the same values)."""
    head = tag_bytes(number, wire_type, tag_size)
    if wire_type == LEN:
        head += overlong_varint(len(body), len_size)
    return head + body


def join(records: list[Record]) -> bytes:
    return b"".join([record(*r) for r in records])


def split(data: bytes) -> list[Record]:
    """The top-level fields of an encoding, as records.

    Raises:
        DecodeError: ``data`` is not a well-formed message.
    """
    return [(f.number, f.wire_type, data[f.body_at : f.end]) for f in iter_fields(data)]


def elements(wire_type: int, payload: bytes) -> list[bytes]:
    """The encoded values of a packed payload whose elements have ``wire_type``.

    Raises:
        DecodeError: the payload does not divide into whole values.
    """
    return packed_elements(payload, wire_type)  # type: ignore[return-value]


def varint_value(body: bytes) -> int:
    """The value of the varint ``body`` (64 bits).

    Raises:
        DecodeError: ``body`` is not a varint.
    """
    return read_varint(body, 0, len(body))[0]


def unknown_number(spec: MessageSpec, rng: random.Random) -> int:
    """A field number the message does not know."""
    free = [n for n in (15, 17, 99, 1000, 19000, 19999, (1 << 29) - 1) if n not in spec.by_number]
    return rng.choice(free)


def any_body(wire_type: int, rng: random.Random) -> bytes:
    """A valid body (what follows the tag and length) for ``wire_type``."""
    if wire_type == VARINT:
        return overlong_varint(rng.choice((0, 1, 300, -1, 1 << 40)))
    if wire_type == I32:
        return rng.randbytes(4)
    if wire_type == I64:
        return rng.randbytes(8)
    if wire_type == LEN:
        return rng.randbytes(rng.randrange(0, 6))
    return b""


def any_record(number: int, wire_type: int, rng: random.Random) -> bytes:
    """A whole valid field of ``wire_type`` (a group closed by its end tag)."""
    if wire_type == SGROUP:
        inner = record(1, VARINT, overlong_varint(rng.randrange(1 << 20)))
        return tag_bytes(number, SGROUP) + inner + tag_bytes(number, EGROUP)
    return record(number, wire_type, any_body(wire_type, rng))
