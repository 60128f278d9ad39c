"""Bytes to messages: one decoder per message, generated from the schema.

:func:`decoder` writes the source of a message's decode loop from its
:class:`~onnxdata._core.schema.MessageSpec`, field by field, the way
``dataclasses`` writes ``__init__``, and compiles it once: the result is the
straight-line loop one would write by hand (one-byte tags, lengths and
varints read inline, tags compared as integers), with no per-field call or
table lookup.  Two decoders are made per message, one per mode:

- ``copy=True``: every ``bytes`` value is the message's own copy;
- ``copy=False`` ("views"): ``bytes`` values and packed float fields are
  read-only views of the input (see ``Message.decode``).

The mode is part of the generated code, not state looked up while decoding.

Each decoder fills a message object in place.  Decoding into an existing
object is also how a singular message field seen twice is merged: protobuf
merges exactly as if both payloads had been one, so decoding the second
payload into the first's object is the whole of merge semantics, in linear
time.  Positions are absolute offsets into the input, so every error can say
where it happened; the field path is added as the error climbs out.

A few fast paths are keyed by the schema (:data:`FAST_PATHS`): where a
benchmark showed that one field's shape dominates a workload, the generator
emits a specialised block for it instead of the general one, and the tests
compare both with protobuf.
"""

from __future__ import annotations

import re
import struct
from _thread import allocate_lock
from array import array

from .._core.blanks import blank_maker, blank_source
from .._core.codegen import build
from .._core.errors import DecodeError
from .._core.repeated import RepeatedScalars
from .._core.schema import KINDS, MESSAGE, MessageSpec, spec_of
from .._core.wire import (
    BIG_ENDIAN,
    LEN,
    MAX_DEPTH,
    Buf,
    encode_varint,
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
from . import gcpause
from .short_entries import read_short_entries
from .varints import decode_into_array, decode_into_list

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any, TypeVar

    from .._core.schema import FieldSpec
    from .._messages.declarations import Message

    _M = TypeVar("_M", bound=Message)
    # (buf, pos, end, message, depth left, messages whose unknown fields grew)
    Decoder = Callable[[Any, int, int, Any, int, list[Any]], None]

__all__ = [
    "FAST_PATHS",
    "as_byte_view",
    "as_read_only_view",
    "decode_message",
    "decode_part",
    "decoder",
    "settle",
    "source",
    "too_large",
]

FAST_PATHS: dict[tuple[str, str], str] = {
    # The big payload of a tensor: tested first in the dispatch.
    ("TensorProto", "raw_data"): "first",
    # A sequence of tensors of one shape and type (what from_list writes)
    # repeats each element's head: made without parsing once seen.
    ("SequenceProto", "tensor_values"): "tensor run",
    # A long run of unpacked int64 keys, found by one regular expression and
    # decoded as one packed payload.
    ("MapProto", "keys"): "varint run",
    # Nested lists and optionals: an element that ends its message is read
    # on in the same frame, not by a call (see _TAIL_TEST), and the levels
    # below it that encoders write alike by one test each (see _chain).
    ("SequenceProto", "sequence_values"): "tail",
    ("OptionalProto", "optional_value"): "tail",
    # Rarely set in data: tested after the fields every element has.
    ("SequenceProto", "name"): "last",
    ("MapProto", "name"): "last",
    ("OptionalProto", "name"): "last",
}
"""(message name, field name) -> the specialised block the generator emits for it."""


# -- entry points -----------------------------------------------------------------


def as_byte_view(data: Any) -> Buf:
    """``data`` itself if it is ``bytes``, else a flat byte view of it, without copying.

    Raises:
        TypeError: ``data`` is a ``str`` or not a buffer.
    """
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

    Raises:
        TypeError: ``data`` is a ``str`` or not a buffer.
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
    """``cls.decode(data, copy=copy, max_size=max_size)``; see ``Message.decode``."""
    buf = as_byte_view(data) if copy else as_read_only_view(data)
    if max_size is not None and len(buf) > max_size:
        raise too_large(cls, len(buf), max_size)
    try:
        return decode_part(cls, buf, 0, len(buf), MAX_DEPTH, copy)
    except DecodeError as err:
        err.within(cls.__qualname__)
        raise


def too_large(cls: type[Message], size: int, max_size: int) -> DecodeError:
    """The error for an input over ``max_size`` bytes, raised before decoding."""
    err = DecodeError(f"{size} bytes is more than max_size={max_size}", max(max_size, 0))
    err.within(cls.__qualname__)
    return err


def decode_part(cls: type[_M], buf: Buf, pos: int, end: int, depth: int, copy: bool) -> _M:
    """Decode ``buf[pos:end]`` as a new ``cls`` with ``depth`` nesting levels left.

    ``buf`` comes from :func:`as_byte_view` (``copy=True``) or
    :func:`as_read_only_view` (``copy=False``).  Error offsets are offsets
    into ``buf``; the caller adds the outer part of the path.

    Raises:
        DecodeError: the bytes are not a valid encoding of ``cls``.
    """
    new, decode = _CODECS[copy].get(cls) or _build(cls, copy)
    msg = new()
    grown: list[Any] = []
    paused = end - pos >= gcpause.MIN_BYTES and gcpause.pause()
    try:
        decode(buf, pos, end, msg, depth, grown)
    finally:
        if paused:
            gcpause.resume()
        if grown:
            settle(grown)
    return msg  # type: ignore[no-any-return]


def decoder(cls: type[Message], copy: bool = True) -> tuple[Callable[[], Any], Decoder]:
    """``(make an empty cls, decode into it)`` for ``cls`` in one mode, generated on first use.

    The decode function takes ``(buf, pos, end, message, depth, grown)``:
    ``grown`` is a list the caller settles with :func:`settle` afterwards
    (:func:`decode_part` does both).

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    return _CODECS[copy].get(cls) or _build(cls, copy)


def source(cls: type[Message], copy: bool = True) -> str:
    """The source text of the decoder generated for ``cls``: to read, or to debug.

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    decoder(cls, copy)
    return _SOURCES[cls, copy]


_SOURCES: dict[tuple[type, bool], str] = {}


def settle(grown: list[Any]) -> None:
    """Turn the ``unknown_fields`` that merging grew in place back into ``bytes``."""
    for msg in grown:
        msg.unknown_fields = bytes(msg.unknown_fields)
    grown.clear()


# -- what the generated code calls ------------------------------------------------


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


def _string(buf: Buf, pos: int, n: int) -> str:
    # proto2 strings are not checked for UTF-8 by upb; keep bad bytes as surrogates.
    return str(buf[pos : pos + n], "utf-8", "surrogateescape")


def _depth_error(pos: int) -> DecodeError:
    return DecodeError(f"nesting deeper than {MAX_DEPTH} messages at offset {pos}", pos)


def _fixed_error(kind: str, buf: Buf, end: int, pos: int) -> DecodeError:
    return DecodeError(f"{kind} at offset {pos} runs past {past_end(buf, end, pos)}", pos)


_BRANCH = re.compile(r"(?:el)?if tag == (\d+)\b")
_CHAIN_INDENT = " " * 12  # the branches' indentation in _LOOP


def _field_lines(source: str) -> dict[int, int]:
    """The number of the field each line of a generated decoder reads, by line
    number (the lines of no field are left out).

    A field's lines are its branch's (``if tag == ...:``) up to the next
    branch or the ``else:`` of unknown fields.  An error names its field by
    the line it was raised at (the traceback's, in the decoder's frame): this
    costs nothing until there is an error, where keeping the field number in
    a local cost a shift and a store per field read.
    """
    field_at: dict[int, int] = {}
    current = 0
    for number, line in enumerate(source.splitlines(), 1):
        if line.startswith(_CHAIN_INDENT) and not line.startswith(_CHAIN_INDENT + " "):
            branch = _BRANCH.match(line, len(_CHAIN_INDENT))
            current = int(branch.group(1)) >> 3 if branch else 0
        elif not line.startswith(_CHAIN_INDENT):
            current = 0
        if current:
            field_at[number] = current
    return field_at


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


def _strings(
    buf: Buf,
    pos: int,
    end: int,
    append: Callable[[Any], None],
    values: list[Any],
    tag: int,
) -> int:
    """Read a run of one repeated bytes field, the first entry's tag already read.

    The loop's case is an entry whose tag and one-byte length (below 128)
    lie inside the message: two indexings, one slice, two tests per entry.
    A slice past ``end`` cannot raise, so that is checked once, after the
    run; any other entry (its tag or length at the message's end, a longer
    length) is the general reader's.  From ``LONG_RUN`` bytes left, the
    entries shorter than 128 bytes are made by :func:`read_short_entries`,
    in one C call a chunk, and the loop reads on where it stops.  ``values``
    is the list that ``append`` adds to (itself or through
    :func:`_short_copied`): those entries are ``bytes`` copies in every mode.
    """
    n = buf[pos] if pos < end else 0x80
    if n < 0x80:
        at = pos + 1
        pos = at + n
        append(buf[at:pos])
    else:
        n, at = read_length(buf, pos, end)
        pos = at + n
        append(buf[at:pos])
    last = end - 1  # a next entry's tag and length byte are both before end
    if pos < last and buf[pos] == tag:  # a second entry (a lone one pays no more tests)
        if end - pos >= LONG_RUN:
            pos = read_short_entries(buf, pos, end, values.extend, tag)
            if pos >= last or buf[pos] != tag:
                return pos
        while True:  # (a ``while`` with the test costs more per turn on CPython 3.11)
            n = buf[pos + 1]
            if n < 0x80:
                at = pos + 2
                pos = at + n
                append(buf[at:pos])
            else:
                n, at = read_length(buf, pos + 1, end)
                pos = at + n
                append(buf[at:pos])
            if pos >= last or buf[pos] != tag:
                break
    if pos > end:  # the last entry runs past the end: read_length says how
        read_length(buf, at - 1, end)
    return pos


# From this many bytes left in the message, a run's short entries are made
# by read_short_entries: its fixed cost, a copy and a ``pickle.loads`` call
# (a few microseconds), is then a small part of the run's.
LONG_RUN = 1 << 12


def _short_copied(append: Callable[[Any], None]) -> Callable[[Any], None]:
    """``append`` for :func:`_strings` with ``copy=False``: an entry of 128 bytes
    or more is appended as the view it is, a shorter one as a copy.

    A ``memoryview`` object costs 184 bytes, more than a copy of anything
    shorter than 128 bytes: a flood of tiny entries would cost many times
    protobuf's memory as views, and a view of a short entry saves nothing.
    """

    def add(piece: Any) -> None:
        append(piece if len(piece) >= 128 else bytes(piece))

    return add


def _varint_run(buf: Buf, start: int, pos: int, end: int, out: list[int], tag: int) -> int:
    """Read a run of unpacked varints of one field (``tag``, one byte) from ``start``,
    the first tag's offset; its value starts at ``pos``.

    The run is whole (tag, varint) pairs; the tag byte is a one-byte varint
    itself, so the run decodes as one packed payload of tags and values:
    every second value is the field's.  A bad varint ends the run where it
    starts, and the general path reports it.
    """
    found = _RUNS.get(tag)
    if found is None:
        pair = re.escape(bytes((tag,))) + rb"[\x80-\xff]{0,9}[\x00-\x7f]"
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


def _tensor_runner(
    spec: MessageSpec, copy: bool, new: Callable[[], Any], decode: Decoder
) -> Callable[..., int]:
    """The reader of a run of TensorProto elements for one mode (``FAST_PATHS``).

    Tensors of one shape and type (what ``from_list`` writes) repeat the bytes
    before each raw payload: once one is seen (:func:`_template`), the next
    that repeats them is made without parsing, a third of the time of a decode.
    Decoding is a function of the bytes: another element of the same length
    that starts with the same head is the same tensor but for its payload.
    """
    new_raw = blank_maker(spec, ("dims", "data_type", "raw_data"))
    heads = (
        spec.by_name["dims"].tag,
        spec.by_name["data_type"].tag,
        spec.by_name["raw_data"].tag,
    )
    tries_max = 4  # give up on templates after this many elements that could not be one
    no_dims: list[int] = []

    def run(
        buf: Any, pos: int, end: int, tensors: list[Any], depth: int, grown: Any, tag: int
    ) -> int:
        head: bytes | None = None
        tries = tries_max
        hn = whole = data_type = 0
        dims = no_dims
        append = tensors.append
        while True:
            n = buf[pos] if pos < end else 0x80
            if n < 0x80 and n < end - pos:
                pos += 1
            else:
                n, pos = read_length(buf, pos, end)
            if n == whole and buf[pos : pos + hn] == head:
                raw = buf[pos + hn : pos + n]
                if copy and type(raw) is not bytes:
                    raw = bytes(raw)
                sub = new_raw(dims.copy(), data_type, raw)
            else:
                sub = new()
                decode(buf, pos, pos + n, sub, depth, grown)
                if tries and pos + n < end and buf[pos + n] == tag:
                    # Another element follows (a lone tensor skips the search).
                    found = _template(buf, pos, pos + n, sub, heads)
                    if found is None:
                        tries -= 1
                    else:
                        head, dims, data_type = found
                        hn = len(head)
                        whole = hn + len(sub.raw_data)
            append(sub)
            pos += n
            if pos >= end or buf[pos] != tag:
                return pos
            pos += 1

    return run


def _template(
    buf: Buf, pos: int, end: int, tensor: Any, heads: tuple[bytes, bytes, bytes]
) -> tuple[bytes, list[int], int] | None:
    """``(head, dims, data_type)`` when ``buf[pos:end]``, just decoded into
    ``tensor``, is exactly ``head`` (dims, data_type and the raw_data tag and
    length, written as encoders write them) followed by the raw payload.
    """
    raw = tensor.raw_data
    data_type = tensor.data_type
    if raw is None or data_type is None or data_type < 0 or min(tensor.dims, default=0) < 0:
        return None
    dims_tag, type_tag, raw_tag = heads
    head = b"".join(
        [dims_tag + encode_varint(d) for d in tensor.dims]
        + [type_tag, encode_varint(data_type), raw_tag, encode_varint(len(raw))]
    )
    if len(head) + len(raw) != end - pos or buf[pos : pos + len(head)] != head:
        return None
    return head, list(tensor.dims), data_type


# -- the generator ------------------------------------------------------------------

# Per mode: message class -> (maker of an empty message, decoder).
_CODECS: tuple[dict[type, tuple[Any, Any]], dict[type, tuple[Any, Any]]] = ({}, {})

_CONVERT = {"int32": "to_int32(v)", "int64": "to_int64(v)", "uint64": "v", "enum": "to_int32(v)"}

_READ_VARINT = """\
v = buf[pos] if pos < end else 0x80
if v < 0x80:
    pos += 1
else:
    v, pos = read_varint(buf, pos, end)
    v = {convert}"""

# A length of one or two bytes is read inline (a nested message of 128 bytes to
# 16 KiB has two); anything else, and every error, is read_length's.
_READ_LENGTH = """\
n = buf[pos] if pos < end else 0x80
if n < 0x80 and n < end - pos:
    pos += 1
else:
    # (a one-byte length too long for what follows is longer still as a two-byte one)
    m = buf[pos + 1] if pos + 1 < end else 0x80
    if m < 0x80 and (k := n & 0x7F | m << 7) <= end - pos - 2:
        n = k
        pos += 2
    else:
        n, pos = read_length(buf, pos, end)"""

_LOOP = """\
def {function}(buf, pos, end, msg, depth, grown):
    run_end = -1  # the end of the last unknown field; ``unknown`` is made with the first
{prologue}    try:
        while True:
            if pos >= end:
                break
            start = pos
            tag = buf[pos]
            pos += 1
            if tag >= 0x80:
                tag, pos = read_tag(buf, start, end)
{branches}
            else:
                pos = skip_field(buf, start, pos, end, tag, depth)
                if run_end < 0:
                    unknown = []
                    run_start = start
                elif start != run_end:  # not adjacent to the last unknown field: a new run
                    unknown.append(buf[run_start:run_end])
                    run_start = start
                run_end = pos
        if run_end >= 0:
            unknown.append(buf[run_start:run_end])
            unknown_fields(msg, unknown, grown)
    except DecodeError as err:
        locate(err, msg, FIELD_AT.get(err.__traceback__.tb_lineno, 0), FIELDS)
{located}        raise
    except (IndexError, struct.error, OverflowError) as exc:
{stray}"""

# A message with a "tail" field (TAIL_FIELD) reads an element of it that runs
# to the end of the message in the same frame (see _TAIL_TEST): an error's path
# then names the elements between ``top``, this call's message, and ``msg``.
_TAIL_PROLOGUE = "    top = msg  # ``msg`` becomes an element that runs to the end\n"
_TAIL_LOCATED = "        if msg is not top:\n            tail_path(err, top, msg, TAIL_FIELD)\n"
_TAIL_STRAY = """\
        err = stray(exc, pos)
        if msg is not top:
            tail_path(err, top, msg, TAIL_FIELD)
        raise err from exc
"""
_STRAY = "        raise stray(exc, pos) from exc\n"


def _build(cls: type, copy: bool) -> tuple[Any, Any]:
    """Generate, compile and publish the decoders of ``cls`` and every message it holds.

    Under a lock, and published only once complete: another thread never
    sees a decoder whose sub-message decoders are not there yet.

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    spec = spec_of(cls)
    with _LOCK:
        codecs = _CODECS[copy]
        made = codecs.get(cls)
        if made is None:
            pending: dict[type, tuple[Any, Any]] = {}
            if spec.cls not in codecs:
                _generate(spec, copy, codecs, pending)
            codecs.update(pending)
            made = codecs[spec.cls]
            if spec.cls is not cls:  # a subclass of a message: its decoder, its instances
                made = codecs[cls] = (blank_maker(spec, cls=cls), made[1])
        return made


def _generate(
    spec: MessageSpec,
    copy: bool,
    codecs: dict[type, tuple[Any, Any]],
    pending: dict[type, tuple[Any, Any]],
) -> None:
    env: dict[str, Any] = {
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
        "string": _string,
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
        "varint_run": _varint_run,
        "FIELDS": spec.by_number,
    }
    function = f"decode_{spec.name.replace('.', '_')}"
    tail = _tail_field(spec)
    env["TAIL_FIELD"] = tail
    env["tail_path"] = _tail_path
    source = _LOOP.format(
        function=function,
        branches=_branches(spec, copy, env),
        prologue=_TAIL_PROLOGUE if tail else "",
        located=_TAIL_LOCATED if tail else "",
        stray=_TAIL_STRAY if tail else _STRAY,
    )
    env["FIELD_AT"] = _field_lines(source)
    build(source, f"<onnxdata decoder {spec.name}{'' if copy else ' views'}>", env)
    _SOURCES[spec.cls, copy] = source
    pending[spec.cls] = (blank_maker(spec), env[function])
    # The messages it holds, after it: a message may hold itself.
    for f in spec.children():
        child = f.message
        if child not in codecs and child not in pending:
            _generate(spec_of(child), copy, codecs, pending)
        new, decode = codecs.get(child) or pending[child]
        env[f"new_{f.name}"], env[f"decode_{f.name}"] = new, decode
        if FAST_PATHS.get((spec.name, f.name)) == "tensor run":
            env[f"run_{f.name}"] = _tensor_runner(spec_of(child), copy, new, decode)


_LOCK = allocate_lock()


def _branches(spec: MessageSpec, copy: bool, env: dict[str, Any]) -> str:
    """The ``if tag == ...`` branches of a message's loop, one or two per field.

    Fields marked "first" in FAST_PATHS are tested first and those marked
    "last" last, the rest in number order between them, each field's usual
    wire form before the other.
    """

    def rank(f: FieldSpec) -> tuple[int, int]:
        return ({"first": 0, "last": 2}.get(FAST_PATHS.get((spec.name, f.name), ""), 1), f.number)

    out = []
    keyword = "if"
    for f in sorted(spec.fields, key=rank):
        for condition, body in _field_blocks(spec, f, copy, env):
            out.append(f"{keyword} {condition}:  # {f.name}")
            out.extend("    " + line for line in body.splitlines())
            keyword = "elif"
    return "\n".join(" " * 12 + line for line in out)


# An element of TAIL_FIELD that runs to the end of its message is read on in
# the same frame: nothing of this message follows it, so ``msg`` becomes the
# element and the loop goes on (a nested list costs no call a level).  Not
# after an unknown field, whose bytes still belong to this message.
_TAIL_TEST = "if pos + n == end and run_end < 0:  # the rest of this message"


def _tail_field(spec: MessageSpec) -> FieldSpec | None:
    """The field of ``spec`` marked "tail" in FAST_PATHS, if any: its elements
    that end the message are read in the same frame (see ``_TAIL_TEST``).

    Raises:
        ValueError: the field does not hold ``spec``'s own type (the loop
            could not read it), or two are marked (an error could not tell
            which one the chain went through).
    """
    marked = [f for f in spec.fields if FAST_PATHS.get((spec.name, f.name)) == "tail"]
    if not marked:
        return None
    if len(marked) > 1 or marked[0].message is not spec.cls:
        raise ValueError(f"{spec.name}: a tail field must be the one of its own message type")
    return marked[0]


def _chain(spec: MessageSpec, f: FieldSpec, blank: str) -> str:
    """The loop that reads on down a chain of tail elements, after ``msg``
    became one: nested lists and optionals, a level at a time.

    A level of the chain is a message written as every encoder writes a
    nested list's element: the one-byte tag and one-byte value of its
    head field (:func:`_chain_head`, ``elem_type``), then its tail element
    (a tag and a one- or two-byte length) running to the end.  The loop
    tests those bytes at once and makes the level's objects, where the
    general loop reads two tags and tests each against the fields; at any
    other bytes (a name, an unknown field, a longer value, the leaf) it
    stops and the general loop reads on from the same offset.  It stores
    what the general loop would, and never raises: its reads stay before
    ``end`` and the depth it spends is checked first.
    """
    head = _chain_head(spec, f)
    if head is None:
        return "pass"
    head_tag = _int_tag(head.tag_for(KINDS[head.kind].wire_type))
    tail_tag = _int_tag(f.tag_for(LEN))
    if head_tag >= 0x80 or tail_tag >= 0x80:  # the test reads one-byte tags only
        return "pass"
    made = (
        f"values = msg.{f.slot} = list_{f.name}()\n{blank}\nvalues.append(sub)"
        if f.repeated
        else f"{blank}\nmsg.{f.name} = sub"
    )
    # The tail's tag first: where the chain ends (at a leaf) it is the test that fails.
    test = f"end - pos > 3 and buf[pos + 2] == {tail_tag} and buf[pos] == {head_tag} and depth > 0"
    return f"while {test}:\n" + _nested(
        "v = buf[pos + 1]\n"
        "n = buf[pos + 3]\n"
        "k = pos + 4  # the element's first byte\n"
        "if n >= 0x80:\n"
        "    m = buf[k] if k < end else 0x80\n"
        "    n = n & 0x7F | m << 7\n"
        "    k += 1\n"
        "    if m >= 0x80:\n"
        "        break\n"
        "if v >= 0x80 or k + n != end:\n"
        "    break\n"
        f"msg.{head.name} = v\n{made}\nmsg = sub\ndepth -= 1\npos = k"
    )


def _chain_head(spec: MessageSpec, tail: FieldSpec) -> FieldSpec | None:
    """The field written before ``tail`` in a level of a chain (see
    :func:`_chain`): the one singular integer field numbered below it
    (``elem_type``), whose one-byte values are stored as read.  None if
    there is no such field, or more than one."""
    heads = [
        g
        for g in spec.fields
        if g.number < tail.number and not g.repeated and g.kind in ("int32", "int64", "uint64")
    ]
    return heads[0] if len(heads) == 1 else None


def _tail_path(err: DecodeError, top: Any, msg: Any, f: FieldSpec) -> None:
    """Add to ``err``'s path the elements of ``f`` from ``top`` down to ``msg``,
    each the last of its message (as the calls of a recursive decode would)."""
    parts = []
    held = top
    for _ in range(MAX_DEPTH + 1):  # the chain is never longer: its depth was checked
        if held is msg:
            break
        held = getattr(held, f.slot)
        if f.repeated:
            parts.append(f"{f.name}[{len(held) - 1}]")
            held = held[-1]
        else:
            parts.append(f.name)
    for part in reversed(parts):
        err.within(part)


def _nested(block: str) -> str:
    """``block`` one level deeper: the body of a loop or branch."""
    return "\n".join("    " + line for line in block.splitlines())


def _int_tag(tag: bytes) -> int:
    v, _ = read_varint(tag, 0, len(tag))
    return v


def _field_blocks(
    spec: MessageSpec, f: FieldSpec, copy: bool, env: dict[str, Any]
) -> list[tuple[str, str]]:
    """``(condition, body)`` per wire form of one field: the code that reads it."""
    name = f.name
    kind = f.kind
    fast = FAST_PATHS.get((spec.name, name))
    # A repeated field's container: its slot, or made there on first use.
    held = f"msg.{name}"
    if f.repeated:
        env[f"fill_{name}"] = getattr(spec.cls, name).fget
        held = f"(msg.{f.slot} or fill_{name}(msg))"
    native = _int_tag(f.tag_for(KINDS[kind].wire_type))
    packed = _int_tag(f.tag_for(LEN))
    one_byte = native < 0x80
    if kind in _CONVERT:
        read = _READ_VARINT.format(convert=_CONVERT[kind])
        if kind == "enum":
            env[f"known_{name}"] = f.enum_values
            return [
                (
                    f"tag == {native} and closed_enum(buf, pos, end, known_{name})",
                    f"{read}\nmsg.{name} = v",
                )
            ]
        if not f.repeated:
            return [(f"tag == {native}", f"{read}\nmsg.{name} = v")]
        if f.typecode is not None:  # an array
            code = f.typecode
            return [
                (
                    f"tag == {packed}",
                    "n, pos = read_length(buf, pos, end)\n"
                    f"decode_into_array(buf, pos, pos + n, scalars(msg, {f.slot!r}, {code!r}))\n"
                    "pos += n",
                ),
                (
                    f"tag == {native}",
                    "v, pos = read_varint(buf, pos, end)\n"
                    f"scalars(msg, {f.slot!r}, {code!r}).append({_CONVERT[kind]})",
                ),
            ]
        if fast == "varint run" and one_byte and kind != "int32":
            unpacked = f"pos = varint_run(buf, start, pos, end, {held}, {native})"
        else:
            unpacked = f"{read}\n{held}.append(v)"
        if kind == "int32":
            packed_body = (
                "n, pos = read_length(buf, pos, end)\nvalues = []\n"
                "decode_into_list(buf, pos, pos + n, values, True)\n"
                f"{held}.extend(map(to_int32, values))\npos += n"
            )
        else:
            packed_body = (
                "n, pos = read_length(buf, pos, end)\n"
                f"decode_into_list(buf, pos, pos + n, {held}, {kind != 'uint64'})\npos += n"
            )
        return [(f"tag == {native}", unpacked), (f"tag == {packed}", packed_body)]
    if kind in ("float", "double"):
        code = KINDS[kind].typecode or ""
        size = array(code).itemsize
        one = (
            f"if end - pos < {size}:\n    raise fixed_error({kind!r}, buf, end, pos)\n"
            f"read_packed_fixed(buf, pos, {size}, scalars(msg, {f.slot!r}, {code!r}), {size})\n"
            f"pos += {size}"
        )
        if not f.repeated:
            env[f"unpack_{name}"] = struct.Struct("<" + code).unpack_from
            one = (
                f"if end - pos < {size}:\n    raise fixed_error({kind!r}, buf, end, pos)\n"
                f"msg.{name} = unpack_{name}(buf, pos)[0]\npos += {size}"
            )
            return [(f"tag == {native}", one)]
        if copy:
            whole = f"read_packed_fixed(buf, pos, n, scalars(msg, {f.slot!r}, {code!r}), {size})"
        else:
            whole = f"view_fixed(buf, pos, n, msg, {f.slot!r}, {code!r}, {size})"
        return [
            (f"tag == {packed}", f"n, pos = read_length(buf, pos, end)\n{whole}\npos += n"),
            (f"tag == {native}", one),
        ]
    if kind == "string":
        body = "n, pos = read_length(buf, pos, end)\n"
        if f.repeated:
            body += f"{held}.append(string(buf, pos, n))\npos += n"
        else:
            body += f"msg.{name} = string(buf, pos, n)\npos += n"
        return [(f"tag == {native}", body)]
    if kind == "bytes":
        own = "piece" if not copy else "piece if type(piece) is bytes else bytes(piece)"
        if not f.repeated:
            return [
                (
                    f"tag == {native}",
                    f"{_READ_LENGTH}\npiece = buf[pos : pos + n]\nmsg.{name} = {own}\npos += n",
                )
            ]
        if not copy:  # entries shorter than 128 bytes are copies (see _short_copied)
            own = "piece if n >= 128 else bytes(piece)"
        if not one_byte:
            return [
                (
                    f"tag == {native}",
                    "n, pos = read_length(buf, pos, end)\npiece = buf[pos : pos + n]\n"
                    f"{held}.append({own})\npos += n",
                )
            ]
        if not copy:
            return [
                (
                    f"tag == {native}",
                    f"values = {held}\n"
                    f"pos = strings(buf, pos, end, short_copied(values.append), values, {native})",
                )
            ]
        # A slice of bytes is already its own copy; a slice of a view is copied.
        return [
            (
                f"tag == {native}",
                f"if type(buf) is bytes:\n"
                f"    values = {held}\n"
                f"    pos = strings(buf, pos, end, values.append, values, {native})\n"
                f"else:\n"
                f"    views = []\n"
                f"    pos = strings(buf, pos, end, views.append, views, {native})\n"
                f"    {held}.extend(map(bytes, views))",
            )
        ]
    # A message.
    sub = f"new_{name}", f"decode_{name}"
    # An element is made here, not by a call of new_<field>: one call less per element.
    blank = "\n".join(blank_source(spec_of(f.message), "sub", env, f"{name}_"))
    call = f"{sub[1]}(buf, pos, pos + n, sub, depth - 1, grown)"
    tail = f is _tail_field(spec)
    if not f.repeated:
        made = _nested(f"{blank}\nmsg.{name} = sub")
        read = f"{call}\npos += n"
        if tail:
            # Read on in this frame; down a chain of levels only from an element
            # made here: the chain makes each level anew, so in an element read
            # before (merged into) it would replace the fields it must merge.
            stay = f"{_TAIL_TEST}\n    msg = sub\n    depth -= 1\n"
            chain = _nested(_chain(spec, f, blank))
            fresh = f"{stay}{chain}\nelse:\n{_nested(read)}"
            merged = f"{stay}else:\n{_nested(read)}"
            read = f"if sub is None:\n{made}\n{_nested(fresh)}\nelse:\n{_nested(merged)}"
        else:
            read = f"if sub is None:\n{made}\n{read}"
        return [
            (
                f"tag == {native}",
                f"{_READ_LENGTH}\n"
                "if depth <= 0:\n    raise depth_error(start)\n"
                f"sub = msg.{name}\n{read}",
            )
        ]
    check = "if depth <= 0:\n    raise depth_error(start)\n"
    if fast == "tensor run" and one_byte:
        return [
            (
                f"tag == {native}",
                f"{check}pos = run_{name}(buf, pos, end, {held}, depth - 1, grown, {native})",
            )
        ]
    element = f"{_READ_LENGTH}\n{blank}\n{call}\nvalues.append(sub)\npos += n"
    if tail:
        # In a run, ``break``: the next byte is the element's first, not the run's next tag.
        chain = _nested(_chain(spec, f, blank))
        switch = f"    values.append(sub)\n    msg = sub\n    depth -= 1\n{chain}\n"
        element = f"{_READ_LENGTH}\n{blank}\n{_TAIL_TEST}\n{switch}" + (
            f"    break\n{call}\nvalues.append(sub)\npos += n"
            if one_byte
            else f"else:\n    {call}\n    values.append(sub)\n    pos += n"
        )
    # The container, made here if this is the field's first element: the class
    # is known by now, one call less than the property's.
    env[f"list_{name}"] = f.messages_class()
    values = (
        f"values = msg.{f.slot}\nif values is None:\n    values = msg.{f.slot} = list_{name}()\n"
    )
    if not one_byte:
        return [(f"tag == {native}", f"{check}{values}{element}")]
    # Elements come in runs: read the run in one go, predicting the next tag.
    indented = _nested(element)
    return [
        (
            f"tag == {native}",
            f"{check}{values}while True:\n{indented}\n"
            f"    if pos < end and buf[pos] == {native}:\n        pos += 1\n"
            "    else:\n        break",
        )
    ]
