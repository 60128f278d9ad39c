"""``Unsqueeze`` and ``Squeeze`` (13 and later) against onnx: ``axes`` a constant (initializer or
``Constant``, in range, out of range, negative, repeated, empty) or computed, inputs of random
rank and kind, then its data propagation (``Shape`` then ``Unsqueeze``); normal and strict
mode, data propagation and check_type drawn."""

from __future__ import annotations

import onnx.helper as oh
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxdata._infer.operators import covered

from .harness import compare
from .test_reshaping import _value, dims

VERSIONS = {op: [v for d, o, v in covered() if o == op] for op in ("Unsqueeze", "Squeeze")}


@st.composite
def models(draw: st.DrawFn) -> tuple[bytes, bool, bool]:
    kind = draw(st.sampled_from(["dense"] * 5 + ["sparse", "none"]))
    shape = draw(st.one_of(st.none(), st.lists(dims, max_size=3)))
    axes = draw(st.lists(st.integers(-5, 5), max_size=3))
    source = draw(st.sampled_from(["initializer", "constant", "computed"]))
    nodes, initializers = [], []
    if source == "initializer":
        initializers.append(oh.make_tensor("axes", 7, [len(axes)], axes))
    elif source == "constant":
        constant = oh.make_node("Constant", [], ["axes"])
        constant.attribute.append(oh.make_attribute("value_ints", axes, attr_type=7))
        nodes.append(constant)
    else:
        nodes.append(oh.make_node("Shape", ["x"], ["axes"]))
    data = draw(st.sampled_from(["x", "s"]))
    op = draw(st.sampled_from(sorted(VERSIONS)))
    nodes.append(oh.make_node("Shape", ["x"], ["s"]))
    without_axes = op == "Squeeze" and draw(st.booleans())
    nodes.append(oh.make_node(op, [data] if without_axes else [data, "axes"], ["y"]))
    graph = oh.make_graph(
        nodes, "g", [_value("x", kind, shape)], [oh.make_tensor_value_info("y", 0, None)],
        initializer=initializers,
    )  # fmt: skip
    opsets = [oh.make_opsetid("", draw(st.sampled_from(VERSIONS[op])))]
    model = oh.make_model(graph, opset_imports=opsets).SerializeToString()
    return model, draw(st.booleans()), draw(st.booleans())


@pytest.mark.parametrize("strict_mode", [False, True])
@settings(max_examples=150, deadline=None)
@given(drawn=models())
def test_unsqueeze_and_squeeze_as_onnx(drawn: tuple[bytes, bool, bool], strict_mode: bool) -> None:
    data, data_prop, check_type = drawn
    outcome, theirs, ours = compare(
        data, strict_mode=strict_mode, data_prop=data_prop, check_type=check_type
    )
    assert outcome == "same", (theirs, ours)
