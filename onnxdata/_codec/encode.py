"""Messages to bytes: the encoder's entry points, and what generated encoders call.

Each message has an encode function generated from the schema
(``writers.py``), one block per field in field-number order, unknown fields
last, as protobuf writes them.  Values are checked as they are written, as protobuf checks them on
assignment: nothing is returned unless all are valid, and an error names the
field path.

Each encoder appends byte chunks to one list and returns how many bytes it
appended; a sub-message's length prefix goes into a slot reserved before it,
so a large payload is copied exactly once (by the final join), however deep
it sits.

Two encoders are generated per message.  The one :func:`encode_message`
uses writes into a ``list``.  The other writes into a :class:`Plan`, the
named interface of the streaming writer (``stream.py``): a ``list``
subclass to which sub-messages and long packed fields are handed whole, so
that it can measure them first and write them later without the whole
encoding ever existing in memory.
"""

from __future__ import annotations

from array import array

from .._core import switches
from .._core.errors import (
    DecodeError,
    EncodeError,
    EncodeOverflowError,
    EncodeTypeError,
    EncodeValueError,
)
from .._core.foreign import describe, foreign_name
from .._core.mapped import check_view
from .._core.wire import BIG_ENDIAN, MAX_DEPTH, encode_varint
from . import decode as _decode
from . import writers
from .blocks import float32_bits
from .bytes_lists import bytes_list
from .varints import check_int, encode_packed, encode_unpacked
from .writers import ENCODERS, clear
from .writing import (
    SEEN_MAX,
    attach,
    each,
    enum_error,
    items,
    length_delimited,
    remembered,
    small_unpacked,
    to_bytes,
    to_str,
    varint,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterable
    from typing import Any

    from .._messages.declarations import Message

    Out = list[Any]  # bytes, bytearray or memoryview chunks, or a Plan
    Encoder = Callable[[Any, Any, int], int]

__all__ = [
    "SEEN_MAX",
    "Plan",
    "attach",
    "check_sub",
    "clear",
    "encode_message",
    "encode_varint",
    "encoder",
    "length_delimited",
    "remembered",
    "source",
    "too_large",
]


def encode_message(msg: Message, max_size: int | None = None) -> bytes:
    """``msg.encode(max_size=max_size)``; see ``Message.encode``."""
    encode = ENCODERS[switches.GENERAL_PATHS][False].get(type(msg)) or encoder(type(msg))
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
    found: Encoder | None = ENCODERS[switches.GENERAL_PATHS][plan].get(cls)
    return found or writers.encoders(cls, plan, _GLOBALS)


def source(cls: type[Message], plan: bool = False) -> str:
    """The source text of the encoder generated for ``cls``: to read, or to debug.

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    return writers.source(cls, plan, _GLOBALS)


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


def _float(v: Any, code: str) -> bytes:
    """A singular float or double: converted and checked as one element of a repeated one
    (a float NaN decoded with its bits in the double gets them back)."""
    if code == "f" and type(v) is float and v != v:
        return float32_bits(v)
    return bytes(_floats([v], code))


def _packed(tag: bytes, values: Any, lo: int, hi: int, code: str, out: Out) -> int:
    return length_delimited(tag, encode_packed(values, lo, hi, code), out)


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


def _unpacked_floats(tag: bytes, values: Any, code: str, out: Out) -> int:
    """A repeated float or double field written unpacked (proto2's default for a
    field not declared ``packed``): the tag before each value's bytes."""
    data = _floats(values, code)
    size = 4 if code == "f" else 8
    b = b"".join([tag + data[i : i + size] for i in range(0, len(data), size)])
    out.append(b)
    return len(b)


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
    check_view(view)  # a view of a mapped file that shrank: an error, not SIGBUS
    return view.cast("B")


def _check_unknown(m: Any, depth: int) -> bytes | bytearray | memoryview:
    """``unknown_fields`` must decode, where the message sits, as unknown fields only.

    Decoding them as the message's own type, with the nesting budget left at
    its depth, is the exact test: anything protobuf would reject, or would
    read back as one of the message's known fields, is refused.
    """
    data = to_bytes(m.unknown_fields)
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


def _each_sub(
    tag: bytes, msgs: Any, cls: type[Message], encode: Encoder, out: Out, depth: int
) -> int:
    """A repeated message field, one element at a time; an error names its index."""
    size = 0
    i = 0
    try:
        for i, m in enumerate(msgs):  # noqa: B007 - i names the element on error
            size += _sub(tag, m, cls, encode, out, depth)
    except EncodeError as err:
        err.within(f"[{i}]")
        raise
    return size


_GLOBALS: dict[str, Any] = {
    "EncodeError": EncodeError,
    "array": array,
    "memoryview": memoryview,
    "attach": attach,
    "trailer": _trailer,
    "items": items,
    "check_int": check_int,
    "varint": varint,
    "to_str": to_str,
    "to_bytes": to_bytes,
    "to_float": _float,
    "floats": _floats,
    "unpacked_floats": _unpacked_floats,
    "length_delimited": length_delimited,
    "packed": _packed,
    "encode_unpacked": encode_unpacked,
    "small_unpacked": small_unpacked,
    "bytes_list": bytes_list,
    "each": each,
    "sub": _sub,
    "each_sub": _each_sub,
    "check_sub": check_sub,
    "position": _position,
    "enum_error": enum_error,
}
"""The names every generated encoder's globals start with."""
