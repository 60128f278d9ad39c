"""Hypothesis strategies for ONNX data messages, to test any ONNX parser.

Valid messages (``tensors``, ``sparse_tensors``, ``sequences``, ``maps``,
``optionals``, ``messages``) pass :func:`onnxdata.check`.  Wire-level
strategies go below the message: ``noncanonical_encodings`` gives
``(message, bytes)`` pairs whose bytes are valid but not what protobuf writes
(unpacked or packed the other way, over-long varints, tags and lengths,
reordered and duplicated fields, unknown fields), and ``malformed_encodings``
gives ``(type, bytes, defect)`` triples that every parser must reject.

Needs hypothesis: ``pip install 'onnxdata[fuzz]'``.
"""

from __future__ import annotations

import copy
import math
import struct
from typing import Any

try:
    from hypothesis import strategies as st
except ImportError as exc:  # pragma: no cover - tested in a subprocess
    raise ImportError("onnxdata.strategies needs hypothesis: pip install 'onnxdata[fuzz]'") from exc

from ._datatypes import DATA_TYPES, element_fields
from ._messages import (
    MESSAGE_TYPES,
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from ._schema import BYTES, DOUBLE, ENUM, FLOAT, KINDS, MESSAGE, spec_of
from ._wire import encode_varint

__all__ = [
    "malformed_encodings",
    "maps",
    "messages",
    "noncanonical_encodings",
    "optionals",
    "sequences",
    "sparse_tensors",
    "tensors",
]

DT = TensorProto.DataType
_DTYPES = [DT(d) for d in DATA_TYPES]
_TENSOR_FIELDS = spec_of(TensorProto).by_name
_SHAPES = st.lists(st.integers(0, 4), max_size=3)
_TEXT = st.text(max_size=8)


def _floats(width: int) -> st.SearchStrategy[float]:
    return st.floats(width=width, allow_nan=True, allow_infinity=True)  # type: ignore[arg-type]


@st.composite
def tensors(
    draw: Any,
    dtype: int | None = None,
    shape: list[int] | tuple[int, ...] | None = None,
    storage: str | None = None,
    name: bool | None = None,
) -> TensorProto:
    """Valid tensors; ``dtype`` (a ``TensorProto.DataType``), ``shape`` and
    ``storage`` (``"raw"`` for ``raw_data``, ``"typed"`` for the ``*_data``
    field) are drawn when not given.  ``name=True`` always sets a name.

    Raises:
        ValueError: ``storage="raw"`` with ``dtype=STRING``, or an unknown storage.
    """
    if storage not in (None, "raw", "typed"):
        raise ValueError(f"storage must be 'raw' or 'typed', not {storage!r}")
    if dtype is not None:
        dt = DT(dtype)
    else:  # raw_data cannot hold STRING: draw another type
        dt = draw(st.sampled_from([d for d in _DTYPES if storage != "raw" or d != DT.STRING]))
    dims = list(shape) if shape is not None else draw(_SHAPES)
    if dt == DT.STRING and storage == "raw":
        raise ValueError("STRING tensors cannot use raw_data")
    n = math.prod(dims)
    use = storage or ("typed" if dt == DT.STRING else draw(st.sampled_from(["raw", "typed"])))
    t = TensorProto(dims=dims, data_type=dt)
    if name or (name is None and draw(st.booleans())):
        t.name = draw(_TEXT)
    info = DATA_TYPES[dt]
    if use == "raw":
        size = info.raw_size(n)
        if dt == DT.BOOL:
            t.raw_data = bytes(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
        else:
            raw = draw(st.binary(min_size=size, max_size=size))
            spare = size * 8 - n * info.bits  # padding bits after the last value: zero
            if spare and raw:
                raw = raw[:-1] + bytes([raw[-1] & (0xFF >> spare)])
            t.raw_data = raw
        return t
    kind = _TENSOR_FIELDS[info.storage].kind
    values: st.SearchStrategy[Any]
    if kind == FLOAT:
        values = _floats(32)
    elif kind == DOUBLE:
        values = _floats(64)
    elif kind == BYTES:
        values = st.binary(max_size=6)
    else:
        assert info.stored is not None  # an integer-stored type
        values = st.integers(*info.stored)
    k = info.stored_count(n)
    setattr(t, info.storage, draw(st.lists(values, min_size=k, max_size=k)))
    return t


@st.composite
def sparse_tensors(draw: Any, dtype: int | None = None) -> SparseTensorProto:
    """Valid sparse tensors: named 1-D ``values``, INT64 ``indices`` that are
    linear (``[NNZ]``) or coordinates (``[NNZ, rank]``), ascending and unique."""
    dims = draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
    size = math.prod(dims)
    linear = sorted(draw(st.sets(st.integers(0, size - 1), max_size=min(size, 6))))
    nnz = len(linear)
    if dtype is None:
        dtype = draw(st.sampled_from([d for d in _DTYPES if not DATA_TYPES[d].packed]))
    values = draw(tensors(dtype=dtype, shape=[nnz], name=True))
    if not values.name:
        values.name = "values"
    if len(dims) > 1 and draw(st.booleans()):
        flat: list[int] = []
        for k in linear:
            coords = []
            for d in reversed(dims):
                coords.append(k % d)
                k //= d
            flat.extend(reversed(coords))
        indices = TensorProto(dims=[nnz, len(dims)], data_type=DT.INT64, int64_data=flat)
    else:
        indices = TensorProto(dims=[nnz], data_type=DT.INT64, int64_data=linear)
    if draw(st.booleans()):
        raw = struct.pack(f"<{len(indices.int64_data)}q", *indices.int64_data)
        indices.int64_data = []
        indices.raw_data = raw
    return SparseTensorProto(values=values, indices=indices, dims=dims)


# The integer types a map key may have, in data type order.
_KEY_TYPES = [DT(d.value) for d in DATA_TYPES.values() if d.key is not None]


def _elements(draw: Any, kind: int, count: int, depth: int) -> list[Any]:
    if kind == 1:
        dt = draw(st.sampled_from(_DTYPES))
        return [draw(tensors(dtype=dt)) for _ in range(count)]
    if kind == 2:
        return [draw(sparse_tensors()) for _ in range(count)]
    if kind == 3:
        return [draw(sequences(max_depth=depth - 1)) for _ in range(count)]
    if kind == 4:
        return [draw(maps(max_depth=depth - 1)) for _ in range(count)]
    return [draw(optionals(max_depth=depth - 1)) for _ in range(count)]


def _kinds(depth: int, allowed: tuple[int, ...] = (1, 2, 3, 4, 5)) -> st.SearchStrategy[int]:
    return st.sampled_from([k for k in allowed if k <= 2 or depth > 0])


@st.composite
def sequences(draw: Any, elem_type: int | None = None, max_depth: int = 2) -> SequenceProto:
    """Valid sequences: one element type; tensors share one data_type."""
    kind = elem_type if elem_type is not None else draw(_kinds(max_depth))
    seq = SequenceProto(elem_type=kind)
    if draw(st.booleans()):
        seq.name = draw(_TEXT)
    items = _elements(draw, kind, draw(st.integers(0, 3)), max_depth)
    setattr(seq, element_fields(SequenceProto)[kind].name, items)
    return seq


@st.composite
def maps(draw: Any, key_type: int | None = None, max_depth: int = 2) -> MapProto:
    """Valid maps: an allowed ``key_type``, distinct in-range keys in the
    matching field, as many values (of one type) as keys."""
    kt = key_type if key_type is not None else draw(st.sampled_from([*_KEY_TYPES, DT.STRING]))
    m = MapProto(key_type=kt)
    if draw(st.booleans()):
        m.name = draw(_TEXT)
    if kt == DT.STRING:
        m.string_keys = draw(st.lists(st.binary(max_size=4), unique=True, max_size=3))
        count = len(m.string_keys)
    else:
        key = DATA_TYPES[kt].key
        assert key is not None
        lo, hi = key
        lo = max(lo, 0) if kt == DT.UINT64 else lo
        m.keys = draw(st.lists(st.integers(lo, hi), unique=True, max_size=3))
        count = len(m.keys)
    kind = draw(_kinds(max_depth, (1, 2, 3, 4)))
    values = SequenceProto(elem_type=kind)
    setattr(
        values, element_fields(SequenceProto)[kind].name, _elements(draw, kind, count, max_depth)
    )
    m.values = values
    return m


@st.composite
def optionals(draw: Any, elem_type: int | None = None, max_depth: int = 2) -> OptionalProto:
    """Valid optionals: empty, or holding one value of ``elem_type``."""
    kind = elem_type if elem_type is not None else draw(_kinds(max_depth))
    o = OptionalProto(elem_type=kind)
    if draw(st.booleans()):
        o.name = draw(_TEXT)
    if draw(st.integers(0, 3)):
        setattr(o, element_fields(OptionalProto)[kind].name, _elements(draw, kind, 1, max_depth)[0])
    return o


def messages(max_depth: int = 2) -> st.SearchStrategy[Message]:
    """Any valid message: a tensor, sparse tensor, sequence, map or optional."""
    return st.one_of(
        tensors(),
        sparse_tensors(),
        sequences(max_depth=max_depth),
        maps(max_depth=max_depth),
        optionals(max_depth=max_depth),
    )


# ---- wire level ---------------------------------------------------------------------------

# The wire form of each kind, named as _elements_of and _restate read it.
_WIRE_NAMES = {0: "varint", 1: "i64", 2: "len", 5: "i32"}
# An OptionalProto holding an OptionalProto: the tag of the field that nests.
_NESTED_TAG = element_fields(OptionalProto)[SequenceProto.OPTIONAL].tag
# The first field number no message knows: unknown fields are drawn from there up.
_FIRST_UNKNOWN = max(n for cls in MESSAGE_TYPES for n in spec_of(cls).by_number) + 1


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & (2**64 - 1), pos
        shift += 7


def _split(data: bytes) -> list[tuple[int, int, bytes]]:
    """Canonical bytes -> [(number, wire type, payload)] (payload without length)."""
    out = []
    pos = 0
    while pos < len(data):
        tag, pos = _read_varint(data, pos)
        number, wt = tag >> 3, tag & 7
        if wt == 0:
            _, end = _read_varint(data, pos)
            out.append((number, wt, data[pos:end]))
            pos = end
        elif wt == 2:
            n, pos = _read_varint(data, pos)
            out.append((number, wt, data[pos : pos + n]))
            pos += n
        else:
            size = 8 if wt == 1 else 4
            out.append((number, wt, data[pos : pos + size]))
            pos += size
    return out


def _long_varint(draw: Any, value: int, max_len: int = 10) -> bytes:
    """``value`` as a varint, sometimes padded with redundant continuation bytes."""
    canonical = encode_varint(value)
    size = draw(st.integers(len(canonical), max(len(canonical), max_len)))
    if size == len(canonical) or not draw(st.booleans()):
        return canonical
    out = bytearray()
    for _ in range(size - 1):
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    out.append(value & 0x7F)
    return bytes(out)


def _field(draw: Any, number: int, wt: int, payload: bytes) -> bytes:
    tag = _long_varint(draw, number << 3 | wt, 5)
    if wt == 2:
        return tag + _long_varint(draw, len(payload), 5) + payload
    return tag + payload


def _elements_of(kind: str, payload: bytes) -> list[bytes]:
    if kind == "i32":
        return [payload[i : i + 4] for i in range(0, len(payload), 4)]
    if kind == "i64":
        return [payload[i : i + 8] for i in range(0, len(payload), 8)]
    out, pos = [], 0
    while pos < len(payload):
        _, end = _read_varint(payload, pos)
        out.append(payload[pos:end])
        pos = end
    return out


def _restate(draw: Any, kind: str, element: bytes) -> bytes:
    if kind == "varint":
        return _long_varint(draw, _read_varint(element, 0)[0])
    return element


def _reencode(draw: Any, cls: type[Message], data: bytes, depth: int) -> list[tuple[int, bytes]]:
    """Valid non-canonical chunks ``(number, bytes)`` for the fields of ``data``."""
    fields = spec_of(cls).by_number
    chunks: list[tuple[int, bytes]] = []
    for number, wt, payload in _split(data):
        f = fields[number]
        info = KINDS[f.kind]
        if f.kind == MESSAGE:
            inner = payload
            if depth < 4 and draw(st.booleans()):
                inner = b"".join(c for _, c in _reencode(draw, f.message, payload, depth + 1))
            chunks.append((number, _field(draw, number, 2, inner)))
        elif f.repeated and info.packable:
            elem = _WIRE_NAMES[info.wire_type]
            elems = _elements_of(elem, payload) if f.packed else [payload]
            if draw(st.booleans()):  # the other encoding: unpack packed fields, pack unpacked ones
                if f.packed:
                    for e in elems:
                        chunks.append(
                            (number, _field(draw, number, info.wire_type, _restate(draw, elem, e)))
                        )
                else:
                    chunks.append((number, _field(draw, number, 2, _restate(draw, elem, payload))))
            elif f.packed:
                body = b"".join(_restate(draw, elem, e) for e in elems)
                chunks.append((number, _field(draw, number, 2, body)))
            else:
                body = _restate(draw, elem, payload)
                chunks.append((number, _field(draw, number, info.wire_type, body)))
        else:
            if not f.repeated and draw(st.integers(0, 4)) == 0:  # a value the real one overrides
                if wt == 2:
                    dup = draw(st.binary(max_size=4))
                elif wt == 0:
                    dup_value = draw(
                        st.sampled_from([int(e) for e in f.enum])
                        if f.kind == ENUM and f.enum is not None
                        else st.integers(0, 2**64 - 1)
                    )
                    dup = encode_varint(dup_value)
                else:
                    size = 8 if wt == 1 else 4
                    dup = draw(st.binary(min_size=size, max_size=size))
                chunks.append((number, _field(draw, number, wt, dup)))
            body = payload if wt == 2 else _restate(draw, "varint" if wt == 0 else "", payload)
            chunks.append((number, _field(draw, number, wt, body)))
    return chunks


def _unknown_field(draw: Any) -> bytes:
    number = draw(st.integers(_FIRST_UNKNOWN, 2**29 - 1))
    wt = draw(st.sampled_from([0, 1, 2, 5]))
    if wt == 0:
        payload = _long_varint(draw, draw(st.integers(0, 2**64 - 1)))
    elif wt == 2:
        body = draw(st.binary(max_size=6))
        payload = encode_varint(len(body)) + body
    else:
        payload = draw(st.binary(min_size=8 if wt == 1 else 4, max_size=8 if wt == 1 else 4))
    return _long_varint(draw, number << 3 | wt, 5) + payload


@st.composite
def noncanonical_encodings(
    draw: Any, messages: st.SearchStrategy[Message] | None = None
) -> tuple[Message, bytes]:
    """``(message, data)``: ``type(message).decode(data) == message``, and
    protobuf parses ``data`` to the same message, but ``data`` is not what
    protobuf writes: fields are reordered (each field's own occurrences keep
    their order), packed fields unpacked and unpacked ones packed, varints, tags
    and lengths over-long, singular scalars preceded by a value that the last
    one overrides, and unknown fields added (which ``message.unknown_fields``
    then holds, in arrival order, as the decoder keeps them).

    The messages come from ``messages`` (default: :func:`messages`), which must
    have no unknown fields of their own.
    """
    msg = draw(messages if messages is not None else globals()["messages"]())
    cls = type(msg)
    chunks = _reencode(draw, cls, msg.encode(), 0)
    # Shuffle, then restore each field's own order: only order across numbers changes.
    order = draw(st.permutations(range(len(chunks))))
    by_number: dict[int, list[bytes]] = {}
    for number, chunk in chunks:
        by_number.setdefault(number, []).append(chunk)
    shuffled_numbers = [chunks[i][0] for i in order]
    out = [by_number[n].pop(0) for n in shuffled_numbers]
    extras: list[bytes] = []
    for _ in range(draw(st.integers(0, 3))):
        extra = _unknown_field(draw)
        out.insert(draw(st.integers(0, len(out))), extra)
        extras.append(extra)
    expected = copy.copy(msg)
    if extras:
        # unknown fields are kept in arrival order
        arrival = [c for c in out if c in extras]
        expected.unknown_fields = b"".join(arrival)
    return expected, b"".join(out)


_DEFECTS = (
    "truncated",
    "field number 0",
    "wire type 6",
    "wire type 7",
    "varint longer than 10 bytes",
    "tag longer than 5 bytes",
    "length past the end",
    "unmatched end-group",
    "packed float payload not a multiple of 4",
    "nested too deep",
)


@st.composite
def malformed_encodings(
    draw: Any, messages: st.SearchStrategy[Message] | None = None
) -> tuple[type[Message], bytes, str]:
    """``(type, data, defect)``: ``type.decode(data)`` must raise
    :class:`~onnxdata.DecodeError`, and protobuf must refuse ``data`` too.
    ``defect`` names what is wrong (a truncation inside a field, a bad tag,
    an over-long varint, a length past the end, nesting deeper than 100, ...).
    """
    msg = draw(messages if messages is not None else globals()["messages"]())
    cls = type(msg)
    data = msg.encode()
    fields = _split(data)
    # field boundaries: a defect is inserted between two whole fields
    bounds = [0]
    for number, wt, payload in fields:
        size = len(encode_varint(number << 3 | wt)) + len(payload)
        size += len(encode_varint(len(payload))) if wt == 2 else 0
        bounds.append(bounds[-1] + size)
    defect = draw(st.sampled_from(_DEFECTS if len(data) > 1 else _DEFECTS[1:]))
    if defect == "truncated":
        i = draw(st.integers(0, len(fields) - 1)) if fields else 0
        if not fields or bounds[i + 1] - bounds[i] < 2:
            defect = "length past the end"
        else:
            cut = draw(st.integers(bounds[i] + 1, bounds[i + 1] - 1))
            return cls, data[:cut], defect
    bad = {
        "field number 0": b"\x00\x00",
        "wire type 6": b"\x0e",
        "wire type 7": b"\x0f",
        "varint longer than 10 bytes": b"\xf8\x7f" + b"\x80" * 10 + b"\x00",
        "tag longer than 5 bytes": b"\x80\x80\x80\x80\x80\x00",
        "length past the end": b"\xfa\x7f" + encode_varint(len(data) + 1),
        "unmatched end-group": b"\xfc\x7f",
        "packed float payload not a multiple of 4": b"",
        "nested too deep": b"",
    }[defect]
    if defect == "packed float payload not a multiple of 4":
        cls = TensorProto
        data, bounds = b"", [0]
        bad = _TENSOR_FIELDS["float_data"].tag + b"\x03\x00\x00\x00"  # 3 bytes of floats
    if defect == "nested too deep":
        cls = OptionalProto
        inner = b""
        for _ in range(101):  # 101 sub-message levels below the top: one too many
            inner = _NESTED_TAG + encode_varint(len(inner)) + inner
        return cls, inner, defect
    at = draw(st.sampled_from(bounds)) if defect != "length past the end" else len(data)
    return cls, data[:at] + bad + data[at:], defect
