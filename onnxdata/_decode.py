"""Bytes to messages: one function per message type, on ``(buf, pos, end)``.

Each function fills a message object in place.  Decoding into an existing
object is also how a singular message field seen twice is merged: protobuf
merges exactly as if both payloads had been one, so decoding the second
payload into the first's object is the whole of merge semantics, in linear
time.  Positions are absolute offsets into the input, so every error can say
where it happened.
"""

from __future__ import annotations

import gc
import re
import struct
from _thread import _local
from array import array

from . import _lanes as lanes
from . import _npvarints as npvarints
from ._errors import DecodeError
from ._messages import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)
from ._schema import KINDS, blank_maker, spec_of
from ._wire import (
    BIG_ENDIAN,
    HI14,
    HI28,
    HI56,
    INT64_MAX,
    LO14,
    LO28,
    LO56,
    LOW56,
    MASK32,
    MASK64,
    MAX_DEPTH,
    SEVENS,
    Buf,
    encode_varint,
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

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any, TypeVar

    _M = TypeVar("_M", bound=Message)
    _Decoder = Callable[[Any, int, int, Any, int], None]

# The decoders index and slice ``bytes`` input directly (faster than a view,
# and a slice of it is the field's own copy); any other buffer goes through
# a byte memoryview.  Both index to ints and slice to bytes-like objects.

_Segment = TensorProto.Segment
FLOAT, DOUBLE, INT64, UINT64 = "f", "d", "q", "Q"
INT32 = KINDS["int32"].typecode
# A run of MapProto.keys written unpacked: (tag 0x18, varint of at most 10 bytes) pairs.
_KEY_RUN = re.compile(rb"(?:\x18[\x80-\xff]{0,9}[\x00-\x7f])+")


class _State(_local):
    """Per-thread decoding state.  The class attributes are every thread's
    defaults: reading one never raises (``getattr`` with a default on a bare
    ``_local`` raises and catches inside, 0.4 µs per decode)."""

    views = False  # decoding with copy=False
    growing: list[Any] | None = None  # see _unknown


_state = _State()


def as_byte_view(data: Any) -> Buf:
    """``data`` itself if it is ``bytes``, else a flat byte view of it, without copying."""
    if type(data) is bytes:
        return data
    if isinstance(data, str):
        raise TypeError("decode() needs bytes, not str")
    view = memoryview(data)
    if view.format != "B" or view.ndim != 1:
        view = view.cast("B")
    return view


def as_read_only_view(data: Any) -> memoryview:
    """A flat, contiguous, read-only byte view of ``data``: what ``copy=False`` slices.

    Read-only, so that nothing reached through a decoded message can write
    into the caller's buffer.  A non-contiguous input is copied once first.
    """
    if isinstance(data, str):
        raise TypeError("decode() needs bytes, not str")
    view = memoryview(data)
    if not view.c_contiguous:
        view = memoryview(view.tobytes())
    elif view.format != "B" or view.ndim != 1:
        view = view.cast("B")
    return view if view.readonly else view.toreadonly()


def decode_message(cls: type[_M], data: Any, copy: bool = True, max_size: int | None = None) -> _M:
    buf = as_byte_view(data) if copy else as_read_only_view(data)
    if max_size is not None and len(buf) > max_size:
        raise too_large(cls, len(buf), max_size)
    try:
        return decode_part(cls, buf, 0, len(buf), MAX_DEPTH, copy)
    except DecodeError as err:
        err._within(cls.__qualname__)
        raise


def too_large(cls: type[Message], size: int, max_size: int) -> DecodeError:
    """The error for an input over ``max_size`` bytes, raised before decoding."""
    err = DecodeError(f"{size} bytes is more than max_size={max_size}", max(max_size, 0))
    err._within(cls.__qualname__)
    return err


def decode_part(cls: type[_M], buf: Buf, pos: int, end: int, depth: int, copy: bool) -> _M:
    """Decode ``buf[pos:end]`` as a ``cls`` with ``depth`` nesting levels left.

    ``buf`` comes from :func:`as_byte_view` (``copy=True``) or
    :func:`as_read_only_view` (``copy=False``).  Error offsets are offsets
    into ``buf``; the caller adds the outer part of the path.
    """
    msg = _BLANK[cls]()
    if not copy:
        _state.views = True
    # Decoding makes a tree of new objects and no cycles, so the cyclic garbage
    # collector has nothing to find meanwhile; left on, it would rescan the
    # growing tree again and again and double the time of a large decode.
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        _DECODERS[cls](buf, pos, end, msg, depth)
    finally:
        if collecting:
            gc.enable()
        _settle()
        if not copy:
            _state.views = False
    return msg  # type: ignore[no-any-return]


def _blank_maker(cls: type[Message], given: tuple[str, ...] = ()) -> Callable[..., Any]:
    return blank_maker(spec_of(cls), given)


# -- repeated scalars: packed or not, both are accepted ---------------------


# Bytes below 0x80 end a varint: this table maps them to 0, so find(b"\0") finds ends.
_ENDS = bytes(0 if i < 0x80 else 1 for i in range(256))


def _varints(buf: Buf, pos: int, end: int, out: list[int], signed: bool) -> None:
    """Append the varints of a packed payload to ``out``.

    The payload is often all one-byte values (dims, small ints); that case is
    one ``isascii`` test and one ``extend``, with no Python loop.  Otherwise a
    one-byte value is appended at once, and a longer one is found with one
    C-level ``find`` and assembled by ``int.from_bytes`` and bit masks.
    """
    chunk = bytes(buf[pos:end])
    if chunk.isascii():
        out.extend(chunk)
        return
    base = pos
    ends = chunk.translate(_ENDS)
    find = ends.find
    from_bytes = int.from_bytes
    append = out.append
    i = 0
    n = len(chunk)
    while i < n:
        b = chunk[i]
        if b < 0x80:
            append(b)
            i += 1
            continue
        j = find(b"\0", i) + 1
        if j == 0:
            at = base + i
            raise DecodeError(
                f"packed varint at offset {at} runs past the end of the packed field "
                f"({n - i} byte{'s' if n - i != 1 else ''} left)",
                at,
            )
        if j - i > 10:
            raise DecodeError(f"varint at offset {base + i} is longer than 10 bytes", base + i)
        x = from_bytes(chunk[i:j], "little") & SEVENS
        x = (x & LO14) | ((x & HI14) >> 1)
        x = (x & LO28) | ((x & HI28) >> 2)
        x = (x & LO56) | ((x & HI56) >> 4)
        x = ((x & LOW56) | ((x >> 64) << 56)) & MASK64  # upb drops bits past the 64th
        if signed and x > INT64_MAX:
            x -= 1 << 64
        append(x)
        i = j


def _views() -> bool:
    """Whether this thread is decoding with ``copy=False``."""
    views: bool = _state.views
    return views


def _own(piece: memoryview) -> bytes | memoryview:
    """A bytes field's value from a slice of a view input: the slice itself when
    decoding with ``copy=False``, else a copy.  (A slice of ``bytes`` input is
    already a copy and never comes here.)
    """
    return piece if _state.views else bytes(piece)


def _view_fixed(buf: Buf, pos: int, n: int, msg: Any, name: str, code: str, size: int) -> None:
    """float_data/double_data with ``copy=False``: a ``memoryview`` cast to the
    field's type, over the input.  A field seen a second time (merged), or a
    big-endian host (the wire is little-endian), gets a copy as usual.
    """
    if n % size:
        raise packed_fixed_error(pos, n, size)
    if n == 0:
        return
    if len(getattr(msg, name)) or BIG_ENDIAN:
        read_packed_fixed(buf, pos, n, _scalars(msg, name, code), size)
    else:
        setattr(msg, name, buf[pos : pos + n].cast(code))  # type: ignore[union-attr,call-overload]


def _string(buf: Buf, pos: int, n: int) -> str:
    # proto2 strings are not checked for UTF-8 by upb; keep bad bytes as surrogates.
    return str(buf[pos : pos + n], "utf-8", "surrogateescape")


def _depth_error(pos: int) -> DecodeError:
    return DecodeError(f"nesting deeper than {MAX_DEPTH} messages at offset {pos}", pos)


def _unknown(msg: Any, chunks: list[Any]) -> None:
    """Keep unknown fields' raw bytes, after any kept by an earlier merge.

    A singular field repeated a million times, each copy with an unknown
    field, must not cost a million ever-longer concatenations: after the
    first merge the bytes grow in place in a ``bytearray``, turned back into
    ``bytes`` once the whole decode is done.
    """
    kept = msg.unknown_fields
    if not kept:
        msg.unknown_fields = b"".join(chunks)
        return
    if type(kept) is not bytearray:
        kept = msg.unknown_fields = bytearray(kept)
        _growing().append(msg)
    kept += b"".join(chunks)


def _growing() -> list[Any]:
    """This thread's messages whose ``unknown_fields`` is a growing bytearray."""
    found = _state.growing
    if found is None:
        found = _state.growing = []
    return found


def _settle() -> None:
    """Turn the bytearrays ``_unknown`` grew back into ``bytes``."""
    growing = _state.growing
    if growing:
        for msg in growing:
            msg.unknown_fields = bytes(msg.unknown_fields)
        growing.clear()


def _locate(err: DecodeError, msg: Message, fnum: int, names: dict[int, str]) -> None:
    """Add the field being decoded when ``err`` happened to its path."""
    name = names.get(fnum)
    if name is None:
        return
    value = getattr(msg, name)
    if type(value) is list and name in _MESSAGE_LISTS:
        name = f"{name}[{len(value)}]"  # the element that failed was never appended
    err._within(name)


def _stray(exc: Exception, pos: int) -> DecodeError:
    """A last line of defence: any other error still reports as a DecodeError."""
    return DecodeError(f"malformed input near offset {pos}: {exc!r}", pos)


# -- one function per message -----------------------------------------------


def _tensor(buf: Buf, pos: int, end: int, msg: TensorProto, depth: int) -> None:
    # The hot loop of every workload: one-byte tags, lengths and varints are
    # read inline, and the common fields are tested first.
    unknown: list[Any] | None = None
    fnum = 0
    try:
        while pos < end:
            start = pos
            tag = buf[pos]
            pos += 1
            if tag >= 0x80:
                fnum = 0
                tag, pos = read_tag(buf, start, end)
            fnum = tag >> 3
            if tag == 0x4A:  # raw_data
                n = buf[pos] if pos < end else 0x80
                if n < 0x80 and n < end - pos:
                    pos += 1
                else:
                    n, pos = read_length(buf, pos, end)
                piece = buf[pos : pos + n]
                msg.raw_data = piece if type(piece) is bytes else _own(piece)  # type: ignore[assignment,arg-type]
                pos += n
            elif tag == 0x08:  # dims, unpacked
                v = buf[pos] if pos < end else 0x80
                if v < 0x80:
                    pos += 1
                else:
                    v, pos = read_varint(buf, pos, end)
                    v = to_int64(v)
                msg.dims.append(v)
            elif tag == 0x10:  # data_type
                v = buf[pos] if pos < end else 0x80
                if v < 0x80:
                    pos += 1
                else:
                    v, pos = read_varint(buf, pos, end)
                    v = to_int32(v)
                msg.data_type = v
            elif tag == 0x32:  # string_data: a run of them is read in one go
                strings = msg.string_data
                # A slice of bytes is already its own copy; a view is kept with copy=False.
                if type(buf) is bytes or _views():
                    pos = _strings(buf, pos, end, strings.append)
                else:
                    views: list[Any] = []
                    pos = _strings(buf, pos, end, views.append)
                    strings.extend(map(bytes, views))
            elif tag == 0x0A:  # dims, packed
                n, pos = read_length(buf, pos, end)
                _varints(buf, pos, pos + n, msg.dims, True)  # type: ignore[arg-type]
                pos += n
            elif tag == 0x22:  # float_data, packed
                n, pos = read_length(buf, pos, end)
                if type(buf) is bytes or not _views():
                    read_packed_fixed(buf, pos, n, _scalars(msg, "float_data", FLOAT), 4)
                else:
                    _view_fixed(buf, pos, n, msg, "float_data", FLOAT, 4)
                pos += n
            elif tag == 0x25:  # float_data, one element
                if end - pos < 4:
                    raise DecodeError(
                        f"float at offset {pos} runs past {past_end(buf, end, pos)}", pos
                    )
                read_packed_fixed(buf, pos, 4, _scalars(msg, "float_data", FLOAT), 4)
                pos += 4
            elif tag == 0x2A:  # int32_data, packed
                n, pos = read_length(buf, pos, end)
                _packed_ints(buf, pos, pos + n, _scalars(msg, "int32_data", INT32))
                pos += n
            elif tag == 0x28:  # int32_data, one element
                v, pos = read_varint(buf, pos, end)
                _scalars(msg, "int32_data", INT32).append(to_int32(v))
            elif tag == 0x3A:  # int64_data, packed
                n, pos = read_length(buf, pos, end)
                _packed_ints(buf, pos, pos + n, _scalars(msg, "int64_data", INT64))
                pos += n
            elif tag == 0x38:  # int64_data, one element
                v, pos = read_varint(buf, pos, end)
                _scalars(msg, "int64_data", INT64).append(to_int64(v))
            elif tag == 0x42:  # name
                n, pos = read_length(buf, pos, end)
                msg.name = _string(buf, pos, n)
                pos += n
            elif tag == 0x1A:  # segment
                n, pos = read_length(buf, pos, end)
                if depth <= 0:
                    raise _depth_error(start)
                seg = msg.segment
                if seg is None:
                    seg = msg.segment = _new_segment()
                _segment(buf, pos, pos + n, seg, depth - 1)
                pos += n
            elif tag == 0x52:  # double_data, packed
                n, pos = read_length(buf, pos, end)
                if type(buf) is bytes or not _views():
                    read_packed_fixed(buf, pos, n, _scalars(msg, "double_data", DOUBLE), 8)
                else:
                    _view_fixed(buf, pos, n, msg, "double_data", DOUBLE, 8)
                pos += n
            elif tag == 0x51:  # double_data, one element
                if end - pos < 8:
                    raise DecodeError(
                        f"double at offset {pos} runs past {past_end(buf, end, pos)}", pos
                    )
                read_packed_fixed(buf, pos, 8, _scalars(msg, "double_data", DOUBLE), 8)
                pos += 8
            elif tag == 0x5A:  # uint64_data, packed
                n, pos = read_length(buf, pos, end)
                _packed_ints(buf, pos, pos + n, _scalars(msg, "uint64_data", UINT64))
                pos += n
            elif tag == 0x58:  # uint64_data, one element
                v, pos = read_varint(buf, pos, end)
                _scalars(msg, "uint64_data", UINT64).append(v)
            elif tag == 0x62:  # doc_string
                n, pos = read_length(buf, pos, end)
                msg.doc_string = _string(buf, pos, n)
                pos += n
            elif tag == 0x6A or tag == 0x82:  # external_data (13), metadata_props (16)
                n, pos = read_length(buf, pos, end)
                if depth <= 0:
                    raise _depth_error(start)
                entry = _new_entry()
                _entry(buf, pos, pos + n, entry, depth - 1)
                (msg.external_data if tag == 0x6A else msg.metadata_props).append(entry)
                pos += n
            elif tag == 0x70 and _closed_enum(buf, pos, end):  # data_location
                v, pos = read_varint(buf, pos, end)
                msg.data_location = v & MASK32
            else:
                fnum = 0
                pos = skip_field(buf, start, pos, end, tag, depth)
                if unknown is None:
                    unknown = []
                unknown.append(buf[start:pos])
        if unknown:
            _unknown(msg, unknown)
    except DecodeError as err:
        _locate(err, msg, fnum, _TENSOR_FIELDS)
        raise
    except (IndexError, struct.error, OverflowError) as exc:
        raise _stray(exc, pos) from exc


def _strings(buf: Buf, pos: int, end: int, append: Callable[[Any], None]) -> int:
    """Read a run of ``string_data`` entries, the first one's tag already read.

    The loop's case is a length below 128 (one byte, the bytes that follow it
    inside the message): one index, one slice, one test per entry; a slice
    past ``end`` cannot raise, so that is checked once, after the run.
    """
    while True:
        at = pos
        n = buf[pos] if pos < end else 0x80
        if n < 0x80:
            pos += 1 + n
            append(buf[at + 1 : pos])
        else:
            n, pos = read_length(buf, pos, end)
            append(buf[pos : pos + n])
            pos += n
        if pos >= end or buf[pos] != 0x32:
            break
        pos += 1
    if pos > end:  # the last entry runs past the end: read_length says how
        read_length(buf, at, end)
    return pos


def _closed_enum(buf: Buf, pos: int, end: int) -> bool:
    """Whether the varint at ``pos`` is a known ``DataLocation`` (0 or 1).

    proto2 enums are closed: an unknown value is kept as an unknown field,
    byte for byte.  A truncated varint reports here as known, so that the
    normal path raises the error.
    """
    try:
        v = read_varint(buf, pos, end)[0] & MASK32
    except DecodeError:
        return True
    return v <= 1


def _scalars(msg: TensorProto, name: str, code: str) -> Any:
    """The field's ``array``, made one if the caller assigned a list (merging into it)."""
    values = getattr(msg, name)
    if type(values) is not array or values.typecode != code:
        if type(values) is memoryview:  # a copy=False view, merged: keep every bit
            values = array(code, values.tobytes())
        else:
            values = array(code, values)
        setattr(msg, name, values)
    return values


def _packed_ints(buf: Buf, pos: int, end: int, out: Any) -> None:
    """Append a packed int32/int64/uint64 payload to the ``array`` ``out``."""
    code = out.typecode
    if end - pos >= npvarints.MIN_BYTES:
        np = npvarints.numpy()
        if np is not None:
            npvarints.decode(np, bytes(buf[pos:end]), pos, out)
            return
    if end - pos >= lanes.MIN_BYTES:
        chunk = bytes(buf[pos:end])
        if chunk.isascii():  # all one-byte values: no decoding, and no second copy below
            out.extend(chunk)
            return
        # Whole blocks at a time, int64_1M 530 -> 150 ms; on an unfinished or
        # too long varint the loop below names the error.
        if chunk[-1] < 0x80 and lanes.decode(chunk, out):
            return
    values: list[int] = []
    _varints(buf, pos, end, values, code == INT64)
    if code == INT32:
        values = [to_int32(v) if v > 0x7FFF_FFFF else v for v in values]
    out.fromlist(values)


def _segment(buf: Buf, pos: int, end: int, msg: Any, depth: int) -> None:
    unknown: list[Any] | None = None
    fnum = 0
    try:
        while pos < end:
            start = pos
            tag = buf[pos]
            pos += 1
            if tag >= 0x80:
                fnum = 0
                tag, pos = read_tag(buf, start, end)
            fnum = tag >> 3
            if tag == 0x08:
                v, pos = read_varint(buf, pos, end)
                msg.begin = to_int64(v)
            elif tag == 0x10:
                v, pos = read_varint(buf, pos, end)
                msg.end = to_int64(v)
            else:
                fnum = 0
                pos = skip_field(buf, start, pos, end, tag, depth)
                if unknown is None:
                    unknown = []
                unknown.append(buf[start:pos])
        if unknown:
            _unknown(msg, unknown)
    except DecodeError as err:
        _locate(err, msg, fnum, _SEGMENT_FIELDS)
        raise
    except (IndexError, struct.error, OverflowError) as exc:
        raise _stray(exc, pos) from exc


def _entry(buf: Buf, pos: int, end: int, msg: StringStringEntryProto, depth: int) -> None:
    unknown: list[Any] | None = None
    fnum = 0
    try:
        while pos < end:
            start = pos
            tag = buf[pos]
            pos += 1
            if tag >= 0x80:
                fnum = 0
                tag, pos = read_tag(buf, start, end)
            fnum = tag >> 3
            if tag == 0x0A:
                n, pos = read_length(buf, pos, end)
                msg.key = _string(buf, pos, n)
                pos += n
            elif tag == 0x12:
                n, pos = read_length(buf, pos, end)
                msg.value = _string(buf, pos, n)
                pos += n
            else:
                fnum = 0
                pos = skip_field(buf, start, pos, end, tag, depth)
                if unknown is None:
                    unknown = []
                unknown.append(buf[start:pos])
        if unknown:
            _unknown(msg, unknown)
    except DecodeError as err:
        _locate(err, msg, fnum, _ENTRY_FIELDS)
        raise
    except (IndexError, struct.error, OverflowError) as exc:
        raise _stray(exc, pos) from exc


def _sparse(buf: Buf, pos: int, end: int, msg: SparseTensorProto, depth: int) -> None:
    unknown: list[Any] | None = None
    fnum = 0
    try:
        while pos < end:
            start = pos
            tag = buf[pos]
            pos += 1
            if tag >= 0x80:
                fnum = 0
                tag, pos = read_tag(buf, start, end)
            fnum = tag >> 3
            if tag == 0x0A or tag == 0x12:  # values (1), indices (2)
                n, pos = read_length(buf, pos, end)
                if depth <= 0:
                    raise _depth_error(start)
                sub = msg.values if tag == 0x0A else msg.indices
                if sub is None:
                    sub = _new_tensor()
                    if tag == 0x0A:
                        msg.values = sub
                    else:
                        msg.indices = sub
                _tensor(buf, pos, pos + n, sub, depth - 1)
                pos += n
            elif tag == 0x18:  # dims, unpacked
                v, pos = read_varint(buf, pos, end)
                msg.dims.append(to_int64(v))
            elif tag == 0x1A:  # dims, packed
                n, pos = read_length(buf, pos, end)
                _varints(buf, pos, pos + n, msg.dims, True)  # type: ignore[arg-type]
                pos += n
            else:
                fnum = 0
                pos = skip_field(buf, start, pos, end, tag, depth)
                if unknown is None:
                    unknown = []
                unknown.append(buf[start:pos])
        if unknown:
            _unknown(msg, unknown)
    except DecodeError as err:
        _locate(err, msg, fnum, _SPARSE_FIELDS)
        raise
    except (IndexError, struct.error, OverflowError) as exc:
        raise _stray(exc, pos) from exc


def _sequence(buf: Buf, pos: int, end: int, msg: SequenceProto, depth: int) -> None:
    unknown: list[Any] | None = None
    fnum = 0
    try:
        while pos < end:
            start = pos
            tag = buf[pos]
            pos += 1
            if tag >= 0x80:
                fnum = 0
                tag, pos = read_tag(buf, start, end)
            fnum = tag >> 3
            if tag & 7 == 2 and 3 <= fnum <= 7:  # tensor/sparse/sequence/map/optional values
                if depth <= 0:
                    raise _depth_error(start)
                new, decode, name = _ELEMENTS[fnum]
                values = getattr(msg, name)
                if fnum == 3:
                    pos = _tensor_run(buf, pos, end, values, depth - 1)
                    continue
                while True:  # elements come in runs: read the run in one go
                    n = buf[pos] if pos < end else 0x80
                    if n < 0x80 and n < end - pos:
                        pos += 1
                    else:
                        n, pos = read_length(buf, pos, end)
                    sub = new()
                    decode(buf, pos, pos + n, sub, depth - 1)
                    values.append(sub)
                    pos += n
                    if pos < end and buf[pos] == tag:
                        pos += 1
                    else:
                        break
            elif tag == 0x0A:
                n, pos = read_length(buf, pos, end)
                msg.name = _string(buf, pos, n)
                pos += n
            elif tag == 0x10:
                v = buf[pos] if pos < end else 0x80
                if v < 0x80:
                    pos += 1
                else:
                    v, pos = read_varint(buf, pos, end)
                    v = to_int32(v)
                msg.elem_type = v
            else:
                fnum = 0
                pos = skip_field(buf, start, pos, end, tag, depth)
                if unknown is None:
                    unknown = []
                unknown.append(buf[start:pos])
        if unknown:
            _unknown(msg, unknown)
    except DecodeError as err:
        _locate(err, msg, fnum, _SEQUENCE_FIELDS)
        raise
    except (IndexError, struct.error, OverflowError) as exc:
        raise _stray(exc, pos) from exc


def _tensor_run(buf: Buf, pos: int, end: int, tensors: list[TensorProto], depth: int) -> int:
    """Read a run of ``SequenceProto.tensor_values``, the first one's tag
    already read, and return where it ends.

    Tensors of one shape and type (what ``from_list`` writes) repeat the bytes
    before each raw payload: once one is seen (:func:`_tensor_template`), the
    next that repeats them is made without parsing.
    """
    head: bytes | None = None
    tries = _TEMPLATE_TRIES
    hn = whole = data_type = 0
    dims = _NO_DIMS
    append = tensors.append
    while True:
        n = buf[pos] if pos < end else 0x80
        if n < 0x80 and n < end - pos:
            pos += 1
        else:
            n, pos = read_length(buf, pos, end)
        if n == whole and buf[pos : pos + hn] == head:
            piece = buf[pos + hn : pos + n]
            raw = piece if type(piece) is bytes else _own(piece)  # type: ignore[arg-type]
            sub = _new_raw_tensor(dims.copy(), data_type, raw)
        else:
            sub = _new_tensor()
            _tensor(buf, pos, pos + n, sub, depth)
            if tries:
                found = _tensor_template(buf, pos, pos + n, sub)
                if found is None:
                    tries -= 1
                else:
                    head, dims, data_type = found
                    hn = len(head)
                    whole = hn + len(sub.raw_data)
        append(sub)
        pos += n
        if pos >= end or buf[pos] != 0x1A:
            return pos
        pos += 1


# Give up on templates after this many tensors of a run that could not be one.
_TEMPLATE_TRIES = 4
_NO_DIMS: list[int] = []  # before the first template; only ever copied


def _tensor_template(
    buf: Buf, pos: int, end: int, tensor: TensorProto
) -> tuple[bytes, list[int], int] | None:
    """``(head, dims, data_type)`` when ``buf[pos:end]``, just decoded into
    ``tensor``, is exactly ``head`` (dims, data_type and the raw_data tag and
    length, written as encoders write them) followed by the raw payload.

    Decoding is a function of the bytes: another element of the same length
    that starts with ``head`` is the same tensor but for its payload, so
    ``_sequence`` makes it without parsing, a third of the time of a decode.
    """
    raw = tensor.raw_data
    data_type = tensor.data_type
    if raw is None or data_type is None or data_type < 0 or min(tensor.dims, default=0) < 0:
        return None
    head = b"".join(
        [b"\x08" + encode_varint(d) for d in tensor.dims]
        + [b"\x10", encode_varint(data_type), b"\x4a", encode_varint(len(raw))]
    )
    if len(head) + len(raw) != end - pos or buf[pos : pos + len(head)] != head:
        return None
    return head, list(tensor.dims), data_type


def _map(buf: Buf, pos: int, end: int, msg: MapProto, depth: int) -> None:
    unknown: list[Any] | None = None
    fnum = 0
    try:
        while pos < end:
            start = pos
            tag = buf[pos]
            pos += 1
            if tag >= 0x80:
                fnum = 0
                tag, pos = read_tag(buf, start, end)
            fnum = tag >> 3
            if tag == 0x18:  # keys, unpacked: a run of them is read in one go
                run = _KEY_RUN.match(buf, start, end)
                if run is None:  # a bad varint: the general path says what is wrong
                    v, pos = read_varint(buf, pos, end)
                    msg.keys.append(to_int64(v))
                    continue
                # The run is whole (tag, varint) pairs; the tag byte 0x18 is a
                # one-byte varint itself, so the run decodes as a packed payload
                # of tags and keys: every second value is a key.
                pos = run.end()
                pairs = array(INT64)
                _packed_ints(buf, start, pos, pairs)
                msg.keys.extend(pairs[1::2])
            elif tag == 0x1A:  # keys, packed
                n, pos = read_length(buf, pos, end)
                _varints(buf, pos, pos + n, msg.keys, True)  # type: ignore[arg-type]
                pos += n
            elif tag == 0x22:  # string_keys
                n, pos = read_length(buf, pos, end)
                piece = buf[pos : pos + n]
                msg.string_keys.append(piece if type(piece) is bytes else _own(piece))  # type: ignore[arg-type]
                pos += n
            elif tag == 0x2A:  # values
                n, pos = read_length(buf, pos, end)
                if depth <= 0:
                    raise _depth_error(start)
                values = msg.values
                if values is None:
                    values = msg.values = _new_sequence()
                _sequence(buf, pos, pos + n, values, depth - 1)
                pos += n
            elif tag == 0x0A:
                n, pos = read_length(buf, pos, end)
                msg.name = _string(buf, pos, n)
                pos += n
            elif tag == 0x10:
                v, pos = read_varint(buf, pos, end)
                msg.key_type = to_int32(v)
            else:
                fnum = 0
                pos = skip_field(buf, start, pos, end, tag, depth)
                if unknown is None:
                    unknown = []
                unknown.append(buf[start:pos])
        if unknown:
            _unknown(msg, unknown)
    except DecodeError as err:
        _locate(err, msg, fnum, _MAP_FIELDS)
        raise
    except (IndexError, struct.error, OverflowError) as exc:
        raise _stray(exc, pos) from exc


def _optional(buf: Buf, pos: int, end: int, msg: OptionalProto, depth: int) -> None:
    unknown: list[Any] | None = None
    fnum = 0
    try:
        while pos < end:
            start = pos
            tag = buf[pos]
            pos += 1
            if tag >= 0x80:
                fnum = 0
                tag, pos = read_tag(buf, start, end)
            fnum = tag >> 3
            if tag & 7 == 2 and 3 <= fnum <= 7:  # tensor/sparse/sequence/map/optional value
                n = buf[pos] if pos < end else 0x80
                if n < 0x80 and n < end - pos:
                    pos += 1
                else:
                    n, pos = read_length(buf, pos, end)
                if depth <= 0:
                    raise _depth_error(start)
                new, decode, name = _VALUES[fnum]
                sub = getattr(msg, name)
                if sub is None:
                    sub = new()
                    setattr(msg, name, sub)
                decode(buf, pos, pos + n, sub, depth - 1)
                pos += n
            elif tag == 0x0A:
                n, pos = read_length(buf, pos, end)
                msg.name = _string(buf, pos, n)
                pos += n
            elif tag == 0x10:
                v = buf[pos] if pos < end else 0x80
                if v < 0x80:
                    pos += 1
                else:
                    v, pos = read_varint(buf, pos, end)
                    v = to_int32(v)
                msg.elem_type = v
            else:
                fnum = 0
                pos = skip_field(buf, start, pos, end, tag, depth)
                if unknown is None:
                    unknown = []
                unknown.append(buf[start:pos])
        if unknown:
            _unknown(msg, unknown)
    except DecodeError as err:
        _locate(err, msg, fnum, _OPTIONAL_FIELDS)
        raise
    except (IndexError, struct.error, OverflowError) as exc:
        raise _stray(exc, pos) from exc


_TENSOR_FIELDS = {
    1: "dims", 2: "data_type", 3: "segment", 4: "float_data", 5: "int32_data",
    6: "string_data", 7: "int64_data", 8: "name", 9: "raw_data", 10: "double_data",
    11: "uint64_data", 12: "doc_string", 13: "external_data", 14: "data_location",
    16: "metadata_props",
}  # fmt: skip
_SEGMENT_FIELDS = {1: "begin", 2: "end"}
_ENTRY_FIELDS = {1: "key", 2: "value"}
_SPARSE_FIELDS = {1: "values", 2: "indices", 3: "dims"}
_SEQUENCE_FIELDS = {
    1: "name", 2: "elem_type", 3: "tensor_values", 4: "sparse_tensor_values",
    5: "sequence_values", 6: "map_values", 7: "optional_values",
}  # fmt: skip
_MAP_FIELDS = {1: "name", 2: "key_type", 3: "keys", 4: "string_keys", 5: "values"}
_OPTIONAL_FIELDS = {
    1: "name", 2: "elem_type", 3: "tensor_value", 4: "sparse_tensor_value",
    5: "sequence_value", 6: "map_value", 7: "optional_value",
}  # fmt: skip
_MESSAGE_LISTS = frozenset(
    {"external_data", "metadata_props", "tensor_values", "sparse_tensor_values",
     "sequence_values", "map_values", "optional_values"}
)  # fmt: skip

_BLANK: dict[type[Message], Callable[[], Any]] = {
    cls: _blank_maker(cls)
    for cls in (
        TensorProto,
        _Segment,
        StringStringEntryProto,
        SparseTensorProto,
        SequenceProto,
        MapProto,
        OptionalProto,
    )
}
_new_tensor = _BLANK[TensorProto]
_new_segment = _BLANK[_Segment]
_new_entry = _BLANK[StringStringEntryProto]
_new_sequence = _BLANK[SequenceProto]
_new_raw_tensor = _blank_maker(TensorProto, ("dims", "data_type", "raw_data"))

# Field number -> (maker of an empty element, its decoder, SequenceProto field name).
_ELEMENTS: dict[int, tuple[Callable[[], Any], _Decoder, str]] = {
    3: (_new_tensor, _tensor, "tensor_values"),
    4: (_BLANK[SparseTensorProto], _sparse, "sparse_tensor_values"),
    5: (_new_sequence, _sequence, "sequence_values"),
    6: (_BLANK[MapProto], _map, "map_values"),
    7: (_BLANK[OptionalProto], _optional, "optional_values"),
}

# The same for OptionalProto's singular fields.
_VALUES = {k: (new, decode, name[:-1]) for k, (new, decode, name) in _ELEMENTS.items()}

_DECODERS: dict[type[Message], _Decoder] = {
    TensorProto: _tensor,
    _Segment: _segment,
    StringStringEntryProto: _entry,
    SparseTensorProto: _sparse,
    SequenceProto: _sequence,
    MapProto: _map,
    OptionalProto: _optional,
}
