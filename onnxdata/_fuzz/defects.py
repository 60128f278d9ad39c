"""The one catalog of malformed-input classes: bytes every parser must reject.

Each class has one name, used everywhere: in ``onnxdata.strategies.DEFECTS``
and ``malformed_encodings``, and, as :func:`slug` makes it a file name, in the
seed corpus (``malformed-<slug>-<i>.pb``).  Each has one builder, which both
use: it draws from a :class:`Picker`, which a ``random.Random`` is (the
corpus) and which the strategies make of hypothesis' ``draw``.

A builder gives the bytes of the defect inside a message of ``cls`` (the
fragment), or None when the class cannot occur there (no packed float field,
no chain of sub-messages back to the message): ``fallback`` then names a
message type where it can.  Where the fragment goes is its ``placement``:

- ``between``: between two whole fields, anywhere;
- ``end``: after the last field, since it runs to the end (a truncation);
- ``cut``: no fragment: the encoding itself is cut inside a field.

``rest`` is how many bytes of the message follow the fragment: a length
that must run past the end counts them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from .._core.errors import DecodeError
from .._core.schema import KINDS, MessageSpec, spec_of
from .._core.wire import (
    EGROUP,
    FIXED_SIZES,
    I32,
    I64,
    LEN,
    MAX_DEPTH,
    SGROUP,
    VARINT,
    iter_fields,
    overlong_varint,
    tag_bytes,
)
from .._messages.declarations import Message, OptionalProto, TensorProto
from .all_messages import ALL_MESSAGES
from .records import record
from .samples import deep_path

T = TypeVar("T")

# The first field number no message knows: unknown fields are drawn from there up.
FIRST_UNKNOWN = max(n for cls in ALL_MESSAGES for n in spec_of(cls).by_number) + 1
MAX_NUMBER = (1 << 29) - 1  # the largest field number protobuf allows
WIRE_TYPES = (VARINT, I64, LEN, I32)  # those a field can have (not the group markers)


class Picker(Protocol):
    """The random choices a builder makes: ``random.Random`` has them, and so does the
    strategies' wrapper of hypothesis' ``draw``."""

    def choice(self, seq: Sequence[T]) -> T: ...

    def randint(self, a: int, b: int) -> int: ...

    def randbytes(self, n: int) -> bytes: ...


class Site:
    """Where a fragment goes: the message type, the bytes after it, and whether field
    numbers the type does not know may be written."""

    __slots__ = ("cls", "rest", "spec", "unknown_fields")

    def __init__(self, cls: type[Message], rest: int = 0, unknown_fields: bool = True) -> None:
        self.cls = cls
        self.spec: MessageSpec = spec_of(cls)
        self.rest = rest
        self.unknown_fields = unknown_fields


Builder = Callable[[Picker, Site], "bytes | None"]


class Defect:
    """One class of malformed input: its name, what it is, where it goes, how it is built."""

    __slots__ = ("build", "fallback", "name", "placement", "summary")

    def __init__(self, name: str, summary: str, placement: str, build: Builder | None,
                 fallback: type[Message] | None = None) -> None:  # fmt: skip
        self.name = name
        self.summary = summary
        self.placement = placement
        self.build = build
        self.fallback = fallback

    def __repr__(self) -> str:
        return f"Defect({self.name!r})"


def slug(name: str) -> str:
    """A defect's name as a file name: ``"field number 2^29 or above"`` ->
    ``"field-number-2-29-or-above"``."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


# -- choosing numbers -------------------------------------------------------------------


def number_for(pick: Picker, site: Site, wire_types: Sequence[int] = WIRE_TYPES) -> int:
    """A field number of the message that takes one of ``wire_types``; when unknown fields
    are allowed, sometimes one it does not know.  When no field takes them: an unknown
    number if allowed, else any known one (protobuf then reads the field as unknown, and
    the defect stays)."""
    fields = site.spec.fields
    known = [f.number for f in fields if set(f.accepted_wire_types()) & set(wire_types)]
    if site.unknown_fields and (not known or pick.randint(0, 1)):
        return pick.randint(FIRST_UNKNOWN, MAX_NUMBER)
    return pick.choice(known or [f.number for f in fields])


def long_varint(pick: Picker, value: int, max_len: int = 10) -> bytes:
    """``value`` as a varint, sometimes over-long (up to ``max_len`` bytes)."""
    size = len(overlong_varint(value))
    if size < max_len and pick.randint(0, 1):
        return overlong_varint(value, pick.randint(size + 1, max_len))
    return overlong_varint(value)


def payload(pick: Picker, wire_type: int) -> bytes:
    """A well-formed body of ``wire_type`` (a LEN field's length prefix included)."""
    if wire_type == VARINT:
        return long_varint(pick, pick.choice((0, 1, 300, 1 << 40, (1 << 64) - 1)))
    if wire_type == LEN:
        body = pick.randbytes(pick.randint(0, 6))
        return overlong_varint(len(body)) + body
    return pick.randbytes(FIXED_SIZES[wire_type])


def _tag(pick: Picker, number: int, wire_type: int) -> bytes:
    return long_varint(pick, number << 3 | wire_type, 5)


# -- the builders ---------------------------------------------------------------------------


def _truncated_tag(pick: Picker, site: Site) -> bytes:
    tag = _tag(pick, number_for(pick, site), pick.choice(WIRE_TYPES))
    if len(tag) == 1:
        tag = overlong_varint(tag[0], pick.randint(2, 5))
    return tag[: pick.randint(1, len(tag) - 1)]


def _truncated(wire_type: int) -> Builder:
    def build(pick: Picker, site: Site) -> bytes:
        tag = _tag(pick, number_for(pick, site, (wire_type,)), wire_type)
        if wire_type == VARINT:
            return tag + b"\xff" * pick.randint(1, 9)
        if wire_type == LEN:
            return tag + b"\x80" * pick.randint(1, 4)
        return tag + pick.randbytes(pick.randint(0, FIXED_SIZES[wire_type] - 1))

    return build


def _length_past_end(pick: Picker, site: Site) -> bytes:
    body = pick.randbytes(pick.randint(0, 4))
    extra = pick.randint(1, 9) if pick.randint(0, 1) else pick.choice((1 << 20, 1 << 28, 1 << 31))
    n = site.rest + len(body) + extra
    return _tag(pick, number_for(pick, site, (LEN,)), LEN) + long_varint(pick, n, 5) + body


def _bad_wire_type(wire_type: int) -> Builder:
    def build(pick: Picker, site: Site) -> bytes:
        return _tag(pick, number_for(pick, site), wire_type) + payload(pick, VARINT)

    return build


def _field_number_0(pick: Picker, site: Site) -> bytes:
    wire_type = pick.choice(WIRE_TYPES)
    return long_varint(pick, wire_type, 5) + payload(pick, wire_type)


def _field_number_too_large(pick: Picker, site: Site) -> bytes:
    number = pick.choice((1 << 29, (1 << 29) + 1, 1 << 30, 1 << 31, (1 << 32) - 1))
    number = pick.randint(MAX_NUMBER + 1, (1 << 32) - 1) if pick.randint(0, 1) else number
    wire_type = pick.choice(WIRE_TYPES)
    return tag_bytes(number, wire_type) + payload(pick, wire_type)


def _tag_too_long(pick: Picker, site: Site) -> bytes:
    return overlong_varint(number_for(pick, site) << 3 | VARINT, pick.randint(6, 10)) + b"\x00"


def _varint_too_long(pick: Picker, site: Site) -> bytes:
    number = number_for(pick, site, (VARINT, LEN))
    f = site.spec.by_number.get(number)
    wire_type = LEN if f is not None and VARINT not in f.accepted_wire_types() else VARINT
    return tag_bytes(number, wire_type) + b"\x80" * pick.randint(10, 12) + b"\x00"


def _length_too_long(pick: Picker, site: Site) -> bytes:
    k = pick.randint(0, 4)
    tag = _tag(pick, number_for(pick, site, (LEN,)), LEN)
    return tag + overlong_varint(k, pick.randint(6, 10)) + pick.randbytes(k)


def _unmatched_end_group(pick: Picker, site: Site) -> bytes:
    return tag_bytes(number_for(pick, site), EGROUP)


def _mismatched_end_group(pick: Picker, site: Site) -> bytes:
    number = number_for(pick, site)
    other = number + 1 if number < MAX_NUMBER else number - 1
    return tag_bytes(number, SGROUP) + tag_bytes(other, EGROUP)


def _unterminated_group(pick: Picker, site: Site) -> bytes:
    number = number_for(pick, site)
    return tag_bytes(number, SGROUP) + record(1, VARINT, overlong_varint(pick.randint(0, 300)))


def _wrong_wire_type_cut_short(pick: Picker, site: Site) -> bytes:
    """A known field with a wire type it does not take, its body running past the end; or a
    start-group (no field of these messages is a group) never closed."""
    wrong = [(f.number, wt) for f in site.spec.fields for wt in WIRE_TYPES
             if wt not in f.accepted_wire_types()]  # fmt: skip
    number, wire_type = pick.choice([*wrong, (0, SGROUP)])
    if number == 0:
        return tag_bytes(pick.choice([f.number for f in site.spec.fields]), SGROUP)
    tag = tag_bytes(number, wire_type)
    if wire_type == LEN:
        return tag + overlong_varint(site.rest + pick.randint(1, 8))
    if wire_type == VARINT:
        return tag + b"\x80" * pick.randint(0, 3)
    return tag + b"\x00" * pick.randint(0, FIXED_SIZES[wire_type] - 1)


def _groups_too_deep(pick: Picker, site: Site) -> bytes:
    number = number_for(pick, site)
    deep = MAX_DEPTH + 1
    return tag_bytes(number, SGROUP) * deep + tag_bytes(number, EGROUP) * deep


def _nested_too_deep(pick: Picker, site: Site) -> bytes | None:
    """101 sub-messages inside one another, along the chain of fields back to the message
    (or down to the nearest message that holds itself: a model's graph's subgraphs)."""
    path = deep_path(site.cls, MAX_DEPTH + 1)
    if path is None:
        return None
    inner = b""
    for f in reversed(path):
        inner = record(f.number, LEN, inner)
    return inner


def _packed_bad_size(typecode: str) -> Builder:
    def build(pick: Picker, site: Site) -> bytes | None:
        found = [f for f in site.spec.numbered if f.typecode == typecode]
        if not found:
            return None
        size = 4 if typecode == "f" else 8
        n = pick.choice([m for m in range(1, 3 * size) if m % size])
        tag = _tag(pick, pick.choice(found).number, LEN)
        return tag + long_varint(pick, n, 5) + pick.randbytes(n)

    return build


def _packed_varint(body: Callable[[Picker], bytes]) -> Builder:
    def build(pick: Picker, site: Site) -> bytes | None:
        found = [f for f in site.spec.numbered if f.repeated and KINDS[f.kind].wire_type == VARINT]
        if not found:
            return None
        good = overlong_varint(pick.randint(0, (1 << 20) - 1))
        return record(pick.choice(found).number, LEN, good + body(pick))

    return build


def _length_past_submessage(pick: Picker, site: Site) -> bytes | None:
    """A sub-message whose last field's length runs past the sub-message (not the input)."""
    children = list(site.spec.children())
    if not children:
        return None
    f = pick.choice(children)
    last = number_for(pick, Site(f.message, 0, site.unknown_fields), (LEN,))
    inner = f.message().encode() + tag_bytes(last, LEN) + overlong_varint(12)
    inner += pick.randbytes(2)
    filler_number = FIRST_UNKNOWN if site.unknown_fields else f.number
    return record(f.number, LEN, inner) + record(filler_number, LEN, pick.randbytes(12))


# -- the catalog ----------------------------------------------------------------------------

# fmt: off
CATALOG: tuple[Defect, ...] = (
    Defect("truncated", "the encoding cut inside a field", "cut", None),
    Defect("truncated tag", "a multi-byte tag (over-long when the field's is one byte) cut at "
           "the end", "end", _truncated_tag),
    Defect("truncated varint", "a varint value cut at the end", "end", _truncated(VARINT)),
    Defect("truncated length", "a length prefix cut at the end", "end", _truncated(LEN)),
    Defect("truncated fixed32", "a fixed32 value cut at the end", "end", _truncated(I32)),
    Defect("truncated fixed64", "a fixed64 value cut at the end", "end", _truncated(I64)),
    Defect("length past the end", "a length prefix larger than the bytes left", "between",
           _length_past_end),
    Defect("length past the sub-message", "a field's length runs past the end of its "
           "sub-message (not of the input)", "between", _length_past_submessage,
           TensorProto),
    Defect("wire type 6", "a tag with wire type 6, which does not exist", "between",
           _bad_wire_type(6)),
    Defect("wire type 7", "a tag with wire type 7, which does not exist", "between",
           _bad_wire_type(7)),
    Defect("field number 0", "a tag of field 0, with a well-formed body", "between",
           _field_number_0),
    Defect("field number 2^29 or above", "a 5-byte tag of a field number from 2^29 to "
           "2^32 - 1", "between", _field_number_too_large),
    Defect("tag longer than 5 bytes", "a 6- to 10-byte tag", "between", _tag_too_long),
    Defect("varint longer than 10 bytes", "an 11- to 13-byte varint as a value or a length",
           "between", _varint_too_long),
    Defect("length longer than 5 bytes", "a length prefix of 6 to 10 bytes (of a small length)",
           "between", _length_too_long),
    Defect("unmatched end-group", "an end-group tag with no start-group", "between",
           _unmatched_end_group),
    Defect("mismatched end-group", "a group closed by the end-group tag of another field",
           "between", _mismatched_end_group),
    Defect("unterminated group", "a start-group, a field, and the end", "end",
           _unterminated_group),
    Defect("wrong wire type, cut short", "a known field with a wire type it does not take "
           "whose body runs past the end, or a start-group never closed", "end",
           _wrong_wire_type_cut_short),
    Defect("groups nested too deep", "101 groups inside one another", "between",
           _groups_too_deep),
    Defect("nested too deep", "101 sub-messages inside one another (a message holding "
           "itself; else OptionalProto)", "between", _nested_too_deep, OptionalProto),
    Defect("packed float payload not a multiple of 4", "a packed float run of 1 to 11 bytes, "
           "not a multiple of 4 (else a TensorProto)", "between", _packed_bad_size("f"),
           TensorProto),
    Defect("packed double payload not a multiple of 8", "a packed double run of 1 to 23 "
           "bytes, not a multiple of 8 (else a TensorProto)", "between", _packed_bad_size("d"),
           TensorProto),
    Defect("packed varint cut short", "a packed varint run whose last varint is cut",
           "between", _packed_varint(lambda pick: b"\x80"), TensorProto),
    Defect("packed varint longer than 10 bytes", "a packed varint run holding an 11-byte "
           "varint", "between", _packed_varint(lambda pick: b"\xff" * 10 + b"\x01"),
           TensorProto),
)
# fmt: on
"""Every defect class, in the order the documentation lists them."""

BY_NAME = {d.name: d for d in CATALOG}
NAMES = tuple(d.name for d in CATALOG)


# -- putting a defect into a message ------------------------------------------------------


def boundaries(data: bytes) -> list[int]:
    """The offsets between the whole top-level fields of ``data``, 0 first, as far as the
    fields parse (a fuzzer's input may be broken already)."""
    found = [0]
    try:
        for f in iter_fields(data):
            found.append(f.end)
    except DecodeError:
        pass
    return found


def place(defect: Defect, cls: type[Message], data: bytes, pick: Picker,
          unknown_fields: bool = True) -> bytes | None:  # fmt: skip
    """``data`` (an encoding of ``cls``) with ``defect`` in it, where its placement says;
    None when the defect cannot occur in ``cls`` or, for a cut, when no field of
    ``data`` has two bytes to cut between."""
    bounds = boundaries(data)
    if defect.build is None:  # a cut inside a field
        whole = [i for i in range(len(bounds) - 1) if bounds[i + 1] - bounds[i] >= 2]
        if not whole:
            return None
        i = pick.choice(whole)
        return data[: pick.randint(bounds[i] + 1, bounds[i + 1] - 1)]
    at = len(data) if defect.placement == "end" else pick.choice(bounds)
    fragment = defect.build(pick, Site(cls, len(data) - at, unknown_fields))
    if fragment is None:
        return None
    return data[:at] + fragment + data[at:]


def applies(defect: Defect, cls: type[Message]) -> bool:
    """Whether ``defect`` can occur in a message of ``cls`` itself (a cut always can)."""
    return defect.build is None or defect.build(_PROBE, Site(cls)) is not None


class _Probe:
    """A picker that always takes the first choice and the lowest value: enough to learn
    whether a builder applies."""

    def choice(self, seq: Sequence[T]) -> T:
        return seq[0]

    def randint(self, a: int, b: int) -> int:
        return a

    def randbytes(self, n: int) -> bytes:
        return bytes(n)


_PROBE = _Probe()
