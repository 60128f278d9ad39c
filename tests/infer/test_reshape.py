"""``Reshape`` (14 and later) against onnx: the target from an initializer (with 0, -1, one
-1 too many, values below -1), from data propagation (``Shape``, ``Gather``, ``Concat`` of
the data's dims), or known by its length only; data of random rank and dims; ``allowzero``
drawn; normal and strict mode, data propagation and check_type drawn."""

from __future__ import annotations

from typing import Any

import onnx.helper as oh
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxdata._infer.operators import covered

from .harness import compare
from .test_reshaping import _value, dims

VERSIONS = [v for d, o, v in covered() if o == "Reshape"]


@st.composite
def models(draw: st.DrawFn) -> tuple[bytes, bool, bool]:
    shape = draw(st.one_of(st.none(), st.lists(dims, max_size=4)))
    inputs = [_value("x", draw(st.sampled_from(["dense"] * 8 + ["none"])), shape)]
    attributes: dict[str, Any] = {}
    if draw(st.booleans()):
        attributes["allowzero"] = draw(st.integers(0, 1))
    nodes, initializers = [], []
    source = draw(st.sampled_from(["initializer", "propagated", "length"]))
    if source == "initializer":
        values = draw(st.lists(st.integers(-2, 6), max_size=4))
        initializers.append(oh.make_tensor("t", 7, [len(values)], values))
    elif source == "propagated":
        head = draw(st.lists(st.integers(-1, 3), min_size=1, max_size=2))
        initializers.append(oh.make_tensor("h", 7, [len(head)], head))
        initializers.append(oh.make_tensor("k", 7, [1], [draw(st.integers(-2, 3))]))
        nodes += [
            oh.make_node("Shape", ["x"], ["s"]),
            oh.make_node("Gather", ["s", "k"], ["g"], axis=0),
            oh.make_node("Concat", ["h", "g"], ["t"], axis=0),
        ]
    else:
        inputs.append(oh.make_tensor_value_info("t", 7, [draw(st.integers(0, 4))]))
    nodes.append(oh.make_node("Reshape", ["x", "t"], ["y"], **attributes))
    graph = oh.make_graph(
        nodes, "g", inputs, [oh.make_tensor_value_info("y", 0, None)], initializer=initializers
    )
    opsets = [oh.make_opsetid("", draw(st.sampled_from(VERSIONS)))]
    model = oh.make_model(graph, opset_imports=opsets).SerializeToString()
    return model, draw(st.booleans()), draw(st.booleans())


@pytest.mark.parametrize("strict_mode", [False, True])
@settings(max_examples=150, deadline=None)
@given(drawn=models())
def test_reshape_as_onnx(drawn: tuple[bytes, bool, bool], strict_mode: bool) -> None:
    data, data_prop, check_type = drawn
    outcome, theirs, ours = compare(
        data, strict_mode=strict_mode, data_prop=data_prop, check_type=check_type
    )
    assert outcome == "same", (theirs, ours)
