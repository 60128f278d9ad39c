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

from onnxdata import (
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)
from tests.support import wirekit as wk
from tests.support.oracle import MESSAGE_TYPES, ORACLE, to_oracle

Segment = TensorProto.Segment


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


@st.composite
def data_location_unknown(draw: Any) -> bytes:
    """data_location = a value outside its closed enum: kept as an unknown field."""
    value = draw(
        st.one_of(
            st.sampled_from([2, 3, 5, 127, 128, 2**31, 2**32 - 1, 2**32 + 2, 2**63, UINT64_MAX]),
            uint64s(),
        ).filter(lambda v: v & 0xFFFFFFFF not in (0, 1))
    )
    return wk.tag(14, wk.VARINT) + wk.varint(value, draw(st.sampled_from([0, 0, 10])))


@functools.cache
def unknown_fields(cls: type) -> st.SearchStrategy[bytes]:
    known = known_wire_types(cls)
    one = raw_unknown(known)
    if cls is TensorProto:
        one = st.one_of(one, data_location_unknown())
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


@functools.cache
def messages_of(cls: type, max_leaves: int = 8, big: bool = True) -> st.SearchStrategy[Any]:
    """Valid ``cls`` messages; ``big=False`` leaves out the large repeated fields."""
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
    raise TypeError(cls)


@functools.cache
def any_message(max_leaves: int = 8, big: bool = True) -> st.SearchStrategy[Any]:
    return st.one_of([messages_of(cls, max_leaves, big) for cls in MESSAGE_TYPES])


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
