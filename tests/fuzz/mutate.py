"""Seeded, structure-aware mutations of valid messages, for the CI differential run.

No hypothesis and no atheris: a ``random.Random(seed)`` drives everything, so a
case is replayed from its seed and index alone.  A valid encoding is split into
a tree of raw fields (:func:`wirekit.parse_fields`, sub-messages parsed through
the oracle's descriptors), rewritten by the operators of :mod:`wirekit`
(:data:`wirekit.OPS`), joined back, and then perhaps damaged byte-wise
(:func:`wirekit.mutate_bytes`).

Base messages: the fuzz seeds of the type (the onnx wheel's backend test data
and the hand-made cases, :mod:`seeds`) that the oracle accepts, and random valid
messages built here from the descriptors (:func:`random_message`).
"""

from __future__ import annotations

import random
import struct
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from tests.fuzz import differential, seeds
from tests.support import wirekit as wk
from tests.support.oracle import ORACLE

_T = FieldDescriptor


# --------------------------------------------------------------------------
# random valid messages


def _element(fd: Any, rng: random.Random) -> bytes:
    if fd.type == _T.TYPE_FLOAT:
        return rng.randbytes(4) if rng.random() < 0.5 else struct.pack("<f", rng.uniform(-9, 9))
    if fd.type == _T.TYPE_DOUBLE:
        return rng.randbytes(8) if rng.random() < 0.5 else struct.pack("<d", rng.uniform(-9, 9))
    if fd.type == _T.TYPE_ENUM:
        return wk.varint(rng.choice([0, 1]))
    return wk.varint(wk.random_varint_value(rng), rng.choice([0, 0, 0, 0, 10]))


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
                parts.append(wk.tag(n, wk.element_wire_type(fd)) + _element(fd, rng))
    if rng.random() < 0.2:
        parts.append(wk.random_unknown(rng, desc))
    rng.shuffle(parts)
    return b"".join(parts)


def _wrap_deep(data: bytes, cls: type, rng: random.Random) -> bytes:
    number = {"SequenceProto": 5, "OptionalProto": 7}.get(cls.__qualname__)
    if number is None:
        return data
    return wk.nest(number, data, rng.choice([98, 99, 100, 101]))


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
            data = wk.encode_fields(wk.mutate_fields(fields, self.desc, rng, self.donors))
        if rng.random() < 0.02:
            data = _wrap_deep(data, self.cls, rng)
        if rng.random() < 0.35:
            data = wk.mutate_bytes(data, rng, self.donors)
        return data
