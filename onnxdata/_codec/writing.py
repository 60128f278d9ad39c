"""Values as the encoder writes them: the checks and writes every encoder shares.

Each converts one value, or one repeated field's values, as protobuf
checks them on assignment, and raises the ``EncodeError`` that names what is
wrong; the generated encoders (``writers.py``) and the bytes-list fast path
(``bytes_lists.py``) call them, and add the field path as the error climbs
out (:func:`attach`).
"""

from __future__ import annotations

from .._core.errors import EncodeError, EncodeTypeError, EncodeValueError
from .._core.mapped import check_view
from .._core.schema import is_boolean_type
from .._core.wire import encode_varint, own_bytes, own_utf8

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    Out = list[Any]  # bytes, bytearray or memoryview chunks, or a Plan

__all__ = [
    "SEEN_MAX",
    "attach",
    "each",
    "enum_error",
    "items",
    "length_delimited",
    "remembered",
    "seen_table",
    "small_unpacked",
    "to_bytes",
    "to_str",
    "varint",
]


def varint(v: int) -> bytes:
    """A checked integer's varint; negatives as 10-byte two's complement."""
    return encode_varint(v if v >= 0 else v + (1 << 64))


def to_str(v: Any) -> bytes:
    """A string field's UTF-8 bytes.

    Raises:
        EncodeTypeError: not a ``str``.
        EncodeValueError: not encodable (a lone surrogate).
    """
    if not isinstance(v, str):
        raise EncodeTypeError(f"expected str, got {type(v).__name__}")
    try:
        return own_utf8(v)
    except UnicodeEncodeError as exc:
        raise EncodeValueError(
            f"not encodable as UTF-8: {exc.reason} at index {exc.start}"
        ) from None


def to_bytes(v: Any) -> bytes | bytearray | memoryview:
    """A bytes field's value as a flat byte buffer, without copying where it can.

    Raises:
        EncodeTypeError: not a bytes-like value.
        MappedFileError: (an ``OSError``) a view of a mapped file that shrank
            (``load(..., mmap=True)``): reading it would kill the process.
    """
    if type(v) is bytes or type(v) is bytearray:
        return v
    if isinstance(v, (bytes, bytearray)):  # a subclass: what it holds, not what its methods say
        return own_bytes(v)
    if isinstance(v, memoryview):
        check_view(v)
        if not v.c_contiguous:
            return v.tobytes()  # a strided view: its bytes in logical order
        return v if v.format == "B" and v.ndim == 1 else v.cast("B")
    raise EncodeTypeError(f"expected bytes, got {type(v).__name__}")


def items(values: Any) -> Any:
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


def each(tag: bytes, values: Any, convert: Any, out: Out, start: int = 0) -> int:
    """A repeated string or bytes field's entries one at a time, each made by
    ``convert`` (:func:`to_str`, :func:`to_bytes`).

    Raises:
        EncodeError: ``convert``'s, naming entry ``start`` + its index in ``values``.
    """
    size = 0
    for i, v in enumerate(values, start):
        try:
            size += length_delimited(tag, convert(v), out)
        except EncodeError as err:
            err.within(f"[{i}]")
            raise
    return size


def attach(err: EncodeError, name: str) -> None:
    """Name the field on the error; an element index found below joins it."""
    parts = err.parts
    if parts and parts[-1].startswith("["):
        parts[-1] = name + parts[-1]
    else:
        parts.append(name)


def enum_error(v: int) -> EncodeValueError:
    """The error for a value a closed enum does not name."""
    return EncodeValueError(f"invalid enumerator {v}")


# Encodings of short lists of small ints written unpacked before, per field: the
# tensors of a sequence or map usually share one shape.  Bounded.
SEEN_MAX = 1024
_SEEN_LEN = 8
_SEEN_TABLES: list[dict[bytes, bytes]] = []


def seen_table() -> dict[bytes, bytes]:
    """A new field's table of remembered encodings (see :func:`small_unpacked`)."""
    table: dict[bytes, bytes] = {}
    _SEEN_TABLES.append(table)
    return table


def remembered() -> list[int]:
    """How many encodings each unpacked integer field remembers (at most ``SEEN_MAX``)."""
    return [len(table) for table in _SEEN_TABLES]


def small_unpacked(values: Any, key: bytes, seen: dict[bytes, bytes], tag: int) -> bytes | None:
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
