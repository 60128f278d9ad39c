"""Seeded, structure-aware mutations of valid messages, for the CI differential run.

No hypothesis and no atheris: a ``random.Random(seed)`` drives everything, so a
case is replayed from its seed and index alone.  A valid encoding is split into
a tree of raw fields (:func:`wirekit.parse_fields`, sub-messages parsed through
the oracle's descriptors), rewritten with the operators in :data:`OPS`, joined
back, and then perhaps damaged byte-wise (:data:`BYTE_OPS`).

Base messages: the fuzz seeds of the type (the onnx wheel's backend test data
and the hand-made cases, :mod:`seeds`) that the oracle accepts, and random valid
messages built here from the descriptors (:func:`random_message`).
"""

from __future__ import annotations

import random
import struct
from typing import Any

import differential
import seeds
import wirekit as wk
from google.protobuf.descriptor import FieldDescriptor
from oracle import ORACLE

_T = FieldDescriptor
_VARINT_TYPES = {_T.TYPE_INT32, _T.TYPE_INT64, _T.TYPE_UINT64, _T.TYPE_ENUM}
_EDGES = [0, 1, 2, 127, 128, 255, 300, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**63,
          2**64 - 1, 2**64 + 5]  # fmt: skip


class Raw(wk.RawField):
    """Bytes placed verbatim among the fields (a forged or foreign field)."""

    def __init__(self, data: bytes) -> None:
        super().__init__(0, wk.LEN, b"")
        self.data = data

    def clone(self) -> Raw:
        return self

    def encode(self) -> bytes:
        return self.data


# --------------------------------------------------------------------------
# random valid messages


def _varint_value(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.5:
        return rng.choice(_EDGES) % 2**64
    if r < 0.8:
        return rng.randrange(300)
    return rng.getrandbits(64)


def _element(fd: Any, rng: random.Random) -> bytes:
    if fd.type == _T.TYPE_FLOAT:
        return rng.randbytes(4) if rng.random() < 0.5 else struct.pack("<f", rng.uniform(-9, 9))
    if fd.type == _T.TYPE_DOUBLE:
        return rng.randbytes(8) if rng.random() < 0.5 else struct.pack("<d", rng.uniform(-9, 9))
    if fd.type == _T.TYPE_ENUM:
        return wk.varint(rng.choice([0, 1]))
    return wk.varint(_varint_value(rng), rng.choice([0, 0, 0, 0, 10]))


def _wt(fd: Any) -> int:
    return {_T.TYPE_FLOAT: wk.I32, _T.TYPE_DOUBLE: wk.I64}.get(fd.type, wk.VARINT)


def random_message(desc: Any, rng: random.Random, depth: int = 0) -> bytes:
    """A valid encoding of ``desc`` with random fields (some repeated, some unknown)."""
    parts: list[bytes] = []
    for fd in desc.fields:
        if rng.random() < 0.45:
            continue
        n = fd.number
        count = rng.choice([1, 1, 2, 3]) if fd.is_repeated else 1
        if fd.type == _T.TYPE_MESSAGE:
            if depth >= 3:
                count = min(count, 1)
            for _ in range(count):
                inner = b"" if depth >= 3 else random_message(fd.message_type, rng, depth + 1)
                parts.append(wk.f_len(n, inner))
        elif fd.type in (_T.TYPE_STRING, _T.TYPE_BYTES):
            for _ in range(count):
                text = rng.choice([b"", b"a", "é日".encode(), rng.randbytes(rng.randrange(12))])
                parts.append(wk.f_len(n, text))
        elif fd.is_repeated and rng.random() < 0.6:
            elems = b"".join(_element(fd, rng) for _ in range(rng.randrange(6)))
            parts.append(wk.f_len(n, elems))  # packed
        else:
            for _ in range(count):
                parts.append(wk.tag(n, _wt(fd)) + _element(fd, rng))
    if rng.random() < 0.2:
        parts.append(_unknown(rng, desc, 0))
    rng.shuffle(parts)
    return b"".join(parts)


# --------------------------------------------------------------------------
# operators on a raw field tree


def _known(desc: Any) -> dict[int, Any]:
    return {fd.number: fd for fd in desc.fields}


def _accepted(fd: Any) -> set[int]:
    if fd.type in _VARINT_TYPES:
        base = wk.VARINT
    elif fd.type == _T.TYPE_FLOAT:
        base = wk.I32
    elif fd.type == _T.TYPE_DOUBLE:
        base = wk.I64
    else:
        return {wk.LEN}
    return {base, wk.LEN} if fd.is_repeated else {base}


def _unknown(rng: random.Random, desc: Any, depth: int) -> bytes:
    """One field the message does not know: unknown number, or a known one in a wrong wire type."""
    known = _known(desc)
    number = rng.choice([19999, 15, 17, 100, 2**29 - 1, rng.randrange(1, 2**29)])
    if number in known and rng.random() < 0.5:
        number = 19999
    choices = [
        wt for wt in (0, 1, 2, 3, 5) if number not in known or wt not in _accepted(known[number])
    ]
    if depth >= 3 and 3 in choices:
        choices.remove(3)
    wt = rng.choice(choices)
    tag = wk.tag(number, wt, rng.choice([0, 0, 0, 5]))
    if wt == wk.VARINT:
        return tag + wk.varint(_varint_value(rng), rng.choice([0, 0, 10]))
    if wt == wk.I64:
        return tag + rng.randbytes(8)
    if wt == wk.I32:
        return tag + rng.randbytes(4)
    if wt == wk.LEN:
        payload = rng.randbytes(rng.randrange(8))
        return tag + wk.varint(len(payload)) + payload
    inner = b"".join(_unknown(rng, desc, depth + 1) for _ in range(rng.randrange(3)))
    if rng.random() < 0.2:
        inner += wk.tag(0, rng.choice([0, 2])) + b"\x00"  # field 0 is allowed inside a group
    return tag + inner + wk.tag(number, wk.EGROUP)


def _split_packed(fd: Any, payload: bytes) -> list[wk.RawField] | None:
    wt = _wt(fd)
    size = {wk.I32: 4, wk.I64: 8}.get(wt)
    if size:
        if len(payload) % size:
            return None
        return [
            wk.RawField(fd.number, wt, payload[i : i + size]) for i in range(0, len(payload), size)
        ]
    out = []
    pos = 0
    try:
        while pos < len(payload):
            value, pos = wk.read_varint(payload, pos)
            out.append(wk.RawField(fd.number, wt, value))
    except IndexError:  # not a packed payload (a field spliced in from another type)
        return None
    return out


def _groups(levels: int) -> bytes:
    g = b""
    for _ in range(levels):
        g = wk.f_group(19999, g)
    return g


OPS = [
    "duplicate", "duplicate_message", "unpack", "pack", "unknown", "group", "deep_groups",
    "overlong", "overlong_bad", "high_bits", "wrong_wire_type", "huge_length", "short_length",
    "shuffle", "drop", "splice_field", "enum", "bad_utf8", "int32_wide", "empty_packed",
    "packed_odd",
]  # fmt: skip


def mutate_fields(
    fields: list[wk.RawField], desc: Any, rng: random.Random, donors: list[bytes], depth: int = 0
) -> list[Any]:
    fields = [f.clone() for f in fields]
    known = _known(desc)
    for f in fields:
        if f.desc is not None and depth < 5 and rng.random() < 0.3:
            f.value = mutate_fields(f.value, f.desc, rng, donors, depth + 1)

    def insert(new: Any) -> None:
        fields.insert(rng.randrange(len(fields) + 1), new)

    for op in rng.choices(OPS, k=rng.choice([1, 1, 2, 3])):
        if op == "duplicate" and fields:
            insert(rng.choice(fields).clone())
        elif op == "duplicate_message":
            subs = [f for f in fields if f.desc is not None]
            if subs:
                f = rng.choice(subs)
                for _ in range(rng.choice([1, 2, 5])):
                    insert(f.clone())
        elif op == "unpack":
            packed = [i for i, f in enumerate(fields) if f.wire_type == wk.LEN
                      and isinstance(f.value, bytes) and f.number in known
                      and len(_accepted(known[f.number])) == 2]  # fmt: skip
            if packed:
                i = rng.choice(packed)
                parts = _split_packed(known[fields[i].number], fields[i].value)
                if parts is not None:
                    cut = rng.randrange(len(parts) + 1)
                    rest = b"".join(wk.varint(p.value) if p.wire_type == wk.VARINT else p.value
                                    for p in parts[cut:])  # fmt: skip
                    tail = [wk.RawField(fields[i].number, wk.LEN, rest)] if rest else []
                    fields[i : i + 1] = parts[:cut] + tail
        elif op == "pack":
            loose = [f for f in fields if f.number in known and f.wire_type != wk.LEN
                     and len(_accepted(known[f.number])) == 2]  # fmt: skip
            if loose:
                number = rng.choice(loose).number
                same = [f for f in loose if f.number == number]
                payload = b"".join(
                    wk.varint(f.value, f.size) if f.wire_type == wk.VARINT else f.value
                    for f in same
                )
                fields = [f for f in fields if f not in same]
                insert(wk.RawField(number, wk.LEN, payload))
        elif op == "unknown":
            insert(Raw(_unknown(rng, desc, depth)))
        elif op == "group":
            insert(Raw(wk.f_group(rng.choice([1, 9, 19999]), _unknown(rng, desc, depth + 1))))
        elif op == "deep_groups":
            insert(Raw(_groups(rng.choice([1, 50, 98, 99, 100, 101]) - depth)))
        elif op in ("overlong", "overlong_bad") and fields:
            f = rng.choice(fields)
            if not isinstance(f, Raw):
                bad = op == "overlong_bad"
                f.tag_size = rng.choice([2, 5, 6] if bad else [2, 3, 5])
                if f.wire_type == wk.VARINT:
                    f.size = rng.choice([2, 10, 11] if bad else [2, 9, 10])
                elif f.wire_type == wk.LEN:
                    f.size = rng.choice([2, 5, 6] if bad else [2, 3, 5])
        elif op == "high_bits":
            ints = [f for f in fields if f.wire_type == wk.VARINT and not isinstance(f, Raw)]
            if ints:
                f = rng.choice(ints)
                f.value = (f.value % 2**64) | rng.randrange(1, 64) << 64
                f.size = 10
        elif op == "wrong_wire_type":
            fd = rng.choice(list(desc.fields))
            wt = rng.choice([w for w in (0, 1, 2, 5) if w not in _accepted(fd)])
            value: Any = {
                wk.VARINT: _varint_value(rng),
                wk.I64: rng.randbytes(8),
                wk.I32: rng.randbytes(4),
                wk.LEN: rng.randbytes(rng.randrange(6)),
            }[wt]
            insert(wk.RawField(fd.number, wt, value))
        elif op in ("huge_length", "short_length"):
            lens = [f for f in fields if f.wire_type == wk.LEN and not isinstance(f, Raw)]
            if lens:
                f = rng.choice(lens)
                payload = f.value if isinstance(f.value, bytes) else wk.encode_fields(f.value)
                if op == "huge_length":
                    n = rng.choice([len(payload) + 1, 2**31 - 1, 2**32, 2**35 - 1, 2**35, 2**62,
                                    2**64 - 1])  # fmt: skip
                else:
                    n = rng.randrange(len(payload)) if payload else 0
                i = fields.index(f)
                fields[i] = Raw(wk.tag(f.number, wk.LEN) + wk.varint(n) + payload)
        elif op == "shuffle":
            rng.shuffle(fields)
        elif op == "drop" and fields:
            del fields[rng.randrange(len(fields))]
        elif op == "splice_field" and donors:
            donor = rng.choice(donors)
            try:
                donated = wk.parse_fields(donor, desc)
            except (IndexError, AssertionError):
                continue
            if donated:
                insert(rng.choice(donated))
        elif op == "enum" and 14 in known and desc.name == "TensorProto":
            v = rng.choice([0, 1, 2, 2**32, 2**32 + 1, 2**64 - 1, _varint_value(rng)])
            insert(wk.RawField(14, wk.VARINT, v, size=rng.choice([0, 0, 10])))
        elif op == "bad_utf8":
            strings = [fd for fd in desc.fields if fd.type == _T.TYPE_STRING]
            if strings:
                raw = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"a\x80b", rng.randbytes(4)])
                insert(wk.RawField(rng.choice(strings).number, wk.LEN, raw))
        elif op == "int32_wide":
            int32 = [fd for fd in desc.fields if fd.type == _T.TYPE_INT32 and not fd.is_repeated]
            if int32:
                insert(wk.RawField(rng.choice(int32).number, wk.VARINT, _varint_value(rng)))
        elif op == "empty_packed":
            rep = [fd for fd in desc.fields if len(_accepted(fd)) == 2]
            if rep:
                insert(wk.RawField(rng.choice(rep).number, wk.LEN, b""))
        elif op == "packed_odd":
            fixed = [fd for fd in desc.fields if fd.type in (_T.TYPE_FLOAT, _T.TYPE_DOUBLE)]
            if fixed:
                insert(
                    wk.RawField(
                        rng.choice(fixed).number, wk.LEN, rng.randbytes(rng.randrange(1, 12))
                    )
                )
    return fields


BYTE_OPS = ["flip", "set", "truncate", "insert", "delete", "splice"]


def mutate_bytes(data: bytes, rng: random.Random, donors: list[bytes]) -> bytes:
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


def _wrap_deep(data: bytes, cls: type, rng: random.Random) -> bytes:
    number = {"SequenceProto": 5, "OptionalProto": 7}.get(cls.__qualname__)
    if number is None:
        return data
    for _ in range(rng.choice([98, 99, 100, 101])):
        data = wk.f_len(number, data)
    return data


class Mutator:
    """Makes the cases for one message type from one seed."""

    def __init__(self, cls: type, seed: int, max_seed_size: int = 2048) -> None:
        self.cls = cls
        self.desc = ORACLE[cls].DESCRIPTOR
        self.rng = random.Random(f"{seed}:{cls.__qualname__}")
        valid = [b for b in seeds.seeds(cls, max_seed_size) if differential.oracle_parse(cls, b)]
        self.bases = valid or [b""]
        self.donors = self.bases

    def base(self) -> bytes:
        if self.rng.random() < 0.5:
            return random_message(self.desc, self.rng)
        return self.rng.choice(self.bases)

    def case(self) -> bytes:
        rng = self.rng
        data = self.base()
        if rng.random() < 0.85:
            fields = wk.parse_fields(data, self.desc)
            data = wk.encode_fields(mutate_fields(fields, self.desc, rng, self.donors))
        if rng.random() < 0.02:
            data = _wrap_deep(data, self.cls, rng)
        if rng.random() < 0.35:
            data = mutate_bytes(data, rng, self.donors)
        return data
