"""Runs of one field read as a whole: two fast paths the declarations ask for.

- ``runs="varints"``: a long run of one unpacked integer field (a map's
  keys) is found by one regular expression and decoded as one packed
  payload (:func:`varint_run`);
- ``runs=(head fields..., payload)`` on a repeated message field: elements
  that repeat the bytes of their head fields before a ``bytes`` payload
  (tensors of one shape and type, as ``from_list`` writes them) are made
  without parsing once one is seen (:func:`head_runner`).

Both give exactly what the general loop gives: the tests decode every input
both ways (``ONNXDATA_GENERAL_PATHS``) and compare.
"""

from __future__ import annotations

import re
from array import array

from .._core.blanks import blank_maker
from .._core.codegen import Emitter, indent
from .._core.inline import READ_LENGTH
from .._core.schema import BYTES, ENUM, MESSAGE, MessageSpec, spec_of
from .._core.wire import (
    VARINT_PATTERN,
    Buf,
    encode_varint,
    read_length,
    read_varint,
    to_int64,
)
from .varints import decode_into_array

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from .._core.schema import FieldSpec

__all__ = ["head_fields", "head_runner", "varint_run"]


def varint_run(buf: Buf, start: int, pos: int, end: int, out: list[int], tag: int) -> int:
    """Read a run of unpacked varints of one field (``tag``, one byte) from ``start``,
    the first tag's offset; its value starts at ``pos``.

    The run is whole (tag, varint) pairs; the tag byte is a one-byte varint
    itself, so the run decodes as one packed payload of tags and values:
    every second value is the field's.  A bad varint ends the run where it
    starts, and the general path reports it.
    """
    found = _RUNS.get(tag)
    if found is None:
        pair = re.escape(bytes((tag,))) + VARINT_PATTERN
        found = _RUNS[tag] = re.compile(b"(?:%s){1,%d}" % (pair, _RUN_PIECE))
    run = found.match(buf, start, end)
    if run is None:
        v, pos = read_varint(buf, pos, end)
        out.append(to_int64(v))
        return pos
    # A piece of the run at a time, so that the temporaries stay small.
    while run is not None:
        pos = run.end()
        pairs = array("q")
        decode_into_array(buf, start, pos, pairs)
        out.extend(pairs[1::2])
        start = pos
        run = found.match(buf, start, end)
    return pos


_RUN_PIECE = 4096  # (tag, varint) pairs decoded at a time
_RUNS: dict[int, re.Pattern[bytes]] = {}


def head_fields(spec: MessageSpec, f: FieldSpec) -> tuple[FieldSpec, ...]:
    """The element fields ``f``'s declaration names in ``runs`` (head fields,
    then the payload), or ``()`` if it names none.

    Raises:
        ValueError: the names are not fields of the element, or not integer
            head fields followed by one singular ``bytes`` payload.
    """
    names = f.runs
    if not isinstance(names, tuple):
        return ()
    if f.kind != MESSAGE or not f.repeated:
        raise ValueError(f"{spec.name}.{f.name}: runs= names fields of a repeated message's")
    element = spec_of(f.message)
    fields = tuple(element.by_name[name] for name in names if name in element.by_name)
    *head, payload = fields or (None,)
    if (
        len(fields) != len(names)
        or not head
        or payload is None
        or payload.kind != BYTES
        or payload.repeated
        or any(g.bounds is None or g.packed or g.kind == ENUM for g in head)
    ):
        raise ValueError(
            f"{spec.name}.{f.name}: runs= names integer fields of the element, then a bytes one"
        )
    return fields


# Elements that could not be made from a template before the runner gives up
# on making templates for the rest of the run.
_TRIES = 4

_RUNNER = """\
def run(buf, pos, end, elements, depth, grown, tag):
    head = None
    tries = TRIES
    hn = whole = 0
    {names} = HEADLESS
    append = elements.append
    while True:
{read_length}
        if n == whole and buf[pos : pos + hn] == head:
            raw = buf[pos + hn : pos + n]{own}
            sub = made({made})
        else:
            sub = new()
            decode(buf, pos, pos + n, sub, depth, grown)
            if tries and pos + n < end and buf[pos + n] == tag:
                # Another element follows (a lone element skips the search).
                found = template(buf, pos, pos + n, sub, FIELDS)
                if found is None:
                    tries -= 1
                else:
                    head, whole, ({names},) = found
                    hn = len(head)
        append(sub)
        pos += n
        if pos >= end or buf[pos] != tag:
            return pos
        pos += 1
"""


def head_runner(
    fields: tuple[FieldSpec, ...], element: MessageSpec, copy: bool, new: Any, decode: Any
) -> Callable[..., int]:
    """The reader of a run of elements sharing a head, for one mode.

    Once an element is seen to be exactly its head fields (written as
    encoders write them) and its payload (:func:`_template`), the next of
    the same length that starts with the same bytes is the same element but
    for its payload: decoding is a function of the bytes.  Generated, so
    that making an element is one call with the head's values inline.
    """
    head = fields[:-1]
    copy = copy or not fields[-1].view  # the payload stays a view only if declared one
    names = [f"h{i}" for i in range(len(head))]
    made = [f"{n}.copy()" if g.repeated else n for n, g in zip(names, head, strict=True)]
    emit = Emitter()
    emit(
        _RUNNER.format(
            read_length=indent(READ_LENGTH, 2),
            names=", ".join(names),
            own="\n            if type(raw) is not bytes:\n                raw = bytes(raw)"
            if copy
            else "",
            made=", ".join([*made, "raw"]),
        )
    )
    env = emit.env
    env |= {
        "TRIES": _TRIES,
        "HEADLESS": tuple(None for _ in names) if len(names) > 1 else None,
        "FIELDS": fields,
        "read_length": read_length,
        "template": _template,
        "made": blank_maker(element, tuple(g.name for g in fields)),
        "new": new,
        "decode": decode,
    }
    mode = "" if copy else " views"
    run: Callable[..., int] = emit.build(f"<onnxdata decoder {element.name} head run{mode}>")["run"]
    return run


def _template(
    buf: Buf, pos: int, end: int, element: Any, fields: tuple[FieldSpec, ...]
) -> tuple[bytes, int, tuple[Any, ...]] | None:
    """``(head, element length, head values)`` when ``buf[pos:end]``, just
    decoded into ``element``, is exactly its head fields and the payload's
    tag and length (as encoders write them) followed by the payload."""
    *head, payload = fields
    raw = getattr(element, payload.slot)
    if raw is None:
        return None
    parts: list[bytes] = []
    values: list[Any] = []
    for g in head:
        v = getattr(element, g.slot)
        if g.repeated:
            v = list(v or ())
            if min(v, default=0) < 0:
                return None
            parts += [g.tag + encode_varint(x) for x in v]
        else:
            if v is None or v < 0:
                return None
            parts += [g.tag, encode_varint(v)]
        values.append(v)
    parts += [payload.tag, encode_varint(len(raw))]
    prefix = b"".join(parts)
    if len(prefix) + len(raw) != end - pos or buf[pos : pos + len(prefix)] != prefix:
        return None
    return prefix, end - pos, tuple(values)
