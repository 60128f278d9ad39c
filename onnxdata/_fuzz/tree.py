"""Wire fields as a tree for the structure-aware mutator, and random field values.

The input is split into wire fields without a schema (:func:`split`): each
field keeps its raw tag and length bytes, so joining the fields gives the
input back byte for byte, non-canonical varints included, and whatever does
not parse as a field is kept as a raw tail.  A field whose schema says
"sub-message" is split the same way when the mutator goes into it.
"""

from __future__ import annotations

import random
import struct
from typing import Any

from .._core.errors import DecodeError
from .._core.schema import MESSAGE, MessageSpec, spec_of
from .._core.wire import (
    EGROUP,
    I32,
    I64,
    LEN,
    MASK64,
    MAX_DEPTH,
    SGROUP,
    VARINT,
    overlong_varint,
    read_field,
    read_varint,
)

INT_EDGES = (0, 1, -1, 2, 127, 128, -(1 << 31), (1 << 31) - 1, 1 << 31, 1 << 32,
             -(1 << 63), (1 << 63) - 1, 1 << 63, MASK64)  # fmt: skip
FLOAT_EDGES = (0x00000000, 0x80000000, 0x3F800000, 0x7F800000, 0xFF800000, 0x7FC00000,
               0xFFC00000, 0x7FA00000, 0x7FC00001, 0x00000001, 0x007FFFFF, 0x80000001,
               0x7F7FFFFF, 0x00800000)  # fmt: skip
DOUBLE_EDGES = (0, 1 << 63, 0x3FF0000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
                0x7FF8000000000000, 0xFFF8000000000000, 0x7FF4000000000000,
                0x7FF8000000000001, 1, 0x000FFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF,
                0x0010000000000000)  # fmt: skip
TEXT_EDGES = (b"", b"a", b"x" * 300, "\u00e9\u65e5".encode(), b"\xff\xfe", b"\xc0\x80",
              b"\xed\xa0\x80", b"\x00", "\U0001f600".encode())  # fmt: skip

varint = overlong_varint  # the canonical varint of a value; negative ones as 64-bit


def _says(prefix: bytes, n: int) -> bool:
    """Whether ``prefix`` is one whole varint of value ``n`` (a length prefix kept as it came)."""
    try:
        return read_varint(prefix, 0, len(prefix)) == (n, len(prefix))
    except DecodeError:
        return False


class Field:
    """One wire field: raw tag bytes, raw length prefix (LEN), body, and its split body."""

    __slots__ = ("body", "lenpre", "number", "sub", "tag", "wire_type")

    def __init__(self, number: int, wire_type: int, body: bytes, tag: bytes | None = None,
                 lenpre: bytes | None = None) -> None:  # fmt: skip
        self.number = number
        self.wire_type = wire_type
        self.tag = varint(number << 3 | wire_type) if tag is None else tag
        self.body = body  # VARINT: the raw varint; I32/I64: the bytes; LEN: the payload;
        # SGROUP: everything after the start tag up to and including the end tag
        self.lenpre = lenpre
        self.sub: Node | None = None  # the payload split into fields, once gone into

    def copy(self) -> Field:
        f = Field(self.number, self.wire_type, self.encoded_body(), self.tag, self.lenpre)
        return f

    def encoded_body(self) -> bytes:
        return self.body if self.sub is None else self.sub.join()

    def join(self) -> bytes:
        if self.wire_type != LEN:
            return self.tag + self.body
        body = self.encoded_body()
        pre = self.lenpre
        if pre is None or not _says(pre, len(body)):
            pre = varint(len(body))
        return self.tag + pre + body


class Node:
    """A message as a list of fields and the bytes after the last one that parsed."""

    __slots__ = ("fields", "spec", "tail")

    def __init__(self, fields: list[Field], tail: bytes, spec: MessageSpec | None) -> None:
        self.fields = fields
        self.tail = tail
        self.spec = spec

    def join(self) -> bytes:
        return b"".join([f.join() for f in self.fields]) + self.tail


# Groups may nest a little deeper than a parser takes, so that such input is
# still read as fields (and mutated), not kept as a raw tail.
_GROUP_DEPTH = MAX_DEPTH + 20


def split(buf: bytes, spec: MessageSpec | None) -> Node:
    """``buf`` as wire fields, as far as they parse (by the wire toolkit's
    :func:`read_field`); the rest as the tail.  One pass over the input."""
    fields: list[Field] = []
    pos, end = 0, len(buf)
    while pos < end:
        try:
            raw = read_field(buf, pos, end, _GROUP_DEPTH)
        except DecodeError:
            break
        lenpre = buf[raw.tag_end : raw.body_at] if raw.wire_type == LEN else None
        body = buf[raw.body_at : raw.end]
        fields.append(Field(raw.number, raw.wire_type, body, buf[pos : raw.tag_end], lenpre))
        pos = raw.end
    return Node(fields, buf[pos:], spec)


# -- values -------------------------------------------------------------------


def int_value(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.6:
        return rng.choice(INT_EDGES)
    if r < 0.9:
        return rng.randrange(-3, 300)
    return rng.getrandbits(64)


def scalar_body(kind: str, rng: random.Random, field: Any = None) -> tuple[int, bytes]:
    """(wire type, body) of one value of ``kind``."""
    if kind == "float":
        bits = rng.choice(FLOAT_EDGES) if rng.random() < 0.6 else rng.getrandbits(32)
        return I32, struct.pack("<I", bits)
    if kind == "double":
        bits = rng.choice(DOUBLE_EDGES) if rng.random() < 0.6 else rng.getrandbits(64)
        return I64, struct.pack("<Q", bits)
    if kind in ("string", "bytes"):
        if rng.random() < 0.7:
            return LEN, rng.choice(TEXT_EDGES)
        return LEN, rng.randbytes(rng.randrange(20))
    if kind == "enum" and field is not None and field.enum is not None and rng.random() < 0.7:
        return VARINT, varint(rng.choice(field.enum.values()))
    return VARINT, varint(int_value(rng))


def packed_body(kind: str, count: int, rng: random.Random) -> bytes:
    return b"".join([scalar_body(kind, rng)[1] for _ in range(count)])


def known_fields(field: Any, rng: random.Random, depth: int, pool: list[bytes]) -> list[Field]:
    """New occurrences of a known field, of a wire type its parser accepts."""
    n = field.number
    if field.kind == MESSAGE:
        if pool and rng.random() < 0.3:
            return [Field(n, LEN, rng.choice(pool))]
        body = random_message(spec_of(field.message), rng, depth + 1, pool) if depth < 4 else b""
        return [Field(n, LEN, body)]
    count = rng.choice((1, 1, 2, 3, 5)) if field.repeated else 1
    packable = field.repeated and LEN in field.accepted_wire_types()
    if packable and field.kind not in ("string", "bytes") and rng.random() < 0.5:
        return [Field(n, LEN, packed_body(field.kind, count, rng))]
    out = []
    for _ in range(count):
        wt, body = scalar_body(field.kind, rng, field)
        out.append(Field(n, wt, body))
    return out


def random_message(spec: MessageSpec, rng: random.Random, depth: int = 0,
                   pool: list[bytes] | None = None) -> bytes:  # fmt: skip
    """A valid encoding of ``spec`` with a few random fields."""
    parts: list[bytes] = []
    for _ in range(rng.randrange(4)):
        f = rng.choice(spec.fields)
        parts.extend(x.join() for x in known_fields(f, rng, depth, pool or []))
    return b"".join(parts)


def unknown_field(spec: MessageSpec | None, rng: random.Random) -> Field:
    top = max((f.number for f in spec.fields), default=0) if spec is not None else 0
    number = rng.choice(
        (top + 1, top + 100, 1000, 18999, 20000, (1 << 29) - 1, rng.randrange(1, 64))
    )
    if spec is not None and number in spec.by_number:
        number = top + 1
    wt = rng.choice((VARINT, I64, LEN, I32, SGROUP))
    if wt == VARINT:
        return Field(number, wt, varint(int_value(rng)))
    if wt == I64:
        return Field(number, wt, rng.randbytes(8))
    if wt == I32:
        return Field(number, wt, rng.randbytes(4))
    if wt == LEN:
        return Field(number, wt, rng.randbytes(rng.randrange(12)))
    inner = b""
    if rng.random() < 0.5:
        inner = Field(rng.randrange(1, 30), VARINT, varint(int_value(rng))).join()
    return Field(number, wt, inner + varint(number << 3 | EGROUP))
