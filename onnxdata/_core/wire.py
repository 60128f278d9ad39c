"""Protobuf wire primitives on ``(buf, pos, end)``: varints, tags, skipping.

The decoder works on one byte ``memoryview`` and integer positions, never on
slices, so a sub-message costs nothing to enter.  ``end`` is the end of the
enclosing message: no read may cross it.  Every rule here follows protobuf's
upb parser, the reference: see ``docs/wire-format.md``.

This is the one wire cursor: every reader of bytes outside the generated
decoders (whose inline one-byte paths are the only copy) steps with it, from a
varint (``read_varint``) to a field (``read_field``, ``iter_fields``, and
``fields`` for loops over many small ones), so each rule and each error, with
its offset, is written once.  Field numbers come from the schema, never from
here; this module knows the wire, not the messages.
"""

from __future__ import annotations

import re
import sys
from array import array
from collections.abc import Iterator
from typing import NamedTuple

from .errors import DecodeError

# Re-exported: the codec takes them from here.
from .own_values import own_bytes as own_bytes
from .own_values import own_utf8 as own_utf8

MASK32 = 0xFFFF_FFFF
MASK64 = 0xFFFF_FFFF_FFFF_FFFF
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

# Wire types: defined here once, for every module that reads or writes the wire.
VARINT, I64, LEN, SGROUP, EGROUP, I32 = 0, 1, 2, 3, 4, 5
# The names ``protoc --decode_raw`` and the encoding guide give them.
WIRE_TYPE_NAMES = {VARINT: "varint", I64: "i64", LEN: "len", SGROUP: "sgroup",
                   EGROUP: "egroup", I32: "i32"}  # fmt: skip
# The size of a fixed-width payload.
FIXED_SIZES = {I64: 8, I32: 4}

# upb's limit: the top-level message plus 100 nested messages or groups.
MAX_DEPTH = 100

# The smallest length that needs more than 5 varint bytes: 2**35 (32 GiB).
BIG_LENGTH = 1 << 35

BIG_ENDIAN = sys.byteorder == "big"

# What the decoder reads from: the input itself when it is ``bytes``, else a byte view.
Buf = bytes | memoryview


def _lanes(lane: int, bits: int) -> int:
    """A mask of the low ``bits`` of every ``lane``-bit lane of an 80-bit number."""
    return sum(((1 << bits) - 1) << i for i in range(0, 80, lane))


# A varint of up to 10 bytes, read as one little-endian number with its
# continuation bits cleared, becomes its value by squeezing out every 8th bit:
# 7-bit groups pair into 14, 28, then 56 bits.  Encoding spreads the bits the
# other way.  A dozen big-int operations beat a Python loop over 10 bytes.
SEVENS = _lanes(8, 7)
LO14, HI14 = _lanes(16, 7), _lanes(16, 7) << 8
LO28, HI28 = _lanes(32, 14), _lanes(32, 14) << 16
LO56, HI56 = _lanes(64, 28), _lanes(64, 28) << 32
LOW56 = (1 << 56) - 1
# CONTINUED[k]: the continuation bits of a k-byte varint (all bytes but the last).
CONTINUED = [0] + [int.from_bytes(b"\x80" * (k - 1) + b"\0", "little") for k in range(1, 11)]


def past_end(buf: Buf, end: int, pos: int) -> str:
    """Which end an item at ``pos`` runs past, and how many bytes were left.

    Inside a sub-message "the end" alone would mislead: the input goes on.
    """
    n = end - pos
    left = f"{n} byte{'s' if n != 1 else ''} left"
    if end == len(buf):
        return f"the end of the input ({left})"
    return f"the end of the enclosing message at offset {end} ({left})"


def read_varint(buf: Buf, pos: int, end: int) -> tuple[int, int]:
    """Read a varint of at most 10 bytes at ``pos``; the value wraps to 64 bits.

    upb ignores the bits a 10th byte carries beyond the 64th, so do we.
    """
    start = pos
    result = 0
    shift = 0
    while pos < end:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & MASK64, pos
        shift += 7
        if shift == 70:
            raise DecodeError(f"varint at offset {start} is longer than 10 bytes", start)
    raise DecodeError(f"varint at offset {start} runs past {past_end(buf, end, start)}", start)


def read_tag(buf: Buf, pos: int, end: int) -> tuple[int, int]:
    """Read a tag: at most 5 bytes and a value below 2**32, as upb requires."""
    start = pos
    result = 0
    shift = 0
    while pos < end:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            if result > MASK32:
                raise DecodeError(f"tag at offset {start} is larger than 32 bits", start)
            return result, pos
        shift += 7
        if shift == 35:
            raise DecodeError(f"tag at offset {start} is longer than 5 bytes", start)
    raise DecodeError(f"tag at offset {start} runs past {past_end(buf, end, start)}", start)


def read_length(buf: Buf, pos: int, end: int) -> tuple[int, int]:
    """Read a length prefix and check that the payload fits before ``end``.

    The check comes before anything is allocated, so a forged length costs nothing.
    Like upb, a length takes at most 5 bytes (35 bits), except that a payload
    of 32 GiB or more, which upb cannot hold anyway, may take the 6 to 10
    bytes its value needs: there is no size ceiling here.
    """
    start = pos
    if end - pos >= 2:  # one or two bytes, the usual lengths, without the loop
        n = buf[pos]
        if n < 0x80:
            pos += 1
        else:
            b = buf[pos + 1]
            if b < 0x80:
                n = (n & 0x7F) | (b << 7)
                pos += 2
        if pos > start:
            if n > end - pos:
                raise DecodeError(
                    f"length {n} at offset {start} runs past {past_end(buf, end, pos)}", start
                )
            return n, pos
    n = 0
    shift = 0
    while True:
        if pos >= end:
            raise DecodeError(
                f"length at offset {start} runs past {past_end(buf, end, start)}", start
            )
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if b < 0x80:
            break
        shift += 7
        if shift == 70:
            raise DecodeError(f"length at offset {start} is longer than 10 bytes", start)
    if shift >= 35 and n < BIG_LENGTH:
        # upb reads at most 5 bytes; only a payload of 32 GiB or more needs a sixth.
        raise DecodeError(f"length at offset {start} is longer than 5 bytes", start)
    if n > end - pos:
        raise DecodeError(
            f"length {n} at offset {start} runs past {past_end(buf, end, pos)}", start
        )
    return n, pos


def to_int32(v: int) -> int:
    """The low 32 bits of a decoded varint, as a signed ``int32``."""
    v &= MASK32
    return v - (1 << 32) if v > INT32_MAX else v


def known_enum_value(buf: Buf, pos: int, end: int, known: frozenset[int]) -> bool:
    """Whether the varint at ``pos`` is a value ``known`` to a closed enum.

    proto2 enums are closed: a field whose value the enum does not name is an
    unknown field, kept byte for byte (and written last).  upb reads the value
    as an ``int32``.  A truncated varint counts as known, so that the normal
    path reading it raises the error.
    """
    try:
        v = read_varint(buf, pos, end)[0]
    except DecodeError:
        return True
    return to_int32(v) in known


def to_int64(v: int) -> int:
    return v - (1 << 64) if v > INT64_MAX else v


def skip_field(buf: Buf, start: int, pos: int, end: int, tag: int, depth: int) -> int:
    """Skip an unknown field whose tag runs from ``start`` to ``pos``; return the new position.

    Its raw bytes are then kept.  Field number 0 is refused here, for a
    message's own fields; upb lets it pass inside a group, and so does
    ``skip_group``.
    """
    if tag >> 3 == 0:
        raise DecodeError(f"field number 0 at offset {start}", start)
    return skip_payload(buf, start, pos, end, tag, depth)


def skip_payload(buf: Buf, start: int, pos: int, end: int, tag: int, depth: int) -> int:
    """Skip the payload of any wire type; a group to its matching end-group tag."""
    wire_type = tag & 7
    if wire_type == VARINT:
        return read_varint(buf, pos, end)[1]
    if wire_type == LEN:
        n, pos = read_length(buf, pos, end)
        return pos + n
    if wire_type in (I64, I32):
        size = 8 if wire_type == I64 else 4
        if size > end - pos:
            raise DecodeError(
                f"field {tag >> 3} (fixed{size * 8}) at offset {pos} runs past "
                f"{past_end(buf, end, pos)}",
                pos,
            )
        return pos + size
    if wire_type == SGROUP:
        return skip_group(buf, start, pos, end, tag >> 3, depth)
    if wire_type == EGROUP:
        raise DecodeError(
            f"end-group tag for field {tag >> 3} at offset {start} with no group open", start
        )
    raise DecodeError(
        f"invalid wire type {wire_type} for field {tag >> 3} at offset {start}", start
    )


def skip_group(buf: Buf, start: int, pos: int, end: int, number: int, depth: int) -> int:
    """Skip a group (its start tag at ``start``) up to and including its end-group tag.

    A group counts against the nesting limit, as a sub-message does.
    """
    if depth <= 0:
        raise DecodeError(
            f"nesting deeper than {MAX_DEPTH} messages or groups at offset {start}", start
        )
    while pos < end:
        tag_pos = pos
        tag, pos = read_tag(buf, pos, end)
        if tag & 7 == EGROUP:
            if tag >> 3 != number:
                raise DecodeError(
                    f"end-group tag for field {tag >> 3} at offset {tag_pos} closes "
                    f"the group of field {number}",
                    tag_pos,
                )
            return pos
        pos = skip_payload(buf, tag_pos, pos, end, tag, depth - 1)
    where = "the input" if end == len(buf) else "the enclosing message"
    raise DecodeError(
        f"group of field {number} at offset {start} is not closed before the end of "
        f"{where} (offset {end})",
        start,
    )


def packed_fixed_error(pos: int, n: int, typecode_size: int) -> DecodeError:
    return DecodeError(
        f"packed {'float' if typecode_size == 4 else 'double'} field of {n} bytes "
        f"at offset {pos} is not a multiple of {typecode_size}",
        pos,
    )


def read_packed_fixed(buf: Buf, pos: int, n: int, out: array[float], typecode_size: int) -> None:
    """Append ``n`` bytes of packed little-endian floats to ``out`` in one call."""
    if n % typecode_size:
        raise packed_fixed_error(pos, n, typecode_size)
    if BIG_ENDIAN:  # pragma: no cover - exercised on big-endian hosts only
        tmp = array(out.typecode)
        tmp.frombytes(buf[pos : pos + n])
        tmp.byteswap()
        out.extend(tmp)
    else:
        out.frombytes(memoryview(buf)[pos : pos + n])  # a view: no intermediate copy


def encode_varint(v: int) -> bytes:
    """Encode a non-negative integer below 2**64.

    Past two bytes the 7-bit groups are spread into bytes with the lane masks
    and written by one ``to_bytes``, instead of a loop per byte.
    """
    if v < 0x80:
        return _ONE_BYTE[v]
    if v < 0x4000:
        return bytes((v & 0x7F | 0x80, v >> 7))
    k = (v.bit_length() + 6) // 7
    x = (v & LOW56) | ((v >> 56) << 64)
    x = (x & LO56) | ((x << 4) & HI56)
    x = (x & LO28) | ((x << 2) & HI28)
    x = (x & LO14) | ((x << 1) & HI14)
    return (x | CONTINUED[k]).to_bytes(k, "little")


_ONE_BYTE = [bytes((i,)) for i in range(0x80)]


def tag_bytes(number: int, wire_type: int, size: int = 0) -> bytes:
    """The tag of field ``number`` with ``wire_type``, over-long to ``size`` bytes if
    that is more than it needs (see :func:`overlong_varint`)."""
    if size:
        return overlong_varint(number << 3 | wire_type, size)
    return encode_varint(number << 3 | wire_type)


def overlong_varint(value: int, size: int = 0) -> bytes:
    """``value`` as a varint of ``size`` bytes, or of as many as it needs if that is more.

    The extra bytes are continuation bytes that carry zero bits: a parser reads
    the same value, but protobuf never writes them (non-canonical bytes, for
    fuzzers and tests).  A negative ``value`` is its 64-bit two's complement, as
    an ``int64`` is written.  The one way the package writes such varints.
    """
    canonical = encode_varint(value & MASK64)
    pad = size - len(canonical)
    if pad <= 0:
        return canonical
    return canonical[:-1] + _PADDED[canonical[-1]] + b"\x80" * (pad - 1) + b"\x00"


_PADDED = [bytes((i | 0x80,)) for i in range(0x80)]


# -- raw fields -------------------------------------------------------------------


class RawField(NamedTuple):
    """One field as it lies on the wire, without a schema: offsets into the input.

    ``buf[start:tag_end]`` is the tag, ``buf[tag_end:body_at]`` the length prefix
    (LEN only; empty otherwise) and ``buf[body_at:end]`` the body: a varint's
    bytes, the fixed bytes, a LEN payload, or a group's fields with its
    end-group tag.  ``value`` is what the body says: a varint's value (64
    bits), a LEN payload's length, the fixed bytes as a little-endian unsigned
    number; 0 for a group.
    """

    number: int
    wire_type: int
    start: int
    tag_end: int
    body_at: int
    end: int
    value: int


def read_field(
    buf: Buf, pos: int, end: int, depth: int = MAX_DEPTH, groups: bool = True
) -> RawField:
    """Read the field whose tag is at ``pos``, by the rules (and with the errors) of the decoder.

    A group is read whole, up to its end-group tag; with ``groups=False`` a
    start-group or end-group tag is returned alone (``body_at == end``), for a
    reader that walks into groups itself.

    Raises:
        DecodeError: (with the offset) a bad tag, field number 0, wire type 6
            or 7, an end-group tag with no group open, or a body that runs
            past ``end`` or breaks a varint's or a group's rules.
    """
    if pos < end and buf[pos] < 0x80:  # a one-byte tag, the usual one, without the loop
        tag, tag_end = buf[pos], pos + 1
    else:
        tag, tag_end = read_tag(buf, pos, end)
    number, wire_type = tag >> 3, tag & 7
    if number == 0:
        raise DecodeError(f"field number 0 at offset {pos}", pos)
    if wire_type == VARINT:
        if tag_end < end and buf[tag_end] < 0x80:
            value, after = buf[tag_end], tag_end + 1
        else:
            value, after = read_varint(buf, tag_end, end)
        return _new(RawField, (number, wire_type, pos, tag_end, tag_end, after, value))
    if wire_type == LEN:
        n, body_at = read_length(buf, tag_end, end)
        return _new(RawField, (number, wire_type, pos, tag_end, body_at, body_at + n, n))
    if wire_type in FIXED_SIZES:
        after = skip_payload(buf, pos, tag_end, end, tag, depth)
        value = int.from_bytes(buf[tag_end:after], "little")
        return _new(RawField, (number, wire_type, pos, tag_end, tag_end, after, value))
    if not groups and wire_type in (SGROUP, EGROUP):
        return _new(RawField, (number, wire_type, pos, tag_end, tag_end, tag_end, 0))
    after = skip_payload(buf, pos, tag_end, end, tag, depth)  # a group, or raises
    return _new(RawField, (number, wire_type, pos, tag_end, tag_end, after, 0))


def next_field(buf: Buf, pos: int, end: int, depth: int = MAX_DEPTH) -> tuple[int, int, int, int]:
    """The field whose tag is at ``pos`` as ``(number, wire type, body_at, end)``:
    :func:`fields` for a loop that moves ``pos`` itself (over a run of fields
    matched at once, see :func:`field_run`), one call per field.

    Raises:
        DecodeError: as :func:`read_field`.
    """
    if pos + 1 < end:
        tag = buf[pos]
        if tag & 0x87 == LEN and tag > 7:  # a one-byte LEN tag, field 1 to 15
            n = buf[pos + 1]
            if n < 0x80 and pos + 2 + n <= end:  # a one-byte length, the payload within end
                return tag >> 3, LEN, pos + 2, pos + 2 + n
    f = read_field(buf, pos, end, depth)
    return f.number, f.wire_type, f.body_at, f.end


def fields(
    buf: Buf, pos: int = 0, end: int | None = None, depth: int = MAX_DEPTH
) -> Iterator[tuple[int, int, int, int]]:
    """The fields of the message in ``buf[pos:end]`` as ``(number, wire type,
    body_at, end)``: :func:`iter_fields` for a loop that steps over many fields
    and keeps few (a stream of many small elements).

    Plain tuples, with the one-byte tag and length of a LEN field read inline:
    an element costs a generator step, not a call.  ``body_at`` is the payload
    of a LEN field, else the end of the tag.

    Raises:
        DecodeError: as :func:`read_field`, at the first field that breaks a rule.
    """
    if end is None:
        end = len(buf)
    while pos < end:
        tag = buf[pos]
        if tag & 0x87 == LEN and tag > 7 and pos + 1 < end:  # a one-byte LEN tag, field 1 to 15
            n = buf[pos + 1]
            after = pos + 2 + n
            if n < 0x80 and after <= end:  # a one-byte length, the payload within end
                yield tag >> 3, LEN, pos + 2, after
                pos = after
                continue
        f = read_field(buf, pos, end, depth)
        yield f.number, f.wire_type, f.body_at, f.end
        pos = f.end


# A named tuple built without its Python-level ``__new__``: one call less per field.
_new = tuple.__new__


def iter_fields(buf: Buf, pos: int = 0, end: int | None = None, *, depth: int = MAX_DEPTH,
                groups: bool = True) -> Iterator[RawField]:  # fmt: skip
    """The fields of the message in ``buf[pos:end]``, in order: the one way the package
    splits a message into raw fields.  Each comes before the next is read, so a
    caller sees every field before a damaged one.

    Raises:
        DecodeError: as :func:`read_field`, at the first field that breaks a rule.
    """
    if end is None:
        end = len(buf)
    while pos < end:
        field = read_field(buf, pos, end, depth, groups)
        yield field
        pos = field.end


def packed_elements(payload: Buf, wire_type: int) -> list[Buf]:
    """The encoded elements of a packed run of ``wire_type`` (VARINT, I32 or I64): slices
    of ``payload``.

    Raises:
        DecodeError: a fixed-width payload whose size is not a multiple of the
            element's, or a varint that is cut short or over 10 bytes long.
    """
    size = FIXED_SIZES.get(wire_type)
    n = len(payload)
    if size is not None:
        if n % size:
            raise packed_fixed_error(0, n, size)
        return [payload[i : i + size] for i in range(0, n, size)]
    out: list[Buf] = []
    pos = 0
    while pos < n:
        after = read_varint(payload, pos, n)[1]
        out.append(payload[pos:after])
        pos = after
    return out


# -- runs of small fields: the cursor's bulk moves -----------------------------------
#
# A file of millions of tiny fields (a tensor of unpacked varints, ``string_data``
# of millions of short strings, a packed payload of millions of varints) is read
# field by field above in microseconds each; these match or count a whole run of
# them at once, for the readers that only measure a run (type detection,
# ``onnxdata show``).  They never decide that bytes are valid: each stops, without
# an error, where the reads above would have to look.

# A varint as a regular expression over the wire: up to 9 bytes that go on, and its
# last byte.  Every regex that steps over varints is built from these.
CONTINUED_BYTE = rb"[\x80-\xff]"
LAST_BYTE = rb"[\x00-\x7f]"
VARINT_PATTERN = CONTINUED_BYTE + rb"{0,9}" + LAST_BYTE


def ends_varint(buf: Buf, end: int) -> bool:
    """Whether the byte before ``end`` (which must be past 0) ends a varint."""
    return buf[end - 1] < 0x80


def one_byte_varints(chunk: bytes) -> bool:
    """Whether every byte of ``chunk`` ends a varint: a payload of one-byte
    varints, each its own value (tested in C)."""
    return chunk.isascii()


def split_tag(tag: int) -> tuple[int, int]:
    """A tag's field number and wire type."""
    return tag >> 3, tag & 7


_RUNS: dict[int, re.Pattern[bytes] | None] = {}
_RUN_BODY = {VARINT: VARINT_PATTERN, I64: rb".{8}", I32: rb".{4}"}


def field_run(tag: int) -> re.Pattern[bytes] | None:
    """A pattern that matches a run of up to 4096 whole fields with ``tag``, for a
    one-byte tag of a varint or fixed-width field (else None).

    A file of millions of tiny fields is mostly such runs; matched in C, a run
    costs a fraction of reading its fields one by one.  (An unbounded
    repetition would make ``re`` keep state for every field it matched.)  A
    match says nothing a field-by-field read would refuse: every varint in
    it ends within 10 bytes, every fixed field is whole.
    """
    if tag in _RUNS:
        return _RUNS[tag]
    found = None
    number, wire_type = split_tag(tag)
    if tag < 0x80 and number and wire_type in _RUN_BODY:
        body = re.escape(bytes([tag])) + _RUN_BODY[wire_type]
        found = re.compile(b"(?:" + body + b"){1,4096}", re.DOTALL)
    _RUNS[tag] = found
    return found


def short_entries(buf: Buf, pos: int, end: int, tag: int, upto: int) -> tuple[int, int, int]:
    """Step over a run of fields with the one-byte LEN ``tag`` and one-byte lengths
    (``string_data`` of millions of short strings), from ``pos`` until a field
    starts at ``upto`` or later; return the new position, the count of fields
    and the bytes of their payloads.  Stops, without an error, at anything
    else: a longer length, a payload past ``end``, another tag.
    """
    count = size = 0
    while pos < upto and pos + 1 < end and buf[pos] == tag:
        n = buf[pos + 1]
        if n >= 0x80 or pos + 2 + n > end:
            break
        pos += 2 + n
        count += 1
        size += n
    return pos, count, size


_CONTINUED_BYTES = bytes(range(0x80, 0x100))  # every byte a varint goes on after


def count_varints(buf: Buf, pos: int, end: int) -> int:
    """How many varints end in ``buf[pos:end]``: its bytes below 0x80, counted in C.

    A packed payload of millions of varints is counted so without reading one;
    whether its last byte ends a varint is the caller's check.
    """
    return len(bytes(buf[pos:end]).translate(None, _CONTINUED_BYTES))


def check_varints_end(buf: Buf, pos: int, end: int) -> None:
    """Refuse a packed payload ``buf[pos:end]`` whose last byte continues a varint:
    the check that makes :func:`count_varints` a count of whole varints.

    Raises:
        DecodeError: the payload ends inside a varint (at its last byte).
    """
    if end > pos and not ends_varint(buf, end):
        raise DecodeError(f"packed varints at offset {pos} end inside a varint", end - 1)
