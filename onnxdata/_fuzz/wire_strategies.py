"""Hypothesis strategies below the message: non-canonical and malformed encodings.

Both rewrite protobuf's own bytes of a drawn message, field by field, with
the wire toolkit (records, over-long varints); the malformed ones take their
defect classes, names and builders from the one catalog (``defects.py``),
which the seed corpus uses too.  Hypothesis' ``draw`` is wrapped as the
catalog's :class:`~onnxdata._fuzz.defects.Picker`, so a builder draws (and
shrinks) the same way under hypothesis as it picks under ``random``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .._core.foreign import foreign_name
from .._core.schema import ENUM, KINDS, MESSAGE, FieldSpec, spec_of
from .._core.wire import FIXED_SIZES, LEN, VARINT, overlong_varint, read_varint
from .._messages.convert import as_message
from .._messages.declarations import Message
from .all_messages import ALL_MESSAGES
from .defects import (
    BY_NAME,
    FIRST_UNKNOWN,
    MAX_NUMBER,
    NAMES,
    WIRE_TYPES,
    Picker,
    Site,
    long_varint,
    payload,
    place,
)
from .records import elements, record, split
from .strategy_args import strategy_arg
from .valid_strategies import messages as all_messages

T = TypeVar("T")

DEFECTS = NAMES
"""The defect classes of :func:`malformed_encodings`, each one way bytes can be broken."""


class DrawPicker:
    """Hypothesis' ``draw`` as the catalog's picker: each choice is a draw, so it shrinks."""

    __slots__ = ("draw",)

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def choice(self, seq: Sequence[T]) -> T:
        return self.draw(st.sampled_from(seq))

    def randint(self, a: int, b: int) -> int:
        return self.draw(st.integers(a, b))

    def randbytes(self, n: int) -> bytes:
        return self.draw(st.binary(min_size=n, max_size=n))


# -- where the messages come from ---------------------------------------------------------


def _source(messages: object) -> st.SearchStrategy[Message]:
    """The messages a wire strategy encodes: onnxdata's, or onnx's converted."""
    if messages is None:
        return all_messages()
    return strategy_arg("messages", messages).map(_ours)


def _ours(value: object) -> Message:
    if isinstance(value, Message):
        return value
    if foreign_name(value) is None:
        raise InvalidArgument(f"messages drew {value!r}, not an ONNX data message")
    try:
        return as_message(value, *ALL_MESSAGES)
    except TypeError as exc:
        raise InvalidArgument(f"messages drew {value!r}: {exc}") from None


def _unknown_fields_flag(unknown_fields: object) -> bool:
    if not isinstance(unknown_fields, bool):
        raise InvalidArgument(f"unknown_fields must be a bool, not {unknown_fields!r}")
    return unknown_fields


# -- non-canonical ------------------------------------------------------------------------


def _field(pick: Picker, number: int, wire_type: int, body: bytes) -> bytes:
    """A field whose tag, and length prefix, may be over-long."""
    tag = long_varint(pick, number << 3 | wire_type, 5)
    if wire_type == LEN:
        return tag + long_varint(pick, len(body), 5) + body
    return tag + body


def _restate(pick: Picker, wire_type: int, element: bytes) -> bytes:
    """An element as it was, a varint perhaps over-long."""
    if wire_type == VARINT:
        return long_varint(pick, read_varint(element, 0, len(element))[0])
    return element


def _packable_chunks(pick: Picker, f: FieldSpec, payload: bytes) -> list[bytes]:
    """A packable field's values, packed or not (whichever it was, or the other form)."""
    wire_type = KINDS[f.kind].wire_type
    elems = elements(wire_type, payload) if f.packed else [payload]
    other_form = pick.randint(0, 1)
    if f.packed and other_form:  # unpacked
        return [_field(pick, f.number, wire_type, _restate(pick, wire_type, e)) for e in elems]
    if f.packed or other_form:  # packed (the field's own elements, or one written alone)
        body = b"".join([_restate(pick, wire_type, e) for e in elems])
        return [_field(pick, f.number, LEN, body)]
    return [_field(pick, f.number, wire_type, _restate(pick, wire_type, payload))]


def _scalar_chunks(pick: Picker, f: FieldSpec, wire_type: int, payload: bytes) -> list[bytes]:
    """A scalar or string field, sometimes after a value of its own that it overrides."""
    out = []
    if not f.repeated and pick.randint(0, 4) == 0:
        if wire_type == LEN:
            dup = pick.randbytes(pick.randint(0, 4))
        elif wire_type == VARINT:
            values = f.enum.values() if f.kind == ENUM and f.enum is not None else None
            dup = overlong_varint(pick.choice(values) if values else pick.randint(0, 2**64 - 1))
        else:
            dup = pick.randbytes(FIXED_SIZES[wire_type])
        out.append(_field(pick, f.number, wire_type, dup))
    body = _restate(pick, wire_type, payload) if wire_type == VARINT else payload
    out.append(_field(pick, f.number, wire_type, body))
    return out


def _message_chunks(pick: Picker, f: FieldSpec, body: bytes, depth: int) -> list[bytes]:
    """A sub-message, its fields re-encoded perhaps; a singular one sometimes split in
    two occurrences, which protobuf merges (each inner field's values in one half)."""
    if depth < 4 and pick.randint(0, 1):
        inner = _reencode(pick, f.message, body, depth + 1)
    else:
        inner = [(n, record(n, wt, b)) for n, wt, b in split(body)]
    numbers = sorted({n for n, _ in inner})
    if not f.repeated and len(numbers) >= 2 and pick.randint(0, 2) == 0:
        cut = pick.choice(numbers[1:])
        first = b"".join([c for n, c in inner if n < cut])
        second = b"".join([c for n, c in inner if n >= cut])
        return [_field(pick, f.number, LEN, first), _field(pick, f.number, LEN, second)]
    return [_field(pick, f.number, LEN, b"".join([c for _, c in inner]))]


def _sibling_first(pick: Picker, f: FieldSpec, members: tuple[FieldSpec, ...]) -> bytes:
    """Another member of ``f``'s oneof, written before it: the last member set wins."""
    other = pick.choice([g for g in members if g is not f])
    if other.kind == MESSAGE:
        return _field(pick, other.number, LEN, b"")
    wire_type = KINDS[other.kind].wire_type
    body = payload(pick, wire_type)
    if wire_type == LEN:
        return long_varint(pick, other.number << 3 | LEN, 5) + body
    return _field(pick, other.number, wire_type, body)


def _reencode(pick: Picker, cls: type[Message], data: bytes, depth: int) -> list[tuple[int, bytes]]:
    """Valid non-canonical chunks ``(number, bytes)`` for the fields of ``data``."""
    fields = spec_of(cls).by_number
    chunks: list[tuple[int, bytes]] = []
    for number, wire_type, body in split(data):
        f = fields[number]
        if f.kind == MESSAGE:
            found = _message_chunks(pick, f, body, depth)
        elif f.repeated and KINDS[f.kind].packable:
            found = _packable_chunks(pick, f, body)
        else:
            found = _scalar_chunks(pick, f, wire_type, body)
        members = spec_of(cls).oneofs.get(f.oneof or "", ())
        if len(members) > 1 and pick.randint(0, 2) == 0:
            # One chunk, so that shuffling the fields keeps the sibling before the member.
            found = [_sibling_first(pick, f, members) + b"".join(found)]
        chunks.extend((number, c) for c in found)
    return chunks


def _unknown_field(pick: Picker) -> bytes:
    number = pick.randint(FIRST_UNKNOWN, MAX_NUMBER)
    wire_type = pick.choice(WIRE_TYPES)
    return long_varint(pick, number << 3 | wire_type, 5) + payload(pick, wire_type)


def _mistyped_field(pick: Picker, cls: type[Message]) -> bytes:
    """A known field with a wire type it does not take: protobuf keeps it as unknown."""
    wrong = [(f.number, wt) for f in spec_of(cls).fields for wt in WIRE_TYPES
             if wt not in f.accepted_wire_types()]  # fmt: skip
    number, wire_type = pick.choice(wrong)
    return long_varint(pick, number << 3 | wire_type, 5) + payload(pick, wire_type)


def noncanonical_encodings(
    messages: st.SearchStrategy[Any] | None = None, *, unknown_fields: bool = True
) -> st.SearchStrategy[tuple[Message, bytes]]:
    """``(message, data)``: ``type(message).decode(data) == message``, and
    protobuf parses ``data`` to the same message, but ``data`` is never what
    protobuf writes (``data != message.encode()``).

    Fields are reordered (each field's own occurrences keep their order),
    packed fields unpacked and unpacked ones packed, varints, tags and lengths
    over-long, singular scalars preceded by a value that the last one
    overrides; with ``unknown_fields`` (the default), unknown field numbers and
    known numbers with a wire type the field does not take are added, which
    ``message.unknown_fields`` then holds, in arrival order, as protobuf keeps
    them.  When every choice happened to keep the canonical bytes, the first
    tag of a known field is written one byte longer.  An empty message (an
    entry or a segment with nothing set) becomes an empty packed run where its
    type has a repeated scalar field, and is not drawn otherwise.

    The messages come from ``messages`` (default: :func:`messages`): onnxdata
    messages, or onnx's (converted; ``message`` is then onnxdata's), with no
    unknown fields of their own.

    Raises:
        InvalidArgument: ``messages`` is not a strategy, or draws something
            else than a message, or a message with unknown fields.
    """
    source = _source(messages)
    return _noncanonical(source, _unknown_fields_flag(unknown_fields))


@st.composite
def _noncanonical(
    draw: st.DrawFn, source: st.SearchStrategy[Message], unknown_fields: bool
) -> tuple[Message, bytes]:
    msg = draw(source)
    if getattr(msg, "unknown_fields", b""):
        raise InvalidArgument("noncanonical_encodings needs messages without unknown fields")
    cls = type(msg)
    pick = DrawPicker(draw)
    canonical = msg.encode()
    if not canonical:
        # An empty message has one other valid form, an empty packed run (unknown
        # fields are kept byte for byte, so they would be written back as they came).
        packable = [f for f in spec_of(cls).fields if f.repeated and KINDS[f.kind].packable]
        assume(packable)
        f = pick.choice(packable)
        return copy.copy(msg), _field(pick, f.number, LEN, b"")
    chunks = _reencode(pick, cls, canonical, 0)
    # Shuffle, then restore each field's own order: only order across numbers changes.
    order = draw(st.permutations(range(len(chunks))))
    by_number: dict[int, list[bytes]] = {}
    for number, chunk in chunks:
        by_number.setdefault(number, []).append(chunk)
    queues = {n: iter(found) for n, found in by_number.items()}
    out = [next(queues[chunks[i][0]]) for i in order]
    extras: list[int] = []  # the positions in out of the added fields
    if unknown_fields:
        for _ in range(pick.randint(0, 3)):
            extra = _mistyped_field(pick, cls) if pick.randint(0, 1) else _unknown_field(pick)
            at = pick.randint(0, len(out))
            out.insert(at, extra)
            extras = [i + (i >= at) for i in extras] + [at]
    expected: Any = copy.copy(msg)
    if extras:
        expected.unknown_fields = b"".join(out[i] for i in sorted(extras))
    if b"".join(out) == expected.encode():
        # Every choice kept protobuf's bytes: write one tag a byte longer.
        i = min(i for i in range(len(out)) if i not in extras)
        tag, end = read_varint(out[i], 0, len(out[i]))
        out[i] = overlong_varint(tag, end + 1) + out[i][end:]
    return expected, b"".join(out)


# -- malformed ------------------------------------------------------------------------------


def malformed_encodings(
    messages: st.SearchStrategy[Any] | None = None,
    *,
    defects: Iterable[str] | None = None,
    unknown_fields: bool = True,
) -> st.SearchStrategy[tuple[type[Message], bytes, str]]:
    """``(type, data, defect)``: ``type.decode(data)`` must raise
    :class:`~onnxdata.DecodeError`, and protobuf must refuse ``data`` too.

    ``defect`` is one of :data:`DEFECTS` (all of them, or those in
    ``defects``), the classes of the one catalog the seed corpus uses too
    (docs/fuzzing.md lists them): cuts and truncations, field number 0 or at
    least 2^29, wire type 6 or 7, over-long tags, varints and lengths,
    lengths past the end, group errors, bad packed runs, nesting deeper than
    protobuf's limit of 100.  The defect is put between two whole fields of
    an encoded message (from ``messages``, onnxdata's or onnx's; ``type`` is
    always onnxdata's class), or at its end when it runs to the end, or the
    encoding is cut inside a field.  A defect the message cannot hold (a bad
    packed float run where there is no float field, nesting in a message
    that cannot hold itself) comes alone, in a message that can
    (``TensorProto``, ``OptionalProto``).  With ``unknown_fields=False``
    every top-level field number written is one the type knows, so the bytes
    are broken only by the defect, never by an unknown field.

    Raises:
        InvalidArgument: ``defects`` is empty or names an unknown defect;
            ``messages`` is not a strategy of messages.
    """
    source = _source(messages)
    flag = _unknown_fields_flag(unknown_fields)
    chosen: tuple[str, ...]
    if defects is None:
        chosen = DEFECTS
    else:
        if isinstance(defects, str) or not isinstance(defects, Iterable):
            raise InvalidArgument(f"defects must be a collection of names, not {defects!r}")
        chosen = tuple(dict.fromkeys(defects))
        unknown = [d for d in chosen if d not in BY_NAME]
        if unknown or not chosen:
            raise InvalidArgument(
                f"defects must be a non-empty subset of DEFECTS: {unknown or chosen}"
            )
    return _malformed(source, chosen, flag)


@st.composite
def _malformed(
    draw: st.DrawFn,
    source: st.SearchStrategy[Message],
    chosen: tuple[str, ...],
    unknown_fields: bool,
) -> tuple[type[Message], bytes, str]:
    msg = draw(source)
    cls = type(msg)
    name = draw(st.sampled_from(chosen))
    defect = BY_NAME[name]
    pick = DrawPicker(draw)
    data = place(defect, cls, msg.encode(), pick, unknown_fields)
    if data is not None:
        return cls, data, name
    assume(defect.build is not None)  # a cut needs a field of two bytes or more
    assert defect.build is not None and defect.fallback is not None
    fragment = defect.build(pick, Site(defect.fallback, 0, unknown_fields))
    assert fragment is not None
    return defect.fallback, fragment, name
