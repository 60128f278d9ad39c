"""to_list / to_dict / to_optional on hand-built chains deeper than the stack.

Protobuf cannot parse more than 100 levels, but a chain built by hand can be
any depth: the conversion raises its documented ValueError, never
RecursionError, and a chain protobuf can hold converts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

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
