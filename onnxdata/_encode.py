"""Messages to bytes: one function per message type, chunks joined once.

Each function appends byte chunks to one shared list and returns how many
bytes it appended; a sub-message's length prefix goes into a slot reserved
before it, so a large payload is copied exactly once (by the final join),
however deep it sits.  Fields go out in field-number order, unknown fields
last, as protobuf writes them.  Values are checked as they are written, as
protobuf checks them on assignment: nothing is returned unless all are valid.
"""

from __future__ import annotations

import operator
from array import array

from . import _decode
from . import _lanes as lanes
from . import _npvarints as npvarints
from ._errors import (
    DecodeError,
    EncodeError,
    EncodeOverflowError,
    EncodeTypeError,
    EncodeValueError,
)
from ._messages import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)
from ._schema import KINDS
from ._wire import (
    BIG_ENDIAN,
    INT32_MAX,
    INT32_MIN,
    INT64_MAX,
    INT64_MIN,
    MASK64,
    MAX_DEPTH,
    encode_varint,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    _Out = list[Any]  # bytes, bytearray or memoryview chunks
    _Encoder = Callable[[Any, _Out, int], int]

_Segment = TensorProto.Segment
INT64, UINT64 = "q", "Q"
INT32 = KINDS["int32"].typecode
UINT64_MAX = MASK64


def encode_message(msg: Message, max_size: int | None = None) -> bytes:
    encoder = _ENCODERS.get(type(msg))
    if encoder is None:
        raise TypeError(f"not an onnxdata message: {type(msg).__name__}")
    out: _Out = []
    try:
        size = encoder(msg, out, MAX_DEPTH)
        if max_size is not None and size > max_size:
            raise too_large(size, max_size)
    except EncodeError as err:
        err._within(type(msg).__qualname__)
        raise
    return b"".join(out)


def too_large(size: int, max_size: int) -> EncodeValueError:
    return EncodeValueError(f"the encoding is {size} bytes, more than max_size={max_size}")


# -- values ----------------------------------------------------------------


def _int(v: Any, lo: int, hi: int) -> int:
    """Check an integer as protobuf does: no bool, no float, numpy ints welcome."""
    if type(v) is int:
        n: int = v
    elif isinstance(v, bool):
        raise EncodeTypeError("expected an int, got a boolean")
    else:
        try:
            n = operator.index(v)
        except TypeError:
            raise EncodeTypeError(f"expected an int, got {type(v).__name__}") from None
    if n < lo or n > hi:
        raise EncodeValueError(f"value out of range: {n}")
    return n


def _varint(v: int) -> bytes:
    """A checked integer's varint; negatives as 10-byte two's complement."""
    return encode_varint(v if v >= 0 else v + (1 << 64))


def _str(v: Any) -> bytes:
    if not isinstance(v, str):
        raise EncodeTypeError(f"expected str, got {type(v).__name__}")
    try:
        # surrogateescape: a decoded invalid UTF-8 byte goes back out unchanged.
        return v.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise EncodeValueError(
            f"not encodable as UTF-8: {exc.reason} at index {exc.start}"
        ) from None


def _bytes(v: Any) -> bytes | bytearray | memoryview:
    if type(v) is bytes or type(v) is bytearray:
        return v
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    if isinstance(v, memoryview):
        if not v.c_contiguous:
            return v.tobytes()  # a strided view: its bytes in logical order
        return v if v.format == "B" and v.ndim == 1 else v.cast("B")
    raise EncodeTypeError(f"expected bytes, got {type(v).__name__}")


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


def _length_delimited(tag: bytes, payload: Any, out: _Out) -> int:
    head = tag + encode_varint(len(payload))
    out.append(head)
    out.append(payload)
    return len(head) + len(payload)


def _packed_varints(values: Any, lo: int, hi: int, code: str) -> bytes:
    """A packed integer payload; an ``array`` of the field's own type needs no checks."""
    if type(values) is array:
        if values.typecode == code:
            if len(values) >= npvarints.MIN_VALUES:
                np = npvarints.numpy()
                if np is not None:
                    return npvarints.encode(np, values, code)
            if len(values) >= lanes.MIN_VALUES:
                return lanes.encode(values)  # int64_1M: 560 -> 95 ms
        values = values.tolist()  # other typecodes are checked like any list
    if len(values) > 16 and type(values) is list and set(map(type, values)) == {int}:
        # Four C-level passes (types, min, max, bytes or array) instead of a Python loop.
        if min(values) >= 0 and max(values) < 0x80:
            return bytes(values)
        if len(values) >= lanes.MIN_VALUES:
            try:
                checked = array(code, values)
            except OverflowError:
                pass  # out of range: the loop below names the value
            else:
                return lanes.encode(checked)
    chunks: list[bytes] = []
    append = chunks.append
    one = _ONE_BYTE
    for v in values:
        if type(v) is not int or v < lo or v > hi:
            v = _element(values, v, lo, hi)
        if 0 <= v < 0x80:
            append(one[v])
            continue
        append(encode_varint(v if v >= 0 else v + (1 << 64)))
    return b"".join(chunks)


_ONE_BYTE = [bytes((v,)) for v in range(0x80)]


def _packed(tag: bytes, values: Any, lo: int, hi: int, code: str, out: _Out) -> int:
    """A packed integer field.  ``encode_to``'s plan (a list subclass, see
    _stream.py) encodes a long field a piece at a time instead, so that its
    varints never exist all at once.
    """
    if type(out) is not list:
        return out.packed(tag, values, lo, hi, code)  # type: ignore[attr-defined,no-any-return]
    return _length_delimited(tag, _packed_varints(values, lo, hi, code), out)


def _element(values: Any, v: Any, lo: int, hi: int) -> int:
    """Check one element off the fast path; a bad one is named by its index."""
    try:
        return _int(v, lo, hi)
    except EncodeError as err:
        for i, x in enumerate(values):  # iterating again makes new objects: compare by check
            try:
                _int(x, lo, hi)
            except EncodeError:
                err._within(f"[{i}]")
                break
        raise


# A sub-message tag -> its 128 encodings followed by a one-byte length.
_HEADS = {
    tag: [tag + bytes((n,)) for n in range(0x80)]
    for tag in (b"\x0a", b"\x12", b"\x1a", b"\x22", b"\x2a", b"\x32", b"\x3a", b"\x6a", b"\x82\x01")
}

# tag -> the 128 two-byte encodings of that tag with a one-byte varint or length.
_TAGGED = {
    tag: [bytes((tag, v)) for v in range(0x80)] for tag in (0x08, 0x10, 0x18, 0x22, 0x32, 0x4A)
}
_DATA_TYPE, _RAW_DATA = _TAGGED[0x10], _TAGGED[0x4A]
# Type fields' values that need no check: ints, and the enums (numpy_helper sets them).
_INTS = frozenset({int, TensorProto.DataType, SequenceProto.DataType, OptionalProto.DataType})


# Encodings of short dims lists written before, by their bytes(): the tensors of
# a sequence or map usually share one shape.  Bounded; see _small_dims.
_DIMS_SEEN: dict[bytes, bytes] = {}
_DIMS_SEEN_MAX = 1024
_DIMS_SEEN_LEN = 8


def _small_dims(dims: Any, key: bytes) -> bytes | None:
    """``dims`` written unpacked if all values are ints in 0..127 (else None).

    ``key`` is ``bytes(dims)``, or empty where that raised: it checks and
    converts the values in one C call, taking what ``operator.index`` takes,
    as ``_int`` does, and refusing floats and values outside 0..255.  Only a
    ``bool`` gets through, as 0 or 1, so those two values make it look at the
    types.  Short lists' encodings are remembered.  Two dims: 350 ns -> 150 ns.
    """
    if not key:
        return None
    b = _DIMS_SEEN.get(key)
    if b is None:
        if not key.isascii():
            return None
        encoded = bytearray(b"\x08" * (2 * len(key)))
        encoded[1::2] = key
        b = bytes(encoded)
        if len(key) <= _DIMS_SEEN_LEN and len(_DIMS_SEEN) < _DIMS_SEEN_MAX:
            _DIMS_SEEN[key] = b
    if (0 in key or 1 in key) and bool in set(map(type, dims)):
        return None
    return b


def _unpacked_varints(tag: int, values: Any, lo: int, hi: int) -> bytes:
    """A repeated integer field written unpacked: tag, value, tag, value, ..."""
    if (
        len(values) >= lanes.MIN_VALUES
        and lo == INT64_MIN
        and type(values) is list
        and set(map(type, values)) == {int}
    ):
        # All in lanes at once, as _packed_varints: map10k's 10,000 keys 6.4 -> 1.2 ms.
        try:
            checked = array(INT64, values)
        except OverflowError:
            pass  # out of range: the loop below names the value
        else:
            return lanes.encode(checked, tag)
    tagged = _TAGGED[tag]
    head = tagged[0][:1]
    chunks: list[bytes] = []
    append = chunks.append
    for v in values:
        if type(v) is int:
            if 0 <= v < 0x80:
                append(tagged[v])
                continue
            if lo <= v <= hi:
                append(head + encode_varint(v if v >= 0 else v + (1 << 64)))
                continue
        append(head + _varint(_element(values, v, lo, hi)))
    return b"".join(chunks)


def _floats(values: Any, code: str) -> memoryview:
    """The little-endian bytes of a float field, as a view: the final join is the one copy."""
    if type(values) is not array or values.typecode != code:
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
    cls = type(m)
    scratch = _decode._BLANK[cls]()
    try:
        _decode._DECODERS[cls](data, 0, len(data), scratch, depth)
    except DecodeError as err:
        raise EncodeValueError(f"not well-formed protobuf fields: {err}") from None
    finally:
        _decode._settle()
    if bytes(scratch.unknown_fields) != bytes(data):
        raise EncodeValueError(
            "holds fields this message knows: protobuf would read them as those fields"
        )
    return data


def check_sub(msg: Any, cls: type[Message], depth: int) -> None:
    """A sub-message must be of its field's class, and nesting within the limit."""
    if not isinstance(msg, cls):
        raise EncodeTypeError(f"expected {cls.__qualname__}, got {type(msg).__qualname__}")
    if depth <= 0:
        raise EncodeValueError(
            f"nesting deeper than {MAX_DEPTH} messages (a message that contains itself?): "
            "protobuf could not parse the result"
        )


def _sub(tag: bytes, msg: Any, cls: type[Message], out: _Out, depth: int) -> int:
    """A sub-message: reserve the slot for its tag and length, write it, fill the slot."""
    if type(out) is not list:  # encode_to's plan (see _stream.py)
        return out.sub(tag, msg, cls, depth)  # type: ignore[attr-defined,no-any-return]
    if depth <= 0 or not isinstance(msg, cls):
        check_sub(msg, cls, depth)
    slot = len(out)
    out.append(b"")
    n = _ENCODERS[cls](msg, out, depth - 1)
    head = tag + encode_varint(n)
    out[slot] = head
    return len(head) + n


def _subs(tag: bytes, msgs: Any, cls: type[Message], out: _Out, depth: int) -> int:
    """A repeated message field: ``_sub`` for each element, its checks inlined."""
    if type(out) is not list:  # encode_to's plan (see _stream.py)
        return out.subs(tag, msgs, cls, depth)  # type: ignore[attr-defined,no-any-return]
    encode = _ENCODERS[cls]
    heads = _HEADS[tag]  # a length below 128: its head from the table
    short = len(tag) + 1
    append = out.append
    size = 0
    m = None
    try:
        for m in msgs:
            if type(m) is not cls or depth <= 0:
                check_sub(m, cls, depth)  # a subclass passes
            slot = len(out)
            append(b"")
            n = encode(m, out, depth - 1)
            if n < 0x80:
                out[slot] = heads[n]
                size += short + n
            else:
                head = tag + encode_varint(n)
                out[slot] = head
                size += len(head) + n
    except EncodeError as err:
        # The element's first occurrence failed first: name it by its position.
        err._within(f"[{next(i for i, x in enumerate(msgs) if x is m)}]")
        raise
    return size


def _bytes_list(tag: bytes, values: Any, out: _Out) -> int:
    """A repeated bytes field; ``bytes`` entries shorter than 128 (the usual case) in bulk.

    One ``%`` formatting call writes them all, from a template of four bytes
    per entry: the tag, the length, ``%b``.  No head object is made per entry,
    and the final join gets one piece instead of two per entry: with the
    passes below, strings100k encode 10.8 -> 5.8 ms.  encode_to's plan (_stream.py) gets the entries
    themselves instead, so that nothing is joined.
    """
    # (countOf: 1.2 ms for 100,000 entries, where a set of their types takes 1.7)
    if (
        type(values) is list
        and values
        and operator.countOf(map(type, values), bytes) == len(values)
    ):
        try:
            lengths = bytearray(map(len, values))  # (bytearray: 1.6 ms, bytes: 2.1)
        except ValueError:  # a length above 255
            lengths = bytearray(b"\x80")
        if lengths.isascii():
            n = len(values)
            if type(out) is list:
                template = bytearray((tag + b"\0%b") * n)
                template[1::4] = lengths
                if 0x25 in lengths:
                    b = _percent_lengths(tag, values, lengths, template)
                else:
                    b = template % tuple(values)
                out.append(b)
                return len(b)
            heads = _TAGGED[tag[0]]
            chunks: list[bytes] = [b""] * (2 * n)
            chunks[0::2] = map(heads.__getitem__, lengths)
            chunks[1::2] = values
            out.extend(chunks)
            return 2 * n + sum(lengths)
    size = 0
    for i, v in enumerate(values):
        try:
            size += _length_delimited(tag, _bytes(v), out)
        except EncodeError as err:
            err._within(f"[{i}]")
            raise
    return size


def _percent_lengths(
    tag: bytes, values: list[bytes], lengths: bytearray, template: bytearray
) -> bytes | bytearray:
    """_bytes_list's formatting when some lengths are 37, ``%``.

    Those entries' templates become ``tag %c %b``, their length an argument.
    Where they are many, ``tag %% %b`` (a literal ``%``) by one replace is
    faster; no other four bytes of the template can read ``tag % % b``.
    """
    count = lengths.count(0x25)
    if count > len(values) >> 6:
        return template.replace(tag + b"%%b", tag + b"%%%b") % tuple(values)
    pieces: list[bytes | bytearray] = []
    items: list[Any] = []
    start = 0
    for _ in range(count):
        i = lengths.index(0x25, start)
        pieces.append(template[4 * start : 4 * i])
        pieces.append(tag + b"%c%b")
        items += values[start:i]
        items.append(0x25)
        items.append(values[i])
        start = i + 1
    pieces.append(template[4 * start :])
    items += values[start:]
    return b"".join(pieces) % tuple(items)


def _attach(err: EncodeError, name: str) -> None:
    """Name the field on the error; an element index found below joins it."""
    parts = err._parts
    if parts and parts[-1].startswith("["):
        parts[-1] = name + parts[-1]
    else:
        parts.append(name)


# -- one function per message ----------------------------------------------


def _tensor(m: TensorProto, out: _Out, depth: int) -> int:
    values: Any
    size = 0
    name = "dims"
    try:
        dims = m.dims
        if type(dims) is not list:
            dims = _items(dims)
        if dims:
            try:  # _small_dims' table, looked up without a call: -70 ns per tensor
                key = bytes(dims)
            except (TypeError, ValueError):
                key = b""  # dims are not empty here: b"" says bytes() refused them
            b = _DIMS_SEEN.get(key)
            if b is None or 0 in key or 1 in key:
                b = _small_dims(dims, key) or _unpacked_varints(0x08, dims, INT64_MIN, INT64_MAX)
            out.append(b)
            size += len(b)
        name = "data_type"
        data_type = m.data_type
        if data_type is not None:
            if type(data_type) in _INTS and 0 <= data_type < 0x80:
                b = _DATA_TYPE[data_type]
            else:
                b = b"\x10" + _varint(_int(data_type, INT32_MIN, INT32_MAX))
            out.append(b)
            size += len(b)
        name = "segment"
        if m.segment is not None:
            size += _sub(b"\x1a", m.segment, _Segment, out, depth)
        name = "float_data"
        values = m.float_data
        if type(values) is not array and type(values) is not memoryview:
            values = _items(values)  # a decode(copy=False) view is written as it is
        if values:
            size += _length_delimited(b"\x22", _floats(values, "f"), out)
        name = "int32_data"
        values = m.int32_data
        if type(values) is not array:
            values = _items(values)
        if values:
            size += _packed(b"\x2a", values, INT32_MIN, INT32_MAX, INT32, out)
        name = "string_data"
        values = m.string_data
        if type(values) is not list:
            values = _items(values)
        if values:
            size += _bytes_list(b"\x32", values, out)
        name = "int64_data"
        values = m.int64_data
        if type(values) is not array:
            values = _items(values)
        if values:
            size += _packed(b"\x3a", values, INT64_MIN, INT64_MAX, INT64, out)
        name = "name"
        if m.name is not None:
            size += _length_delimited(b"\x42", _str(m.name), out)
        name = "raw_data"
        raw = m.raw_data
        if raw is not None:
            if type(raw) is bytes and len(raw) < 0x80:
                out.append(_RAW_DATA[len(raw)])
                out.append(raw)
                size += 2 + len(raw)
            else:
                size += _length_delimited(b"\x4a", _bytes(raw), out)
        name = "double_data"
        values = m.double_data
        if type(values) is not array and type(values) is not memoryview:
            values = _items(values)  # a decode(copy=False) view is written as it is
        if values:
            size += _length_delimited(b"\x52", _floats(values, "d"), out)
        name = "uint64_data"
        values = m.uint64_data
        if type(values) is not array:
            values = _items(values)
        if values:
            size += _packed(b"\x5a", values, 0, UINT64_MAX, UINT64, out)
        name = "doc_string"
        if m.doc_string is not None:
            size += _length_delimited(b"\x62", _str(m.doc_string), out)
        name = "external_data"
        values = m.external_data
        if type(values) is not list:
            values = _items(values)
        if values:
            size += _subs(b"\x6a", values, StringStringEntryProto, out, depth)
        name = "data_location"
        if m.data_location is not None:
            loc = _int(m.data_location, INT32_MIN, INT32_MAX)
            if loc not in (0, 1):  # proto2 enums are closed
                raise EncodeValueError(f"invalid enumerator {loc}")
            out.append(b"\x70" + _varint(loc))
            size += 2
        name = "metadata_props"
        values = m.metadata_props
        if type(values) is not list:
            values = _items(values)
        if values:
            size += _subs(b"\x82\x01", values, StringStringEntryProto, out, depth)
        name = "unknown_fields"
        unknown = m.unknown_fields
        if type(unknown) is not bytes or unknown:
            size += _trailer(m, out, depth)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


def _segment(m: Any, out: _Out, depth: int) -> int:
    size = 0
    name = "begin"
    try:
        if m.begin is not None:
            b = b"\x08" + _varint(_int(m.begin, INT64_MIN, INT64_MAX))
            out.append(b)
            size += len(b)
        name = "end"
        if m.end is not None:
            b = b"\x10" + _varint(_int(m.end, INT64_MIN, INT64_MAX))
            out.append(b)
            size += len(b)
        name = "unknown_fields"
        unknown = m.unknown_fields
        if type(unknown) is not bytes or unknown:
            size += _trailer(m, out, depth)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


def _trailer(m: Any, out: _Out, depth: int = MAX_DEPTH) -> int:
    """Unknown fields, checked; the callers skip the usual empty ``bytes``."""
    b = _check_unknown(m, depth)
    out.append(b)
    return len(b)


def _entry(m: StringStringEntryProto, out: _Out, depth: int) -> int:
    size = 0
    name = "key"
    try:
        if m.key is not None:
            size += _length_delimited(b"\x0a", _str(m.key), out)
        name = "value"
        if m.value is not None:
            size += _length_delimited(b"\x12", _str(m.value), out)
        name = "unknown_fields"
        unknown = m.unknown_fields
        if type(unknown) is not bytes or unknown:
            size += _trailer(m, out, depth)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


def _sparse(m: SparseTensorProto, out: _Out, depth: int) -> int:
    values: Any
    size = 0
    name = "values"
    try:
        if m.values is not None:
            size += _sub(b"\x0a", m.values, TensorProto, out, depth)
        name = "indices"
        if m.indices is not None:
            size += _sub(b"\x12", m.indices, TensorProto, out, depth)
        name = "dims"
        values = m.dims
        if type(values) is not list:
            values = _items(values)
        if values:
            b = _unpacked_varints(0x18, values, INT64_MIN, INT64_MAX)
            out.append(b)
            size += len(b)
        name = "unknown_fields"
        unknown = m.unknown_fields
        if type(unknown) is not bytes or unknown:
            size += _trailer(m, out, depth)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


def _head(m: Any, out: _Out, type_field: str, value: Any) -> int:
    """``name`` (1) and the int32 type field (2), ``value``, that open the container messages."""
    size = 0
    name = "name"
    try:
        if m.name is not None:
            size += _length_delimited(b"\x0a", _str(m.name), out)
        name = type_field
        if value is not None:
            b = b"\x10" + _varint(_int(value, INT32_MIN, INT32_MAX))
            out.append(b)
            size += len(b)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


def _sequence(m: SequenceProto, out: _Out, depth: int) -> int:
    values: Any
    head: Any = m.elem_type
    if m.name is None and type(head) in _INTS and 0 <= head < 0x80:
        out.append(_DATA_TYPE[head])  # the usual head, without a call
        size = 2
    else:
        size = _head(m, out, "elem_type", head)
    try:
        name = "tensor_values"
        values = m.tensor_values
        if type(values) is not list:
            values = _items(values)
        if values:
            size += _subs(b"\x1a", values, TensorProto, out, depth)
        name = "sparse_tensor_values"
        values = m.sparse_tensor_values
        if type(values) is not list:
            values = _items(values)
        if values:
            size += _subs(b"\x22", values, SparseTensorProto, out, depth)
        name = "sequence_values"
        values = m.sequence_values
        if type(values) is not list:
            values = _items(values)
        if values:
            size += _subs(b"\x2a", values, SequenceProto, out, depth)
        name = "map_values"
        values = m.map_values
        if type(values) is not list:
            values = _items(values)
        if values:
            size += _subs(b"\x32", values, MapProto, out, depth)
        name = "optional_values"
        values = m.optional_values
        if type(values) is not list:
            values = _items(values)
        if values:
            size += _subs(b"\x3a", values, OptionalProto, out, depth)
        name = "unknown_fields"
        unknown = m.unknown_fields
        if type(unknown) is not bytes or unknown:
            size += _trailer(m, out, depth)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


def _map(m: MapProto, out: _Out, depth: int) -> int:
    values: Any
    head: Any = m.key_type
    if m.name is None and type(head) in _INTS and 0 <= head < 0x80:
        out.append(_DATA_TYPE[head])  # the usual head, without a call
        size = 2
    else:
        size = _head(m, out, "key_type", head)
    try:
        name = "keys"
        values = m.keys
        if type(values) is not list:
            values = _items(values)
        if values:
            b = _unpacked_varints(0x18, values, INT64_MIN, INT64_MAX)
            out.append(b)
            size += len(b)
        name = "string_keys"
        values = m.string_keys
        if type(values) is not list:
            values = _items(values)
        if values:
            size += _bytes_list(b"\x22", values, out)
        name = "values"
        if m.values is not None:
            size += _sub(b"\x2a", m.values, SequenceProto, out, depth)
        name = "unknown_fields"
        unknown = m.unknown_fields
        if type(unknown) is not bytes or unknown:
            size += _trailer(m, out, depth)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


def _optional(m: OptionalProto, out: _Out, depth: int) -> int:
    head: Any = m.elem_type
    if m.name is None and type(head) in _INTS and 0 <= head < 0x80:
        out.append(_DATA_TYPE[head])  # the usual head, without a call
        size = 2
    else:
        size = _head(m, out, "elem_type", head)
    try:
        name = "tensor_value"
        if m.tensor_value is not None:
            size += _sub(b"\x1a", m.tensor_value, TensorProto, out, depth)
        name = "sparse_tensor_value"
        if m.sparse_tensor_value is not None:
            size += _sub(b"\x22", m.sparse_tensor_value, SparseTensorProto, out, depth)
        name = "sequence_value"
        if m.sequence_value is not None:
            size += _sub(b"\x2a", m.sequence_value, SequenceProto, out, depth)
        name = "map_value"
        if m.map_value is not None:
            size += _sub(b"\x32", m.map_value, MapProto, out, depth)
        name = "optional_value"
        if m.optional_value is not None:
            size += _sub(b"\x3a", m.optional_value, OptionalProto, out, depth)
        name = "unknown_fields"
        unknown = m.unknown_fields
        if type(unknown) is not bytes or unknown:
            size += _trailer(m, out, depth)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


_ENCODERS: dict[type[Message], _Encoder] = {
    TensorProto: _tensor,
    _Segment: _segment,
    StringStringEntryProto: _entry,
    SparseTensorProto: _sparse,
    SequenceProto: _sequence,
    MapProto: _map,
    OptionalProto: _optional,
}
