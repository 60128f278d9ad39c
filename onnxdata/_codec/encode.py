"""Messages to bytes: one encoder per message, generated from the schema.

:func:`encoder` writes the source of a message's encode function from its
:class:`~onnxdata._core.schema.MessageSpec`, one block per field in field-number
order, unknown fields last, as protobuf writes them, and compiles it once.
Values are checked as they are written, as protobuf checks them on
assignment: nothing is returned unless all are valid, and an error names the
field path.

Each encoder appends byte chunks to one list and returns how many bytes it
appended; a sub-message's length prefix goes into a slot reserved before it,
so a large payload is copied exactly once (by the final join), however deep
it sits.

Two encoders are generated per message.  The one :func:`encode_message`
uses writes into a ``list``.  The other writes into a :class:`Plan`, the
named interface of the streaming writer (``_stream.py``): a ``list``
subclass to which sub-messages and long packed fields are handed whole, so
that it can measure them first and write them later without the whole
encoding ever existing in memory.
"""

from __future__ import annotations

import operator
from _thread import allocate_lock
from array import array
from enum import IntEnum

from .._core.codegen import build
from .._core.errors import (
    DecodeError,
    EncodeError,
    EncodeOverflowError,
    EncodeTypeError,
    EncodeValueError,
)
from .._core.foreign import describe, foreign_name
from .._core.schema import MESSAGE, MessageSpec, is_boolean_type, spec_of
from .._core.wire import (
    BIG_ENDIAN,
    INT32_MAX,
    INT32_MIN,
    MAX_DEPTH,
    encode_varint,
    own_bytes,
    own_utf8,
)
from . import decode as _decode
from .varints import check_int, encode_packed, encode_unpacked, tagged

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterable
    from typing import Any

    from .._core.schema import FieldSpec
    from .._messages.declarations import Message

    Out = list[Any]  # bytes, bytearray or memoryview chunks, or a Plan
    Encoder = Callable[[Any, Any, int], int]

__all__ = [
    "SEEN_MAX",
    "Plan",
    "attach",
    "check_sub",
    "encode_message",
    "encoder",
    "length_delimited",
    "remembered",
    "remembered_heads",
    "source",
    "too_large",
]


def encode_message(msg: Message, max_size: int | None = None) -> bytes:
    """``msg.encode(max_size=max_size)``; see ``Message.encode``."""
    encode = _ENCODERS[False].get(type(msg)) or _build(type(msg), False)
    out: Out = []
    try:
        size = encode(msg, out, MAX_DEPTH)
        if max_size is not None and size > max_size:
            raise too_large(size, max_size)
    except EncodeError as err:
        err.within(type(msg).__qualname__)
        raise
    return b"".join(out)


def encoder(cls: type[Message], plan: bool = False) -> Encoder:
    """The generated encoder of ``cls``: ``(message, out, depth) -> bytes appended``.

    With ``plan=True``, the one that writes into a :class:`Plan`.

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    return _ENCODERS[plan].get(cls) or _build(cls, plan)


def source(cls: type[Message], plan: bool = False) -> str:
    """The source text of the encoder generated for ``cls``: to read, or to debug.

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    encoder(cls, plan)
    return _SOURCES[cls, plan]


_SOURCES: dict[tuple[type, bool], str] = {}


def too_large(size: int, max_size: int) -> EncodeValueError:
    """The error for an encoding over ``max_size`` bytes."""
    return EncodeValueError(f"the encoding is {size} bytes, more than max_size={max_size}")


class Plan(list):  # type: ignore[type-arg]
    """What a plan-mode encoder writes into instead of a chunk list.

    It is a ``list`` of chunks (``append``/``extend``, which a subclass may
    override to drop or pass on chunks), plus three methods the encoder hands
    whole parts to, each returning the bytes that part takes on the wire:

    - :meth:`sub`: a singular sub-message, with its tag;
    - :meth:`subs`: a repeated message field's elements;
    - :meth:`packed`: a packed integer field, which a plan may encode a piece
      at a time.

    The streaming writer's two passes (measure, then emit) are Plans.
    """

    __slots__ = ()

    def sub(self, tag: bytes, msg: Any, cls: type[Message], depth: int) -> int:
        """Write the sub-message ``msg`` (checked against ``cls``) and its tag and length."""
        raise NotImplementedError

    def subs(self, tag: bytes, msgs: Iterable[Any], cls: type[Message], depth: int) -> int:
        """Write each element of a repeated message field with :meth:`sub`."""
        size = 0
        i = 0
        try:
            for i, m in enumerate(msgs):  # noqa: B007 - i names the element on error
                size += self.sub(tag, m, cls, depth)
        except EncodeError as err:
            err.within(f"[{i}]")
            raise
        return size

    def packed(self, tag: bytes, values: Any, lo: int, hi: int, code: str) -> int:
        """Write a packed integer field of ``values`` checked against ``lo..hi``."""
        return length_delimited(tag, encode_packed(values, lo, hi, code), self)


# -- values ------------------------------------------------------------------------


def _varint(v: int) -> bytes:
    """A checked integer's varint; negatives as 10-byte two's complement."""
    return encode_varint(v if v >= 0 else v + (1 << 64))


def _str(v: Any) -> bytes:
    if not isinstance(v, str):
        raise EncodeTypeError(f"expected str, got {type(v).__name__}")
    try:
        return own_utf8(v)
    except UnicodeEncodeError as exc:
        raise EncodeValueError(
            f"not encodable as UTF-8: {exc.reason} at index {exc.start}"
        ) from None


def _bytes(v: Any) -> bytes | bytearray | memoryview:
    if type(v) is bytes or type(v) is bytearray:
        return v
    if isinstance(v, (bytes, bytearray)):  # a subclass: what it holds, not what its methods say
        return own_bytes(v)
    if isinstance(v, memoryview):
        if not v.c_contiguous:
            return v.tobytes()  # a strided view: its bytes in logical order
        return v if v.format == "B" and v.ndim == 1 else v.cast("B")
    raise EncodeTypeError(f"expected bytes, got {type(v).__name__}")


def _float(v: Any, code: str) -> bytes:
    """A singular float or double: converted and checked as one element of a repeated one."""
    return bytes(_floats([v], code))


def _items(values: Any) -> Any:
    """A repeated field's values as a list, tuple or array: ``len`` and truth then hold.

    Lists and arrays are the usual case and the callers test for them first;
    ``None`` is empty, as protobuf's constructor takes it; any other iterable
    (a numpy array, a generator, ``bytes``) is listed once, as protobuf
    iterates it.  A numpy array's own truth value would drop ``[0]``.
    """
    if values is None:
        return ()
    if type(values) is tuple:
        return values
    if isinstance(values, str):  # iterable, but never what a repeated field means
        raise EncodeTypeError("expected a sequence, got str")
    try:
        return list(values)
    except TypeError:
        raise EncodeTypeError(f"expected a sequence, got {type(values).__name__}") from None


def length_delimited(tag: bytes, payload: Any, out: Out) -> int:
    """Append ``tag``, the length of ``payload`` and ``payload``; return the bytes appended."""
    head = tag + encode_varint(len(payload))
    out.append(head)
    out.append(payload)
    return len(head) + len(payload)


def _packed(tag: bytes, values: Any, lo: int, hi: int, code: str, out: Out) -> int:
    return length_delimited(tag, encode_packed(values, lo, hi, code), out)


# Encodings of short lists of small ints written unpacked before, per field: the
# tensors of a sequence or map usually share one shape.  Bounded.
SEEN_MAX = 1024
_SEEN_LEN = 8
_SEEN_TABLES: list[dict[bytes, bytes]] = []


def remembered() -> list[int]:
    """How many encodings each unpacked integer field remembers (at most ``SEEN_MAX``)."""
    return [len(table) for table in _SEEN_TABLES]


def _small_unpacked(values: Any, key: bytes, seen: dict[bytes, bytes], tag: int) -> bytes | None:
    """``values`` written unpacked after the one-byte ``tag`` if all are ints in 0..127.

    ``key`` is ``bytes(values)``, or empty where that raised: it checks and
    converts the values in one C call, taking what ``operator.index`` takes,
    as ``check_int`` does, and refusing floats and values outside 0..255.
    Only a ``bool`` gets through, as 0 or 1, so those two values make it look
    at the types.  Short lists' encodings are remembered in ``seen``.
    """
    if not key:
        return None
    b = seen.get(key)
    if b is None:
        if not key.isascii():
            return None
        encoded = bytearray(bytes((tag,)) * (2 * len(key)))
        encoded[1::2] = key
        b = bytes(encoded)
        if len(key) <= _SEEN_LEN and len(seen) < SEEN_MAX:
            seen[key] = b
    if (0 in key or 1 in key) and any(map(is_boolean_type, set(map(type, values)))):
        return None
    return b


def _floats(values: Any, code: str) -> memoryview:
    """The little-endian bytes of a float field, as a view: the final join is the one copy."""
    if not isinstance(values, array) or values.typecode != code:
        view = _float_buffer(values, code)
        if view is not None:
            return view
        try:
            # array() casts like C: a double too large for float32 becomes inf.
            values = array(code, values)
        except TypeError as exc:
            raise EncodeTypeError(str(exc)) from None
        except OverflowError as exc:
            raise EncodeOverflowError(str(exc)) from None
    if BIG_ENDIAN:  # pragma: no cover - exercised on big-endian hosts only
        values = array(code, values)
        values.byteswap()
    return memoryview(values).cast("B")


def _float_buffer(values: Any, code: str) -> memoryview | None:
    """The bytes of a 1-D buffer of the field's own float type, as they are.

    A ``decode(copy=False)`` view or a native float32/float64 numpy array is
    written straight from its memory, every bit kept; anything else (lists,
    bytes, other types) is converted by ``array`` as usual.
    """
    if BIG_ENDIAN or isinstance(values, (list, tuple, array, bytes, bytearray, str)):
        return None
    try:
        view = memoryview(values)
    except TypeError:
        return None
    if view.ndim != 1 or not view.c_contiguous or view.format.lstrip("@=") != code:
        return None
    return view.cast("B")


def _check_unknown(m: Any, depth: int) -> bytes | bytearray | memoryview:
    """``unknown_fields`` must decode, where the message sits, as unknown fields only.

    Decoding them as the message's own type, with the nesting budget left at
    its depth, is the exact test: anything protobuf would reject, or would
    read back as one of the message's known fields, is refused.
    """
    data = _bytes(m.unknown_fields)
    try:
        view = _decode.as_byte_view(data)
        scratch = _decode.decode_part(type(m), view, 0, len(view), depth, True)
    except DecodeError as err:
        raise EncodeValueError(f"not well-formed protobuf fields: {err}") from None
    if bytes(scratch.unknown_fields) != bytes(data):
        raise EncodeValueError(
            "holds fields this message knows: protobuf would read them as those fields"
        )
    return data


def _trailer(m: Any, out: Out, depth: int) -> int:
    """Unknown fields, checked; the callers skip the usual empty ``bytes``."""
    b = _check_unknown(m, depth)
    out.append(b)
    return len(b)


def check_sub(msg: Any, cls: type[Message], depth: int) -> None:
    """A sub-message must be of its field's class, and nesting within the limit.

    Raises:
        EncodeTypeError: ``msg`` is not a ``cls``.
        EncodeValueError: no nesting level is left.
    """
    if not isinstance(msg, cls):
        hint = ""
        if foreign_name(msg) is not None:  # onnx's message inside an onnxdata one
            hint = f": convert it with {cls.__qualname__}.FromString(value.SerializeToString())"
        raise EncodeTypeError(f"expected {cls.__qualname__}, got {describe(msg)}{hint}")
    if depth <= 0:
        raise EncodeValueError(
            f"nesting deeper than {MAX_DEPTH} messages (a message that contains itself?): "
            "protobuf could not parse the result"
        )


def _sub(tag: bytes, msg: Any, cls: type[Message], encode: Encoder, out: Out, depth: int) -> int:
    """A sub-message: reserve the slot for its tag and length, write it, fill the slot."""
    if depth <= 0 or not isinstance(msg, cls):
        check_sub(msg, cls, depth)
    slot = len(out)
    out.append(b"")
    n = encode(msg, out, depth - 1)
    head = tag + encode_varint(n)
    out[slot] = head
    return len(head) + n


def _position(msgs: Any, m: Any) -> str:
    """``[i]``, where ``m`` first occurs in ``msgs``: the element whose encoding
    failed (its first occurrence failed first)."""
    return f"[{next(i for i, x in enumerate(msgs) if x is m)}]"


# _bytes_list writes this many entries at a time: the temporaries of one chunk
# (its types, lengths, template, argument tuple and result) are reused from
# the allocator's free lists instead of being mapped and faulted in anew, and
# an entry of another type costs its own chunk one-at-a-time writing, not the
# whole field's.
BYTES_CHUNK = 8192


def _bytes_list(tag: bytes, values: Any, out: Out, start: int = 0) -> int:
    """A repeated bytes field (or ``BYTES_CHUNK`` of its entries, the first of them
    its ``start``-th), written in bulk where its entries are all ``bytes``.

    All shorter than 128 (the usual case): one ``%`` formatting call, from a
    template of four bytes per entry (the tag, the length, ``%b``) made with
    one strided store of the lengths.  No head object is made per entry, and
    the final join gets one piece instead of two per entry.  Some longer:
    :func:`_heads_and_entries` (``%`` would grow its result many times over a
    template that much shorter than it).  Entries of other types
    (``bytearray``, a subclass, a wrong one) are written one at a time, an
    error naming the ``start`` + ``i``-th entry.
    """
    n = len(values)
    if n > BYTES_CHUNK:
        size = 0
        for i in range(0, n, BYTES_CHUNK):
            size += _bytes_list(tag, values[i : i + BYTES_CHUNK], out, start + i)
        return size
    # ``type`` is exact: a subclass's ``len`` may say another length than ``%b``
    # writes.  From 16 entries, a list's ``count`` is faster than ``countOf``
    # (10 against 13 ns an entry); below, making the list costs more.
    types = map(type, values)
    if len(tag) != 1 or n != (
        operator.countOf(types, bytes) if n < 16 else list(types).count(bytes)
    ):
        return _each_bytes(tag, values, out, start)
    lengths = _short_lengths(values)
    if lengths is None:
        if n > 2:
            return _heads_and_entries(tag, values, out)
        return _each_bytes(tag, values, out, start)  # one or two: sooner one at a time
    made = bytearray((tag + b"\0%b") * n)
    made[1::4] = lengths
    template = bytes(made)  # bytes' % is twice as fast as bytearray's
    if 0x25 in lengths:
        b = _percent_lengths(tag, values, lengths, template)
    else:
        b = template % tuple(values)
    out.append(b)
    return len(b)


def _heads_and_entries(tag: bytes, values: list[bytes], out: Out) -> int:
    """Each entry's head and the entry itself (``bytes`` of any length) appended, in C loops."""
    lengths = list(map(len, values))
    found = list(map(_heads(tag).__getitem__, lengths))
    chunks: list[bytes] = [b""] * (2 * len(values))
    chunks[0::2] = found
    chunks[1::2] = values
    out.extend(chunks)
    return sum(map(len, found)) + sum(lengths)


class _Heads(dict[int, bytes]):
    """A tag and a length's varint, by length: each made as first asked for."""

    __slots__ = ("tag",)

    def __init__(self, tag: bytes) -> None:
        super().__init__(enumerate(tagged(tag)))
        self.tag = tag

    def __missing__(self, length: int) -> bytes:
        head = self[length] = self.tag + encode_varint(length)
        return head


# Each field's heads, kept across calls (a field's entries have few distinct
# lengths); made anew past HEADS_MAX, so that a field of ever new lengths
# cannot grow them without bound.
HEADS_MAX = 4096
_HEADS: dict[bytes, _Heads] = {}


def _heads(tag: bytes) -> _Heads:
    """The heads of a bytes field of tag ``tag`` (one byte)."""
    found = _HEADS.get(tag)
    if found is None or len(found) > HEADS_MAX:
        found = _HEADS[tag] = _Heads(tag)
    return found


def remembered_heads() -> list[int]:
    """How many heads each repeated bytes field keeps: past ``HEADS_MAX``, only
    until its next call."""
    return [len(found) for found in _HEADS.values()]


def _short_lengths(values: Any) -> bytearray | None:
    """The lengths of ``values`` if all are below 128, else None."""
    try:
        lengths = bytearray(map(len, values))
    except ValueError:  # a length above 255
        return None
    return lengths if lengths.isascii() else None


def _each_bytes(tag: bytes, values: Any, out: Out, start: int = 0) -> int:
    """Entries one at a time; an error names entry ``start`` + its index in ``values``."""
    size = 0
    for i, v in enumerate(values, start):
        try:
            size += length_delimited(tag, _bytes(v), out)
        except EncodeError as err:
            err.within(f"[{i}]")
            raise
    return size


def _each_string(tag: bytes, values: Any, out: Out) -> int:
    size = 0
    for i, v in enumerate(values):
        try:
            size += length_delimited(tag, _str(v), out)
        except EncodeError as err:
            err.within(f"[{i}]")
            raise
    return size


def _percent_lengths(tag: bytes, values: list[bytes], lengths: bytearray, template: bytes) -> bytes:
    """_bytes_list's formatting when some lengths are 37, ``%``.

    Those entries' cells ``tag % % b`` must read ``tag %% %b`` (a literal
    ``%``).  A few of them (the usual case, for strings of varied lengths)
    are found in ``lengths`` with ``find``, and the template is cut before
    their length bytes and joined with ``%``: one cut costs far less than a
    search of the whole template.  Where more than one entry in 64 has that
    length, one ``replace`` does: no four bytes of the template but a cell's
    can read ``tag % % b``, as every cell ends in ``%b``.
    """
    if lengths.count(0x25) * 64 > len(lengths):
        return template.replace(tag + b"%%b", tag + b"%%%b") % tuple(values)
    pieces = []
    cut = 0
    i = lengths.find(0x25)
    while i >= 0:
        at = 4 * i + 1  # the length byte of entry i
        pieces.append(template[cut:at])
        cut = at
        i = lengths.find(0x25, i + 1)
    pieces.append(template[cut:])
    return b"%".join(pieces) % tuple(values)


def attach(err: EncodeError, name: str) -> None:
    """Name the field on the error; an element index found below joins it."""
    parts = err.parts
    if parts and parts[-1].startswith("["):
        parts[-1] = name + parts[-1]
    else:
        parts.append(name)


def _enum_error(v: int) -> EncodeValueError:
    return EncodeValueError(f"invalid enumerator {v}")


# -- the generator ------------------------------------------------------------------

# Per mode (False: a list, True: a Plan): message class -> encoder.
_ENCODERS: tuple[dict[type, Any], dict[type, Any]] = ({}, {})
_LOCK = allocate_lock()

_FUNCTION = """\
def {function}(m, out, depth):
    size = 0
    try:
{blocks}
        name = "unknown_fields"
        unknown = m.unknown_fields
        if type(unknown) is not bytes or unknown:
            size += trailer(m, out, depth)
    except EncodeError as err:
        attach(err, FIELD_AT.get(err.__traceback__.tb_lineno, ""))
        raise
    return size
"""

_NAMING = 'name = "'


def _field_lines(source: str) -> tuple[str, dict[int, str]]:
    """``source`` without its ``name = "field"`` lines, and the field each
    remaining line belongs to, by line number.

    The generator writes each field's block after such a line; naming the
    field on an error by the line it was raised at (the traceback's, in the
    encoder's frame) costs nothing until there is an error, where a local
    set before every field cost a store per field of every message.
    """
    kept: list[str] = []
    field_at: dict[int, str] = {}
    current = ""
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith(_NAMING):
            current = stripped[len(_NAMING) : -1]
            continue
        kept.append(line)
        field_at[len(kept)] = current
    return "\n".join(kept) + "\n", field_at


def _build(cls: type, plan: bool) -> Encoder:
    """Generate, compile and publish the encoders of ``cls`` and every message it holds.

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    try:
        spec = spec_of(cls)
    except TypeError:
        raise TypeError(f"not an onnxdata message: {cls.__name__}") from None
    with _LOCK:
        encoders = _ENCODERS[plan]
        made = encoders.get(cls)
        if made is None:
            pending: dict[type, Any] = {}
            if spec.cls not in encoders:
                _generate(spec, plan, encoders, pending)
            encoders.update(pending)
            made = encoders[cls] = encoders[spec.cls]  # a subclass is written as its message
        return made  # type: ignore[no-any-return]


def _enums(cls: type) -> set[type]:
    """The IntEnum classes declared inside a message class."""
    return {v for v in vars(cls).values() if isinstance(v, type) and issubclass(v, IntEnum)}


def _generate(
    spec: MessageSpec, plan: bool, encoders: dict[type, Any], pending: dict[type, Any]
) -> None:
    env: dict[str, Any] = {
        "EncodeError": EncodeError,
        "array": array,
        "memoryview": memoryview,
        "attach": attach,
        "trailer": _trailer,
        "items": _items,
        "check_int": check_int,
        "varint": _varint,
        "to_str": _str,
        "to_bytes": _bytes,
        "to_float": _float,
        "floats": _floats,
        "length_delimited": length_delimited,
        "packed": _packed,
        "encode_unpacked": encode_unpacked,
        "small_unpacked": _small_unpacked,
        "bytes_list": _bytes_list,
        "each_string": _each_string,
        "sub": _sub,
        "check_sub": check_sub,
        "position": _position,
        "enum_error": _enum_error,
        # Type fields' values that need no check: ints, and the enums of the schema.
        "INTS": frozenset({int, *_enums(spec.cls)}),
    }
    function = f"encode_{spec.name.replace('.', '_')}"
    blocks = "\n".join(_field_block(f, plan, env) for f in spec.numbered)
    source, env["FIELD_AT"] = _field_lines(
        _FUNCTION.format(function=function, blocks=_indent(blocks, 8))
    )
    build(source, f"<onnxdata encoder {spec.name}{' plan' if plan else ''}>", env)
    _SOURCES[spec.cls, plan] = source
    pending[spec.cls] = env[function]
    for f in spec.children():
        child = f.message
        if child not in encoders and child not in pending:
            _generate(spec_of(child), plan, encoders, pending)
        env[f"encode_{f.name}"] = encoders.get(child) or pending[child]
        env["INTS"] = env["INTS"] | _enums(child)


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line if line else line for line in text.splitlines())


def _field_block(f: FieldSpec, plan: bool, env: dict[str, Any]) -> str:
    """The code that checks and writes one field."""
    name = f.name
    kind = f.kind
    tag = f.tag
    env[f"TAG_{name}"] = tag
    head = f'name = "{name}"\n'
    if f.kind == MESSAGE:
        env[f"CLS_{name}"] = f.message
        env[f"HEADS_{name}"] = tagged(tag)
        which = f"CLS_{name}, encode_{name}, out, depth"
        if not f.repeated:
            if plan:
                call = f"out.sub(TAG_{name}, v, CLS_{name}, depth)"
            else:
                call = f"sub(TAG_{name}, v, {which})"
            return f"{head}if m.{name} is not None:\n    v = m.{name}\n    size += {call}"
        if plan:
            call = f"out.subs(TAG_{name}, values, CLS_{name}, depth)"
            return _repeated(head, f.slot, "list", f"size += {call}")
        # _sub's loop written out: one call less per field (nested messages pay it per level).
        env[f"SHORT_{name}"] = len(tag) + 1
        body = (
            "e = None\n"
            "try:\n"
            "    for e in values:\n"
            f"        if type(e) is not CLS_{name} or depth <= 0:\n"
            f"            check_sub(e, CLS_{name}, depth)  # a subclass passes\n"
            "        slot = len(out)\n"
            '        out.append(b"")\n'
            f"        n = encode_{name}(e, out, depth - 1)\n"
            "        if n < 0x80:\n"
            f"            out[slot] = HEADS_{name}[n]\n"
            f"            size += SHORT_{name} + n\n"
            "        else:\n"
            f"            b = TAG_{name} + varint(n)\n"
            "            out[slot] = b\n"
            "            size += len(b) + n\n"
            "except EncodeError as err:\n"
            "    err.within(position(values, e))\n"
            "    raise"
        )
        return _repeated(head, f.slot, "list", body)
    if f.bounds is not None and kind != "enum":
        lo, hi = f.bounds
        if f.repeated and f.typecode is not None:  # packed into an array
            args = f"TAG_{name}, values, {lo}, {hi}, {f.typecode!r}"
            call = f"out.packed({args})" if plan else f"packed({args}, out)"
            return _repeated(head, f.slot, "array", f"size += {call}")
        if f.repeated:
            if len(tag) == 1:
                seen: dict[bytes, bytes] = {}
                env[f"seen_{name}"] = seen
                _SEEN_TABLES.append(seen)
                body = (
                    "try:\n    key = bytes(values)\n"
                    "except (TypeError, ValueError):\n"
                    '    key = b""  # values are not empty here: b"" says bytes() refused them\n'
                    f"b = seen_{name}.get(key)\n"
                    "if b is None or 0 in key or 1 in key:\n"
                    f"    b = small_unpacked(values, key, seen_{name}, {tag[0]}) "
                    f"or encode_unpacked(TAG_{name}, values, {lo}, {hi})\n"
                    "out.append(b)\nsize += len(b)"
                )
            else:
                body = (
                    f"b = encode_unpacked(TAG_{name}, values, {lo}, {hi})\n"
                    "out.append(b)\nsize += len(b)"
                )
            return _repeated(head, f.slot, "list", body)
        checked = f"TAG_{name} + varint(check_int(v, {lo}, {hi}))"
        if len(tag) == 1:
            env[f"TAGGED_{name}"] = tagged(tag)
            write = (
                f"if type(v) in INTS and 0 <= v < 0x80:\n"
                f"    out.append(TAGGED_{name}[v])\n    size += 2\n"
                f"else:\n    b = {checked}\n    out.append(b)\n    size += len(b)"
            )
        else:
            write = f"b = {checked}\nout.append(b)\nsize += len(b)"
        return f"{head}if m.{name} is not None:\n    v = m.{name}\n{_indent(write, 4)}"
    if kind == "enum":
        assert not f.repeated
        env[f"KNOWN_{name}"] = f.enum_values
        write = (
            f"v = check_int(v, {INT32_MIN}, {INT32_MAX})\n"
            f"if v not in KNOWN_{name}:  # proto2 enums are closed\n    raise enum_error(v)\n"
            f"b = TAG_{name} + varint(v)\nout.append(b)\nsize += len(b)"
        )
        return f"{head}if m.{name} is not None:\n    v = m.{name}\n{_indent(write, 4)}"
    if kind in ("float", "double"):
        code = "f" if kind == "float" else "d"
        if f.repeated:
            return _repeated(
                head, f.slot, "floats",
                f"size += length_delimited(TAG_{name}, floats(values, {code!r}), out)",
            )  # fmt: skip
        return (
            f"{head}if m.{name} is not None:\n    v = m.{name}\n"
            f"    b = TAG_{name} + to_float(v, {code!r})\n    out.append(b)\n    size += len(b)"
        )
    if kind == "string":
        if f.repeated:
            return _repeated(head, f.slot, "list", f"size += each_string(TAG_{name}, values, out)")
        return (
            f"{head}if m.{name} is not None:\n    v = m.{name}\n"
            f"    size += length_delimited(TAG_{name}, to_str(v), out)"
        )
    # bytes
    if f.repeated:
        return _repeated(head, f.slot, "list", f"size += bytes_list(TAG_{name}, values, out)")
    if len(tag) == 1:
        env[f"TAGGED_{name}"] = tagged(tag)
        return (
            f"{head}if m.{name} is not None:\n    v = m.{name}\n"
            f"    if type(v) is bytes and len(v) < 0x80:\n"
            f"        out.append(TAGGED_{name}[len(v)])\n        out.append(v)\n"
            f"        size += 2 + len(v)\n"
            f"    else:\n        size += length_delimited(TAG_{name}, to_bytes(v), out)"
        )
    return (
        f"{head}if m.{name} is not None:\n    v = m.{name}\n"
        f"    size += length_delimited(TAG_{name}, to_bytes(v), out)"
    )


def _repeated(head: str, slot: str, container: str, body: str) -> str:
    """A repeated field, read from its slot (``None``: never used, so empty):
    its values normalised (see :func:`_items`), then ``body`` if any."""
    if container == "list":
        test = "not isinstance(values, list)"
    elif container == "array":
        test = "not isinstance(values, array)"
    else:  # a decode(copy=False) view of a float field is written as it is
        test = "not isinstance(values, array) and type(values) is not memoryview"
    return (
        f"{head}if m.{slot} is not None:\n    values = m.{slot}\n"
        f"    if {test}:\n        values = items(values)\n"
        f"    if values:\n{_indent(body, 8)}"
    )
