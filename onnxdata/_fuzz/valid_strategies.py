"""Hypothesis strategies of valid ONNX data messages (``onnxdata.strategies``' first half).

Every message drawn passes :func:`onnxdata.check`, and together they set
every field of every message.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterable
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .._core.foreign import foreign_class_name
from .._core.schema import BYTES, DOUBLE, FLOAT, is_boolean, spec_of
from .._messages.datatypes import DATA_TYPES, element_fields
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
from .strategy_args import (
    TEXT,
    choice_arg,
    depth_arg,
    dims_arg,
    flag_arg,
    is_int,
    size_arg,
    sizes,
    strategy_arg,
    text_or,
    value_or_strategy,
)

DT = TensorProto.DataType
Segment = TensorProto.Segment
_DTYPES = list(DATA_TYPES)
_TENSOR_FIELDS = spec_of(TensorProto).by_name
# Fields named through the schema: a rename in the declarations fails here, at import.
_ELEM_TYPE = spec_of(SequenceProto).named.elem_type.name
_END = spec_of(Segment).named.end.name
_ELEM_TYPES = SequenceProto.DataType.values()
# The integer types a map key may have, in data type order, then STRING.
_KEY_TYPES = [d.value for d in DATA_TYPES.values() if d.key is not None] + [DT.STRING]
_STORAGES = ("raw", "typed", "external")
# STRING keys one map in two: the other key types share one field, ``keys``.
_ANY_KEY_TYPE = st.just(DT.STRING) | st.sampled_from(_KEY_TYPES[:-1])
_LOCATION = st.text("abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=8)


# ---- the two small messages ------------------------------------------------------------


def entries(key: Any = None, value: Any = None) -> st.SearchStrategy[StringStringEntryProto]:
    """``StringStringEntryProto`` messages (``metadata_props``, ``external_data``).

    ``key`` and ``value`` are a str or a strategy of them; when not given each
    is unset or a short text.

    Raises:
        InvalidArgument: ``key`` or ``value`` is (or draws) something else than a str.
    """
    keys, values = text_or("key", key), text_or("value", value)
    return st.builds(lambda k, v: StringStringEntryProto(key=k, value=v), keys, values)


def segments(size: Any = None) -> st.SearchStrategy[Segment]:
    """``TensorProto.Segment`` messages with ``0 <= begin <= end <= size``.

    ``size`` (an int or a strategy; default 0 to 64) is the element count the
    segment lies in; ``begin``, ``end`` or both are sometimes left unset (an
    unset ``end`` is the element count; both unset, the segment is set and empty).

    Raises:
        InvalidArgument: ``size`` is (or draws) something else than a non-negative int.
    """
    sizes = (
        st.integers(0, 64)
        if size is None
        else value_or_strategy("size", size, lambda v: size_arg("size", v))
    )
    return sizes.flatmap(_segment_of)


def _segment_of(size: int) -> st.SearchStrategy[Segment]:
    def make(pair: tuple[int, int], keep: int) -> Segment:
        begin, end = sorted(pair)
        # keep: 1 leaves begin unset, 2 end, 3 both (a set, empty segment); else both set.
        segment = Segment()
        if keep not in (1, 3):
            segment.begin = begin
        if keep not in (2, 3):
            segment.end = end
        return segment

    return st.builds(make, st.tuples(st.integers(0, size), st.integers(0, size)), st.integers(0, 5))


# ---- tensors ------------------------------------------------------------------------------


def _floats(width: int) -> st.SearchStrategy[float]:
    return st.floats(width=width, allow_nan=True, allow_infinity=True)  # type: ignore[arg-type]


def _check_dtype(value: object) -> int:
    return choice_arg("dtype", value, _DTYPES, DT.Name)


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
        ok = is_int(value) and lo <= value <= hi  # type: ignore[operator]
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
    flag_arg("name", name)
    flag_arg("segment", segment)
    if elements is not None:
        strategy_arg("elements", elements)
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
        dtypes = value_or_strategy("dtype", dtype, _check_dtype)
        if storage == "raw" and not isinstance(dtype, st.SearchStrategy) and dtype == DT.STRING:
            raise InvalidArgument("STRING tensors cannot use raw_data")
    shapes = (
        st.lists(st.integers(0, 4), max_size=3)
        if shape is None
        else value_or_strategy("shape", shape, dims_arg)
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
    dt = draw(dtypes)
    dims = list(draw(shapes))
    if dt == DT.STRING and storage == "raw":
        raise InvalidArgument("STRING tensors cannot use raw_data")
    n = math.prod(dims)
    t = TensorProto(dims=dims, data_type=dt)
    _describe(draw, t, name)
    use = storage
    if use is None:
        if draw(st.integers(0, 7)) == 0:
            use = "external"
        else:
            use = "typed" if dt == DT.STRING else draw(st.sampled_from(["raw", "typed"]))
    if use == "external":
        _external(draw, t)
        return t
    if draw(st.integers(0, 3)) == 0:
        t.data_location = TensorProto.DEFAULT
    if segment or (segment is None and draw(st.integers(0, 5)) == 0):
        t.segment = segment_drawn = draw(_segment_of(n))
        # An unset begin reads 0; an unset end means the element count.
        end = segment_drawn.end if segment_drawn.HasField(_END) else n
        begin = segment_drawn.begin
        n = max(end - begin, 0)
    if use == "raw":
        t.raw_data = _raw_data(draw, dt, n)
    else:
        _typed(draw, t, dt, n, elements)
    return t


def _describe(draw: st.DrawFn, t: TensorProto, name: bool | None) -> None:
    """The name (as ``name`` says), and sometimes a doc string and metadata."""
    if name or (name is None and draw(st.booleans())):
        t.name = draw(TEXT)
    if draw(st.integers(0, 3)) == 0:
        t.doc_string = draw(TEXT)
    if draw(st.integers(0, 3)) == 0:
        t.metadata_props = draw(st.lists(entries(), min_size=1, max_size=2))


def _external(draw: st.DrawFn, t: TensorProto) -> None:
    """Values elsewhere: a safe relative ``location`` among other entries."""
    location = draw(st.lists(_LOCATION, min_size=1, max_size=2))
    found = [StringStringEntryProto(key="location", value="/".join(location))]
    found += draw(st.lists(entries(), max_size=2))
    t.external_data = draw(st.permutations(found))
    t.data_location = TensorProto.EXTERNAL


def _raw_data(draw: st.DrawFn, dt: int, n: int) -> bytes:
    """``raw_data`` for ``n`` elements: BOOL bytes 0 or 1, padding bits zero."""
    info = DATA_TYPES[dt]
    size = info.raw_size(n)
    if dt == DT.BOOL:
        return bytes(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    raw: bytes = draw(st.binary(min_size=size, max_size=size))
    spare = size * 8 - n * info.bits  # padding bits after the last value: zero
    if spare and raw:
        raw = raw[:-1] + bytes([raw[-1] & (0xFF >> spare)])
    return raw


def _typed(draw: st.DrawFn, t: TensorProto, dt: int, n: int,
           elements: st.SearchStrategy[Any] | None) -> None:  # fmt: skip
    info = DATA_TYPES[dt]
    if elements is not None:
        values = elements.map(lambda v: _check_element(dt, v))
    else:
        values = _values_of(dt)
    k = info.stored_count(n)
    setattr(t, info.storage, draw(st.lists(values, min_size=k, max_size=k)))


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
        dims = dims_arg(value)
        if not dims or 0 in dims:
            raise InvalidArgument(f"a sparse tensor's shape needs sides of at least 1: {value!r}")
        return dims

    dtypes = (
        st.sampled_from([d for d in _DTYPES if not DATA_TYPES[d].packed])
        if dtype is None
        else value_or_strategy("dtype", dtype, _check_dtype)
    )
    shapes = (
        st.lists(st.integers(1, 5), min_size=1, max_size=3)
        if shape is None
        else value_or_strategy("shape", shape, dense)
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
    return value_or_strategy(  # type: ignore[no-any-return]
        "elem_type",
        elem_type,
        lambda v: choice_arg("elem_type", v, _ELEM_TYPES, SequenceProto.DataType.Name),
    )


def sequences(
    elem_type: Any = None, max_depth: int = 2, *, min_size: int = 0, max_size: int = 3
) -> st.SearchStrategy[SequenceProto]:
    """Valid sequences: one element type (``elem_type``, a value or a strategy);
    tensors share one data_type; ``min_size`` to ``max_size`` elements;
    sequences, maps and optionals nest up to ``max_depth`` levels.

    ``elem_type=UNDEFINED`` (0) gives empty sequences, their ``elem_type`` set
    to 0 or left unset: an untyped sequence passes ``check()`` only when it
    holds nothing, so ``min_size`` must be 0.

    Raises:
        InvalidArgument: an unknown ``elem_type``; a negative size or depth;
            ``min_size > max_size``; ``UNDEFINED`` with ``min_size > 0``.
    """
    depth = depth_arg(max_depth)
    lo, hi = sizes(min_size, max_size)
    if elem_type == SequenceProto.UNDEFINED and not isinstance(elem_type, st.SearchStrategy):
        choice_arg("elem_type", elem_type, _ELEM_TYPES, SequenceProto.DataType.Name)
        if lo:
            raise InvalidArgument(f"an UNDEFINED sequence holds no elements: min_size={lo}")
    return _sequences(_elem_types(elem_type, depth), depth, lo, hi)


@st.composite
def _sequences(
    draw: st.DrawFn, kinds: st.SearchStrategy[int], depth: int, lo: int, hi: int
) -> SequenceProto:
    kind = draw(kinds)
    seq = SequenceProto(elem_type=kind)
    if kind == SequenceProto.UNDEFINED and draw(st.booleans()):
        seq.ClearField(_ELEM_TYPE)  # unset and set to UNDEFINED differ on the wire
    if draw(st.booleans()):
        seq.name = draw(TEXT)
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
    depth = depth_arg(max_depth)
    lo, hi = sizes(min_size, max_size)
    key_types = (
        _ANY_KEY_TYPE
        if key_type is None
        else value_or_strategy(
            "key_type", key_type, lambda v: choice_arg("key_type", v, _KEY_TYPES, DT.Name)
        )
    )
    return _maps(key_types, depth, lo, hi)


@st.composite
def _maps(
    draw: st.DrawFn, key_types: st.SearchStrategy[int], depth: int, lo: int, hi: int
) -> MapProto:
    kt = draw(key_types)
    m = MapProto(key_type=kt)
    if draw(st.booleans()):
        m.name = draw(TEXT)
    if kt == DT.STRING:
        m.string_keys = draw(st.lists(st.binary(max_size=4), unique=True, min_size=lo, max_size=hi))
        count = len(m.string_keys)
    else:
        key = DATA_TYPES[kt].key
        assert key is not None
        low, high = key
        low = max(low, 0) if kt == DT.UINT64 else low
        if lo > high - low + 1:
            raise InvalidArgument(f"min_size={lo}: a {DT.Name(kt)} key has fewer values")
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
    only untyped ones ``check()`` accepts, their ``elem_type`` set to 0 or unset.

    Raises:
        InvalidArgument: an unknown ``elem_type``; a negative depth.
    """
    depth = depth_arg(max_depth)
    return _optionals(_elem_types(elem_type, depth), depth)


@st.composite
def _optionals(draw: st.DrawFn, kinds: st.SearchStrategy[int], depth: int) -> OptionalProto:
    kind = draw(kinds)
    o = OptionalProto(elem_type=kind)
    if kind == OptionalProto.UNDEFINED and draw(st.booleans()):
        o.ClearField(_ELEM_TYPE)  # unset and set to UNDEFINED differ on the wire
    if draw(st.booleans()):
        o.name = draw(TEXT)
    if kind != OptionalProto.UNDEFINED and draw(st.integers(0, 3)):
        setattr(o, element_fields(OptionalProto)[kind].name, _elements(draw, kind, 1, depth)[0])
    return o


def _message_class(value: object) -> type[Message]:
    """One of onnxdata's message classes, given it or onnx's class of the same name."""
    if isinstance(value, type):
        if value in MESSAGE_TYPES:
            return value
        full = foreign_class_name(value)
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
    depth = depth_arg(max_depth)
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
