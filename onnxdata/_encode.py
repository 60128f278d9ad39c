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

from . import _npvarints as npvarints
from ._errors import (
    DecodeError,
    EncodeError,
    EncodeOverflowError,
    EncodeTypeError,
    EncodeValueError,
)
from ._messages import (
    INT32,
    INT64,
    UINT64,
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)
from ._wire import (
    BIG_ENDIAN,
    INT32_MAX,
    INT32_MIN,
    INT64_MAX,
    INT64_MIN,
    MASK64,
    MAX_DEPTH,
    encode_varint,
    read_tag,
    skip_field,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    _Out = list[Any]  # bytes, bytearray or memoryview chunks
    _Encoder = Callable[[Any, _Out, int], int]

_Segment = TensorProto.Segment
UINT64_MAX = MASK64


def encode_message(msg: Message) -> bytes:
    encoder = _ENCODERS.get(type(msg))
    if encoder is None:
        raise TypeError(f"not an onnxdata message: {type(msg).__name__}")
    out: _Out = []
    try:
        encoder(msg, out, MAX_DEPTH)
    except EncodeError as err:
        err._within(type(msg).__qualname__)
        raise
    return b"".join(out)


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
        return v if v.format == "B" and v.ndim == 1 else v.cast("B")
    raise EncodeTypeError(f"expected bytes, got {type(v).__name__}")


def _length_delimited(tag: bytes, payload: Any, out: _Out) -> int:
    head = tag + encode_varint(len(payload))
    out.append(head)
    out.append(payload)
    return len(head) + len(payload)


def _all_small(values: Any) -> bytes | None:
    """The values as bytes if all are plain ints in 0..127 (one varint byte each).

    Four C-level passes (types, min, max, bytes) instead of a Python loop:
    worth it for long lists only.
    """
    if type(values) is list and set(map(type, values)) == {int}:
        lo = min(values)
        hi = max(values)
        if lo >= 0 and hi < 0x80:
            return bytes(values)
    return None


def _packed_varints(values: Any, lo: int, hi: int, code: str) -> bytes:
    """A packed integer payload; an ``array`` of the field's own type needs no checks."""
    if type(values) is array:
        if values.typecode == code and len(values) >= npvarints.MIN_VALUES:
            np = npvarints.numpy()
            if np is not None:
                return npvarints.encode(np, values, code)
        values = values.tolist()  # other typecodes are checked like any list
    if len(values) > 16:
        small = _all_small(values)
        if small is not None:
            return small
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


def _element(values: Any, v: Any, lo: int, hi: int) -> int:
    """Check one element off the fast path; a bad one is named by its index."""
    try:
        return _int(v, lo, hi)
    except EncodeError as err:
        index = next(i for i, x in enumerate(values) if x is v)
        err._within(f"[{index}]")
        raise


# tag -> the 128 two-byte encodings of that tag with a one-byte varint or length.
_TAGGED = {
    tag: [bytes((tag, v)) for v in range(0x80)] for tag in (0x08, 0x10, 0x18, 0x22, 0x32, 0x4A)
}
_DIMS, _DATA_TYPE, _RAW_DATA = _TAGGED[0x08], _TAGGED[0x10], _TAGGED[0x4A]


def _unpacked_varints(tag: int, values: Any, lo: int, hi: int) -> bytes:
    """A repeated integer field written unpacked: tag, value, tag, value, ..."""
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


def _check_unknown(raw: Any) -> bytes | bytearray | memoryview:
    """Unknown fields must be whole, well-formed fields, or the output won't parse."""
    data = _bytes(raw)
    view = memoryview(data)
    pos, end = 0, len(view)
    try:
        while pos < end:
            start = pos
            tag, pos = read_tag(view, pos, end)
            pos = skip_field(view, start, pos, end, tag, MAX_DEPTH)
    except DecodeError as err:
        raise EncodeValueError(f"not well-formed protobuf fields: {err}") from None
    return data


def _sub(tag: bytes, msg: Any, cls: type[Message], out: _Out, depth: int) -> int:
    """A sub-message: reserve the slot for its tag and length, write it, fill the slot."""
    if not isinstance(msg, cls):
        raise EncodeTypeError(f"expected {cls.__qualname__}, got {type(msg).__qualname__}")
    if depth <= 0:
        raise EncodeValueError(
            f"nesting deeper than {MAX_DEPTH} messages (a message that contains itself?): "
            "protobuf could not parse the result"
        )
    slot = len(out)
    out.append(b"")
    n = _ENCODERS[cls](msg, out, depth - 1)
    head = tag + encode_varint(n)
    out[slot] = head
    return len(head) + n


def _subs(tag: bytes, msgs: Any, cls: type[Message], out: _Out, depth: int) -> int:
    """A repeated message field: ``_sub`` for each element, its checks hoisted."""
    if depth <= 0 or not all(type(m) is cls for m in msgs):
        for i, m in enumerate(msgs):  # the slow path finds and names the bad element
            try:
                _sub(tag, m, cls, out, depth)
            except EncodeError as err:
                err._within(f"[{i}]")
                raise
    encode = _ENCODERS[cls]
    size = 0
    i = 0
    try:
        for i, m in enumerate(msgs):  # noqa: B007 - i names the element on error
            slot = len(out)
            out.append(b"")
            n = encode(m, out, depth - 1)
            head = tag + encode_varint(n)
            out[slot] = head
            size += len(head) + n
    except EncodeError as err:
        err._within(f"[{i}]")
        raise
    return size


def _bytes_list(tag: bytes, values: Any, out: _Out) -> int:
    """A repeated bytes field; short ``bytes`` entries (the usual case) in bulk."""
    if type(values) is list and values and set(map(type, values)) == {bytes}:
        lengths = list(map(len, values))
        if max(lengths) < 0x80:
            heads = _TAGGED[tag[0]]
            chunks: list[bytes] = [b""] * (2 * len(values))
            chunks[0::2] = map(heads.__getitem__, lengths)
            chunks[1::2] = values
            out.extend(chunks)
            return 2 * len(values) + sum(lengths)
    size = 0
    for i, v in enumerate(values):
        try:
            size += _length_delimited(tag, _bytes(v), out)
        except EncodeError as err:
            err._within(f"[{i}]")
            raise
    return size


def _attach(err: EncodeError, name: str) -> None:
    """Name the field on the error; an element index found below joins it."""
    parts = err._parts
    if parts and parts[-1].startswith("["):
        parts[-1] = name + parts[-1]
    else:
        parts.append(name)


# -- one function per message ----------------------------------------------


def _tensor(m: TensorProto, out: _Out, depth: int) -> int:
    size = 0
    name = "dims"
    try:
        dims = m.dims
        if dims:
            if len(dims) == 1 and type(dims[0]) is int and 0 <= dims[0] < 0x80:
                b = _DIMS[dims[0]]
            else:
                b = _unpacked_varints(0x08, dims, INT64_MIN, INT64_MAX)
            out.append(b)
            size += len(b)
        name = "data_type"
        data_type = m.data_type
        if data_type is not None:
            if type(data_type) is int and 0 <= data_type < 0x80:
                b = _DATA_TYPE[data_type]
            else:
                b = b"\x10" + _varint(_int(data_type, INT32_MIN, INT32_MAX))
            out.append(b)
            size += len(b)
        name = "segment"
        if m.segment is not None:
            size += _sub(b"\x1a", m.segment, _Segment, out, depth)
        name = "float_data"
        if m.float_data:
            size += _length_delimited(b"\x22", _floats(m.float_data, "f"), out)
        name = "int32_data"
        if m.int32_data:
            payload = _packed_varints(m.int32_data, INT32_MIN, INT32_MAX, INT32)
            size += _length_delimited(b"\x2a", payload, out)
        name = "string_data"
        if m.string_data:
            size += _bytes_list(b"\x32", m.string_data, out)
        name = "int64_data"
        if m.int64_data:
            payload = _packed_varints(m.int64_data, INT64_MIN, INT64_MAX, INT64)
            size += _length_delimited(b"\x3a", payload, out)
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
        if m.double_data:
            size += _length_delimited(b"\x52", _floats(m.double_data, "d"), out)
        name = "uint64_data"
        if m.uint64_data:
            payload = _packed_varints(m.uint64_data, 0, UINT64_MAX, UINT64)
            size += _length_delimited(b"\x5a", payload, out)
        name = "doc_string"
        if m.doc_string is not None:
            size += _length_delimited(b"\x62", _str(m.doc_string), out)
        name = "external_data"
        if m.external_data:
            size += _subs(b"\x6a", m.external_data, StringStringEntryProto, out, depth)
        name = "data_location"
        if m.data_location is not None:
            loc = _int(m.data_location, INT32_MIN, INT32_MAX)
            if loc not in (0, 1):  # proto2 enums are closed
                raise EncodeValueError(f"invalid enumerator {loc}")
            out.append(b"\x70" + _varint(loc))
            size += 2
        name = "metadata_props"
        if m.metadata_props:
            size += _subs(b"\x82\x01", m.metadata_props, StringStringEntryProto, out, depth)
        name = "unknown_fields"
        size += _trailer(m, out)
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
        size += _trailer(m, out)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


def _trailer(m: Any, out: _Out) -> int:
    if not m.unknown_fields:
        return 0
    b = _check_unknown(m.unknown_fields)
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
        size += _trailer(m, out)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


def _sparse(m: SparseTensorProto, out: _Out, depth: int) -> int:
    size = 0
    name = "values"
    try:
        if m.values is not None:
            size += _sub(b"\x0a", m.values, TensorProto, out, depth)
        name = "indices"
        if m.indices is not None:
            size += _sub(b"\x12", m.indices, TensorProto, out, depth)
        name = "dims"
        if m.dims:
            b = _unpacked_varints(0x18, m.dims, INT64_MIN, INT64_MAX)
            out.append(b)
            size += len(b)
        name = "unknown_fields"
        size += _trailer(m, out)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


def _head(m: Any, out: _Out, type_field: str) -> int:
    """``name`` (1) and the int32 type field (2) that open the container messages."""
    size = 0
    name = "name"
    try:
        if m.name is not None:
            size += _length_delimited(b"\x0a", _str(m.name), out)
        name = type_field
        value = getattr(m, type_field)
        if value is not None:
            b = b"\x10" + _varint(_int(value, INT32_MIN, INT32_MAX))
            out.append(b)
            size += len(b)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


def _sequence(m: SequenceProto, out: _Out, depth: int) -> int:
    size = _head(m, out, "elem_type")
    try:
        name = "tensor_values"
        if m.tensor_values:
            size += _subs(b"\x1a", m.tensor_values, TensorProto, out, depth)
        name = "sparse_tensor_values"
        if m.sparse_tensor_values:
            size += _subs(b"\x22", m.sparse_tensor_values, SparseTensorProto, out, depth)
        name = "sequence_values"
        if m.sequence_values:
            size += _subs(b"\x2a", m.sequence_values, SequenceProto, out, depth)
        name = "map_values"
        if m.map_values:
            size += _subs(b"\x32", m.map_values, MapProto, out, depth)
        name = "optional_values"
        if m.optional_values:
            size += _subs(b"\x3a", m.optional_values, OptionalProto, out, depth)
        name = "unknown_fields"
        size += _trailer(m, out)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


def _map(m: MapProto, out: _Out, depth: int) -> int:
    size = _head(m, out, "key_type")
    try:
        name = "keys"
        if m.keys:
            b = _unpacked_varints(0x18, m.keys, INT64_MIN, INT64_MAX)
            out.append(b)
            size += len(b)
        name = "string_keys"
        if m.string_keys:
            size += _bytes_list(b"\x22", m.string_keys, out)
        name = "values"
        if m.values is not None:
            size += _sub(b"\x2a", m.values, SequenceProto, out, depth)
        name = "unknown_fields"
        size += _trailer(m, out)
    except EncodeError as err:
        _attach(err, name)
        raise
    return size


def _optional(m: OptionalProto, out: _Out, depth: int) -> int:
    size = _head(m, out, "elem_type")
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
        size += _trailer(m, out)
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
