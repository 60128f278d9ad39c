"""Small valid ONNX messages and values drawn from a ``random.Random``: the corpus's seeds.

Floats include the edge bit patterns (NaNs, signalling ones too, infinities,
-0, subnormals), integers their type's limits; the tensors, sparse tensors,
sequences, maps and optionals satisfy ONNX's rules (:func:`onnxdata.check`).
"""

from __future__ import annotations

import hashlib
import math
import random
import struct
from array import array

from .._core.schema import BYTES, DOUBLE, ENUM, FLOAT, MESSAGE, STRING, spec_of
from .._io.external import ALLOWED_KEYS
from .._messages.datatypes import DATA_TYPES, ELEMENT_MESSAGES, element_fields
from .._messages.declarations import (
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
    from typing import Any

    from .._core.schema import FieldSpec

DT = TensorProto.DataType
STRING_TYPE = DT.STRING
INT64_TYPE = DT.INT64
TENSOR_SPEC = spec_of(TensorProto)
Entry = StringStringEntryProto

F32 = (0x00000000, 0x80000000, 0x3FC00000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001,
        0x00000001, 0x7F7FFFFF, 0xFFFFFFFF)  # fmt: skip
F64 = (0, 1 << 63, 0x3FF8000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
        0x7FF8000000000000, 0x7FF0000000000001, 1, 0x7FEFFFFFFFFFFFFF)  # fmt: skip
_TEXTS = ("", "x", "tensor", "é日本語", "\U0001f642", "a b\tc", "0", "name with spaces")


def floats(code: str, n: int, rng: random.Random) -> array[float]:
    """``n`` floats of the array typecode ``code``: edge bit patterns (NaNs, signalling
    included, infinities, -0, subnormals) and random bits."""
    edges, width = (F32, "<I") if code == "f" else (F64, "<Q")
    bits = 32 if code == "f" else 64
    raw = b"".join(
        struct.pack(width, rng.choice(edges) if rng.random() < 0.5 else rng.getrandbits(bits))
        for _ in range(n)
    )
    values: array[float] = array(code)
    values.frombytes(raw)
    return values


def integer(lo: int, hi: int, rng: random.Random) -> int:
    edges = [v for v in (0, 1, -1, 127, 128, 300, lo, hi, lo + 1, hi - 1) if lo <= v <= hi]
    return rng.choice(edges) if rng.random() < 0.5 else rng.randint(lo, hi)


def text(rng: random.Random) -> str:
    return rng.choice(_TEXTS) if rng.random() < 0.6 else f"t{rng.randrange(1000)}"


def scalar(f: FieldSpec, rng: random.Random) -> Any:
    """A random value of a non-message field's kind."""
    if f.kind == ENUM:
        assert f.enum is not None
        return rng.choice(f.enum.values())
    if f.kind == STRING:
        return text(rng)
    if f.kind == BYTES:
        return rng.randbytes(rng.randrange(0, 9))
    if f.kind in (FLOAT, DOUBLE):
        return floats("f" if f.kind == FLOAT else "d", 1, rng)[0]
    assert f.bounds is not None
    return integer(*f.bounds, rng)


# Sub-messages below this depth are left empty: the model messages nest each other
# (a graph's node's attribute holds a graph), so filling every field must stop somewhere.
MAX_FILL_DEPTH = 4


def _set_random(msg: Message, f: FieldSpec, rng: random.Random, depth: int) -> None:
    """Give the field ``f`` of ``msg`` a random value (a valid sub-message for MESSAGE)."""
    if f.kind == MESSAGE:
        if depth >= MAX_FILL_DEPTH:
            value: Any = f.message()
            setattr(msg, f.name, [value] if f.repeated else value)
        elif f.repeated:
            setattr(
                msg, f.name, [sample(f.message, rng, depth + 1) for _ in range(rng.randint(1, 2))]
            )
        else:
            setattr(msg, f.name, sample(f.message, rng, depth + 1))
    elif f.repeated:
        n = rng.randint(1, 4)
        if f.typecode in ("f", "d"):
            setattr(msg, f.name, floats(f.typecode, n, rng))
        else:
            setattr(msg, f.name, [scalar(f, rng) for _ in range(n)])
    else:
        setattr(msg, f.name, scalar(f, rng))


def filled(cls: type[Message], rng: random.Random, depth: int, fields: Any = None) -> Message:
    """A message of ``cls`` with each of ``fields`` (default: all) set; of the members
    of a oneof, only one (setting one unsets the others, so the rest would be lost)."""
    msg = cls()
    chosen = list(spec_of(cls).fields if fields is None else fields)
    for members in spec_of(cls).oneofs.values():
        present = [f for f in chosen if f in members]
        if len(present) > 1:
            keep = rng.choice(present)
            chosen = [f for f in chosen if f not in members or f is keep]
    for f in chosen:
        _set_random(msg, f, rng, depth)
    return msg


_EXTERNAL_DATA = spec_of(TensorProto).named.external_data.name


def annotate(msg: Message, rng: random.Random) -> None:
    """Set every unset singular string field (names, doc strings) and every empty
    repeated list of string pairs other than ``external_data`` (metadata)."""
    for f in spec_of(type(msg)).fields:
        value = f.held(msg)
        if f.kind == STRING and not f.repeated and value is None:
            setattr(msg, f.name, text(rng))
        elif f.repeated and f.kind == MESSAGE and f.message is Entry and not value:  # noqa: SIM102
            if f.name != _EXTERNAL_DATA:
                setattr(msg, f.name, [Entry(key=text(rng), value=text(rng))
                                      for _ in range(rng.randint(1, 2))])  # fmt: skip


# -- valid ONNX values ---------------------------------------------------------------


def _stored(info: Any, count: int, rng: random.Random) -> Any:
    """``count`` values for the typed storage field of data type ``info``."""
    kind = TENSOR_SPEC.by_name[info.storage].kind
    if kind in (FLOAT, DOUBLE):
        return floats("f" if kind == FLOAT else "d", count, rng)
    if kind == BYTES:
        return [rng.randbytes(rng.randrange(0, 7)) for _ in range(count)]
    lo, hi = info.stored
    return [integer(lo, hi, rng) for _ in range(count)]


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


def tensor(rng: random.Random, dt: int, form: str, dims: list[int]) -> TensorProto:
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
        form = "typed" if dt == STRING_TYPE or rng.random() < 0.5 else "raw"
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
        t.external_data = [Entry(key=k, value=entries[k]) for k in keys]
    return t


def dims(rng: random.Random, variant: int) -> list[int]:
    if variant == 0:  # the first variant always holds values
        return list(rng.choice(([3], [2, 2], [1, 3], [4])))
    return list(rng.choice(([], [0], [1], [5], [2, 3], [2, 1, 2])))


def sparse(rng: random.Random, dt: int, variant: int) -> SparseTensorProto:
    dense = list(rng.choice(([10], [3, 4], [2, 2, 3])))
    size = math.prod(dense)
    nnz = rng.randint(1 if variant == 0 else 0, min(size, 5))
    flat = sorted(rng.sample(range(size), nnz))
    form = "raw" if dt != STRING_TYPE and (dt + variant) % 3 == 0 else "typed"
    values = tensor(rng, dt, form, [nnz])
    values.name = rng.choice(("values", "v", f"sparse{rng.randrange(100)}"))
    if (dt + variant) % 2 == 0 and len(dense) > 1:  # [NNZ, rank] coordinates
        coords: list[int] = []
        for k in flat:
            point = []
            for d in reversed(dense):
                point.append(k % d)
                k //= d
            coords.extend(reversed(point))
        indices = TensorProto(dims=[nnz, len(dense)], data_type=INT64_TYPE)
        numbers = coords
    else:
        indices = TensorProto(dims=[nnz], data_type=INT64_TYPE)
        numbers = flat
    if variant % 2:
        indices.raw_data = struct.pack(f"<{len(numbers)}q", *numbers)
    else:
        indices.int64_data = numbers
    return SparseTensorProto(values=values, indices=indices, dims=dense)


ELEMENT_KINDS = tuple(sorted(ELEMENT_MESSAGES))  # TENSOR, SPARSE_TENSOR, SEQUENCE, MAP, OPTIONAL


def _element(rng: random.Random, kind: int, depth: int, dt: int | None = None) -> Message:
    name = ELEMENT_MESSAGES[kind]
    if name == spec_of(TensorProto).name:
        chosen = dt if dt is not None else rng.choice(sorted(DATA_TYPES))
        form = "typed" if chosen == STRING_TYPE or rng.random() < 0.5 else "raw"
        return tensor(rng, chosen, form, dims(rng, 1))
    if name == spec_of(SparseTensorProto).name:
        return sparse(rng, dt if dt is not None else rng.choice(sorted(DATA_TYPES)), 1)
    if name == spec_of(SequenceProto).name:
        return sequence(rng, inner_kind(rng, depth), depth + 1)
    if name == spec_of(MapProto).name:
        return make_map(
            rng, rng.choice(key_types()), inner_kind(rng, depth, map_value=True), depth + 1
        )
    return optional(rng, inner_kind(rng, depth), depth + 1)


def inner_kind(rng: random.Random, depth: int, map_value: bool = False) -> int:
    kinds = [k for k in ELEMENT_KINDS if not (map_value and k == OptionalProto.OPTIONAL)]
    return rng.choice(kinds if depth < 2 else kinds[:2])


def sequence(rng: random.Random, kind: int, depth: int, count: int | None = None) -> SequenceProto:
    n = rng.randint(0, 3) if count is None else count
    dt = rng.choice(sorted(DATA_TYPES))  # the tensors of a sequence share one data type
    items = [_element(rng, kind, depth, dt) for _ in range(n)]
    s = SequenceProto(elem_type=kind)
    setattr(s, element_fields(SequenceProto)[kind].name, items)
    return s


def key_types() -> list[int]:
    return [d.value for d in DATA_TYPES.values() if d.key is not None or d.value == STRING_TYPE]


def make_map(rng: random.Random, key_type: int, value_kind: int, depth: int) -> MapProto:
    n = rng.randint(1, 3)
    m = MapProto(key_type=key_type)
    if key_type == STRING_TYPE:
        m.string_keys = [k.encode() for k in rng.sample(("a", "b", "key", "é", "", "日本"), n)]
    else:
        bounds = DATA_TYPES[key_type].key
        assert bounds is not None
        lo, hi = bounds
        keys: list[int] = []
        while len(keys) < n:
            k = integer(lo, hi, rng)
            if k not in keys:
                keys.append(k)
        m.keys = keys
    m.values = sequence(rng, value_kind, depth, n)
    return m


def optional(rng: random.Random, kind: int, depth: int, empty: bool = False) -> OptionalProto:
    o = OptionalProto(elem_type=kind)
    if not empty:
        setattr(o, element_fields(OptionalProto)[kind].name, _element(rng, kind, depth))
    return o


def sample(cls: type[Message], rng: random.Random, depth: int) -> Message:
    """A small valid message of ``cls`` (random fields for the two small messages)."""
    if cls is TensorProto:
        return _element(rng, 1, depth)
    if cls is SparseTensorProto:
        return sparse(rng, rng.choice(sorted(DATA_TYPES)), 1)
    if cls is SequenceProto:
        return sequence(rng, inner_kind(rng, depth), depth + 1)
    if cls is MapProto:
        return make_map(rng, rng.choice(key_types()), inner_kind(rng, depth, True), depth + 1)
    if cls is OptionalProto:
        return optional(rng, inner_kind(rng, depth), depth + 1)
    return filled(cls, rng, depth)


def cycle(cls: type[Message]) -> list[FieldSpec] | None:
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


def deep_path(cls: type[Message], levels: int) -> list[FieldSpec] | None:
    """``levels`` message fields, each inside the one before, from ``cls`` down: round
    its own cycle, or first to the nearest message that has one (a model reaches its
    graph, whose node's attribute holds a graph again); None when no field leads
    to a cycle."""
    own = cycle(cls)
    if own is not None:
        return [own[i % len(own)] for i in range(levels)]
    paths: list[tuple[type[Message], list[FieldSpec]]] = [(cls, [])]
    seen: set[type] = {cls}
    while paths:
        here, path = paths.pop(0)
        for f in spec_of(here).children():
            if f.message in seen:
                continue
            seen.add(f.message)
            loop = cycle(f.message)
            if loop is not None:
                prefix = [*path, f]
                return (prefix + [loop[i % len(loop)] for i in range(levels)])[:levels]
            paths.append((f.message, [*path, f]))
    return None


def nested(cls: type[Message], levels: int) -> Message:
    """``cls`` with ``levels`` sub-messages nested along :func:`deep_path`."""
    path = deep_path(cls, levels)
    assert path is not None
    chain: list[Message] = [cls()]
    for f in path:
        inner = f.message()
        if f.repeated:
            getattr(chain[-1], f.name).append(inner)
        else:
            setattr(chain[-1], f.name, inner)
        chain.append(inner)
    return chain[0]
