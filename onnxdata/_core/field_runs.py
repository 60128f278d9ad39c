"""Runs of small fields stepped over at C speed: the cursor's bulk moves.

A file of millions of tiny fields (a tensor of unpacked varints, ``string_data``
of millions of short strings, a packed payload of millions of varints) is read
field by field by ``wire.py``'s cursor in microseconds each; these match or
count a whole run of them at once, for the readers that only measure a run
(type detection, ``onnxdata show``).  They never decide that bytes are valid:
each stops, without an error, where the cursor would have to look.
"""

from __future__ import annotations

import re

from .errors import DecodeError
from .wire import I32, I64, VARINT, Buf

__all__ = ["check_varints_end", "count_varints", "field_run", "short_entries"]

_RUNS: dict[int, re.Pattern[bytes] | None] = {}
_RUN_BODY = {VARINT: rb"[\x80-\xff]{0,9}[\x00-\x7f]", I64: rb".{8}", I32: rb".{4}"}


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
    if tag < 0x80 and tag >> 3 and tag & 7 in _RUN_BODY:
        body = re.escape(bytes([tag])) + _RUN_BODY[tag & 7]
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


_CONTINUED_BYTES = bytes(range(0x80, 0x100))


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
    if end > pos and buf[end - 1] >= 0x80:
        raise DecodeError(f"packed varints at offset {pos} end inside a varint", end - 1)
