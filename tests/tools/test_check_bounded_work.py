"""check() does bounded work on every message: shared children, cycles, deep chains.

Each distinct message is checked once, at the path where the walk meets it
first; a message that contains itself is a violation, not an endless walk;
the walk is iterative, so a hand-built chain of any depth gives violations,
not a RecursionError.
"""

from __future__ import annotations

import threading
from typing import Any

from onnxdata import (
    MapProto,
    OptionalProto,
    SequenceProto,
    TensorProto,
    Violation,
    check,
)

T = TensorProto


def promptly(message: Any, seconds: float = 20.0) -> list[Violation]:
    """check(message), failing the test (not hanging it) if it runs too long."""
    result: list[list[Violation]] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(check(message))
        except BaseException as exc:  # re-raised in the test's thread
            failure.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"check() still running after {seconds} s"
    if failure:
        raise failure[0]
    return result[0]


def test_a_sequence_holding_itself_twice() -> None:
    s = SequenceProto(elem_type=SequenceProto.SEQUENCE)
    s.sequence_values = [s, s]
    found = promptly(s)
    assert [v.path for v in found] == [
        "SequenceProto.sequence_values[0]",
        "SequenceProto.sequence_values[1]",
    ]
    assert all("cycle" in v.message and "nested" in v.message for v in found)


def test_a_tree_of_shared_children_is_walked_once_per_message() -> None:
    leaf = SequenceProto(elem_type=SequenceProto.TENSOR, tensor_values=[T(dims=[2], data_type=1)])
    node = leaf
    for _ in range(60):  # 2**60 paths, 61 messages
        node = SequenceProto(elem_type=SequenceProto.SEQUENCE, sequence_values=[node, node])
    found = promptly(node)
    # The broken leaf tensor is reported once, at its first path.
    assert len(found) == 1
    assert found[0].path == "SequenceProto" + ".sequence_values[0]" * 60 + ".tensor_values[0].dims"


def test_a_shared_child_under_several_parents() -> None:
    bad = T(dims=[3], data_type=T.FLOAT, float_data=[1.0])
    m = MapProto(
        key_type=T.INT64,
        keys=[1, 2],
        values=SequenceProto(elem_type=1, tensor_values=[bad, bad]),
    )
    o = OptionalProto(elem_type=OptionalProto.MAP, map_value=m)
    found = promptly(SequenceProto(elem_type=5, optional_values=[o, o, o]))
    assert [v.path for v in found] == [
        "SequenceProto.optional_values[0].map_value.values.tensor_values[0].float_data"
    ]


def test_cycles_through_every_kind_of_field() -> None:
    o = OptionalProto(elem_type=OptionalProto.SEQUENCE)
    s = SequenceProto(elem_type=SequenceProto.MAP)
    m = MapProto(key_type=T.INT64, keys=[1])
    o.sequence_value = s
    s.map_values = [m]
    m.values = SequenceProto(elem_type=SequenceProto.OPTIONAL, optional_values=[o])
    found = promptly(o)
    cycle = [v for v in found if "cycle" in v.message]
    assert [v.path for v in cycle] == [
        "OptionalProto.sequence_value.map_values[0].values.optional_values[0]"
    ]
    assert cycle[0].message == "a cycle: the message at OptionalProto is nested inside itself"


def test_a_chain_far_deeper_than_the_stack() -> None:
    inner = T(dims=[2], data_type=T.FLOAT, float_data=[1.0])  # broken at the bottom
    chain: Any = OptionalProto(elem_type=OptionalProto.TENSOR, tensor_value=inner)
    depth = 20_000
    for _ in range(depth):
        chain = OptionalProto(elem_type=OptionalProto.OPTIONAL, optional_value=chain)
    found = promptly(chain)
    assert len(found) == 2, [v.message for v in found]
    too_deep, broken = found
    assert too_deep.path == "OptionalProto" + ".optional_value" * 101
    assert "nested more than 100 deep" in too_deep.message
    assert broken.path == "OptionalProto" + ".optional_value" * depth + ".tensor_value.float_data"


def test_exactly_100_levels_are_allowed() -> None:
    chain: Any = OptionalProto()
    for _ in range(100):
        chain = OptionalProto(elem_type=OptionalProto.OPTIONAL, optional_value=chain)
    assert check(chain) == []
    chain.encode()  # and protobuf's limit agrees
