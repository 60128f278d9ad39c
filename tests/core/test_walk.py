"""The one walk of a message tree (``_core/walk.py``): order, each object once, cycles.

Every walker of the package takes it, so its contract is pinned here on plain
objects and on messages: depth first in the order ``children`` gives, a parent
before what it holds; an object met again is skipped (visited at its first
path); met again while on the current path, it is a cycle, refused with
``encode()``'s error or handed to ``on_cycle``.
"""

from __future__ import annotations

from typing import Any

import pytest

from onnxdata import EncodeValueError, MapProto, OptionalProto, SequenceProto, TensorProto
from onnxdata._core.walk import Step, message_children, refuse_cycles, walk


class Node:
    def __init__(self, name: str, *kids: Node) -> None:
        self.name = name
        self.kids = list(kids)


def kids(step: Step) -> list[tuple[str, Any, None]]:
    return [(k.name, k, None) for k in step.obj.kids]


def names(root: Node, **kw: Any) -> list[str]:
    return [s.text() for s in walk([(root.name, root, None)], kids, **kw)]


def test_depth_first_a_parent_before_what_it_holds() -> None:
    tree = Node("r", Node("a", Node("a1"), Node("a2")), Node("b", Node("b1")))
    assert names(tree) == ["r", "r.a", "r.a.a1", "r.a.a2", "r.b", "r.b.b1"]


def test_a_shared_object_is_visited_once_at_its_first_path() -> None:
    leaf = Node("leaf")
    level = leaf
    calls: list[str] = []
    for i in range(40):  # 2**40 paths, 41 objects
        level = Node(f"n{i}", level, level)

    def counted(step: Step) -> list[tuple[str, Any, None]]:
        calls.append(step.obj.name)
        return kids(step)

    visited = list(walk([("top", level, None)], counted))
    assert len(visited) == len(calls) == 41
    assert visited[-1].obj is leaf and visited[-1].depth == 40


def test_a_cycle_is_refused_where_it_closes() -> None:
    a = Node("a")
    b = Node("b", a)
    a.kids.append(b)
    with pytest.raises(EncodeValueError) as caught:
        names(a)
    assert caught.value.path == "a.b.a"
    assert caught.value.reason.startswith("a cycle: the message at a is nested inside itself")
    assert isinstance(caught.value, ValueError)


def test_on_cycle_is_told_and_the_walk_goes_on() -> None:
    a = Node("a")
    a.kids += [a, Node("c"), a]
    seen: list[tuple[str, str]] = []
    assert names(a, on_cycle=lambda w, f: seen.append((w.text(), f.text()))) == ["a", "a.c"]
    assert seen == [("a.a", "a"), ("a.a", "a")]


def test_a_shared_object_beside_the_path_is_no_cycle() -> None:
    shared = Node("s")
    assert names(Node("r", Node("x", shared), Node("y", shared))) == ["r", "r.x", "r.x.s", "r.y"]


def test_walks_sharing_what_they_visited() -> None:
    shared = Node("s", Node("t"))
    visited: dict[int, Step] = {}
    first = [s.text() for s in walk([("a", Node("a", shared), None)], kids, visited=visited)]
    second = [s.text() for s in walk([("b", Node("b", shared), None)], kids, visited=visited)]
    assert first == ["a", "a.s", "a.s.t"]
    assert second == ["b"]


def test_message_children_read_set_fields_of_the_right_class() -> None:
    t = TensorProto(name="t")
    s = SequenceProto(elem_type=SequenceProto.TENSOR, tensor_values=[t, t])
    o = OptionalProto(elem_type=OptionalProto.SEQUENCE, sequence_value=s)
    found = [(s.text(), s.obj) for s in walk([("OptionalProto", o, None)], message_children)]
    assert [p for p, _ in found] == [
        "OptionalProto",
        "OptionalProto.sequence_value",
        "OptionalProto.sequence_value.tensor_values[0]",
    ]
    # An unset sub-message is no child (read by name, OptionalProto gives a stand-in forever).
    assert list(message_children(Step(None, "OptionalProto", OptionalProto(), None))) == []
    # A value of another class is left to check() and encode().
    wrong = MapProto()
    wrong.values = TensorProto()  # type: ignore[assignment]
    assert list(message_children(Step(None, "MapProto", wrong, None))) == []


def test_refuse_cycles_through_every_kind_of_message_field() -> None:
    o = OptionalProto(elem_type=OptionalProto.SEQUENCE)
    s = SequenceProto(elem_type=SequenceProto.MAP)
    m = MapProto(key_type=TensorProto.INT64, keys=[1])
    o.sequence_value = s
    s.map_values = [m]
    m.values = SequenceProto(elem_type=SequenceProto.OPTIONAL, optional_values=[o])
    with pytest.raises(EncodeValueError, match="a cycle") as caught:
        refuse_cycles(o)
    assert (
        caught.value.path == "OptionalProto.sequence_value.map_values[0].values.optional_values[0]"
    )
    with pytest.raises(EncodeValueError, match="nesting deeper than 100"):
        o.encode()  # encode() refuses it too, by its depth
    o.sequence_value = SequenceProto()
    refuse_cycles(o)  # no cycle left
