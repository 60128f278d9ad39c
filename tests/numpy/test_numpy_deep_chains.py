"""to_list / to_dict / to_optional on hand-built chains deeper than the stack.

Protobuf cannot parse more than 100 levels, but a chain built by hand can be
any depth: the conversion raises its documented ValueError, never
RecursionError, and a chain protobuf can hold converts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from onnxdata import MapProto, OptionalProto, SequenceProto, TensorProto
from onnxdata import numpy_helper as nh

DEPTH = 5000


def tensor() -> TensorProto:
    return nh.from_array(np.arange(2, dtype=np.int64))


def sequences(depth: int) -> SequenceProto:
    s = SequenceProto(elem_type=SequenceProto.TENSOR, tensor_values=[tensor()])
    for _ in range(depth):
        s = SequenceProto(elem_type=SequenceProto.SEQUENCE, sequence_values=[s])
    return s


def optionals(depth: int) -> OptionalProto:
    o = OptionalProto(elem_type=OptionalProto.TENSOR, tensor_value=tensor())
    for _ in range(depth):
        o = OptionalProto(elem_type=OptionalProto.OPTIONAL, optional_value=o)
    return o


def maps(depth: int) -> MapProto:
    m = MapProto(
        key_type=TensorProto.INT64,
        keys=[1],
        values=SequenceProto(elem_type=SequenceProto.TENSOR, tensor_values=[tensor()]),
    )
    for _ in range(depth):
        m = MapProto(
            key_type=TensorProto.INT64,
            keys=[1],
            values=SequenceProto(elem_type=SequenceProto.MAP, map_values=[m]),
        )
    return m


CASES: list[tuple[Any, Any]] = [
    (sequences, nh.to_list),
    (optionals, nh.to_optional),
    (maps, nh.to_dict),
]


@pytest.mark.parametrize(("build", "convert"), CASES, ids=["to_list", "to_optional", "to_dict"])
def test_deep_chain_raises_value_error(build: Any, convert: Any) -> None:
    with pytest.raises(ValueError, match="nested too deep"):
        convert(build(DEPTH))


@pytest.mark.parametrize(("build", "convert"), CASES, ids=["to_list", "to_optional", "to_dict"])
def test_a_chain_protobuf_can_hold_converts(build: Any, convert: Any) -> None:
    message = build(49)  # maps take two levels each
    assert convert(type(message).decode(message.encode())) is not None


# -- to_list's loop down one-element lists of lists, against onnx's calls -------------


@st.composite
def nested(draw: st.DrawFn, depth: int = 8) -> list[Any]:
    """A list of arrays, or of lists (a list's elements of one type, as from_list
    demands): one-element lists of lists (chain levels) most often."""
    if depth == 0 or draw(st.integers(0, 5)) == 0:
        sizes = draw(st.lists(st.integers(0, 3), max_size=3))
        return [np.arange(n, dtype=np.int64) for n in sizes]
    count = draw(st.sampled_from([1, 1, 1, 0, 2, 3]))
    return [draw(nested(depth - 1)) for _ in range(count)]


def same(a: Any, b: Any) -> bool:
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    return a.dtype == b.dtype and np.array_equal(a, b)


@given(nested())
def test_nested_lists_convert_as_onnx_converts_them(value: list[Any]) -> None:
    import onnx.numpy_helper as onh

    ours = nh.from_list(value)
    theirs = onh.from_list(value)
    assert ours.encode() == theirs.SerializeToString()
    assert same(nh.to_list(ours), onh.to_list(theirs))
    assert same(nh.to_list(SequenceProto.decode(ours.encode())), value)


def test_a_fault_at_any_level_of_a_chain_is_raised_as_at_the_top() -> None:
    for level in (0, 1, 7):
        crowded = SequenceProto(elem_type=SequenceProto.TENSOR, tensor_values=[tensor()],
                                map_values=[MapProto()], name="bad")  # fmt: skip
        unknown = SequenceProto(elem_type=99, name="odd")
        for leaf, error, match in [
            (crowded, ValueError, "SequenceProto 'bad' has elem_type 1 but map_values is set"),
            (unknown, TypeError, "input sequence is not supported"),
        ]:
            s = leaf
            for _ in range(level):
                s = SequenceProto(elem_type=SequenceProto.SEQUENCE, sequence_values=[s])
            with pytest.raises(error, match=match):
                nh.to_list(s)


def test_a_sequence_that_holds_itself_raises_value_error() -> None:
    s = SequenceProto(elem_type=SequenceProto.SEQUENCE)
    s.sequence_values.append(s)  # one element, itself: the loop would never end
    with pytest.raises(ValueError, match="nested too deep"):
        nh.to_list(s)
    o = OptionalProto(elem_type=OptionalProto.SEQUENCE, sequence_value=s)
    with pytest.raises(ValueError, match="nested too deep"):
        nh.to_optional(o)


def test_a_chain_as_deep_as_protobuf_allows_converts_at_any_recursion_limit() -> None:
    import sys

    s = sequences(99)
    old = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(150)  # the loop makes no call a level
        out: Any = nh.to_list(s)
    finally:
        sys.setrecursionlimit(old)
    for _ in range(99):
        assert isinstance(out, list) and len(out) == 1
        out = out[0]
    assert same(out, [np.arange(2, dtype=np.int64)])
