"""A tiny protobuf wire toolkit for the tests, independent of onnxdata.

It builds exact byte strings (including over-long varints and malformed
encodings), splits valid encodings into a tree of raw fields, and rewrites
that tree (the one mutation engine of the tests: :func:`mutate_fields`,
:func:`mutate_bytes`).  It knows the schema only through the oracle's
descriptors, so it cannot share a mistake with the codec under test.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

VARINT, I64, LEN, SGROUP, EGROUP, I32 = 0, 1, 2, 3, 4, 5
_T = FieldDescriptor


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
            if fd is not None and fd.type == _T.TYPE_MESSAGE:
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


def nest(number: int, inner: bytes, levels: int) -> bytes:
    """``inner`` wrapped ``levels`` times in length-delimited field ``number``."""
    for _ in range(levels):
        inner = f_len(number, inner)
    return inner


def groups(levels: int, number: int = 19999) -> bytes:
    """``levels`` nested empty groups of field ``number``."""
    g = b""
    for _ in range(levels):
        g = f_group(number, g)
    return g


_VARINT_TYPES = {
    _T.TYPE_INT32,
    _T.TYPE_INT64,
    _T.TYPE_UINT64,
    _T.TYPE_ENUM,
    _T.TYPE_BOOL,
}
_FIXED = {_T.TYPE_FLOAT, _T.TYPE_DOUBLE}


def element_wire_type(fd: Any) -> int:
    """The wire type of one element of the scalar field ``fd`` written unpacked."""
    return {_T.TYPE_FLOAT: I32, _T.TYPE_DOUBLE: I64}.get(fd.type, VARINT)


def accepted_wire_types(fd: Any) -> set[int]:
    """Wire types under which the oracle parses field ``fd`` as known."""
    if fd.type not in _VARINT_TYPES and fd.type not in _FIXED:
        return {LEN}
    base = element_wire_type(fd)
    return {base, LEN} if fd.is_repeated else {base}


# --------------------------------------------------------------------------
# Mutations of a raw field tree, driven by a random.Random
#
# The one engine for every test that rewrites valid encodings: the seeded CI
# differential run (tests/fuzz/mutate.py) drives it with a seeded Random, the
# hypothesis strategies (message_strategies.mutated_encodings) with the Random
# of ``st.randoms()``, so that hypothesis shrinks its choices.

_EDGES = [0, 1, 2, 127, 128, 255, 300, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**63,
          2**64 - 1, 2**64 + 5]  # fmt: skip


class Raw(RawField):
    """Bytes placed verbatim among the fields (a forged or foreign field)."""

    def __init__(self, data: bytes) -> None:
        super().__init__(0, LEN, b"")
        self.data = data

    def clone(self) -> Raw:
        return self

    def encode(self) -> bytes:
        return self.data


def random_varint_value(rng: random.Random) -> int:
    """An edge value half the time, else a small or a 64-bit one."""
    r = rng.random()
    if r < 0.5:
        return rng.choice(_EDGES) % 2**64
    if r < 0.8:
        return rng.randrange(300)
    return rng.getrandbits(64)


def _known(desc: Any) -> dict[int, Any]:
    return {fd.number: fd for fd in desc.fields}


def random_unknown(rng: random.Random, desc: Any, depth: int = 0) -> bytes:
    """One field the message does not know: unknown number, or a known one in a wrong wire type."""
    known = _known(desc)
    number = rng.choice([19999, 15, 17, 100, 2**29 - 1, rng.randrange(1, 2**29)])
    if number in known and rng.random() < 0.5:
        number = 19999
    choices = [
        wt
        for wt in (0, 1, 2, 3, 5)
        if number not in known or wt not in accepted_wire_types(known[number])
    ]
    if depth >= 3 and 3 in choices:
        choices.remove(3)
    wt = rng.choice(choices)
    key = tag(number, wt, rng.choice([0, 0, 0, 5]))
    if wt == VARINT:
        return key + varint(random_varint_value(rng), rng.choice([0, 0, 10]))
    if wt == I64:
        return key + rng.randbytes(8)
    if wt == I32:
        return key + rng.randbytes(4)
    if wt == LEN:
        payload = rng.randbytes(rng.randrange(8))
        return key + varint(len(payload)) + payload
    inner = b"".join(random_unknown(rng, desc, depth + 1) for _ in range(rng.randrange(3)))
    if rng.random() < 0.2:
        inner += tag(0, rng.choice([0, 2])) + b"\x00"  # field 0 is allowed inside a group
    return key + inner + tag(number, EGROUP)


def split_packed(fd: Any, payload: bytes) -> list[RawField] | None:
    """A packed payload as one unpacked field per element; None if it is not one."""
    wt = element_wire_type(fd)
    size = {I32: 4, I64: 8}.get(wt)
    if size:
        if len(payload) % size:
            return None
        return [
            RawField(fd.number, wt, payload[i : i + size]) for i in range(0, len(payload), size)
        ]
    out = []
    pos = 0
    try:
        while pos < len(payload):
            value, pos = read_varint(payload, pos)
            out.append(RawField(fd.number, wt, value))
    except IndexError:  # not a packed payload (a field spliced in from another type)
        return None
    return out


OPS = [
    "duplicate", "duplicate_message", "unpack", "pack", "unknown", "group", "deep_groups",
    "overlong", "overlong_bad", "high_bits", "wrong_wire_type", "huge_length", "short_length",
    "shuffle", "drop", "splice_field", "enum", "bad_utf8", "int32_wide", "empty_packed",
    "packed_odd", "oneof",
]  # fmt: skip
# The operators whose output stays a valid encoding (when the input is one and
# the donors are of the same type): the input stays parseable, only its form changes.
VALID_OPS = [
    op
    for op in OPS
    if op not in ("deep_groups", "overlong_bad", "huge_length", "short_length", "packed_odd")
]


def _oneof_value(fd: Any, rng: random.Random) -> tuple[int, Any]:
    """A valid wire type and value for the oneof member ``fd`` (defaults included)."""
    if fd.type == _T.TYPE_MESSAGE:
        inner = rng.choice([b"", f_varint(1, rng.choice([0, 1, 7])), f_len(2, b"")])
        return LEN, inner
    if fd.type in (_T.TYPE_STRING, _T.TYPE_BYTES):
        return LEN, rng.choice([b"", b"N", "é".encode()])
    return VARINT, rng.choice([0, 1, 2**63, random_varint_value(rng)])


def mutate_fields(
    fields: list[RawField],
    desc: Any,
    rng: random.Random,
    donors: list[bytes],
    depth: int = 0,
    ops: list[str] = OPS,
) -> list[Any]:
    """``fields`` rewritten by one to three operators of ``ops`` (sub-messages too, sometimes).

    ``donors`` are encodings of the same message type, whose fields ``splice_field`` inserts.
    """
    fields = [f.clone() for f in fields]
    known = _known(desc)
    for f in fields:
        if f.desc is not None and depth < 5 and rng.random() < 0.3:
            f.value = mutate_fields(f.value, f.desc, rng, donors, depth + 1, ops)

    def insert(new: Any) -> None:
        fields.insert(rng.randrange(len(fields) + 1), new)

    for op in rng.choices(ops, k=rng.choice([1, 1, 2, 3])):
        if op == "duplicate" and fields:
            insert(rng.choice(fields).clone())
        elif op == "duplicate_message":
            subs = [f for f in fields if f.desc is not None]
            if subs:
                f = rng.choice(subs)
                for _ in range(rng.choice([1, 2, 5])):
                    insert(f.clone())
        elif op == "unpack":
            packed = [i for i, f in enumerate(fields) if f.wire_type == LEN
                      and isinstance(f.value, bytes) and f.number in known
                      and len(accepted_wire_types(known[f.number])) == 2]  # fmt: skip
            if packed:
                i = rng.choice(packed)
                parts = split_packed(known[fields[i].number], fields[i].value)
                if parts is not None:
                    cut = rng.randrange(len(parts) + 1)
                    rest = b"".join(varint(p.value) if p.wire_type == VARINT else p.value
                                    for p in parts[cut:])  # fmt: skip
                    tail = [RawField(fields[i].number, LEN, rest)] if rest else []
                    fields[i : i + 1] = parts[:cut] + tail
        elif op == "pack":
            loose = [f for f in fields if f.number in known and f.wire_type not in (LEN, SGROUP)
                     and len(accepted_wire_types(known[f.number])) == 2]  # fmt: skip
            if loose:
                number = rng.choice(loose).number
                same = [f for f in loose if f.number == number]
                payload = b"".join(
                    varint(f.value, f.size) if f.wire_type == VARINT else f.value for f in same
                )
                fields = [f for f in fields if f not in same]
                insert(RawField(number, LEN, payload))
        elif op == "unknown":
            insert(Raw(random_unknown(rng, desc, depth)))
        elif op == "group":
            insert(Raw(f_group(rng.choice([1, 9, 19999]), random_unknown(rng, desc, depth + 1))))
        elif op == "deep_groups":
            insert(Raw(groups(rng.choice([1, 50, 98, 99, 100, 101]) - depth)))
        elif op in ("overlong", "overlong_bad") and fields:
            f = rng.choice(fields)
            if not isinstance(f, Raw):
                bad = op == "overlong_bad"
                f.tag_size = rng.choice([2, 5, 6] if bad else [2, 3, 5])
                if f.wire_type == VARINT:
                    f.size = rng.choice([2, 10, 11] if bad else [2, 9, 10])
                elif f.wire_type == LEN:
                    f.size = rng.choice([2, 5, 6] if bad else [2, 3, 5])
        elif op == "high_bits":
            ints = [f for f in fields if f.wire_type == VARINT and not isinstance(f, Raw)]
            if ints:
                f = rng.choice(ints)
                f.value = (f.value % 2**64) | rng.randrange(1, 64) << 64
                f.size = 10
        elif op == "wrong_wire_type":
            fd = rng.choice(list(desc.fields))
            wt = rng.choice([w for w in (0, 1, 2, 5) if w not in accepted_wire_types(fd)])
            value: Any = {
                VARINT: random_varint_value(rng),
                I64: rng.randbytes(8),
                I32: rng.randbytes(4),
                LEN: rng.randbytes(rng.randrange(6)),
            }[wt]
            insert(RawField(fd.number, wt, value))
        elif op in ("huge_length", "short_length"):
            lens = [f for f in fields if f.wire_type == LEN and not isinstance(f, Raw)]
            if lens:
                f = rng.choice(lens)
                payload = f.value if isinstance(f.value, bytes) else encode_fields(f.value)
                if op == "huge_length":
                    n = rng.choice([len(payload) + 1, 2**31 - 1, 2**32, 2**35 - 1, 2**35, 2**62,
                                    2**64 - 1])  # fmt: skip
                else:
                    n = rng.randrange(len(payload)) if payload else 0
                i = fields.index(f)
                fields[i] = Raw(tag(f.number, LEN) + varint(n) + payload)
        elif op == "shuffle":
            rng.shuffle(fields)
        elif op == "drop" and fields:
            del fields[rng.randrange(len(fields))]
        elif op == "splice_field" and donors:
            donor = rng.choice(donors)
            try:
                donated = parse_fields(donor, desc)
            except (IndexError, AssertionError):
                continue
            if donated:
                insert(rng.choice(donated))
        elif op == "enum":
            # a closed enum (TensorProto.data_location, AttributeProto.type): a
            # value in the enum is kept, one outside becomes an unknown field
            enums = [fd for fd in desc.fields if fd.type == _T.TYPE_ENUM]
            if enums:
                fd = rng.choice(enums)
                top = max(v.number for v in fd.enum_type.values)
                v = rng.choice([0, 1, top, top + 1, 2**32, 2**32 + 1, 2**64 - 1, 2**31,
                                random_varint_value(rng)])  # fmt: skip
                insert(RawField(fd.number, VARINT, v, size=rng.choice([0, 0, 10])))
        elif op == "oneof":
            # another member of a oneof after the one set (the last one wins),
            # or the same one again (a message member merges)
            members = [fd for fd in desc.fields if fd.containing_oneof is not None]
            if members:
                fd = rng.choice(members)
                insert(RawField(fd.number, *_oneof_value(fd, rng)))
        elif op == "bad_utf8":
            strings = [fd for fd in desc.fields if fd.type == _T.TYPE_STRING]
            if strings:
                raw = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"a\x80b", rng.randbytes(4)])
                insert(RawField(rng.choice(strings).number, LEN, raw))
        elif op == "int32_wide":
            int32 = [fd for fd in desc.fields if fd.type == _T.TYPE_INT32 and not fd.is_repeated]
            if int32:
                insert(RawField(rng.choice(int32).number, VARINT, random_varint_value(rng)))
        elif op == "empty_packed":
            rep = [fd for fd in desc.fields if len(accepted_wire_types(fd)) == 2]
            if rep:
                insert(RawField(rng.choice(rep).number, LEN, b""))
        elif op == "packed_odd":
            fixed = [fd for fd in desc.fields if fd.type in (_T.TYPE_FLOAT, _T.TYPE_DOUBLE)]
            if fixed:
                insert(RawField(rng.choice(fixed).number, LEN, rng.randbytes(rng.randrange(1, 12))))
    return fields


BYTE_OPS = ["flip", "set", "truncate", "insert", "delete", "splice"]


def mutate_bytes(data: bytes, rng: random.Random, donors: list[bytes]) -> bytes:
    """``data`` with one or two bytes flipped, set, inserted or deleted, cut, or spliced."""
    buf = bytearray(data)
    for op in rng.choices(BYTE_OPS, k=rng.choice([1, 1, 2])):
        if op == "flip" and buf:
            buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
        elif op == "set" and buf:
            buf[rng.randrange(len(buf))] = rng.choice([0x00, 0x7F, 0x80, 0xFF, rng.randrange(256)])
        elif op == "truncate" and buf:
            del buf[rng.randrange(len(buf)) :]
        elif op == "insert":
            i = rng.randrange(len(buf) + 1)
            buf[i:i] = rng.randbytes(rng.randrange(1, 4))
        elif op == "delete" and buf:
            del buf[rng.randrange(len(buf))]
        elif op == "splice" and donors:
            donor = rng.choice(donors)
            buf = buf[: rng.randrange(len(buf) + 1)] + donor[rng.randrange(len(donor) + 1) :]
    return bytes(buf)
