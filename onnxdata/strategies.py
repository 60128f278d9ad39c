"""Hypothesis strategies for ONNX data messages, to test any ONNX parser.

Valid messages (``tensors``, ``sparse_tensors``, ``sequences``, ``maps``,
``optionals``, ``entries``, ``segments``, ``messages``) pass
:func:`onnxdata.check`, and together set every field of every message.
Wire-level strategies go below the message: ``noncanonical_encodings`` gives
``(message, bytes)`` pairs whose bytes are valid but never what protobuf
writes, and ``malformed_encodings`` gives ``(type, bytes, defect)`` triples
that every parser must reject; :data:`DEFECTS` names the defect classes.

Arguments follow ``hypothesis.extra.numpy``: ``dtype``, ``shape`` and the
element types take a value or a strategy, sizes are ``min_size``/``max_size``,
and ``elements=`` draws the stored values.  A bad argument raises
:class:`hypothesis.errors.InvalidArgument`, when the strategy is built for a
value and when it is drawn for a strategy.

Needs hypothesis: ``pip install 'onnxdata[fuzz]'``.
"""

from __future__ import annotations

import copy
import math
import operator
import struct
from collections.abc import Callable, Iterable
from typing import Any

try:
    from hypothesis import assume
    from hypothesis import strategies as st
    from hypothesis.errors import InvalidArgument
except ImportError as exc:  # pragma: no cover - tested in a subprocess
    raise ImportError("onnxdata.strategies needs hypothesis: pip install 'onnxdata[fuzz]'") from exc

from ._core.foreign import foreign_name
from ._core.schema import BYTES, DOUBLE, ENUM, FLOAT, KINDS, MESSAGE, is_boolean, spec_of
from ._core.wire import encode_varint
from ._messages.convert import as_message
from ._messages.datatypes import DATA_TYPES, element_fields
from ._messages.declarations import (
    MESSAGE_TYPES,
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)

__all__ = [
    "DEFECTS",
    "entries",
    "malformed_encodings",
    "maps",
    "messages",
    "noncanonical_encodings",
    "optionals",
    "segments",
    "sequences",
    "sparse_tensors",
    "tensors",
]

DT = TensorProto.DataType
Segment = TensorProto.Segment
_DTYPES = [DT(d) for d in DATA_TYPES]
_TENSOR_FIELDS = spec_of(TensorProto).by_name
_ELEM_TYPES = [SequenceProto.DataType(k) for k in SequenceProto.DataType]
# The integer types a map key may have, in data type order, then STRING.
_KEY_TYPES = [DT(d.value) for d in DATA_TYPES.values() if d.key is not None] + [DT.STRING]
_STORAGES = ("raw", "typed", "external")
# STRING keys one map in two: the other key types share one field, ``keys``.
_ANY_KEY_TYPE = st.just(DT.STRING) | st.sampled_from(_KEY_TYPES[:-1])
_TEXT = st.text(max_size=8)
_LOCATION = st.text("abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=8)


# ---- argument checks ----------------------------------------------------------------------


def _is_int(value: object) -> bool:
    """An int or an integer scalar such as ``numpy.int64`` (``__index__``), not a bool."""
    if is_boolean(value):
        return False
    try:
        operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return False
    return True


def _size(name: str, value: object) -> int:
    if not _is_int(value) or operator.index(value) < 0:  # type: ignore[arg-type]
        raise InvalidArgument(f"{name} must be a non-negative int, not {value!r}")
    return operator.index(value)  # type: ignore[arg-type]


def _sizes(min_size: object, max_size: object) -> tuple[int, int]:
    lo, hi = _size("min_size", min_size), _size("max_size", max_size)
    if lo > hi:
        raise InvalidArgument(f"min_size={lo} is larger than max_size={hi}")
    return lo, hi


def _choice(name: str, value: object, allowed: Iterable[int]) -> int:
    """``value`` as one of ``allowed`` (enumerators), else InvalidArgument."""
    allowed = list(allowed)
    if not _is_int(value) or value not in allowed:
        names = ", ".join(f"{getattr(a, 'name', a)} ({int(a)})" for a in allowed)
        raise InvalidArgument(f"{name} must be one of {names}; got {value!r}")
    return int(value)


def _dims(value: object) -> list[int]:
    """A shape: an int (one axis) or a sequence of non-negative ints."""
    if not isinstance(value, Iterable) and _is_int(value):
        value = (value,)
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InvalidArgument(f"shape must be an int or a sequence of ints, not {value!r}")
    dims = list(value)
    for d in dims:
        if not _is_int(d) or operator.index(d) < 0:
            raise InvalidArgument(f"shape {value!r}: every side must be a non-negative int")
    return [operator.index(d) for d in dims]


def _strategy(name: str, value: object) -> st.SearchStrategy[Any]:
    if not isinstance(value, st.SearchStrategy):
        raise InvalidArgument(f"{name} must be a hypothesis strategy, not {value!r}")
    return value


def _value_or_strategy(name: str, value: object, check: Any) -> Any:
    """A strategy for ``value``: itself (each draw checked) or the checked value."""
    if isinstance(value, st.SearchStrategy):
        return value.map(check)
    return st.just(check(value))


def _depth(max_depth: object) -> int:
    return _size("max_depth", max_depth)


def _flag(name: str, value: object) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise InvalidArgument(f"{name} must be True, False or None, not {value!r}")
    return value


def _text_or(name: str, value: object) -> st.SearchStrategy[str | None]:
    if value is None:
        return st.none() | _TEXT

    def text(v: object) -> str:
        if not isinstance(v, str):
            raise InvalidArgument(f"{name} must be a str, not {v!r}")
        return v

    return _value_or_strategy(name, value, text)  # type: ignore[no-any-return]


# ---- the two small messages ------------------------------------------------------------


def entries(key: Any = None, value: Any = None) -> st.SearchStrategy[StringStringEntryProto]:
    """``StringStringEntryProto`` messages (``metadata_props``, ``external_data``).

    ``key`` and ``value`` are a str or a strategy of them; when not given each
    is unset or a short text.

    Raises:
        InvalidArgument: ``key`` or ``value`` is (or draws) something else than a str.
    """
    keys, values = _text_or("key", key), _text_or("value", value)
    return st.builds(lambda k, v: StringStringEntryProto(key=k, value=v), keys, values)


def segments(size: Any = None) -> st.SearchStrategy[Segment]:
    """``TensorProto.Segment`` messages with ``0 <= begin <= end <= size``.

    ``size`` (an int or a strategy; default 0 to 64) is the element count the
    segment lies in; ``begin`` or ``end`` is sometimes left unset.

    Raises:
        InvalidArgument: ``size`` is (or draws) something else than a non-negative int.
    """
    sizes = (
        st.integers(0, 64)
        if size is None
        else _value_or_strategy("size", size, lambda v: _size("size", v))
    )
    return sizes.flatmap(_segment_of)


def _segment_of(size: int) -> st.SearchStrategy[Segment]:
    def make(pair: tuple[int, int], keep: int) -> Segment:
        begin, end = sorted(pair)
        return Segment(begin=begin if keep != 1 else None, end=end if keep != 2 else None)

    return st.builds(make, st.tuples(st.integers(0, size), st.integers(0, size)), st.integers(0, 5))


# ---- tensors ------------------------------------------------------------------------------


def _floats(width: int) -> st.SearchStrategy[float]:
    return st.floats(width=width, allow_nan=True, allow_infinity=True)  # type: ignore[arg-type]


def _check_dtype(value: object) -> int:
    return _choice("dtype", value, _DTYPES)


def _check_element(dtype: int, value: object) -> Any:
    info = DATA_TYPES[dtype]
    kind = _TENSOR_FIELDS[info.storage].kind
    if kind in (FLOAT, DOUBLE):
        ok = isinstance(value, (int, float)) and not is_boolean(value)
    elif kind == BYTES:
        ok = isinstance(value, bytes)
    else:
        assert info.stored is not None  # an integer-stored type
        lo, hi = info.stored
        ok = _is_int(value) and lo <= value <= hi  # type: ignore[operator]
    if not ok:
        raise InvalidArgument(
            f"elements drew {value!r}, which {info.storage} of a {info.name} tensor cannot hold"
        )
    return value


def _values_of(dtype: int) -> st.SearchStrategy[Any]:
    info = DATA_TYPES[dtype]
    kind = _TENSOR_FIELDS[info.storage].kind
    if kind == FLOAT:
        return _floats(32)
    if kind == DOUBLE:
        return _floats(64)
    if kind == BYTES:
        return st.binary(max_size=6)
    assert info.stored is not None  # an integer-stored type
    return st.integers(*info.stored)


def tensors(
    dtype: Any = None,
    shape: Any = None,
    storage: Any = None,
    name: bool | None = None,
    *,
    elements: st.SearchStrategy[Any] | None = None,
    segment: bool | None = None,
) -> st.SearchStrategy[TensorProto]:
    """Valid tensors, reaching every field of ``TensorProto``.

    Arguments (each drawn when not given):

    - ``dtype``: a ``TensorProto.DataType``, or a strategy of them.
    - ``shape``: the dims, an int or a sequence of ints, or a strategy of them
      (default: up to 3 sides of 0 to 4).
    - ``storage``: ``"raw"`` (``raw_data``), ``"typed"`` (the ``*_data`` field
      of the type) or ``"external"`` (``data_location=EXTERNAL``, a safe relative
      ``location`` entry in ``external_data`` and no values in the message).
    - ``name``: ``True`` always sets a name, ``False`` never.
    - ``elements``: a strategy for the values of the typed field (floats for
      ``float_data``, ints in range for ``int32_data``, bytes for ``string_data``;
      the real and imaginary parts of complex numbers are values of their own);
      implies ``storage="typed"``.
    - ``segment``: ``True`` always sets ``segment`` (``0 <= begin <= end <= `` the
      element count, and the message holds the ``end - begin`` elements of the
      segment), ``False`` never.

    ``doc_string``, ``metadata_props`` and an explicit ``data_location=DEFAULT``
    are drawn too.

    Raises:
        InvalidArgument: an unknown ``dtype`` or ``storage``, a negative or
            non-int side, ``storage="raw"`` for STRING, ``elements`` with
            another storage or drawing a value the field cannot hold, or
            ``segment=True`` with ``storage="external"``.
    """
    if storage is not None and storage not in _STORAGES:
        raise InvalidArgument(f"storage must be one of {_STORAGES}, not {storage!r}")
    _flag("name", name)
    _flag("segment", segment)
    if elements is not None:
        _strategy("elements", elements)
        if storage not in (None, "typed"):
            raise InvalidArgument(f"elements= fills the typed field; storage={storage!r}")
        storage = "typed"
    if segment and storage == "external":
        raise InvalidArgument("an external tensor has no segment: its values are elsewhere")
    if dtype is None:
        # A typed field first, then a type stored there: each field is as likely as the others.
        fields = sorted(
            {DATA_TYPES[d].storage for d in _DTYPES if storage != "raw" or d != DT.STRING}
        )
        dtypes = st.sampled_from(fields).flatmap(
            lambda f: st.sampled_from([d for d in _DTYPES if DATA_TYPES[d].storage == f])
        )
    else:
        dtypes = _value_or_strategy("dtype", dtype, _check_dtype)
        if storage == "raw" and not isinstance(dtype, st.SearchStrategy) and dtype == DT.STRING:
            raise InvalidArgument("STRING tensors cannot use raw_data")
    shapes = (
        st.lists(st.integers(0, 4), max_size=3)
        if shape is None
        else _value_or_strategy("shape", shape, _dims)
    )
    return _tensors(dtypes, shapes, storage, name, elements, segment)


@st.composite
def _tensors(
    draw: st.DrawFn,
    dtypes: st.SearchStrategy[int],
    shapes: st.SearchStrategy[list[int]],
    storage: str | None,
    name: bool | None,
    elements: st.SearchStrategy[Any] | None,
    segment: bool | None,
) -> TensorProto:
    dt = DT(draw(dtypes))
    dims = list(draw(shapes))
    if dt == DT.STRING and storage == "raw":
        raise InvalidArgument("STRING tensors cannot use raw_data")
    n = math.prod(dims)
    t = TensorProto(dims=dims, data_type=dt)
    if name or (name is None and draw(st.booleans())):
        t.name = draw(_TEXT)
    if draw(st.integers(0, 3)) == 0:
        t.doc_string = draw(_TEXT)
    if draw(st.integers(0, 3)) == 0:
        t.metadata_props = draw(st.lists(entries(), min_size=1, max_size=2))
    use = storage
    if use is None:
        if draw(st.integers(0, 7)) == 0:
            use = "external"
        else:
            use = "typed" if dt == DT.STRING else draw(st.sampled_from(["raw", "typed"]))
    if use == "external":
        location = draw(st.lists(_LOCATION, min_size=1, max_size=2))
        found = [StringStringEntryProto(key="location", value="/".join(location))]
        found += draw(st.lists(entries(), max_size=2))
        found = draw(st.permutations(found))
        t.external_data = found
        t.data_location = TensorProto.EXTERNAL
        return t
    if draw(st.integers(0, 3)) == 0:
        t.data_location = TensorProto.DEFAULT
    if segment or (segment is None and draw(st.integers(0, 5)) == 0):
        t.segment = draw(_segment_of(n))
        begin = t.segment.begin or 0
        end = t.segment.end if t.segment.end is not None else n
        n = max(end - begin, 0)
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
    if elements is not None:
        values = elements.map(lambda v: _check_element(dt, v))
    else:
        values = _values_of(dt)
    k = info.stored_count(n)
    setattr(t, info.storage, draw(st.lists(values, min_size=k, max_size=k)))
    return t


def sparse_tensors(dtype: Any = None, shape: Any = None) -> st.SearchStrategy[SparseTensorProto]:
    """Valid sparse tensors: named 1-D ``values``, INT64 ``indices`` that are
    linear (``[NNZ]``) or coordinates (``[NNZ, rank]``), ascending and unique.

    ``dtype`` (of the values) and ``shape`` (the dense ``dims``: at least one
    side, each at least 1) take a value or a strategy.

    Raises:
        InvalidArgument: an unknown ``dtype``; a ``shape`` that is empty or
            has a side below 1.
    """

    def dense(value: object) -> list[int]:
        dims = _dims(value)
        if not dims or 0 in dims:
            raise InvalidArgument(f"a sparse tensor's shape needs sides of at least 1: {value!r}")
        return dims

    dtypes = (
        st.sampled_from([d for d in _DTYPES if not DATA_TYPES[d].packed])
        if dtype is None
        else _value_or_strategy("dtype", dtype, _check_dtype)
    )
    shapes = (
        st.lists(st.integers(1, 5), min_size=1, max_size=3)
        if shape is None
        else _value_or_strategy("shape", shape, dense)
    )
    return _sparse_tensors(dtypes, shapes)


@st.composite
def _sparse_tensors(
    draw: st.DrawFn, dtypes: st.SearchStrategy[int], shapes: st.SearchStrategy[list[int]]
) -> SparseTensorProto:
    dims = list(draw(shapes))
    size = math.prod(dims)
    linear = sorted(draw(st.sets(st.integers(0, size - 1), max_size=min(size, 6))))
    nnz = len(linear)
    dtype = draw(dtypes)
    values = draw(
        _tensors(st.just(dtype), st.just([nnz]), draw(st.sampled_from(_sparse_storages(dtype))),
                 True, None, False)
    )  # fmt: skip
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


def _sparse_storages(dtype: int) -> list[str]:
    return ["typed"] if dtype == DT.STRING else ["raw", "typed"]


# ---- sequences, maps, optionals ------------------------------------------------------------


def _elements(draw: st.DrawFn, kind: int, count: int, depth: int) -> list[Any]:
    below = max(depth - 1, 0)
    if kind == SequenceProto.TENSOR:
        dt = draw(st.sampled_from(_DTYPES))
        return [draw(tensors(dtype=dt)) for _ in range(count)]
    if kind == SequenceProto.SPARSE_TENSOR:
        return [draw(sparse_tensors()) for _ in range(count)]
    if kind == SequenceProto.SEQUENCE:
        return [draw(_sequences(_kinds(below), below, 0, 3)) for _ in range(count)]
    if kind == SequenceProto.MAP:
        return [draw(_maps(_ANY_KEY_TYPE, below, 0, 3)) for _ in range(count)]
    return [draw(_optionals(_kinds(below), below)) for _ in range(count)]


def _kinds(depth: int, allowed: Iterable[int] = _ELEM_TYPES) -> st.SearchStrategy[int]:
    return st.sampled_from([k for k in allowed if k <= SequenceProto.SPARSE_TENSOR or depth > 0])


def _elem_types(elem_type: Any, depth: int) -> st.SearchStrategy[int]:
    if elem_type is None:
        return _kinds(depth)
    return _value_or_strategy(  # type: ignore[no-any-return]
        "elem_type", elem_type, lambda v: _choice("elem_type", v, _ELEM_TYPES)
    )


def sequences(
    elem_type: Any = None, max_depth: int = 2, *, min_size: int = 0, max_size: int = 3
) -> st.SearchStrategy[SequenceProto]:
    """Valid sequences: one element type (``elem_type``, a value or a strategy);
    tensors share one data_type; ``min_size`` to ``max_size`` elements;
    sequences, maps and optionals nest up to ``max_depth`` levels.

    ``elem_type=UNDEFINED`` (0) gives empty sequences: an untyped sequence
    passes ``check()`` only when it holds nothing, so ``min_size`` must be 0.

    Raises:
        InvalidArgument: an unknown ``elem_type``; a negative size or depth;
            ``min_size > max_size``; ``UNDEFINED`` with ``min_size > 0``.
    """
    depth = _depth(max_depth)
    lo, hi = _sizes(min_size, max_size)
    if elem_type == SequenceProto.UNDEFINED and not isinstance(elem_type, st.SearchStrategy):
        _choice("elem_type", elem_type, _ELEM_TYPES)
        if lo:
            raise InvalidArgument(f"an UNDEFINED sequence holds no elements: min_size={lo}")
    return _sequences(_elem_types(elem_type, depth), depth, lo, hi)


@st.composite
def _sequences(
    draw: st.DrawFn, kinds: st.SearchStrategy[int], depth: int, lo: int, hi: int
) -> SequenceProto:
    kind = draw(kinds)
    seq = SequenceProto(elem_type=kind)
    if draw(st.booleans()):
        seq.name = draw(_TEXT)
    if kind == SequenceProto.UNDEFINED:
        if lo:
            raise InvalidArgument(f"an UNDEFINED sequence holds no elements: min_size={lo}")
        return seq
    items = _elements(draw, kind, draw(st.integers(lo, hi)), depth)
    setattr(seq, element_fields(SequenceProto)[kind].name, items)
    return seq


def maps(
    key_type: Any = None, max_depth: int = 2, *, min_size: int = 0, max_size: int = 3
) -> st.SearchStrategy[MapProto]:
    """Valid maps: an allowed ``key_type`` (a value or a strategy), ``min_size``
    to ``max_size`` distinct in-range keys in the matching field, as many
    values (of one type) as keys.

    Raises:
        InvalidArgument: a ``key_type`` no map may have; a negative size or
            depth; ``min_size > max_size``; more keys than the type has.
    """
    depth = _depth(max_depth)
    lo, hi = _sizes(min_size, max_size)
    key_types = (
        _ANY_KEY_TYPE
        if key_type is None
        else _value_or_strategy("key_type", key_type, lambda v: _choice("key_type", v, _KEY_TYPES))
    )
    return _maps(key_types, depth, lo, hi)


@st.composite
def _maps(
    draw: st.DrawFn, key_types: st.SearchStrategy[int], depth: int, lo: int, hi: int
) -> MapProto:
    kt = draw(key_types)
    m = MapProto(key_type=kt)
    if draw(st.booleans()):
        m.name = draw(_TEXT)
    if kt == DT.STRING:
        m.string_keys = draw(st.lists(st.binary(max_size=4), unique=True, min_size=lo, max_size=hi))
        count = len(m.string_keys)
    else:
        key = DATA_TYPES[kt].key
        assert key is not None
        low, high = key
        low = max(low, 0) if kt == DT.UINT64 else low
        if lo > high - low + 1:
            raise InvalidArgument(f"min_size={lo}: a {DT(kt).name} key has fewer values")
        m.keys = draw(st.lists(st.integers(low, high), unique=True, min_size=lo, max_size=hi))
        count = len(m.keys)
    kind = draw(_kinds(depth, _ELEM_TYPES[1:5]))
    values = SequenceProto(elem_type=kind)
    setattr(values, element_fields(SequenceProto)[kind].name, _elements(draw, kind, count, depth))
    m.values = values
    return m


def optionals(elem_type: Any = None, max_depth: int = 2) -> st.SearchStrategy[OptionalProto]:
    """Valid optionals: empty, or holding one value of ``elem_type`` (a value
    or a strategy).  ``elem_type=UNDEFINED`` (0) gives empty optionals, the
    only untyped ones ``check()`` accepts.

    Raises:
        InvalidArgument: an unknown ``elem_type``; a negative depth.
    """
    depth = _depth(max_depth)
    return _optionals(_elem_types(elem_type, depth), depth)


@st.composite
def _optionals(draw: st.DrawFn, kinds: st.SearchStrategy[int], depth: int) -> OptionalProto:
    kind = draw(kinds)
    o = OptionalProto(elem_type=kind)
    if draw(st.booleans()):
        o.name = draw(_TEXT)
    if kind != OptionalProto.UNDEFINED and draw(st.integers(0, 3)):
        setattr(o, element_fields(OptionalProto)[kind].name, _elements(draw, kind, 1, depth)[0])
    return o


def _message_class(value: object) -> type[Message]:
    """One of onnxdata's message classes, given it or onnx's class of the same name."""
    if isinstance(value, type):
        if value in MESSAGE_TYPES:
            return value
        descriptor = getattr(value, "DESCRIPTOR", None)
        full = getattr(descriptor, "full_name", None)
        for cls in MESSAGE_TYPES:
            if full == spec_of(cls).full_name:
                return cls
    raise InvalidArgument(f"{value!r} is not an ONNX data message class (onnxdata's or onnx's)")


def messages(max_depth: int = 2, types: Any = None) -> st.SearchStrategy[Message]:
    """Any valid message: a tensor, sparse tensor, sequence, map or optional.

    ``types`` limits the choice to some message classes (onnxdata's or onnx's,
    such as ``onnx.TensorProto``; ``TensorProto.Segment`` and
    ``StringStringEntryProto`` too); the messages are always onnxdata's.

    Raises:
        InvalidArgument: ``types`` is empty or names something else than a
            message class; a negative depth.
    """
    depth = _depth(max_depth)
    make: dict[type[Message], Callable[[], st.SearchStrategy[Any]]] = {
        TensorProto: lambda: tensors(),
        SparseTensorProto: lambda: sparse_tensors(),
        SequenceProto: lambda: sequences(max_depth=depth),
        MapProto: lambda: maps(max_depth=depth),
        OptionalProto: lambda: optionals(max_depth=depth),
        StringStringEntryProto: lambda: entries(),
        Segment: lambda: segments(),
    }
    if types is None:
        chosen: list[type[Message]] = list(make)[:5]
    else:
        if isinstance(types, type) or not isinstance(types, Iterable):
            types = [types]
        chosen = list(dict.fromkeys(_message_class(t) for t in types))
        if not chosen:
            raise InvalidArgument("types is empty")
    return st.one_of(*(make[cls]() for cls in chosen))


# ---- wire level ---------------------------------------------------------------------------

# The wire form of each kind, named as _elements_of and _restate read it.
_WIRE_NAMES = {0: "varint", 1: "i64", 2: "len", 5: "i32"}
_FIXED = {1: 8, 5: 4}
# An OptionalProto holding an OptionalProto: the tag of the field that nests.
_NESTED_TAG = element_fields(OptionalProto)[SequenceProto.OPTIONAL].tag
# The first field number no message knows: unknown fields are drawn from there up.
_FIRST_UNKNOWN = max(n for cls in MESSAGE_TYPES for n in spec_of(cls).by_number) + 1
_MAX_NUMBER = 2**29 - 1  # the largest field number protobuf allows


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
            size = _FIXED[wt]
            out.append((number, wt, data[pos : pos + size]))
            pos += size
    return out


def _overlong(value: int, size: int) -> bytes:
    """``value`` as a varint of exactly ``size`` bytes (redundant continuation bytes)."""
    out = bytearray()
    for _ in range(size - 1):
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    out.append(value & 0x7F)
    return bytes(out)


def _long_varint(draw: st.DrawFn, value: int, max_len: int = 10) -> bytes:
    """``value`` as a varint, sometimes padded with redundant continuation bytes."""
    canonical = encode_varint(value)
    size = draw(st.integers(len(canonical), max(len(canonical), max_len)))
    if size == len(canonical) or not draw(st.booleans()):
        return canonical
    return _overlong(value, size)


def _field(draw: st.DrawFn, number: int, wt: int, payload: bytes) -> bytes:
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


def _restate(draw: st.DrawFn, kind: str, element: bytes) -> bytes:
    if kind == "varint":
        return _long_varint(draw, _read_varint(element, 0)[0])
    return element


def _reencode(
    draw: st.DrawFn, cls: type[Message], data: bytes, depth: int
) -> list[tuple[int, bytes]]:
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
                    dup = draw(st.binary(min_size=_FIXED[wt], max_size=_FIXED[wt]))
                chunks.append((number, _field(draw, number, wt, dup)))
            body = payload if wt == 2 else _restate(draw, "varint" if wt == 0 else "", payload)
            chunks.append((number, _field(draw, number, wt, body)))
    return chunks


def _payload(draw: st.DrawFn, wt: int) -> bytes:
    """A well-formed payload of wire type ``wt`` (length prefix included)."""
    if wt == 0:
        return _long_varint(draw, draw(st.integers(0, 2**64 - 1)))
    if wt == 2:
        body = draw(st.binary(max_size=6))
        return encode_varint(len(body)) + body
    return draw(st.binary(min_size=_FIXED[wt], max_size=_FIXED[wt]))


def _unknown_field(draw: st.DrawFn) -> bytes:
    number = draw(st.integers(_FIRST_UNKNOWN, _MAX_NUMBER))
    wt = draw(st.sampled_from([0, 1, 2, 5]))
    return _long_varint(draw, number << 3 | wt, 5) + _payload(draw, wt)


def _wrong_wire_types(cls: type[Message]) -> list[tuple[int, int]]:
    """(known field number, a wire type it does not take) of ``cls``, from 0, 1, 2, 5."""
    return [
        (f.number, wt)
        for f in spec_of(cls).fields
        for wt in (0, 1, 2, 5)
        if wt not in f.accepted_wire_types()
    ]


def _mistyped_field(draw: st.DrawFn, cls: type[Message]) -> bytes:
    """A known field with a wire type it does not take: protobuf keeps it as unknown."""
    number, wt = draw(st.sampled_from(_wrong_wire_types(cls)))
    return _long_varint(draw, number << 3 | wt, 5) + _payload(draw, wt)


def _source(messages: object) -> st.SearchStrategy[Message]:
    """The messages a wire strategy encodes: onnxdata's, or onnx's converted."""
    if messages is None:
        return globals()["messages"]()  # type: ignore[no-any-return]
    return _strategy("messages", messages).map(_ours)


def _ours(value: object) -> Message:
    if isinstance(value, Message):
        return value
    if foreign_name(value) is None:
        raise InvalidArgument(f"messages drew {value!r}, not an ONNX data message")
    try:
        return as_message(value, *MESSAGE_TYPES)
    except TypeError as exc:
        raise InvalidArgument(f"messages drew {value!r}: {exc}") from None


def noncanonical_encodings(
    messages: st.SearchStrategy[Any] | None = None, *, unknown_fields: bool = True
) -> st.SearchStrategy[tuple[Message, bytes]]:
    """``(message, data)``: ``type(message).decode(data) == message``, and
    protobuf parses ``data`` to the same message, but ``data`` is never what
    protobuf writes (``data != message.encode()``).

    Fields are reordered (each field's own occurrences keep their order),
    packed fields unpacked and unpacked ones packed, varints, tags and lengths
    over-long, singular scalars preceded by a value that the last one
    overrides; with ``unknown_fields`` (the default), unknown field numbers and
    known numbers with a wire type the field does not take are added, which
    ``message.unknown_fields`` then holds, in arrival order, as protobuf keeps
    them.  When every choice happened to keep the canonical bytes, the first
    tag of a known field is written one byte longer.  An empty message (an
    entry or a segment with nothing set) becomes an empty packed run where its
    type has a repeated scalar field, and is not drawn otherwise.

    The messages come from ``messages`` (default: :func:`messages`): onnxdata
    messages, or onnx's (converted; ``message`` is then onnxdata's), with no
    unknown fields of their own.

    Raises:
        InvalidArgument: ``messages`` is not a strategy, or draws something
            else than a message, or a message with unknown fields.
    """
    source = _source(messages)
    if not isinstance(unknown_fields, bool):
        raise InvalidArgument(f"unknown_fields must be a bool, not {unknown_fields!r}")
    return _noncanonical(source, unknown_fields)


@st.composite
def _noncanonical(
    draw: st.DrawFn, source: st.SearchStrategy[Message], unknown_fields: bool
) -> tuple[Message, bytes]:
    msg = draw(source)
    if getattr(msg, "unknown_fields", b""):
        raise InvalidArgument("noncanonical_encodings needs messages without unknown fields")
    cls = type(msg)
    canonical = msg.encode()
    if not canonical:
        # An empty message has one other valid form, an empty packed run (unknown
        # fields are kept byte for byte, so they would be written back as they came).
        packable = [f for f in spec_of(cls).fields if f.repeated and KINDS[f.kind].packable]
        assume(packable)
        f = draw(st.sampled_from(packable))
        return copy.copy(msg), _field(draw, f.number, 2, b"")
    chunks = _reencode(draw, cls, canonical, 0)
    # Shuffle, then restore each field's own order: only order across numbers changes.
    order = draw(st.permutations(range(len(chunks))))
    by_number: dict[int, list[bytes]] = {}
    for number, chunk in chunks:
        by_number.setdefault(number, []).append(chunk)
    shuffled_numbers = [chunks[i][0] for i in order]
    out = [by_number[n].pop(0) for n in shuffled_numbers]
    extras: list[int] = []  # the positions in out of the added fields
    if unknown_fields:
        for _ in range(draw(st.integers(0, 3))):
            extra = _mistyped_field(draw, cls) if draw(st.booleans()) else _unknown_field(draw)
            at = draw(st.integers(0, len(out)))
            out.insert(at, extra)
            extras = [i + (i >= at) for i in extras] + [at]
    expected: Any = copy.copy(msg)
    if extras:
        expected.unknown_fields = b"".join(out[i] for i in sorted(extras))
    if b"".join(out) == expected.encode():
        # Every choice kept protobuf's bytes: write one tag a byte longer.
        i = min(i for i in range(len(out)) if i not in extras)
        tag, end = _read_varint(out[i], 0)
        out[i] = _overlong(tag, end + 1) + out[i][end:]
    return expected, b"".join(out)


DEFECTS = (
    "truncated",
    "truncated tag",
    "field number 0",
    "field number 2^29 or above",
    "wire type 6",
    "wire type 7",
    "wrong wire type, cut short",
    "varint longer than 10 bytes",
    "tag longer than 5 bytes",
    "length past the end",
    "unmatched end-group",
    "packed float payload not a multiple of 4",
    "nested too deep",
)
"""The defect classes of :func:`malformed_encodings`, each one way bytes can be broken."""

# Defects that run to the end of the input: written after the last field.
_AT_END = {"truncated tag", "wrong wire type, cut short", "length past the end"}


def malformed_encodings(
    messages: st.SearchStrategy[Any] | None = None,
    *,
    defects: Iterable[str] | None = None,
    unknown_fields: bool = True,
) -> st.SearchStrategy[tuple[type[Message], bytes, str]]:
    """``(type, data, defect)``: ``type.decode(data)`` must raise
    :class:`~onnxdata.DecodeError`, and protobuf must refuse ``data`` too.

    ``defect`` is one of :data:`DEFECTS` (all of them, or those in
    ``defects``): a cut inside a field, a multi-byte tag cut short, field
    number 0 or at least 2^29, wire type 6 or 7, a known field with a wire
    type it does not take whose payload runs past the end (or a group never
    closed), an 11-byte varint, a 6-byte tag, a length past the end, an
    unmatched end-group, a packed float payload that is not a multiple of 4
    bytes, or nesting deeper than protobuf's limit of 100.  The defect is put
    between two whole fields of an encoded message (from ``messages``,
    onnxdata's or onnx's; ``type`` is always onnxdata's class), or at its end
    when it runs past the end.  With ``unknown_fields=False`` every field
    number written is one the type knows, so the bytes are broken only by the
    defect, never by an unknown field.

    Raises:
        InvalidArgument: ``defects`` is empty or names an unknown defect;
            ``messages`` is not a strategy of messages.
    """
    source = _source(messages)
    if not isinstance(unknown_fields, bool):
        raise InvalidArgument(f"unknown_fields must be a bool, not {unknown_fields!r}")
    chosen: tuple[str, ...]
    if defects is None:
        chosen = DEFECTS
    else:
        if isinstance(defects, str) or not isinstance(defects, Iterable):
            raise InvalidArgument(f"defects must be a collection of names, not {defects!r}")
        chosen = tuple(dict.fromkeys(defects))
        unknown = [d for d in chosen if d not in DEFECTS]
        if unknown or not chosen:
            raise InvalidArgument(
                f"defects must be a non-empty subset of DEFECTS: {unknown or chosen}"
            )
    return _malformed(source, chosen, unknown_fields)


def _number(
    draw: st.DrawFn, cls: type[Message], unknown_fields: bool, wire_types: Iterable[int]
) -> int:
    """A field number of ``cls`` that takes one of ``wire_types``; when allowed, sometimes
    an unknown one.  When no field of ``cls`` takes them: an unknown number if allowed,
    else any known one (protobuf then reads the field as unknown, and the defect stays)."""
    fields = spec_of(cls).fields
    known = [f.number for f in fields if set(f.accepted_wire_types()) & set(wire_types)]
    if unknown_fields and (not known or draw(st.booleans())):
        return draw(st.integers(_FIRST_UNKNOWN, _MAX_NUMBER))
    return draw(st.sampled_from(known or [f.number for f in fields]))


def _any_number(draw: st.DrawFn, cls: type[Message], unknown_fields: bool) -> int:
    return _number(draw, cls, unknown_fields, (0, 1, 2, 5))


def _defect_bytes(
    draw: st.DrawFn, defect: str, cls: type[Message], rest: int, unknown_fields: bool
) -> bytes:
    """The bytes of ``defect`` in a message of ``cls``; ``rest`` bytes follow them."""
    if defect == "truncated tag":
        number = _any_number(draw, cls, unknown_fields)
        tag = _long_varint(draw, number << 3 | draw(st.sampled_from([0, 1, 2, 5])), 5)
        if len(tag) == 1:
            tag = _overlong(tag[0], draw(st.integers(2, 5)))
        return tag[: draw(st.integers(1, len(tag) - 1))]
    if defect == "field number 0":
        wt = draw(st.sampled_from([0, 1, 2, 5]))
        return _long_varint(draw, wt, 5) + _payload(draw, wt)
    if defect == "field number 2^29 or above":
        number = draw(st.integers(_MAX_NUMBER + 1, 2**32 - 1))
        wt = draw(st.sampled_from([0, 1, 2, 5]))
        return encode_varint(number << 3 | wt) + _payload(draw, wt)
    if defect in ("wire type 6", "wire type 7"):
        number = _any_number(draw, cls, unknown_fields)
        return _long_varint(draw, number << 3 | int(defect[-1]), 5) + _payload(draw, 0)
    if defect == "wrong wire type, cut short":
        number, wt = draw(st.sampled_from([*_wrong_wire_types(cls), (0, 3)]))
        if number == 0:  # a start-group: no field of these messages is a group
            number = draw(st.sampled_from([f.number for f in spec_of(cls).fields]))
            return encode_varint(number << 3 | 3)
        tag = encode_varint(number << 3 | wt)
        if wt == 2:
            return tag + encode_varint(rest + draw(st.integers(1, 8)))
        if wt == 0:
            return tag + b"\x80" * draw(st.integers(0, 3))
        return tag + b"\x00" * draw(st.integers(0, _FIXED[wt] - 1))
    if defect == "varint longer than 10 bytes":
        number = _number(draw, cls, unknown_fields, (0, 2))
        f = spec_of(cls).by_number.get(number)
        wt = 2 if f is not None and 0 not in f.accepted_wire_types() else 0
        return encode_varint(number << 3 | wt) + b"\x80" * draw(st.integers(10, 12)) + b"\x00"
    if defect == "tag longer than 5 bytes":
        number = _any_number(draw, cls, unknown_fields)
        return _overlong(number << 3 | 0, draw(st.integers(6, 10))) + b"\x00"
    if defect == "length past the end":
        number = _number(draw, cls, unknown_fields, (2,))
        return encode_varint(number << 3 | 2) + _long_varint(
            draw, rest + draw(st.integers(1, 9)), 5
        )
    number = _any_number(draw, cls, unknown_fields)  # "unmatched end-group"
    return encode_varint(number << 3 | 4)


@st.composite
def _malformed(
    draw: st.DrawFn,
    source: st.SearchStrategy[Message],
    chosen: tuple[str, ...],
    unknown_fields: bool,
) -> tuple[type[Message], bytes, str]:
    msg = draw(source)
    cls = type(msg)
    data = msg.encode()
    fields = _split(data)
    # field boundaries: a defect is inserted between two whole fields
    bounds = [0]
    for number, wt, payload in fields:
        size = len(encode_varint(number << 3 | wt)) + len(payload)
        size += len(encode_varint(len(payload))) if wt == 2 else 0
        bounds.append(bounds[-1] + size)
    defect = draw(st.sampled_from(chosen))
    if defect == "truncated":
        whole = [i for i in range(len(fields)) if bounds[i + 1] - bounds[i] >= 2]
        assume(whole)  # a field to cut inside
        i = draw(st.sampled_from(whole))
        return cls, data[: draw(st.integers(bounds[i] + 1, bounds[i + 1] - 1))], defect
    if defect == "packed float payload not a multiple of 4":
        tag = _TENSOR_FIELDS["float_data"].tag
        bad = tag + _long_varint(draw, 3, 5) + draw(st.binary(min_size=3, max_size=3))
        if cls is not TensorProto:
            return TensorProto, bad, defect
    elif defect == "nested too deep":
        inner = b""
        for _ in range(101):  # 101 sub-message levels below the top: one too many
            inner = _NESTED_TAG + encode_varint(len(inner)) + inner
        return OptionalProto, inner, defect
    else:
        at = len(data) if defect in _AT_END else draw(st.sampled_from(bounds))
        bad = _defect_bytes(draw, defect, cls, len(data) - at, unknown_fields)
        return cls, data[:at] + bad + data[at:], defect
    at = draw(st.sampled_from(bounds))
    return cls, data[:at] + bad + data[at:], defect
