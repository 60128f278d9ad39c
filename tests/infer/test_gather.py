"""``Gather``-13 against onnx: data and indices of random rank and dims, ``axis`` in and out
of range or absent; and its data propagation (a ``Shape`` output gathered at constant
indices in and out of range, then concatenated); normal and strict mode, data propagation
and check_type drawn."""

from __future__ import annotations

from typing import Any

import onnx.helper as oh
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .harness import compare
from .test_reshaping import _value, dims

shapes = st.one_of(st.none(), st.lists(dims, max_size=3))


@st.composite
def models(draw: st.DrawFn) -> tuple[bytes, bool, bool]:
    attributes: dict[str, Any] = {}
    if draw(st.booleans()):
        attributes["axis"] = draw(st.integers(-4, 4))
    x = _value("x", draw(st.sampled_from(["dense"] * 6 + ["sparse", "none"])), draw(shapes))
    initializers = []
    if draw(st.booleans()):
        inputs = [x, _value("i", draw(st.sampled_from(["dense", "none"])), draw(shapes))]
        nodes = [oh.make_node("Gather", ["x", "i"], ["y"], **attributes)]
    else:
        inputs = [x]
        scalar = draw(st.booleans())
        values = draw(st.lists(st.integers(-4, 4), min_size=1, max_size=1 if scalar else 3))
        initializers.append(oh.make_tensor("i", 7, [] if scalar else [len(values)], values))
        nodes = [
            oh.make_node("Shape", ["x"], ["s"]),
            oh.make_node("Gather", ["s", "i"], ["g"], **attributes),
            oh.make_node("Concat", ["g", "s"], ["y"], axis=0),
        ]
    graph = oh.make_graph(
        nodes, "g", inputs, [oh.make_tensor_value_info("y", 0, None)], initializer=initializers
    )
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)]).SerializeToString()
    return model, draw(st.booleans()), draw(st.booleans())


@pytest.mark.parametrize("strict_mode", [False, True])
@settings(max_examples=150, deadline=None)
@given(drawn=models())
def test_gather_as_onnx(drawn: tuple[bytes, bool, bool], strict_mode: bool) -> None:
    data, data_prop, check_type = drawn
    outcome, theirs, ours = compare(
        data, strict_mode=strict_mode, data_prop=data_prop, check_type=check_type
    )
    assert outcome == "same", (theirs, ours)
