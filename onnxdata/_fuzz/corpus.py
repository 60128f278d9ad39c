"""Seed corpora and a dictionary for coverage-guided fuzzers (libFuzzer, AFL++, cargo-fuzz).

:func:`write_corpus` writes ``OUT/<Message>/`` for every ONNX data message
(the folder is the message's name in the schema: ``TensorProto``,
``TensorProto.Segment``, ``StringStringEntryProto``, ``SparseTensorProto``,
``SequenceProto``, ``MapProto``, ``OptionalProto``) and ``OUT/onnx.dict``.
Each file's name says what it is:

- ``valid-<what>-<i>.pb``: protobuf's own bytes for a message (the encoder's
  output, byte-identical to protobuf's).  Together the valid seeds of a folder
  set every field of its message, and the tensors hold each of the 28 data
  types in each storage form it allows (its typed field, ``raw_data``,
  external data, a segment).  All of them satisfy ONNX's rules
  (:func:`onnxdata.check`) except ``valid-field-*`` (one field set alone),
  ``valid-all-fields-*`` (every field at once), ``valid-random-*`` (random
  fields, to fill small folders) and ``valid-edge-*`` (values
  at protobuf's edges: strings that are not UTF-8, which proto2 allows,
  unknown data types, unknown fields, nesting at the limit of 100).
- ``noncanonical-<how>-<i>.pb``: bytes protobuf accepts but would not write
  (packed fields unpacked and the reverse, packed runs split, over-long
  varints, tags and lengths, fields out of order, a singular field repeated,
  a sub-message split in two, unknown fields first, a known field with
  another wire type, which parsers keep as an unknown field).
- ``malformed-<defect>-<i>.pb``: bytes every parser must reject, one defect
  each (truncated tag, varint, length, fixed32, fixed64 or payload, wire
  type 6 or 7, field number 0 or 2**29 and above, over-long tag, varint or
  length, unmatched or unterminated groups, nesting deeper than 100,
  packed payloads that do not divide into values); ``-nested`` puts the
  defect inside a sub-message.  Between 10 and 50 % of each folder.

The bytes are built from the schema and the encoder, never read back by the
decoder, and are the same for the same ``seed`` and ``count``.
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import shutil
import struct
from array import array

from .._core.schema import BYTES, DOUBLE, ENUM, FLOAT, INT32, KINDS, MESSAGE, STRING, spec_of
from .._core.wire import (
    EGROUP,
    I32,
    I64,
    LEN,
    MASK32,
    MASK64,
    MAX_DEPTH,
    SGROUP,
    VARINT,
    encode_varint,
    read_length,
    read_tag,
    skip_payload,
)
from .._io.external import ALLOWED_KEYS
from .._messages.datatypes import DATA_TYPES, ELEMENT_MESSAGES, element_fields
from .._messages.declarations import (
    MESSAGE_TYPES,
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from .._core.schema import FieldSpec, MessageSpec

__all__ = ["DICTIONARY_NAME", "corpus_files", "dictionary", "write_corpus"]

DICTIONARY_NAME = "onnx.dict"
"""The name of the dictionary in the corpus folder."""

DT = TensorProto.DataType
_STRING = int(DT.STRING)
_INT64 = int(DT.INT64)
_TENSOR_SPEC = spec_of(TensorProto)
_ENTRY = StringStringEntryProto

Record = tuple[int, int, bytes]  # field number, wire type, what follows the tag (LEN: the payload)


# -- wire pieces -------------------------------------------------------------------


def _varint(value: int, size: int = 0) -> bytes:
    """``value`` (64-bit two's complement if negative) as a varint of at least ``size`` bytes."""
    out = bytearray(encode_varint(value & MASK64))
    while len(out) < size:
        out[-1] |= 0x80
        out.append(0)
    return bytes(out)


def _tag(number: int, wire_type: int, size: int = 0) -> bytes:
    return _varint(number << 3 | wire_type, size)


def _record(
    number: int, wire_type: int, body: bytes, *, tag_size: int = 0, len_size: int = 0
) -> bytes:
    head = _tag(number, wire_type, tag_size)
    if wire_type == LEN:
        head += _varint(len(body), len_size)
    return head + body


def _join(records: list[Record]) -> bytes:
    return b"".join(_record(*r) for r in records)


def _split(data: bytes) -> list[Record]:
    """The top-level fields of a valid encoding, as records."""
    out: list[Record] = []
    pos, end = 0, len(data)
    while pos < end:
        start = pos
        tag, pos = read_tag(data, pos, end)
        if tag & 7 == LEN:
            n, pos = read_length(data, pos, end)
            out.append((tag >> 3, LEN, data[pos : pos + n]))
            pos += n
        else:
            after = skip_payload(data, start, pos, end, tag, MAX_DEPTH)
            out.append((tag >> 3, tag & 7, data[pos:after]))
            pos = after
    return out


def _elements(kind: str, payload: bytes) -> list[bytes]:
    """The encoded values of a packed payload."""
    wire_type = KINDS[kind].wire_type
    if wire_type in (I32, I64):
        size = 4 if wire_type == I32 else 8
        return [payload[i : i + size] for i in range(0, len(payload), size)]
    out, start = [], 0
    for i, b in enumerate(payload):
        if b < 0x80:
            out.append(payload[start : i + 1])
            start = i + 1
    return out


def _unknown_number(spec: MessageSpec, rng: random.Random) -> int:
    """A field number the message does not know."""
    free = [n for n in (15, 17, 99, 1000, 19000, 19999, (1 << 29) - 1) if n not in spec.by_number]
    return rng.choice(free)


def _payload(wire_type: int, rng: random.Random) -> bytes:
    """A valid body (what follows the tag) for ``wire_type``."""
    if wire_type == VARINT:
        return _varint(rng.choice((0, 1, 300, -1, 1 << 40)))
    if wire_type == I32:
        return rng.randbytes(4)
    if wire_type == I64:
        return rng.randbytes(8)
    if wire_type == LEN:
        return rng.randbytes(rng.randrange(0, 6))
    return b""


def _any_record(number: int, wire_type: int, rng: random.Random) -> bytes:
    """A whole valid field of ``wire_type`` (a group closed by its end tag)."""
    if wire_type == SGROUP:
        inner = _record(1, VARINT, _varint(rng.randrange(1 << 20)))
        return _tag(number, SGROUP) + inner + _tag(number, EGROUP)
    return _record(number, wire_type, _payload(wire_type, rng))


# -- values -----------------------------------------------------------------------

_F32 = (0x00000000, 0x80000000, 0x3FC00000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001,
        0x00000001, 0x7F7FFFFF, 0xFFFFFFFF)  # fmt: skip
_F64 = (0, 1 << 63, 0x3FF8000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
        0x7FF8000000000000, 0x7FF0000000000001, 1, 0x7FEFFFFFFFFFFFFF)  # fmt: skip
_TEXTS = ("", "x", "tensor", "é日本語", "\U0001f642", "a b\tc", "0", "name with spaces")


def _floats(code: str, n: int, rng: random.Random) -> array[float]:
    """``n`` floats of the array typecode ``code``: edge bit patterns (NaNs, signalling
    included, infinities, -0, subnormals) and random bits."""
    edges, width = (_F32, "<I") if code == "f" else (_F64, "<Q")
    bits = 32 if code == "f" else 64
    raw = b"".join(
        struct.pack(width, rng.choice(edges) if rng.random() < 0.5 else rng.getrandbits(bits))
        for _ in range(n)
    )
    values: array[float] = array(code)
    values.frombytes(raw)
    return values


def _integer(lo: int, hi: int, rng: random.Random) -> int:
    edges = [v for v in (0, 1, -1, 127, 128, 300, lo, hi, lo + 1, hi - 1) if lo <= v <= hi]
    return rng.choice(edges) if rng.random() < 0.5 else rng.randint(lo, hi)


def _text(rng: random.Random) -> str:
    return rng.choice(_TEXTS) if rng.random() < 0.6 else f"t{rng.randrange(1000)}"


def _scalar(f: FieldSpec, rng: random.Random) -> Any:
    """A random value of a non-message field's kind."""
    if f.kind == ENUM:
        assert f.enum is not None
        return int(rng.choice(list(f.enum)))
    if f.kind == STRING:
        return _text(rng)
    if f.kind == BYTES:
        return rng.randbytes(rng.randrange(0, 9))
    if f.kind in (FLOAT, DOUBLE):
        return _floats("f" if f.kind == FLOAT else "d", 1, rng)[0]
    assert f.bounds is not None
    return _integer(*f.bounds, rng)


def _set_random(msg: Message, f: FieldSpec, rng: random.Random, depth: int) -> None:
    """Give the field ``f`` of ``msg`` a random value (a valid sub-message for MESSAGE)."""
    if f.kind == MESSAGE:
        if f.repeated:
            setattr(
                msg, f.name, [_sample(f.message, rng, depth + 1) for _ in range(rng.randint(1, 2))]
            )
        else:
            setattr(msg, f.name, _sample(f.message, rng, depth + 1))
    elif f.repeated:
        n = rng.randint(1, 4)
        if f.typecode in ("f", "d"):
            setattr(msg, f.name, _floats(f.typecode, n, rng))
        else:
            setattr(msg, f.name, [_scalar(f, rng) for _ in range(n)])
    else:
        setattr(msg, f.name, _scalar(f, rng))


def _filled(cls: type[Message], rng: random.Random, depth: int, fields: Any = None) -> Message:
    msg = cls()
    for f in spec_of(cls).fields if fields is None else fields:
        _set_random(msg, f, rng, depth)
    return msg


def _annotate(msg: Message, rng: random.Random) -> None:
    """Set every unset singular string field (names, doc strings) and every empty
    repeated list of string pairs other than ``external_data`` (metadata)."""
    for f in spec_of(type(msg)).fields:
        value = getattr(msg, f.slot)
        if f.kind == STRING and not f.repeated and value is None:
            setattr(msg, f.name, _text(rng))
        elif f.repeated and f.kind == MESSAGE and f.message is _ENTRY and not value:  # noqa: SIM102
            if f.name != "external_data":
                setattr(msg, f.name, [_ENTRY(key=_text(rng), value=_text(rng))
                                      for _ in range(rng.randint(1, 2))])  # fmt: skip


# -- valid ONNX values ---------------------------------------------------------------


def _stored(info: Any, count: int, rng: random.Random) -> Any:
    """``count`` values for the typed storage field of data type ``info``."""
    kind = _TENSOR_SPEC.by_name[info.storage].kind
    if kind in (FLOAT, DOUBLE):
        return _floats("f" if kind == FLOAT else "d", count, rng)
    if kind == BYTES:
        return [rng.randbytes(rng.randrange(0, 7)) for _ in range(count)]
    lo, hi = info.stored
    return [_integer(lo, hi, rng) for _ in range(count)]


def _raw(info: Any, n: int, rng: random.Random) -> bytes:
    """``raw_data`` for ``n`` elements: BOOL bytes 0 or 1, padding bits zero."""
    if info.value == DT.BOOL:
        return bytes(rng.randint(0, 1) for _ in range(n))
    size = info.raw_size(n)
    raw = rng.randbytes(size)
    spare = size * 8 - n * info.bits
    if spare and raw:
        raw = raw[:-1] + bytes([raw[-1] & (0xFF >> spare)])
    return raw


def _tensor(rng: random.Random, dt: int, form: str, dims: list[int]) -> TensorProto:
    """A tensor satisfying ONNX's rules, its values stored in ``form``: "typed"
    (the data type's field), "raw" (``raw_data``), "external" or "segment"."""
    info = DATA_TYPES[dt]
    n = math.prod(dims)
    t = TensorProto(dims=dims, data_type=dt)
    if form == "segment":
        total = max(n, 2)
        t.dims = [total]
        begin = rng.randrange(0, total - 1)
        end = rng.randint(begin + 1, total)
        t.segment = TensorProto.Segment(begin=begin, end=end)
        n = end - begin
        form = "typed" if dt == _STRING or rng.random() < 0.5 else "raw"
    if form == "raw":
        t.raw_data = _raw(info, n, rng)
    elif form == "typed":
        setattr(t, info.storage, _stored(info, info.stored_count(n), rng))
    else:  # external
        t.name = f"w{rng.randrange(10000)}"
        t.data_location = TensorProto.EXTERNAL
        size = info.raw_size(n)
        entries = {
            "location": rng.choice(("weights.bin", f"{t.name}.bin", "data/tensors.bin")),
            "offset": str(rng.randrange(0, 1 << 20, 4096)),
            "length": str(size),
            "checksum": hashlib.sha1(rng.randbytes(size), usedforsecurity=False).hexdigest(),
        }
        others = [k for k in sorted(ALLOWED_KEYS) if k in entries and k != "location"]
        keys = ["location", *(others if rng.random() < 0.5 else rng.sample(others, 1))]
        t.external_data = [_ENTRY(key=k, value=entries[k]) for k in keys]
    return t


def _dims(rng: random.Random, variant: int) -> list[int]:
    if variant == 0:  # the first variant always holds values
        return list(rng.choice(([3], [2, 2], [1, 3], [4])))
    return list(rng.choice(([], [0], [1], [5], [2, 3], [2, 1, 2])))


def _sparse(rng: random.Random, dt: int, variant: int) -> SparseTensorProto:
    dense = list(rng.choice(([10], [3, 4], [2, 2, 3])))
    size = math.prod(dense)
    nnz = rng.randint(1 if variant == 0 else 0, min(size, 5))
    flat = sorted(rng.sample(range(size), nnz))
    form = "raw" if dt != _STRING and (dt + variant) % 3 == 0 else "typed"
    values = _tensor(rng, dt, form, [nnz])
    values.name = rng.choice(("values", "v", f"sparse{rng.randrange(100)}"))
    if (dt + variant) % 2 == 0 and len(dense) > 1:  # [NNZ, rank] coordinates
        coords: list[int] = []
        for k in flat:
            point = []
            for d in reversed(dense):
                point.append(k % d)
                k //= d
            coords.extend(reversed(point))
        indices = TensorProto(dims=[nnz, len(dense)], data_type=_INT64)
        numbers = coords
    else:
        indices = TensorProto(dims=[nnz], data_type=_INT64)
        numbers = flat
    if variant % 2:
        indices.raw_data = struct.pack(f"<{len(numbers)}q", *numbers)
    else:
        indices.int64_data = numbers
    return SparseTensorProto(values=values, indices=indices, dims=dense)


_KINDS = tuple(sorted(ELEMENT_MESSAGES))  # TENSOR, SPARSE_TENSOR, SEQUENCE, MAP, OPTIONAL


def _element(rng: random.Random, kind: int, depth: int, dt: int | None = None) -> Message:
    name = ELEMENT_MESSAGES[kind]
    if name == spec_of(TensorProto).name:
        chosen = dt if dt is not None else rng.choice(sorted(DATA_TYPES))
        form = "typed" if chosen == _STRING or rng.random() < 0.5 else "raw"
        return _tensor(rng, chosen, form, _dims(rng, 1))
    if name == spec_of(SparseTensorProto).name:
        return _sparse(rng, dt if dt is not None else rng.choice(sorted(DATA_TYPES)), 1)
    if name == spec_of(SequenceProto).name:
        return _sequence(rng, _inner_kind(rng, depth), depth + 1)
    if name == spec_of(MapProto).name:
        return _map(
            rng, rng.choice(_key_types()), _inner_kind(rng, depth, map_value=True), depth + 1
        )
    return _optional(rng, _inner_kind(rng, depth), depth + 1)


def _inner_kind(rng: random.Random, depth: int, map_value: bool = False) -> int:
    kinds = [k for k in _KINDS if not (map_value and k == OptionalProto.OPTIONAL)]
    return rng.choice(kinds if depth < 2 else kinds[:2])


def _sequence(rng: random.Random, kind: int, depth: int, count: int | None = None) -> SequenceProto:
    n = rng.randint(0, 3) if count is None else count
    dt = rng.choice(sorted(DATA_TYPES))  # the tensors of a sequence share one data type
    items = [_element(rng, kind, depth, dt) for _ in range(n)]
    s = SequenceProto(elem_type=kind)
    setattr(s, element_fields(SequenceProto)[kind].name, items)
    return s


def _key_types() -> list[int]:
    return [d.value for d in DATA_TYPES.values() if d.key is not None or d.value == _STRING]


def _map(rng: random.Random, key_type: int, value_kind: int, depth: int) -> MapProto:
    n = rng.randint(1, 3)
    m = MapProto(key_type=key_type)
    if key_type == _STRING:
        m.string_keys = [k.encode() for k in rng.sample(("a", "b", "key", "é", "", "日本"), n)]
    else:
        bounds = DATA_TYPES[key_type].key
        assert bounds is not None
        lo, hi = bounds
        keys: list[int] = []
        while len(keys) < n:
            k = _integer(lo, hi, rng)
            if k not in keys:
                keys.append(k)
        m.keys = keys
    m.values = _sequence(rng, value_kind, depth, n)
    return m


def _optional(rng: random.Random, kind: int, depth: int, empty: bool = False) -> OptionalProto:
    o = OptionalProto(elem_type=kind)
    if not empty:
        setattr(o, element_fields(OptionalProto)[kind].name, _element(rng, kind, depth))
    return o


def _sample(cls: type[Message], rng: random.Random, depth: int) -> Message:
    """A small valid message of ``cls`` (random fields for the two small messages)."""
    if cls is TensorProto:
        return _element(rng, 1, depth)
    if cls is SparseTensorProto:
        return _sparse(rng, rng.choice(sorted(DATA_TYPES)), 1)
    if cls is SequenceProto:
        return _sequence(rng, _inner_kind(rng, depth), depth + 1)
    if cls is MapProto:
        return _map(rng, rng.choice(_key_types()), _inner_kind(rng, depth, True), depth + 1)
    if cls is OptionalProto:
        return _optional(rng, _inner_kind(rng, depth), depth + 1)
    return _filled(cls, rng, depth)


def _cycle(cls: type[Message]) -> list[FieldSpec] | None:
    """The shortest path of message fields from ``cls`` back to itself, if any."""
    paths: list[tuple[type[Message], list[FieldSpec]]] = [(cls, [])]
    seen: set[type] = set()
    while paths:
        here, path = paths.pop(0)
        for f in spec_of(here).children():
            if f.message is cls:
                return [*path, f]
            if f.message not in seen:
                seen.add(f.message)
                paths.append((f.message, [*path, f]))
    return None


def _nested(cls: type[Message], levels: int) -> Message:
    """``cls`` with ``levels`` sub-messages nested along its cycle."""
    path = _cycle(cls)
    assert path is not None
    chain: list[Message] = [cls()]
    for i in range(levels):
        f = path[i % len(path)]
        inner = f.message()
        if f.repeated:
            getattr(chain[-1], f.name).append(inner)
        else:
            setattr(chain[-1], f.name, inner)
        chain.append(inner)
    return chain[0]


# -- one folder ----------------------------------------------------------------------


class _Folder:
    """The seeds of one message, named by what they are."""

    def __init__(self, cls: type[Message], rng: random.Random) -> None:
        self.cls = cls
        self.spec = spec_of(cls)
        self.rng = rng
        self.files: dict[str, bytes] = {}
        self.counts: dict[str, int] = {}
        self.bases: list[bytes] = []  # canonical encodings, to derive the other seeds from

    def add(self, kind: str, what: str, data: bytes) -> None:
        key = f"{kind}-{what}"
        i = self.counts.get(key, 0)
        self.counts[key] = i + 1
        self.files[f"{key}-{i}.pb"] = data

    def valid(self, what: str, msg: Message, base: bool = True) -> None:
        data = msg.encode()
        self.add("valid", what, data)
        if base and data:
            self.bases.append(data)


def _valid_seeds(folder: _Folder, count: int) -> None:
    cls, rng, spec = folder.cls, folder.rng, folder.spec
    for _ in range(count):
        for f in spec.fields:
            folder.valid(f"field-{f.name}", _filled(cls, rng, 1, [f]))
        folder.valid("all-fields", _filled(cls, rng, 1))
    if cls is TensorProto:
        for dt, info in DATA_TYPES.items():
            forms = [info.storage, "raw_data", "external", "segment"]
            for i in range(count):
                for form in forms:
                    if dt == _STRING and form in ("raw_data", "external"):
                        continue  # STRING values live in string_data only
                    how = {info.storage: "typed", "raw_data": "raw"}.get(form, form)
                    t = _tensor(rng, dt, how, _dims(rng, i))
                    if (i + dt) % 2:
                        _annotate(t, rng)
                    folder.valid(f"{info.name.lower()}-{form}", t)
    elif cls is SparseTensorProto:
        for dt, info in DATA_TYPES.items():
            for i in range(count):
                s = _sparse(rng, dt, i)
                indices = s.indices
                assert indices is not None
                what = "coordinates" if len(indices.dims) == 2 else "linear"
                folder.valid(f"{info.name.lower()}-{what}", s)
    elif cls in (SequenceProto, OptionalProto):
        for kind in _KINDS:
            label = cls.DataType(kind).name.lower()
            for i in range(count):
                if cls is SequenceProto:
                    msg: Message = _sequence(rng, kind, 0, rng.randint(1, 3))
                else:
                    msg = _optional(rng, kind, 0)
                if i % 2:
                    _annotate(msg, rng)
                folder.valid(label, msg)
            folder.valid(f"{label}-empty", cls(elem_type=kind))
    elif cls is MapProto:
        for key_type in _key_types():
            for i in range(count):
                kind = _KINDS[(key_type + i) % 4]
                m = _map(rng, key_type, kind, 0)
                if i % 2:
                    _annotate(m, rng)
                value_name = SequenceProto.DataType(kind).name.lower()
                folder.valid(f"keys-{DATA_TYPES[key_type].name.lower()}-{value_name}", m)
    elif cls is _ENTRY:
        for key in sorted(ALLOWED_KEYS):
            folder.valid(f"external-{key}", _ENTRY(key=key, value=_text(rng)))
    _edge_seeds(folder)


def _with_unknown(cls: type[Message], unknown: bytes) -> Message:
    msg = cls()
    msg.unknown_fields = unknown  # type: ignore[attr-defined]
    return msg


def _edge_seeds(folder: _Folder) -> None:
    cls, rng, spec = folder.cls, folder.rng, folder.spec
    for f in spec.fields:
        if f.kind == STRING and not f.repeated:  # proto2 strings need not be UTF-8
            bad = rng.choice((b"\xff", b"\xc3\x28", b"a\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"))
            folder.valid(
                f"edge-invalid-utf8-{f.name}",
                cls(**{f.name: bad.decode("utf-8", "surrogateescape")}),
                False,
            )
    unknown = b"".join(
        _any_record(_unknown_number(spec, rng), wt, rng) for wt in (VARINT, I64, LEN, SGROUP, I32)
    )
    folder.valid("edge-unknown-fields", _with_unknown(cls, unknown), False)
    groups = b""
    number = _unknown_number(spec, rng)
    for _ in range(MAX_DEPTH):
        groups = _tag(number, SGROUP) + groups + _tag(number, EGROUP)
    folder.valid("edge-nesting-100-groups", _with_unknown(cls, groups), False)
    if _cycle(cls) is not None:
        folder.valid("edge-nesting-100", _nested(cls, MAX_DEPTH), False)
    if cls is TensorProto:
        for dt in (0, max(DATA_TYPES) + 1, -1, (1 << 31) - 1):
            folder.valid("edge-data_type", TensorProto(dims=[], data_type=dt), False)


# -- non-canonical --------------------------------------------------------------------


def _reordered(folder: _Folder, records: list[Record]) -> bytes | None:
    order: list[int] = []
    for number, _, _ in records:
        if number not in order:
            order.append(number)
    if len(order) < 2:
        return None
    folder.rng.shuffle(order)
    if order == sorted(order):
        order.reverse()
    return _join([r for n in order for r in records if r[0] == n])


def _pick(folder: _Folder, records: list[Record], ok: Callable[[Record], bool]) -> int | None:
    found = [i for i, r in enumerate(records) if ok(r)]
    return folder.rng.choice(found) if found else None


def _overlong_tag(folder: _Folder, records: list[Record]) -> bytes | None:
    i = _pick(folder, records, lambda r: True)
    if i is None:
        return None
    n, wt, body = records[i]
    one = _record(n, wt, body, tag_size=folder.rng.randint(len(_tag(n, wt)) + 1, 5))
    return _join(records[:i]) + one + _join(records[i + 1 :])


def _overlong_length(folder: _Folder, records: list[Record]) -> bytes | None:
    i = _pick(folder, records, lambda r: r[1] == LEN)
    if i is None:
        return None
    n, wt, body = records[i]
    one = _record(n, wt, body, len_size=folder.rng.randint(len(_varint(len(body))) + 1, 5))
    return _join(records[:i]) + one + _join(records[i + 1 :])


def _overlong_varint(folder: _Folder, records: list[Record]) -> bytes | None:
    i = _pick(folder, records, lambda r: r[1] == VARINT and len(r[2]) < 10)
    if i is None:
        return None
    n, wt, body = records[i]
    value = 0
    for k, b in enumerate(body):
        value |= (b & 0x7F) << (7 * k)
    padded = _varint(value, folder.rng.randint(len(body) + 1, 10))
    return _join(records[:i]) + _record(n, wt, padded) + _join(records[i + 1 :])


def _extra_bits(folder: _Folder, records: list[Record]) -> bytes | None:
    """A 10-byte varint whose last byte carries bits past the 64th, which parsers drop."""
    i = _pick(folder, records, lambda r: r[1] == VARINT)
    if i is None:
        return None
    n, wt, body = records[i]
    value = 0
    for k, b in enumerate(body):
        value |= (b & 0x7F) << (7 * k)
    padded = bytearray(_varint(value, 10))
    padded[9] |= folder.rng.randint(1, 63) << 1
    return _join(records[:i]) + _record(n, wt, bytes(padded)) + _join(records[i + 1 :])


def _int32_upper(folder: _Folder, records: list[Record]) -> bytes | None:
    """An int32 varint with garbage in bits 32..63 (a negative one in 5 bytes):
    parsers keep the low 32 bits."""
    spec = folder.spec

    def is_int32(r: Record) -> bool:
        f = spec.by_number.get(r[0])
        return f is not None and f.kind == INT32 and not f.repeated and r[1] == VARINT

    i = _pick(folder, records, is_int32)
    if i is None:
        return None
    n, wt, body = records[i]
    value = 0
    for k, b in enumerate(body):
        value |= (b & 0x7F) << (7 * k)
    low = value & MASK32
    high = 0 if low >> 31 else folder.rng.randint(1, (1 << 32) - 1)
    return _join(records[:i]) + _record(n, wt, _varint(high << 32 | low)) + _join(records[i + 1 :])


def _packed_field(folder: _Folder, r: Record) -> FieldSpec | None:
    f = folder.spec.by_number.get(r[0])
    return f if f is not None and f.repeated and KINDS[f.kind].packable else None


def _unpacked(folder: _Folder, records: list[Record]) -> bytes | None:
    i = _pick(
        folder,
        records,
        lambda r: r[1] == LEN and bool(r[2]) and _packed_field(folder, r) is not None,
    )
    if i is None:
        return None
    n, _, body = records[i]
    f = folder.spec.by_number[n]
    wt = KINDS[f.kind].wire_type
    one = b"".join(_record(n, wt, e) for e in _elements(f.kind, body))
    return _join(records[:i]) + one + _join(records[i + 1 :])


def _packed(folder: _Folder, records: list[Record]) -> bytes | None:
    i = _pick(folder, records, lambda r: r[1] != LEN and _packed_field(folder, r) is not None)
    if i is None:
        return None
    n = records[i][0]
    run = b"".join(r[2] for r in records if r[0] == n)
    first = min(k for k, r in enumerate(records) if r[0] == n)
    rest = [r for k, r in enumerate(records) if r[0] != n or k == first]
    at = rest.index(records[first])
    return _join(rest[:at]) + _record(n, LEN, run) + _join(rest[at + 1 :])


def _split_packed(folder: _Folder, records: list[Record]) -> bytes | None:
    def ok(r: Record) -> bool:
        f = _packed_field(folder, r)
        return f is not None and r[1] == LEN and len(_elements(f.kind, r[2])) >= 2

    i = _pick(folder, records, ok)
    if i is None:
        return None
    n, _, body = records[i]
    items = _elements(folder.spec.by_number[n].kind, body)
    cut = folder.rng.randint(1, len(items) - 1)
    if folder.rng.random() < 0.5:  # the first half packed, the rest one by one
        wt = KINDS[folder.spec.by_number[n].kind].wire_type
        tail = b"".join(_record(n, wt, e) for e in items[cut:])
    else:
        tail = _record(n, LEN, b"".join(items[cut:]))
    one = _record(n, LEN, b"".join(items[:cut])) + tail
    return _join(records[:i]) + one + _join(records[i + 1 :])


def _empty_packed(folder: _Folder, records: list[Record]) -> bytes | None:
    fields = [f for f in folder.spec.numbered if f.repeated and KINDS[f.kind].packable]
    if not fields or not records:
        return None
    f = folder.rng.choice(fields)
    return _record(f.number, LEN, b"") + _join(records)


def _repeated_singular(folder: _Folder, records: list[Record]) -> bytes | None:
    """A singular scalar written twice: the last value wins."""
    spec = folder.spec

    def ok(r: Record) -> bool:
        f = spec.by_number.get(r[0])
        return f is not None and not f.repeated and f.kind != MESSAGE and r[1] == f.wire_type

    i = _pick(folder, records, ok)
    if i is None:
        return None
    n, wt, _ = records[i]
    f = spec.by_number[n]
    value = _scalar(f, folder.rng)
    if f.kind == STRING:
        early = value.encode()
    elif f.kind == BYTES:
        early = value
    elif f.kind in (FLOAT, DOUBLE):
        early = struct.pack("<f" if f.kind == FLOAT else "<d", value)
    else:
        early = _varint(value)
    return _join(records[:i]) + _record(n, wt, early) + _join(records[i:])


def _split_message(folder: _Folder, records: list[Record]) -> bytes | None:
    """A singular sub-message written as two halves, which parsers merge."""
    spec = folder.spec

    def ok(r: Record) -> bool:
        f = spec.by_number.get(r[0])
        return f is not None and f.kind == MESSAGE and not f.repeated and len(_split(r[2])) >= 2

    i = _pick(folder, records, ok)
    if i is None:
        return None
    n, _, body = records[i]
    inner = _split(body)
    numbers = sorted({r[0] for r in inner})
    if len(numbers) < 2:
        return None
    cut = folder.rng.choice(numbers[1:])  # each field's values stay in one half
    first = _join([r for r in inner if r[0] < cut])
    second = _join([r for r in inner if r[0] >= cut])
    one = _record(n, LEN, first) + _record(n, LEN, second)
    return _join(records[:i]) + one + _join(records[i + 1 :])


def _unknown_first(folder: _Folder, records: list[Record]) -> bytes | None:
    if not records:
        return None
    wt = folder.rng.choice((VARINT, I64, LEN, SGROUP, I32))
    return _any_record(_unknown_number(folder.spec, folder.rng), wt, folder.rng) + _join(records)


def _wrong_wire_type(folder: _Folder, records: list[Record]) -> bytes | None:
    """A known field with a wire type its kind does not have: kept as an unknown field."""
    if not records:
        return None
    f = folder.rng.choice(folder.spec.fields)
    wrong = [wt for wt in (VARINT, I64, LEN, SGROUP, I32) if wt not in f.accepted_wire_types()]
    return _any_record(f.number, folder.rng.choice(wrong), folder.rng) + _join(records)


def _unknown_enum(folder: _Folder, records: list[Record]) -> bytes | None:
    """An enum value the enum lacks (proto2 enums are closed): kept as an unknown field."""
    enums = [f for f in folder.spec.fields if f.kind == ENUM]
    if not enums or not records:
        return None
    f = folder.rng.choice(enums)
    assert f.enum is not None
    value = max(f.enum) + folder.rng.randint(1, 100)
    return _record(f.number, VARINT, _varint(value)) + _join(records)


_TRANSFORMS: dict[str, Callable[[_Folder, list[Record]], bytes | None]] = {
    "reordered": _reordered,
    "overlong-tag": _overlong_tag,
    "overlong-length": _overlong_length,
    "overlong-varint": _overlong_varint,
    "varint-extra-bits": _extra_bits,
    "int32-upper-bits": _int32_upper,
    "unpacked": _unpacked,
    "packed": _packed,
    "split-packed": _split_packed,
    "empty-packed": _empty_packed,
    "repeated-singular": _repeated_singular,
    "split-message": _split_message,
    "unknown-field-first": _unknown_first,
    "wrong-wire-type": _wrong_wire_type,
    "unknown-enum-value": _unknown_enum,
}


def _nested_transform(folder: _Folder, records: list[Record], how: str) -> bytes | None:
    """The transform ``how`` applied inside a sub-message of ``records``."""
    spec = folder.spec
    found = [i for i, r in enumerate(records)
             if r[1] == LEN and r[2] and (f := spec.by_number.get(r[0])) is not None
             and f.kind == MESSAGE]  # fmt: skip
    folder.rng.shuffle(found)
    for i in found:
        n, _, body = records[i]
        inner = _Folder(spec.by_number[n].message, folder.rng)
        changed = _TRANSFORMS[how](inner, _split(body))
        if changed is not None:
            return _join(records[:i]) + _record(n, LEN, changed) + _join(records[i + 1 :])
    return None


def _noncanonical_seeds(folder: _Folder, count: int) -> None:
    bases = list(folder.bases)
    folder.rng.shuffle(bases)
    k = 0
    want = count * max(1, round(len(bases) / 60))  # more for the many tensor seeds
    for how, transform in _TRANSFORMS.items():
        made = tried = 0
        while made < want and tried < 4 * want + len(bases):
            base = bases[k % len(bases)]
            k += 1
            tried += 1
            records = _split(base)
            nested = tried % 2 == 0
            data = _nested_transform(folder, records, how) if nested else transform(folder, records)
            if data is not None and data != base:
                folder.add("noncanonical", f"{how}-nested" if nested else how, data)
                made += 1


# -- malformed ------------------------------------------------------------------------


def _defects(cls: type[Message], rng: random.Random) -> dict[str, tuple[bytes, bool]]:
    """Each defect that applies to ``cls``: its bytes, and whether they must end the
    input (or the enclosing sub-message), as truncations do."""
    spec = spec_of(cls)
    unknown = _unknown_number(spec, rng)

    def known(wire_type: int) -> int:
        numbers = [f.number for f in spec.fields if wire_type in f.accepted_wire_types()]
        return rng.choice(numbers) if numbers else unknown

    any_number = rng.choice([f.number for f in spec.fields])
    big = rng.choice((1 << 29, (1 << 29) + 1, 1 << 30, 1 << 31))
    k = rng.randint(1, 4)
    n_varint, n_len, n_i32, n_i64 = known(VARINT), known(LEN), known(I32), known(I64)
    deep = MAX_DEPTH + 1
    huge = rng.choice(((1 << 31) - 1, 1 << 31, MASK32, 1 << 28))
    cut_tag = bytes([0x80 | (rng.randint(16, 1 << 20) << 3 & 0x7F)])
    found: dict[str, tuple[bytes, bool]] = {
        "truncated-tag": (cut_tag + b"\x80" * rng.randint(0, 2), True),
        "truncated-varint": (_tag(n_varint, VARINT) + b"\xff" * rng.randint(1, 9), True),
        "truncated-length": (_tag(n_len, LEN) + b"\x80" * rng.randint(1, 4), True),
        "truncated-fixed32": (_tag(n_i32, I32) + rng.randbytes(rng.randint(0, 3)), True),
        "truncated-fixed64": (_tag(n_i64, I64) + rng.randbytes(rng.randint(0, 7)), True),
        "truncated-payload": (
            _tag(n_len, LEN) + _varint(k + rng.randint(1, 9)) + rng.randbytes(k),
            True,
        ),
        "length-past-end": (_tag(n_len, LEN) + _varint(huge) + rng.randbytes(k), False),
        "bad-wire-type-6": (_tag(any_number, 6) + _payload(VARINT, rng), False),
        "bad-wire-type-7": (_tag(any_number, 7) + _payload(VARINT, rng), False),
        "field-number-0": (_tag(0, rng.choice((VARINT, LEN, I32))) + b"\x00", False),
        "field-number-too-large": (_varint(big << 3 | VARINT) + b"\x01", False),
        "tag-over-5-bytes": (_tag(any_number, VARINT, rng.randint(6, 10)) + b"\x01", False),
        "varint-over-10-bytes": (
            _tag(n_varint, VARINT) + b"\xff" * rng.randint(10, 12) + b"\x01",
            False,
        ),
        "length-over-5-bytes": (
            _tag(n_len, LEN) + _varint(k, rng.randint(6, 10)) + rng.randbytes(k),
            False,
        ),
        "end-group-unmatched": (_tag(any_number, EGROUP), False),
        "group-mismatch": (_tag(unknown, SGROUP) + _tag(unknown - 1, EGROUP), False),
        "group-unterminated": (_tag(unknown, SGROUP) + _record(1, VARINT, b"\x01"), True),
        "nesting-too-deep-groups": (
            _tag(unknown, SGROUP) * deep + _tag(unknown, EGROUP) * deep,
            False,
        ),
    }
    path = _cycle(cls)
    if path is not None:
        inner = b""
        for i in reversed(range(MAX_DEPTH + 1)):
            inner = _record(path[i % len(path)].number, LEN, inner)
        found["nesting-too-deep"] = (inner, False)
    for f in spec.numbered:
        if f.typecode in ("f", "d"):
            size = 4 if f.typecode == "f" else 8
            n = rng.choice([m for m in range(1, 3 * size) if m % size])
            found[f"packed-{f.kind}-bad-size"] = (_record(f.number, LEN, rng.randbytes(n)), False)
    varints = [f for f in spec.numbered if f.repeated and KINDS[f.kind].wire_type == VARINT]
    if varints:
        f = rng.choice(varints)
        good = _varint(rng.randrange(1 << 20))
        found["packed-varint-truncated"] = (_record(f.number, LEN, good + b"\x80"), False)
        found["packed-varint-over-10-bytes"] = (
            _record(f.number, LEN, good + b"\xff" * 10 + b"\x01"),
            False,
        )
    children = [f for f in spec.children()]
    if children:
        f = rng.choice(children)
        inner = (
            f.message().encode()
            + _tag(17 if 17 not in spec_of(f.message).by_number else 99, LEN)
            + _varint(12)
            + rng.randbytes(2)
        )
        filler = _record(unknown, LEN, rng.randbytes(12))
        found["length-past-submessage"] = (_record(f.number, LEN, inner) + filler, False)
    return found


def _malformed_seeds(folder: _Folder) -> None:
    rng, spec = folder.rng, folder.spec
    names = sorted(_defects(folder.cls, random.Random(0)))
    valid = len(folder.files)
    total = max(len(names), math.ceil(valid * 0.4))
    bases = list(folder.bases) or [b""]
    for i in range(total):
        name = names[i % len(names)]
        base = bases[rng.randrange(len(bases))]
        records = _split(base)
        nested = False
        if (i // len(names)) % 2 == 1:
            children = [f for f in spec.children() if name in _defects(f.message, random.Random(0))]
            if children:
                f = rng.choice(children)
                fragment, at_end = _defects(f.message, rng)[name]
                sub = _sample(f.message, rng, 2).encode()
                inner = sub + fragment if at_end else _insert(sub, fragment, rng)
                fragment, at_end, nested = _record(f.number, LEN, inner), False, True
        if not nested:
            fragment, at_end = _defects(folder.cls, rng)[name]
        if at_end:
            data = base + fragment
        else:
            cut = rng.randint(0, len(records))
            data = _join(records[:cut]) + fragment + _join(records[cut:])
        folder.add("malformed", f"{name}-nested" if nested else name, data)


def _insert(data: bytes, fragment: bytes, rng: random.Random) -> bytes:
    records = _split(data)
    cut = rng.randint(0, len(records))
    return _join(records[:cut]) + fragment + _join(records[cut:])


def _build(cls: type[Message], seed: int, count: int) -> dict[str, bytes]:
    folder = _Folder(cls, random.Random(f"{seed}/{spec_of(cls).name}"))
    _valid_seeds(folder, count)
    _noncanonical_seeds(folder, count)
    defects = len(_defects(cls, random.Random(0)))
    i = 0
    while defects > 0.6 * len(folder.files):  # small messages: more valid seeds
        folder.valid(
            "random", _sample(cls, folder.rng, 1) if i % 2 else _filled(cls, folder.rng, 1)
        )
        i += 1
    _malformed_seeds(folder)
    return folder.files


# -- the dictionary -------------------------------------------------------------------


def _escape(data: bytes) -> str:
    return "".join(chr(b) if b < 0x80 and (chr(b).isalnum() or chr(b) in "._-/") else f"\\x{b:02x}"
                   for b in data)  # fmt: skip


def dictionary() -> str:
    """The text of ``onnx.dict``: a libFuzzer/AFL dictionary for ONNX's data messages.

    One ``name="bytes"`` entry per line (non-alphanumeric bytes as ``\\xNN``;
    each tag after a comment naming the fields that have it):
    every field's tag in each wire type a parser accepts for it (both for a
    packable field), the data type, element type and location values with
    their tags, a tensor's head (data type, then the tag of its storage
    field), the external-data keys as strings and as whole entries, edge
    varints and floats, group markers and the bytes of common defects.
    """
    entries: dict[bytes, str] = {}

    def add(name: str, data: bytes) -> None:
        entries.setdefault(data, name)

    wire_names = {
        VARINT: "varint",
        I64: "fixed64",
        LEN: "len",
        SGROUP: "group",
        EGROUP: "endgroup",
        I32: "fixed32",
    }
    users: dict[bytes, list[str]] = {}  # a tag -> the fields that have it
    for cls in MESSAGE_TYPES:
        spec = spec_of(cls)
        for f in spec.numbered:
            for wt in f.accepted_wire_types():
                users.setdefault(f.tag_for(wt), []).append(f"{spec.name}.{f.name}")
                add(f"tag_{f.number}_{wire_names[wt]}", f.tag_for(wt))
    tensor = spec_of(TensorProto).by_name
    data_type = tensor["data_type"]
    for dt, info in DATA_TYPES.items():
        value = data_type.tag + _varint(dt)
        add(f"data_type_{info.name}", value)
        add(f"head_{info.name}_{info.storage}", value + tensor[info.storage].tag)
        if dt != _STRING:
            add(f"head_{info.name}_raw_data", value + tensor["raw_data"].tag)
    for cls in (SequenceProto, OptionalProto):
        elem = spec_of(cls).by_name["elem_type"]
        for kind in _KINDS:
            add(
                f"{spec_of(cls).name}_elem_type_{cls.DataType(kind).name}", elem.tag + _varint(kind)
            )
    location = tensor["data_location"]
    for member in TensorProto.DataLocation:
        add(f"data_location_{member.name}", location.tag + _varint(member))
    entry = spec_of(_ENTRY).numbered  # key, then value
    for k in sorted(ALLOWED_KEYS):
        add(f"key_{k}", k.encode())
        add(f"entry_key_{k}", entry[0].tag + _varint(len(k)) + k.encode() + entry[1].tag)
    for v in (
        0,
        1,
        127,
        128,
        255,
        300,
        16383,
        16384,
        (1 << 31) - 1,
        1 << 31,
        MASK32,
        1 << 32,
        (1 << 63) - 1,
        -1,
    ):
        add(f"varint_{v & MASK64:x}", _varint(v))
    add("varint_int32_minus_one_5_bytes", _varint(MASK32))
    add("varint_zero_overlong", _varint(0, 2))
    add("varint_zero_10_bytes", _varint(0, 10))
    for bits in _F32:
        add(f"float_{bits:08x}", struct.pack("<I", bits))
    for bits in _F64:
        add(f"double_{bits:016x}", struct.pack("<Q", bits))
    add("max_field_number_varint", _tag((1 << 29) - 1, VARINT))
    add("field_number_2_29", _tag(1 << 29, VARINT))
    add("field_number_0", b"\x00")
    add("wire_type_6", b"\x0e")
    add("wire_type_7", b"\x0f")
    add("group_start_15", _tag(15, SGROUP))
    add("group_end_15", _tag(15, EGROUP))
    add("tag_6_bytes", _tag(1, VARINT, 6))
    add("length_5_bytes", _varint(0, 5))
    lines = ["# libFuzzer/AFL dictionary for ONNX data messages, written by `onnxdata corpus`"]
    for data, name in entries.items():
        if data in users:
            lines.append(f"# {', '.join(users[data])}")
        lines.append(f'{name}="{_escape(data)}"')
    return "\n".join(lines) + "\n"


# -- the corpus --------------------------------------------------------------------------


def corpus_files(*, seed: int = 0, count: int = 2) -> dict[str, bytes]:
    """The whole corpus in memory: ``"<Message>/<file>.pb"`` (and ``onnx.dict``) -> bytes.

    ``count`` is the number of variants of each case (each data type in each
    storage form, each field, each non-canonical form); the malformed seeds
    follow, between 10 and 50 % of each folder.  The same ``seed`` and
    ``count`` give the same names and bytes.

    Raises:
        TypeError: ``seed`` or ``count`` is not an int.
        ValueError: ``count`` is below 1.
    """
    for what, value in (("seed", seed), ("count", count)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if count < 1:
        raise ValueError(f"count must be at least 1, not {count}")
    out: dict[str, bytes] = {}
    for cls in MESSAGE_TYPES:
        folder = spec_of(cls).name
        for name, data in sorted(_build(cls, seed, count).items()):
            out[f"{folder}/{name}"] = data
    out[DICTIONARY_NAME] = dictionary().encode("ascii")
    return out


def write_corpus(
    out_dir: Any, *, seed: int = 0, count: int = 2, force: bool = False
) -> dict[str, dict[str, int]]:
    """Write the corpus of :func:`corpus_files` under ``out_dir`` (made if missing).

    Everything is written in a staging folder inside ``out_dir`` first, then
    each message's folder is renamed into place whole, and ``onnx.dict`` last:
    a failure leaves no file half-written and no folder half-filled.
    ``out_dir`` must be empty unless ``force``; then the seven message folders
    and ``onnx.dict`` are replaced (files of an earlier corpus are dropped),
    and nothing else in ``out_dir`` is touched.

    Returns, per folder, how many ``valid``, ``noncanonical`` and
    ``malformed`` files it holds.

    Raises:
        TypeError, ValueError: as :func:`corpus_files`.
        NotADirectoryError: ``out_dir`` exists and is not a folder.
        FileExistsError: ``out_dir`` is not empty and ``force`` is false.
        OSError: from creating, writing or renaming.
    """
    files = corpus_files(seed=seed, count=count)
    out = os.fspath(out_dir)
    if os.path.exists(out) and not os.path.isdir(out):
        raise NotADirectoryError(f"{out} exists and is not a folder")
    os.makedirs(out, exist_ok=True)
    if os.listdir(out) and not force:
        raise FileExistsError(f"{out} is not empty (force=True, or --force, replaces its corpus)")
    staging = os.path.join(out, f".onnxdata-corpus-{os.urandom(4).hex()}.tmp")
    os.mkdir(staging)
    try:
        for rel, data in files.items():
            path = os.path.join(staging, *rel.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        old = os.path.join(staging, ".old")
        os.mkdir(old)
        for name in [spec_of(cls).name for cls in MESSAGE_TYPES] + [DICTIONARY_NAME]:
            target = os.path.join(out, name)
            if os.path.lexists(target):
                os.rename(target, os.path.join(old, name))
            os.rename(os.path.join(staging, name), target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    summary: dict[str, dict[str, int]] = {}
    for rel in files:
        if "/" in rel:
            folder, name = rel.split("/")
            kind = name.split("-", 1)[0]
            counts = summary.setdefault(folder, {"valid": 0, "noncanonical": 0, "malformed": 0})
            counts[kind] += 1
    return summary
