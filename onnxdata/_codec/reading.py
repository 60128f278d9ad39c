"""What generated decoders call: the helpers every field block shares.

The generator (``loop.py``) writes each message's decode loop as source;
the loop calls these functions for what is not worth writing inline (an
unknown field kept, a string made, an error raised, a packed field's
container found).  :data:`GLOBALS` is the namespace every generated decoder
starts from, so that the names the generated code uses are defined in one
place.
"""

from __future__ import annotations

import struct

from .._core.codegen import Emitter
from .._core.errors import DecodeError
from .._core.inline import READ_LENGTH, read_length_inline
from .._core.repeated import RepeatedScalars
from .._core.schema import MESSAGE
from .._core.wire import (
    BIG_ENDIAN,
    MAX_DEPTH,
    Buf,
    known_enum_value,
    packed_fixed_error,
    past_end,
    read_length,
    read_packed_fixed,
    read_tag,
    read_varint,
    skip_field,
    to_int32,
    to_int64,
)
from .short_entries import read_short_entries
from .varints import decode_into_array, decode_into_list

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from .._core.schema import FieldSpec

__all__ = ["GLOBALS", "LONG_RUN"]


def _unknown(msg: Any, chunks: list[Any], grown: list[Any]) -> None:
    """Keep unknown fields' raw bytes, after any kept by an earlier merge.

    ``chunks`` are runs of adjacent unknown fields, one slice per run, so that
    an input of many small unknown fields costs no object per field.

    A singular field repeated a million times, each copy with an unknown
    field, must not cost a million ever-longer concatenations: after the
    first merge the bytes grow in place in a ``bytearray``, turned back into
    ``bytes`` once the whole decode is done (``grown``).
    """
    kept = msg.unknown_fields
    if not kept:
        msg.unknown_fields = b"".join(chunks)
        return
    if type(kept) is not bytearray:
        kept = msg.unknown_fields = bytearray(kept)
        grown.append(msg)
    kept += b"".join(chunks)


def _depth_error(pos: int) -> DecodeError:
    return DecodeError(f"nesting deeper than {MAX_DEPTH} messages at offset {pos}", pos)


def _fixed_error(kind: str, buf: Buf, end: int, pos: int) -> DecodeError:
    return DecodeError(f"{kind} at offset {pos} runs past {past_end(buf, end, pos)}", pos)


def _locate(err: DecodeError, msg: Any, fnum: int, fields: dict[int, FieldSpec]) -> None:
    """Add the field being decoded when ``err`` happened to its path."""
    f = fields.get(fnum)
    if f is None:
        return
    name = f.name
    if f.repeated and f.kind == MESSAGE:
        name = f"{name}[{len(getattr(msg, name))}]"  # the element that failed was never appended
    err.within(name)


def _stray(exc: Exception, pos: int) -> DecodeError:
    """A last line of defence: any other error still reports as a DecodeError."""
    return DecodeError(f"malformed input near offset {pos}: {exc!r}", pos)


def _scalars(msg: Any, slot: str, code: str) -> Any:
    """The container in a packed field's slot: made on first use, or made of
    what the caller assigned (merging into it)."""
    values = getattr(msg, slot)
    if type(values) is not RepeatedScalars or values.typecode != code:
        if values is None:
            values = RepeatedScalars(code)
        elif type(values) is memoryview:  # a copy=False view, merged: keep every bit
            values = RepeatedScalars(code, values.tobytes())
        else:
            values = RepeatedScalars(code, values)
        setattr(msg, slot, values)
    return values


def _view_fixed(buf: Any, pos: int, n: int, msg: Any, slot: str, code: str, size: int) -> None:
    """A packed float/double field with ``copy=False``: a ``memoryview`` cast to the
    field's type, over the input.  A field seen a second time (merged), or a
    big-endian host (the wire is little-endian), gets a copy as usual.
    """
    if n % size:
        raise packed_fixed_error(pos, n, size)
    if n == 0:
        return
    if getattr(msg, slot) or BIG_ENDIAN:
        read_packed_fixed(buf, pos, n, _scalars(msg, slot, code), size)
    else:
        setattr(msg, slot, buf[pos : pos + n].cast(code))


def _make_strings() -> Callable[..., int]:
    """``strings(buf, pos, end, append, values, tag) -> pos``: read a run of one
    repeated bytes field, the first entry's tag already read.

    Written with the cursor's inline length read (``_core/inline.py``): an
    entry whose tag and one- or two-byte length lie inside the message costs
    two indexings, a few tests and one slice; any other (a longer length, one
    past ``end``) is ``read_length``'s, which raises the error.  From
    ``LONG_RUN`` bytes left, the entries shorter than 128 bytes are made by
    ``read_short_entries``, in one C call a chunk, and the loop reads on where
    it stops.  ``values`` is the list that ``append`` adds to (itself or
    through :func:`_short_copied`): those entries are ``bytes`` copies in
    every mode.  Compiled in this module's namespace: ``LONG_RUN`` is read
    from it as the loop runs.
    """
    emit = Emitter(globals())
    emit.bind("read_length", read_length)
    emit.bind("read_short_entries", read_short_entries)
    with emit.block("def strings(buf, pos, end, append, values, tag):"):
        emit(f"{READ_LENGTH}\nat = pos\npos = at + n\nappend(buf[at:pos])")
        emit("last = end - 1  # a next entry's tag and length byte are both before end")
        with emit.block("if pos < last and buf[pos] == tag:  # a second entry"):
            with emit.block("if end - pos >= LONG_RUN:"):
                emit("pos = read_short_entries(buf, pos, end, values.extend, tag)")
                emit("if pos >= last or buf[pos] != tag:\n    return pos")
            # The test is at the end: the ``if`` above made it for the first turn.
            with emit.block("while True:"):
                emit("at = pos + 1  # past the tag")
                emit(read_length_inline("at", inside=True, later=True))
                emit("pos = at + n")
                emit("append(buf[at:pos])\nif pos >= last or buf[pos] != tag:\n    break")
            # A one-byte length was read without a test against ``end``:
            with emit.block("if pos > end:  # the last entry runs past it"):
                emit("read_length(buf, at - 1, end)  # raises, saying how")
        emit("return pos")
    strings: Callable[..., int] = emit.build("<onnxdata strings>", at_import=True).pop("strings")
    return strings


# From this many bytes left in the message, a run's short entries are made
# by read_short_entries: its fixed cost, a copy and a ``pickle.loads`` call,
# is then a small part of the run's.
LONG_RUN = 1 << 12

_strings = _make_strings()


def _short_copied(append: Callable[[Any], None]) -> Callable[[Any], None]:
    """``append`` for :func:`_make_strings`'s loop with ``copy=False``: an entry of 128 bytes
    or more is appended as the view it is, a shorter one as a copy.

    A ``memoryview`` object costs 184 bytes, more than a copy of anything
    shorter than 128 bytes: a flood of tiny entries would cost many times
    protobuf's memory as views, and a view of a short entry saves nothing.
    """

    def add(piece: Any) -> None:
        append(piece if len(piece) >= 128 else bytes(piece))

    return add


GLOBALS: dict[str, Any] = {
    "DecodeError": DecodeError,
    "struct": struct,
    "read_tag": read_tag,
    "read_varint": read_varint,
    "read_length": read_length,
    "skip_field": skip_field,
    "to_int32": to_int32,
    "to_int64": to_int64,
    "unknown_fields": _unknown,
    "locate": _locate,
    "stray": _stray,
    "depth_error": _depth_error,
    "fixed_error": _fixed_error,
    "closed_enum": known_enum_value,
    "scalars": _scalars,
    "view_fixed": _view_fixed,
    "read_packed_fixed": read_packed_fixed,
    "decode_into_array": decode_into_array,
    "decode_into_list": decode_into_list,
    "strings": _strings,
    "short_copied": _short_copied,
}
"""The names every generated decoder's globals start with."""
