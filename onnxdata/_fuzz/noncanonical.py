"""Bytes protobuf accepts but would not write: the corpus's ``noncanonical-<how>`` seeds.

Each transform takes the records of a canonical encoding and rewrites one
thing (an over-long tag, length or varint, packing, order, a singular field
repeated, a sub-message split in two, unknown fields), or gives None when
the encoding has nothing it applies to; ``-nested`` applies it inside a
sub-message.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from .._core.schema import BYTES, DOUBLE, ENUM, FLOAT, INT32, KINDS, MESSAGE, STRING
from .._core.wire import I32, I64, LEN, MASK32, SGROUP, VARINT, overlong_varint, tag_bytes
from .folder import Folder
from .records import Record, any_record, elements, join, record, split, unknown_number, varint_value
from .samples import scalar

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from .._core.schema import FieldSpec


def _reordered(folder: Folder, records: list[Record]) -> bytes | None:
    order: list[int] = []
    for number, _, _ in records:
        if number not in order:
            order.append(number)
    if len(order) < 2:
        return None
    folder.rng.shuffle(order)
    if order == sorted(order):
        order.reverse()
    return join([r for n in order for r in records if r[0] == n])


def _pick(folder: Folder, records: list[Record], ok: Callable[[Record], bool]) -> int | None:
    found = [i for i, r in enumerate(records) if ok(r)]
    return folder.rng.choice(found) if found else None


def _overlong_tag(folder: Folder, records: list[Record]) -> bytes | None:
    i = _pick(folder, records, lambda r: True)
    if i is None:
        return None
    n, wt, body = records[i]
    one = record(n, wt, body, tag_size=folder.rng.randint(len(tag_bytes(n, wt)) + 1, 5))
    return join(records[:i]) + one + join(records[i + 1 :])


def _overlong_length(folder: Folder, records: list[Record]) -> bytes | None:
    i = _pick(folder, records, lambda r: r[1] == LEN)
    if i is None:
        return None
    n, wt, body = records[i]
    one = record(n, wt, body, len_size=folder.rng.randint(len(overlong_varint(len(body))) + 1, 5))
    return join(records[:i]) + one + join(records[i + 1 :])


def _overlong_varint(folder: Folder, records: list[Record]) -> bytes | None:
    i = _pick(folder, records, lambda r: r[1] == VARINT and len(r[2]) < 10)
    if i is None:
        return None
    n, wt, body = records[i]
    value = varint_value(body)
    padded = overlong_varint(value, folder.rng.randint(len(body) + 1, 10))
    return join(records[:i]) + record(n, wt, padded) + join(records[i + 1 :])


def _extra_bits(folder: Folder, records: list[Record]) -> bytes | None:
    """A 10-byte varint whose last byte carries bits past the 64th, which parsers drop."""
    i = _pick(folder, records, lambda r: r[1] == VARINT)
    if i is None:
        return None
    n, wt, body = records[i]
    value = varint_value(body)
    padded = bytearray(overlong_varint(value, 10))
    padded[9] |= folder.rng.randint(1, 63) << 1
    return join(records[:i]) + record(n, wt, bytes(padded)) + join(records[i + 1 :])


def _int32_upper(folder: Folder, records: list[Record]) -> bytes | None:
    """An int32 varint with garbage in bits 32..63 (a negative one in 5 bytes):
    parsers keep the low 32 bits."""
    spec = folder.spec

    def is_int32(r: Record) -> bool:
        f = spec.by_number.get(r[0])
        return f is not None and f.kind == INT32 and not f.repeated and r[1] == VARINT

    i = _pick(folder, records, is_int32)
    if i is None:
        return None
    n, wt, body = records[i]
    value = varint_value(body)
    low = value & MASK32
    high = 0 if low >> 31 else folder.rng.randint(1, (1 << 32) - 1)
    one = record(n, wt, overlong_varint(high << 32 | low))
    return join(records[:i]) + one + join(records[i + 1 :])


def _packed_field(folder: Folder, r: Record) -> FieldSpec | None:
    f = folder.spec.by_number.get(r[0])
    return f if f is not None and f.repeated and KINDS[f.kind].packable else None


def _unpacked(folder: Folder, records: list[Record]) -> bytes | None:
    i = _pick(
        folder,
        records,
        lambda r: r[1] == LEN and bool(r[2]) and _packed_field(folder, r) is not None,
    )
    if i is None:
        return None
    n, _, body = records[i]
    f = folder.spec.by_number[n]
    wt = KINDS[f.kind].wire_type
    one = b"".join(record(n, wt, e) for e in elements(KINDS[f.kind].wire_type, body))
    return join(records[:i]) + one + join(records[i + 1 :])


def _packed(folder: Folder, records: list[Record]) -> bytes | None:
    i = _pick(folder, records, lambda r: r[1] != LEN and _packed_field(folder, r) is not None)
    if i is None:
        return None
    n = records[i][0]
    run = b"".join(r[2] for r in records if r[0] == n)
    first = min(k for k, r in enumerate(records) if r[0] == n)
    rest = [r for k, r in enumerate(records) if r[0] != n or k == first]
    at = rest.index(records[first])
    return join(rest[:at]) + record(n, LEN, run) + join(rest[at + 1 :])


def _split_packed(folder: Folder, records: list[Record]) -> bytes | None:
    def ok(r: Record) -> bool:
        f = _packed_field(folder, r)
        return f is not None and r[1] == LEN and len(elements(KINDS[f.kind].wire_type, r[2])) >= 2

    i = _pick(folder, records, ok)
    if i is None:
        return None
    n, _, body = records[i]
    items = elements(KINDS[folder.spec.by_number[n].kind].wire_type, body)
    cut = folder.rng.randint(1, len(items) - 1)
    if folder.rng.random() < 0.5:  # the first half packed, the rest one by one
        wt = KINDS[folder.spec.by_number[n].kind].wire_type
        tail = b"".join(record(n, wt, e) for e in items[cut:])
    else:
        tail = record(n, LEN, b"".join(items[cut:]))
    one = record(n, LEN, b"".join(items[:cut])) + tail
    return join(records[:i]) + one + join(records[i + 1 :])


def _empty_packed(folder: Folder, records: list[Record]) -> bytes | None:
    fields = [f for f in folder.spec.numbered if f.repeated and KINDS[f.kind].packable]
    if not fields or not records:
        return None
    f = folder.rng.choice(fields)
    return record(f.number, LEN, b"") + join(records)


def _repeated_singular(folder: Folder, records: list[Record]) -> bytes | None:
    """A singular scalar written twice: the last value wins."""
    spec = folder.spec

    def ok(r: Record) -> bool:
        f = spec.by_number.get(r[0])
        return f is not None and not f.repeated and f.kind != MESSAGE and r[1] == f.wire_type

    i = _pick(folder, records, ok)
    if i is None:
        return None
    n, wt, _ = records[i]
    f = spec.by_number[n]
    value = scalar(f, folder.rng)
    if f.kind == STRING:
        early = value.encode()
    elif f.kind == BYTES:
        early = value
    elif f.kind in (FLOAT, DOUBLE):
        early = struct.pack("<f" if f.kind == FLOAT else "<d", value)
    else:
        early = overlong_varint(value)
    return join(records[:i]) + record(n, wt, early) + join(records[i:])


def _split_message(folder: Folder, records: list[Record]) -> bytes | None:
    """A singular sub-message written as two halves, which parsers merge."""
    spec = folder.spec

    def ok(r: Record) -> bool:
        f = spec.by_number.get(r[0])
        return f is not None and f.kind == MESSAGE and not f.repeated and len(split(r[2])) >= 2

    i = _pick(folder, records, ok)
    if i is None:
        return None
    n, _, body = records[i]
    inner = split(body)
    numbers = sorted({r[0] for r in inner})
    if len(numbers) < 2:
        return None
    cut = folder.rng.choice(numbers[1:])  # each field's values stay in one half
    first = join([r for r in inner if r[0] < cut])
    second = join([r for r in inner if r[0] >= cut])
    one = record(n, LEN, first) + record(n, LEN, second)
    return join(records[:i]) + one + join(records[i + 1 :])


def _unknown_first(folder: Folder, records: list[Record]) -> bytes | None:
    if not records:
        return None
    wt = folder.rng.choice((VARINT, I64, LEN, SGROUP, I32))
    return any_record(unknown_number(folder.spec, folder.rng), wt, folder.rng) + join(records)


def _wrong_wire_type(folder: Folder, records: list[Record]) -> bytes | None:
    """A known field with a wire type its kind does not have: kept as an unknown field."""
    if not records:
        return None
    f = folder.rng.choice(folder.spec.fields)
    wrong = [wt for wt in (VARINT, I64, LEN, SGROUP, I32) if wt not in f.accepted_wire_types()]
    return any_record(f.number, folder.rng.choice(wrong), folder.rng) + join(records)


def _unknown_enum(folder: Folder, records: list[Record]) -> bytes | None:
    """An enum value the enum lacks (proto2 enums are closed): kept as an unknown field."""
    enums = [f for f in folder.spec.fields if f.kind == ENUM]
    if not enums or not records:
        return None
    f = folder.rng.choice(enums)
    assert f.enum is not None
    value = max(f.enum.values()) + folder.rng.randint(1, 100)
    return record(f.number, VARINT, overlong_varint(value)) + join(records)


TRANSFORMS: dict[str, Callable[[Folder, list[Record]], bytes | None]] = {
    "reordered": _reordered,
    "overlong-tag": _overlong_tag,
    "overlong-length": _overlong_length,
    "overlong-varint": _overlong_varint,
    "varint-extra-bits": _extra_bits,
    "int32-upper-bits": _int32_upper,
    "unpacked": _unpacked,
    "packed": _packed,
    "split-packed": _split_packed,
    "empty-packed": _empty_packed,
    "repeated-singular": _repeated_singular,
    "split-message": _split_message,
    "unknown-field-first": _unknown_first,
    "wrong-wire-type": _wrong_wire_type,
    "unknown-enum-value": _unknown_enum,
}


def _nested_transform(folder: Folder, records: list[Record], how: str) -> bytes | None:
    """The transform ``how`` applied inside a sub-message of ``records``."""
    spec = folder.spec
    found = [i for i, r in enumerate(records)
             if r[1] == LEN and r[2] and (f := spec.by_number.get(r[0])) is not None
             and f.kind == MESSAGE]  # fmt: skip
    folder.rng.shuffle(found)
    for i in found:
        n, _, body = records[i]
        inner = Folder(spec.by_number[n].message, folder.rng)
        changed = TRANSFORMS[how](inner, split(body))
        if changed is not None:
            return join(records[:i]) + record(n, LEN, changed) + join(records[i + 1 :])
    return None


def noncanonical_seeds(folder: Folder, count: int) -> None:
    bases = list(folder.bases)
    folder.rng.shuffle(bases)
    k = 0
    want = count * max(1, round(len(bases) / 60))  # more for the many tensor seeds
    for how, transform in TRANSFORMS.items():
        made = tried = 0
        while made < want and tried < 4 * want + len(bases):
            base = bases[k % len(bases)]
            k += 1
            tried += 1
            records = split(base)
            nested = tried % 2 == 0
            data = _nested_transform(folder, records, how) if nested else transform(folder, records)
            if data is not None and data != base:
                folder.add("noncanonical", f"{how}-nested" if nested else how, data)
                made += 1
