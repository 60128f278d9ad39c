"""Hypothesis strategies for every onnxdata message, and for decoder inputs.

Encode side: :func:`messages_of` builds valid messages of one type, with every
field drawn: presence (``None`` versus a default value set), extreme and
negative integers at the int32/int64/uint64 bounds, floats with NaN (also
signalling NaN bit patterns, which only an ``array`` keeps), infinities and
-0.0, Python floats that round (or overflow) when cast to float32, empty and
non-ASCII strings, empty bytes, now and then a large repeated field, and
``unknown_fields`` made of valid raw fields whose numbers (or wire types) the
message does not use.  Sequences, maps and optionals nest through
``st.recursive`` with a bounded number of leaves.

Decode side: :func:`mutated_encodings` takes the oracle's serialization of a
generated message and rewrites it at the wire level with the tests' one
mutation engine, :mod:`wirekit` (shuffled fields, duplicated singular scalars
and messages, unpacked and re-packed repeated fields, over-long tags, values
and lengths, unknown fields and nested groups, closed-enum unknowns, wide int32
values, invalid UTF-8), then optionally at the byte level (truncation, bit
flips, inserted and deleted bytes).
"""

from __future__ import annotations

import functools
import random
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.vendor import pretty

from onnxdata import (
    AttributeProto,
    DeviceConfigurationProto,
    FunctionProto,
    GraphProto,
    IntIntListEntryProto,
    MapProto,
    ModelProto,
    NodeDeviceConfigurationProto,
    NodeProto,
    OperatorSetIdProto,
    OptionalProto,
    SequenceProto,
    ShardedDimProto,
    ShardingSpecProto,
    SimpleShardedDimProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorAnnotation,
    TensorProto,
    TensorShapeProto,
    TrainingInfoProto,
    TypeProto,
    ValueInfoProto,
)
from tests.support import wirekit as wk
from tests.support.oracle import ALL_MESSAGE_TYPES, MESSAGE_TYPES, ORACLE, to_oracle

Segment = TensorProto.Segment

# Hypothesis prints a dataclass by reading each field; an unset sub-message
# reads as a fresh empty one, so on a message that nests its own type
# (TypeProto.sequence_type.elem_type, OptionalProto.optional_value) that never
# ends: a falsifying example would be lost to a RecursionError.  The message's
# own repr shows only what is set.
for _cls in ALL_MESSAGE_TYPES:
    pretty.for_type_by_name(_cls.__module__, _cls.__name__, lambda m, p, cycle: p.text(repr(m)))


def scaled(fraction: float) -> int:
    """``fraction`` of the active profile's ``max_examples`` (at least 10)."""
    return max(10, int(settings().max_examples * fraction))


@contextmanager
def constants(module: Any, **values: int) -> Iterator[None]:
    """A module's thresholds set for one hypothesis example (a fixture would keep
    them across examples), then put back."""
    saved = {name: getattr(module, name) for name in values}
    for name, value in values.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


# --------------------------------------------------------------------------
# scalars

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MAX = 2**64 - 1

_EDGE_SMALL = [0, 1, -1, 2, 63, 64, 127, 128, 255, 256, 300, 16383, 16384]
EDGE_INT32 = [*_EDGE_SMALL, INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, -128, -129]
EDGE_INT64 = [*EDGE_INT32, INT64_MIN, INT64_MAX, INT64_MIN + 1, 2**32, -(2**32), 2**56, 2**35]
EDGE_UINT64 = [
    0,
    1,
    127,
    128,
    2**31,
    2**32 - 1,
    2**32,
    INT64_MAX,
    2**63,
    UINT64_MAX,
    UINT64_MAX - 1,
]


@functools.cache
def int32s() -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from(EDGE_INT32), st.integers(INT32_MIN, INT32_MAX))


@functools.cache
def int64s() -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from(EDGE_INT64), st.integers(INT64_MIN, INT64_MAX))


@functools.cache
def uint64s() -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from(EDGE_UINT64), st.integers(0, UINT64_MAX))


@functools.cache
def tensor_data_types() -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from(TensorProto.DataType.values()), int32s())


@functools.cache
def elem_types() -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from(SequenceProto.DataType.values()), int32s())


# float32 bit patterns worth having: signalling and quiet NaNs with payloads,
# infinities, signed zeros, the smallest subnormal, the largest finite value.
F32_SPECIAL_BITS = [
    0x7F800001, 0x7FA00000, 0x7FBFFFFF, 0xFF800001, 0xFFBFFFFF,  # signalling NaNs
    0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7FFFFFFF,  # quiet NaNs
    0x7F800000, 0xFF800000, 0x00000000, 0x80000000,
    0x00000001, 0x80000001, 0x007FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000,
]  # fmt: skip
F64_SPECIAL_BITS = [
    0x7FF0000000000001, 0x7FF4000000000000, 0xFFF0000000000001,  # signalling NaNs
    0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000001,
    0x7FF0000000000000, 0xFFF0000000000000, 0, 0x8000000000000000,
    1, 0x000FFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000,
]  # fmt: skip
# Python floats that a float32 cast rounds, flushes or overflows.
F32_CASTS = [1e300, -1e300, 3.4028235677973366e38, 3.4028234663852886e38 * 1.0000001,
             1e-50, -1e-50, 0.1, 1 / 3, 16777217.0, 2.0**-149 * 0.6]  # fmt: skip


def _f32_from_bits(bits: list[int]) -> array:
    a = array("f")
    a.frombytes(array("I", bits).tobytes())
    return a


def _f64_from_bits(bits: list[int]) -> array:
    a = array("d")
    a.frombytes(array("Q", bits).tobytes())
    return a


def _big_f32(n: int, seed: int) -> array:
    a = array("f")
    a.frombytes(random.Random(seed).randbytes(4 * n))
    return a


def _big_f64(n: int, seed: int) -> array:
    a = array("d")
    a.frombytes(random.Random(seed).randbytes(8 * n))
    return a


def _big_ints(n: int, seed: int, lo: int, hi: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randint(lo, hi) for _ in range(n)]


_SMALL = 6
_seeds = st.integers(0, 2**32 - 1)
_big_n = st.integers(500, 5000)


def _sometimes_big(small: st.SearchStrategy[Any], big: st.SearchStrategy[Any], allow: bool) -> Any:
    """Usually ``small``; about one time in 16, ``big`` (if ``allow``)."""
    if not allow:
        return small
    return st.integers(0, 15).flatmap(lambda k: big if k == 0 else small)


@functools.cache
def float_data(big: bool = True) -> st.SearchStrategy[Any]:
    bits = st.one_of(st.sampled_from(F32_SPECIAL_BITS), st.integers(0, 2**32 - 1))
    small = st.one_of(
        st.lists(bits, max_size=_SMALL).map(_f32_from_bits),  # exact bits, sNaN included
        st.lists(st.floats(width=32), max_size=_SMALL).map(lambda xs: array("f", xs)),
        st.lists(st.floats(width=32), max_size=_SMALL),  # a plain list is accepted too
        st.lists(st.one_of(st.floats(), st.sampled_from(F32_CASTS)), max_size=_SMALL),  # C cast
    )
    return _sometimes_big(small, st.builds(_big_f32, _big_n, _seeds), big)


@functools.cache
def double_data(big: bool = True) -> st.SearchStrategy[Any]:
    bits = st.one_of(st.sampled_from(F64_SPECIAL_BITS), st.integers(0, 2**64 - 1))
    small = st.one_of(
        st.lists(bits, max_size=_SMALL).map(_f64_from_bits),
        st.lists(st.floats(), max_size=_SMALL).map(lambda xs: array("d", xs)),
        st.lists(st.floats(), max_size=_SMALL),
    )
    return _sometimes_big(small, st.builds(_big_f64, _big_n, _seeds), big)


@functools.cache
def int_list(
    elems: st.SearchStrategy[int], lo: int, hi: int, big: bool = True
) -> st.SearchStrategy[list[int]]:
    big_ = st.builds(_big_ints, _big_n, _seeds, st.just(lo), st.just(hi))
    return _sometimes_big(st.lists(elems, max_size=_SMALL), big_, big)


INT32_CODE = "i" if array("i").itemsize == 4 else "l"


@functools.cache
def packed_ints(
    elems: st.SearchStrategy[int], lo: int, hi: int, code: str, big: bool = True
) -> st.SearchStrategy[Any]:
    """A packed int field's value: a list, or an ``array`` of the field's typecode
    (what decoding returns, and the encoder's unchecked fast path)."""
    as_list = int_list(elems, lo, hi, big)
    return st.one_of(as_list, as_list.map(lambda xs: array(code, xs)))


_ODD_TEXT = ["", "é", "日本語", "\U0001f600", "\x00", "a\x00b", "\u2028", "\ufeff", "\uffff"]


def _escaped(raw: bytes) -> str:
    # What the decoder makes of invalid UTF-8: raw bytes as U+DC80..U+DCFF.
    return raw.decode("utf-8", "surrogateescape")


@functools.cache
def texts() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(_ODD_TEXT),
        st.text(max_size=12),
        st.binary(max_size=6).map(_escaped),
    )


@functools.cache
def binaries(big: bool = True) -> st.SearchStrategy[bytes]:
    small = st.one_of(st.just(b""), st.binary(max_size=12))
    return _sometimes_big(
        small, st.builds(lambda n, seed: random.Random(seed).randbytes(n), _big_n, _seeds), big
    )


@functools.cache
def opt(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Absent (None) about half the time, else a value (defaults included)."""
    return st.one_of(st.none(), strategy)


# --------------------------------------------------------------------------
# unknown fields


@functools.cache
def known_wire_types(cls: type) -> dict[int, set[int]]:
    return {fd.number: wk.accepted_wire_types(fd) for fd in ORACLE[cls].DESCRIPTOR.fields}


_field_numbers = st.one_of(
    st.integers(1, 40),
    st.sampled_from([15, 16, 17, 2047, 2048, 2**21 - 1, 2**21, 2**28, 2**29 - 1]),
    st.integers(1, 2**29 - 1),
)


@st.composite
def raw_unknown(draw: Any, known: dict[int, set[int]], depth: int = 0) -> bytes:
    """One valid raw field that ``known`` does not parse as a known field."""
    number = draw(_field_numbers)
    choices = [wt for wt in (0, 1, 2, 3, 5) if wt not in known.get(number, ())]
    if depth >= 3:
        choices = [wt for wt in choices if wt != wk.SGROUP] or [wk.VARINT]
        if wk.VARINT in known.get(number, ()):
            number = 19999  # unused by every message
    wt = draw(st.sampled_from(choices))
    tag = wk.tag(number, wt, draw(st.sampled_from([0, 0, 0, 5])))
    if wt == wk.VARINT:
        value = draw(uint64s())
        return tag + wk.varint(value, draw(st.sampled_from([0, 0, 0, 10])))
    if wt == wk.I64:
        return tag + draw(st.binary(min_size=8, max_size=8))
    if wt == wk.I32:
        return tag + draw(st.binary(min_size=4, max_size=4))
    if wt == wk.LEN:
        payload = draw(st.binary(max_size=10))
        return tag + wk.varint(len(payload)) + payload
    # a group: anything inside, groups included, ended by the matching tag
    inner = draw(st.lists(raw_unknown({}, depth + 1), max_size=3))
    return tag + b"".join(inner) + wk.tag(number, wk.EGROUP)


# The closed enums: a value outside the enum is kept as an unknown field.
_CLOSED_ENUMS: dict[type, tuple[int, frozenset[int]]] = {
    TensorProto: (14, frozenset(TensorProto.DataLocation.values())),
    AttributeProto: (20, frozenset(AttributeProto.AttributeType.values())),
}


@st.composite
def enum_unknown(draw: Any, number: int, valid: frozenset[int]) -> bytes:
    """Closed enum field ``number`` = a value outside ``valid``: kept as an unknown field."""
    value = draw(
        st.one_of(
            st.sampled_from([15, 16, 127, 128, 2**31, 2**32 - 1, 2**32 + 2**20, 2**63, UINT64_MAX]),
            uint64s(),
        ).filter(lambda v: v & 0xFFFFFFFF not in valid)
    )
    return wk.tag(number, wk.VARINT) + wk.varint(value, draw(st.sampled_from([0, 0, 10])))


@functools.cache
def unknown_fields(cls: type) -> st.SearchStrategy[bytes]:
    known = known_wire_types(cls)
    one = raw_unknown(known)
    if cls in _CLOSED_ENUMS:
        one = st.one_of(one, enum_unknown(*_CLOSED_ENUMS[cls]))
    many = st.lists(one, max_size=3).map(b"".join)
    return st.one_of(st.just(b""), many)


# --------------------------------------------------------------------------
# messages


@functools.cache
def segments() -> st.SearchStrategy[Segment]:
    return st.builds(
        Segment,
        begin=opt(int64s()),
        end=opt(int64s()),
        unknown_fields=unknown_fields(Segment),
    )


@functools.cache
def entries() -> st.SearchStrategy[StringStringEntryProto]:
    return st.builds(
        StringStringEntryProto,
        key=opt(texts()),
        value=opt(texts()),
        unknown_fields=unknown_fields(StringStringEntryProto),
    )


@functools.cache
def tensors(big: bool = True) -> st.SearchStrategy[TensorProto]:
    return st.builds(
        TensorProto,
        dims=int_list(int64s(), INT64_MIN, INT64_MAX, big),
        data_type=opt(tensor_data_types()),
        segment=opt(segments()),
        float_data=float_data(big),
        int32_data=packed_ints(int32s(), INT32_MIN, INT32_MAX, INT32_CODE, big),
        string_data=st.lists(binaries(big), max_size=4),
        int64_data=packed_ints(int64s(), INT64_MIN, INT64_MAX, "q", big),
        name=opt(texts()),
        doc_string=opt(texts()),
        raw_data=opt(binaries(big)),
        external_data=st.lists(entries(), max_size=3),
        data_location=opt(st.sampled_from([0, 1, TensorProto.DEFAULT, TensorProto.EXTERNAL])),
        double_data=double_data(big),
        uint64_data=packed_ints(uint64s(), 0, UINT64_MAX, "Q", big),
        metadata_props=st.lists(entries(), max_size=3),
        unknown_fields=unknown_fields(TensorProto),
    )


@functools.cache
def sparse_tensors(big: bool = True) -> st.SearchStrategy[SparseTensorProto]:
    return st.builds(
        SparseTensorProto,
        values=opt(tensors(big)),
        indices=opt(tensors(big)),
        dims=int_list(int64s(), INT64_MIN, INT64_MAX, big),
        unknown_fields=unknown_fields(SparseTensorProto),
    )


# The element classes in SequenceProto.DataType order (elem_type 1..5), and the
# SequenceProto field that holds each.
ELEMENT_CLASSES = [TensorProto, SparseTensorProto, SequenceProto, MapProto, OptionalProto]
SEQUENCE_FIELD = {
    TensorProto: "tensor_values",
    SparseTensorProto: "sparse_tensor_values",
    SequenceProto: "sequence_values",
    MapProto: "map_values",
    OptionalProto: "optional_values",
}
_SINGLE_FIELD = {
    TensorProto: "tensor_value",
    SparseTensorProto: "sparse_tensor_value",
    SequenceProto: "sequence_value",
    MapProto: "map_value",
    OptionalProto: "optional_value",
}


def _sequence(items: list[Any], **kwargs: Any) -> SequenceProto:
    seq = SequenceProto(**kwargs)
    for item in items:
        getattr(seq, SEQUENCE_FIELD[type(item)]).append(item)
    return seq


@functools.cache
def sequences_from(children: st.SearchStrategy[Any]) -> st.SearchStrategy[SequenceProto]:
    return st.builds(
        _sequence,
        st.lists(children, max_size=4),
        name=opt(texts()),
        elem_type=opt(elem_types()),
        unknown_fields=unknown_fields(SequenceProto),
    )


def _map(values: list[Any] | None, values_elem_type: int | None, **kwargs: Any) -> MapProto:
    seq = None if values is None else _sequence(values, elem_type=values_elem_type)
    return MapProto(values=seq, **kwargs)


@functools.cache
def maps_from(children: st.SearchStrategy[Any], big: bool = True) -> st.SearchStrategy[MapProto]:
    return st.builds(
        _map,
        values=opt(st.lists(children, max_size=3)),
        values_elem_type=opt(elem_types()),
        name=opt(texts()),
        key_type=opt(tensor_data_types()),
        keys=int_list(int64s(), INT64_MIN, INT64_MAX, big),
        string_keys=st.lists(binaries(big), max_size=4),
        unknown_fields=unknown_fields(MapProto),
    )


def _optional(items: list[Any], **kwargs: Any) -> OptionalProto:
    # proto2 has no oneof here: several value fields may be set at once.
    result = OptionalProto(**kwargs)
    for item in items:
        setattr(result, _SINGLE_FIELD[type(item)], item)
    return result


@functools.cache
def optionals_from(children: st.SearchStrategy[Any]) -> st.SearchStrategy[OptionalProto]:
    return st.builds(
        _optional,
        st.lists(children, max_size=2),
        name=opt(texts()),
        elem_type=opt(elem_types()),
        unknown_fields=unknown_fields(OptionalProto),
    )


@functools.cache
def values(max_leaves: int = 8, big: bool = True) -> st.SearchStrategy[Any]:
    """Tensors, sparse tensors and nested sequences / maps / optionals of them."""

    def containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            sequences_from(children), maps_from(children, big), optionals_from(children)
        )

    leaves = st.one_of(tensors(big), sparse_tensors(big))
    return st.recursive(leaves, containers, max_leaves=max_leaves)


# --------------------------------------------------------------------------
# the model messages: graphs, nodes, attributes, types, devices


def _built(
    cls: type,
    oneof: dict[str, st.SearchStrategy[Any]] | None = None,
    **fields: st.SearchStrategy[Any],
) -> st.SearchStrategy[Any]:
    """``cls`` with ``fields`` drawn, at most one member of ``oneof`` set, and unknown fields.

    The oneof member is passed last, after the other keywords, as a caller
    would: every member value is drawn, the default (0, "", empty message)
    included, which sets the member all the same.
    """
    members = oneof or {}
    choice = st.one_of(st.just({}), *[s.map(lambda v, k=k: {k: v}) for k, s in members.items()])
    built = st.tuples(
        st.fixed_dictionaries({**fields, "unknown_fields": unknown_fields(cls)}), choice
    ).map(lambda p: cls(**p[0], **p[1]))
    # A short repr: the nested strategies' own would run to megabytes.
    return st.deferred(lambda: built)


def _few(strategy: st.SearchStrategy[Any] | None, n: int = 2) -> st.SearchStrategy[list[Any]]:
    return st.just([]) if strategy is None else st.lists(strategy, max_size=n)


_NAMES = st.one_of(texts(), st.sampled_from(["", "x", "Add", "ai.onnx.ml", "com.microsoft"]))


@functools.cache
def opset_ids() -> st.SearchStrategy[OperatorSetIdProto]:
    return _built(OperatorSetIdProto, domain=opt(_NAMES), version=opt(int64s()))


@functools.cache
def dimensions() -> st.SearchStrategy[TensorShapeProto.Dimension]:
    return _built(
        TensorShapeProto.Dimension,
        oneof={"dim_value": int64s(), "dim_param": texts()},
        denotation=opt(texts()),
    )


@functools.cache
def shapes() -> st.SearchStrategy[TensorShapeProto]:
    return _built(TensorShapeProto, dim=_few(dimensions(), 3))


@functools.cache
def type_protos(depth: int = 2) -> st.SearchStrategy[TypeProto]:
    """Types nested ``depth`` levels through sequence, map and optional types (and no deeper)."""
    inner = opt(type_protos(depth - 1)) if depth > 0 else st.none()
    members = {
        "tensor_type": _built(TypeProto.Tensor, elem_type=opt(elem_int32s()), shape=opt(shapes())),
        "sequence_type": _built(TypeProto.Sequence, elem_type=inner),
        "map_type": _built(TypeProto.Map, key_type=opt(elem_int32s()), value_type=inner),
        "optional_type": _built(TypeProto.Optional, elem_type=inner),
        "sparse_tensor_type": _built(
            TypeProto.SparseTensor, elem_type=opt(elem_int32s()), shape=opt(shapes())
        ),
        "opaque_type": _built(TypeProto.Opaque, domain=opt(_NAMES), name=opt(texts())),
    }
    return _built(TypeProto, oneof=members, denotation=opt(texts()))


@functools.cache
def elem_int32s() -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from(TensorProto.DataType.values()), int32s())


@functools.cache
def value_infos() -> st.SearchStrategy[ValueInfoProto]:
    return _built(
        ValueInfoProto,
        name=opt(_NAMES),
        type=opt(type_protos(2)),
        doc_string=opt(texts()),
        metadata_props=_few(entries()),
    )


@functools.cache
def attribute_floats() -> st.SearchStrategy[Any]:
    # A singular float: any Python float, which the encoder casts as C does.
    return st.one_of(st.floats(), st.floats(width=32), st.sampled_from(F32_CASTS))


@functools.cache
def attributes(depth: int = 1, big: bool = False) -> st.SearchStrategy[AttributeProto]:
    """Attributes of every kind, in and out of step with ``type``; graphs ``depth`` deep."""
    sub = graphs(depth - 1, False) if depth > 0 else None
    return _built(
        AttributeProto,
        name=opt(_NAMES),
        ref_attr_name=opt(texts()),
        doc_string=opt(texts()),
        type=opt(st.sampled_from(AttributeProto.AttributeType.values())),
        f=opt(attribute_floats()),
        i=opt(int64s()),
        s=opt(binaries(big)),
        t=opt(tensors(big)),
        g=st.none() if sub is None else opt(sub),
        sparse_tensor=opt(sparse_tensors(False)),
        tp=opt(type_protos(1)),
        floats=float_data(big),
        ints=int_list(int64s(), INT64_MIN, INT64_MAX, big),
        strings=_few(binaries(big), 3),
        tensors=_few(tensors(False), 1),
        graphs=_few(sub, 1),
        sparse_tensors=_few(sparse_tensors(False), 1),
        type_protos=_few(type_protos(1), 1),
    )


@functools.cache
def simple_sharded_dims() -> st.SearchStrategy[SimpleShardedDimProto]:
    return _built(
        SimpleShardedDimProto,
        oneof={"dim_value": int64s(), "dim_param": texts()},
        num_shards=opt(int64s()),
    )


@functools.cache
def sharding_specs() -> st.SearchStrategy[ShardingSpecProto]:
    return _built(
        ShardingSpecProto,
        tensor_name=opt(_NAMES),
        device=int_list(int64s(), INT64_MIN, INT64_MAX, False),
        index_to_device_group_map=_few(
            _built(IntIntListEntryProto, key=opt(int64s()), value=_few(int64s(), 4))
        ),
        sharded_dim=_few(
            _built(ShardedDimProto, axis=opt(int64s()), simple_sharding=_few(simple_sharded_dims()))
        ),
    )


@functools.cache
def node_device_configurations() -> st.SearchStrategy[NodeDeviceConfigurationProto]:
    return _built(
        NodeDeviceConfigurationProto,
        configuration_id=opt(_NAMES),
        sharding_spec=_few(sharding_specs()),
        pipeline_stage=opt(int32s()),
    )


@functools.cache
def device_configurations() -> st.SearchStrategy[DeviceConfigurationProto]:
    return _built(
        DeviceConfigurationProto,
        name=opt(_NAMES),
        num_devices=opt(int32s()),
        device=_few(texts(), 3),
    )


@functools.cache
def nodes(depth: int = 1, big: bool = False) -> st.SearchStrategy[NodeProto]:
    return _built(
        NodeProto,
        input=_few(_NAMES, 3),
        output=_few(_NAMES, 3),
        name=opt(_NAMES),
        op_type=opt(_NAMES),
        domain=opt(_NAMES),
        overload=opt(texts()),
        attribute=_few(attributes(depth, big)),
        doc_string=opt(texts()),
        metadata_props=_few(entries(), 1),
        device_configurations=_few(node_device_configurations(), 1),
    )


@functools.cache
def tensor_annotations() -> st.SearchStrategy[TensorAnnotation]:
    return _built(
        TensorAnnotation, tensor_name=opt(_NAMES), quant_parameter_tensor_names=_few(entries())
    )


@functools.cache
def graphs(depth: int = 1, big: bool = False) -> st.SearchStrategy[GraphProto]:
    """Graphs whose nodes hold subgraphs (If/Loop/Scan bodies) ``depth`` levels deep."""
    return _built(
        GraphProto,
        node=_few(nodes(depth, False), 2),
        name=opt(_NAMES),
        initializer=_few(tensors(big)),
        sparse_initializer=_few(sparse_tensors(False), 1),
        doc_string=opt(texts()),
        input=_few(value_infos()),
        output=_few(value_infos()),
        value_info=_few(value_infos(), 1),
        quantization_annotation=_few(tensor_annotations(), 1),
        metadata_props=_few(entries(), 1),
    )


@functools.cache
def training_infos(big: bool = False) -> st.SearchStrategy[TrainingInfoProto]:
    return _built(
        TrainingInfoProto,
        initialization=opt(graphs(0, big)),
        algorithm=opt(graphs(0, big)),
        initialization_binding=_few(entries()),
        update_binding=_few(entries()),
    )


@functools.cache
def functions() -> st.SearchStrategy[FunctionProto]:
    return _built(
        FunctionProto,
        name=opt(_NAMES),
        input=_few(_NAMES, 3),
        output=_few(_NAMES, 3),
        attribute=_few(_NAMES),
        attribute_proto=_few(attributes(0)),
        node=_few(nodes(0), 3),
        doc_string=opt(texts()),
        opset_import=_few(opset_ids()),
        domain=opt(_NAMES),
        overload=opt(texts()),
        value_info=_few(value_infos()),
        metadata_props=_few(entries(), 1),
    )


@functools.cache
def models(big: bool = False) -> st.SearchStrategy[ModelProto]:
    return _built(
        ModelProto,
        ir_version=opt(int64s()),
        opset_import=_few(opset_ids()),
        producer_name=opt(_NAMES),
        producer_version=opt(texts()),
        domain=opt(_NAMES),
        model_version=opt(int64s()),
        doc_string=opt(texts()),
        graph=opt(graphs(1, big)),
        metadata_props=_few(entries()),
        training_info=_few(training_infos(), 1),
        functions=_few(functions(), 1),
        configuration=_few(device_configurations(), 1),
    )


def _model_messages(big: bool) -> dict[type, st.SearchStrategy[Any]]:
    types = type_protos(2)
    return {
        AttributeProto: attributes(1, big),
        ValueInfoProto: value_infos(),
        NodeProto: nodes(1, big),
        IntIntListEntryProto: _built(
            IntIntListEntryProto,
            key=opt(int64s()),
            value=int_list(int64s(), INT64_MIN, INT64_MAX, big),
        ),
        NodeDeviceConfigurationProto: node_device_configurations(),
        ShardingSpecProto: sharding_specs(),
        ShardedDimProto: _built(
            ShardedDimProto, axis=opt(int64s()), simple_sharding=_few(simple_sharded_dims(), 3)
        ),
        SimpleShardedDimProto: simple_sharded_dims(),
        TrainingInfoProto: training_infos(big),
        ModelProto: models(big),
        DeviceConfigurationProto: device_configurations(),
        TensorAnnotation: tensor_annotations(),
        GraphProto: graphs(1, big),
        TensorShapeProto: shapes(),
        TensorShapeProto.Dimension: dimensions(),
        TypeProto: types,
        TypeProto.Tensor: _built(
            TypeProto.Tensor, elem_type=opt(elem_int32s()), shape=opt(shapes())
        ),
        TypeProto.Sequence: _built(TypeProto.Sequence, elem_type=opt(types)),
        TypeProto.Map: _built(TypeProto.Map, key_type=opt(elem_int32s()), value_type=opt(types)),
        TypeProto.Optional: _built(TypeProto.Optional, elem_type=opt(types)),
        TypeProto.SparseTensor: _built(
            TypeProto.SparseTensor, elem_type=opt(elem_int32s()), shape=opt(shapes())
        ),
        TypeProto.Opaque: _built(TypeProto.Opaque, domain=opt(_NAMES), name=opt(texts())),
        OperatorSetIdProto: opset_ids(),
        FunctionProto: functions(),
    }


@functools.cache
def messages_of(cls: type, max_leaves: int = 8, big: bool = True) -> st.SearchStrategy[Any]:
    """Valid ``cls`` messages; ``big=False`` leaves out the large repeated fields.

    ``max_leaves`` bounds the nesting of sequences, maps and optionals; the
    model messages nest graphs in attributes and types in types a fixed few
    levels deep instead.
    """
    if cls is TensorProto:
        return tensors(big)
    if cls is Segment:
        return segments()
    if cls is StringStringEntryProto:
        return entries()
    if cls is SparseTensorProto:
        return sparse_tensors(big)
    if cls is SequenceProto:
        return sequences_from(values(max_leaves, big))
    if cls is MapProto:
        return maps_from(values(max_leaves, big), big)
    if cls is OptionalProto:
        return optionals_from(values(max_leaves, big))
    return _model_messages(big)[cls]


# The model messages that hold graphs, nodes or attributes: each example is
# large, so their properties run fewer examples (``examples``).
HEAVY = frozenset(
    {AttributeProto, NodeProto, GraphProto, FunctionProto, ModelProto, TrainingInfoProto}
)


def examples(fraction: float, heavy: bool = False) -> int:
    """``scaled(fraction)``, a tenth of it for the :data:`HEAVY` classes."""
    return scaled(fraction / 10 if heavy else fraction)


@functools.cache
def any_message(max_leaves: int = 8, big: bool = True) -> st.SearchStrategy[Any]:
    """A message of one of the data types (MESSAGE_TYPES)."""
    return st.one_of([messages_of(cls, max_leaves, big) for cls in MESSAGE_TYPES])


@functools.cache
def any_of_all(max_leaves: int = 4, big: bool = False) -> st.SearchStrategy[Any]:
    """A message of any type of onnx-ml.proto and onnx-data.proto."""
    return st.one_of([messages_of(cls, max_leaves, big) for cls in ALL_MESSAGE_TYPES])


# --------------------------------------------------------------------------
# decode-side inputs: oracle serializations, rewritten on the wire


@st.composite
def mutated_encodings(draw: Any, cls: type, max_leaves: int = 4) -> bytes:
    """The oracle's encoding of a generated ``cls`` message, rewritten.

    The rewriting is :func:`wirekit.mutate_fields` with the operators that keep
    an encoding valid, then (sometimes) :func:`wirekit.mutate_bytes`, driven by
    the Random hypothesis draws; a second generated message is the donor of
    spliced fields.
    """
    m = draw(messages_of(cls, max_leaves, False))
    donor = to_oracle(draw(messages_of(cls, 2, False))).SerializeToString()
    rng = draw(st.randoms(use_true_random=False))
    desc = ORACLE[cls].DESCRIPTOR
    fields = wk.parse_fields(to_oracle(m).SerializeToString(), desc)
    if rng.random() < 0.9:
        fields = wk.mutate_fields(fields, desc, rng, [donor], ops=wk.VALID_OPS)
    data = wk.encode_fields(fields)
    if rng.random() < 0.4:
        data = wk.mutate_bytes(data, rng, [donor])
    return data


@functools.cache
def decoder_inputs(cls: type) -> st.SearchStrategy[bytes]:
    """Bytes to feed the decoder of ``cls``: mostly rewritten encodings, some random."""
    return st.one_of(mutated_encodings(cls), mutated_encodings(cls), st.binary(max_size=64))
