"""``Concat`` against onnx at every version registered: 1-3 inputs of random rank and dims
(values, negative and huge ones, symbols, unknown), ``axis`` in and out of range or absent,
then its data propagation over ``Shape`` outputs and constants; normal and strict mode,
data propagation and check_type drawn."""

from __future__ import annotations

from typing import Any

import onnx.helper as oh
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxdata._infer.operators import covered

from .harness import compare
from .test_reshaping import _value

VERSIONS = [v for d, o, v in covered() if o == "Concat"]
small = st.one_of(
    st.integers(0, 3).map(lambda v: ("value", v)),
    st.sampled_from(["N", "M"]).map(lambda p: ("param", p)),
    st.just(("none", None)),
)
# huge and negative lengths only in inputs of rank 2 or more: onnx's data propagation makes a
# value per element of a 1-D input of known length, and would exhaust memory
dims = st.one_of(small, st.sampled_from([-2, 2**62, 2**63 - 1]).map(lambda v: ("value", v)))


@st.composite
def models(draw: st.DrawFn) -> tuple[bytes, bool, bool]:
    rank = draw(st.integers(0, 3))
    inputs = []
    for i in range(draw(st.integers(1, 3))):
        size = rank if draw(st.integers(0, 5)) else draw(st.integers(0, 3))
        shape: Any = draw(st.lists(dims if size >= 2 else small, min_size=size, max_size=size))
        if not draw(st.integers(0, 8)):
            shape = None
        inputs.append(_value(f"x{i}", draw(st.sampled_from(["dense"] * 8 + ["none"])), shape))
    names = [v.name for v in inputs]
    nodes = []
    if draw(st.booleans()):  # concatenate shapes, as models building a Reshape target do
        nodes = [oh.make_node("Shape", [n], [f"s{k}"]) for k, n in enumerate(names)]
        names = [f"s{k}" for k in range(len(names))]
        initial = oh.make_node("Constant", [], ["k"])
        initial.attribute.append(oh.make_attribute("value_ints", [1, 2], attr_type=7))
        nodes.append(initial)
        names.append("k")
    attributes = {}
    if draw(st.integers(0, 8)):
        attributes["axis"] = draw(st.integers(-4, 4))
    nodes.append(oh.make_node("Concat", names, ["y"], **attributes))
    graph = oh.make_graph(nodes, "g", inputs, [oh.make_tensor_value_info("y", 0, None)])
    opsets = [oh.make_opsetid("", draw(st.sampled_from(VERSIONS)))]
    model = oh.make_model(graph, opset_imports=opsets).SerializeToString()
    return model, draw(st.booleans()), draw(st.booleans())


@pytest.mark.parametrize("strict_mode", [False, True])
@settings(max_examples=150, deadline=None)
@given(drawn=models())
def test_concat_as_onnx(drawn: tuple[bytes, bool, bool], strict_mode: bool) -> None:
    data, data_prop, check_type = drawn
    outcome, theirs, ours = compare(
        data, strict_mode=strict_mode, data_prop=data_prop, check_type=check_type
    )
    assert outcome == "same", (theirs, ours)
