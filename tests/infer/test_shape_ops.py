"""``Constant``, ``Shape`` and ``Size`` against onnx at every version registered: drawn
attributes (each of Constant's value kinds, none, two at once; Shape's ``start``/``end`` in
and out of range, or of the wrong kind), inputs of random rank and dims, followed by an
``Add`` that combines the propagated values; normal and strict mode, data propagation off
and on."""

from __future__ import annotations

from typing import Any

import onnx
import onnx.helper as oh
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxdata._infer.operators import covered

from .harness import compare

VERSIONS = {op: [v for d, o, v in covered() if o == op] for op in ("Constant", "Shape", "Size")}

dims = st.one_of(
    st.integers(0, 4).map(lambda v: ("value", v)),
    st.sampled_from(["N", "M"]).map(lambda p: ("param", p)),
    st.just(("none", None)),
)


def _input(name: str, shape: Any) -> onnx.ValueInfoProto:
    value = onnx.ValueInfoProto(name=name)
    value.type.tensor_type.elem_type = 1
    if shape is not None:
        value.type.tensor_type.shape.SetInParent()
        for kind, item in shape:
            dim = value.type.tensor_type.shape.dim.add()
            if kind == "value":
                dim.dim_value = item
            elif kind == "param":
                dim.dim_param = item
    return value


CONSTANT_VALUES: dict[str, Any] = {
    "value": oh.make_tensor("t", 7, [2], [1, 2]),
    "value_int": 3,
    "value_ints": [1, 2, 3],
    "value_float": 1.5,
    "value_floats": [1.0],
    "value_string": "s",
    "value_strings": ["a", "b"],
    "sparse_value": oh.make_sparse_tensor(
        oh.make_tensor("v", 1, [1], [1.0]), oh.make_tensor("i", 7, [1], [0]), [3]
    ),
}


@st.composite
def models(draw: st.DrawFn) -> tuple[bytes, bool]:
    op = draw(st.sampled_from(sorted(VERSIONS)))
    version = draw(st.sampled_from(VERSIONS[op]))
    inputs = [_input("x", draw(st.one_of(st.none(), st.lists(dims, max_size=4))))]
    attributes: dict[str, Any] = {}
    if op == "Constant":
        kinds = draw(st.lists(st.sampled_from(sorted(CONSTANT_VALUES)), max_size=2, unique=True))
        attributes = {k: CONSTANT_VALUES[k] for k in kinds}
        node = oh.make_node(op, [], ["y"], **attributes)
    else:
        for name in ("start", "end"):
            if op == "Shape" and draw(st.booleans()):
                attributes[name] = draw(st.one_of(st.integers(-6, 6), st.just(0.5)))
        node = oh.make_node(op, ["x"], ["y"], **attributes)
    nodes = [node, oh.make_node("Shape", ["x"], ["s"]), oh.make_node("Add", ["y", "s"], ["z"])]
    outputs = [oh.make_tensor_value_info("z", 0, None)]
    graph = oh.make_graph(nodes, "g", inputs, outputs)
    opsets = [oh.make_opsetid("", version)]
    return oh.make_model(graph, opset_imports=opsets).SerializeToString(), draw(st.booleans())


@pytest.mark.parametrize("strict_mode", [False, True])
@settings(max_examples=150, deadline=None)
@given(drawn=models())
def test_shape_operators_as_onnx(drawn: tuple[bytes, bool], strict_mode: bool) -> None:
    data, data_prop = drawn
    outcome, theirs, ours = compare(data, strict_mode=strict_mode, data_prop=data_prop)
    assert outcome == "same", (theirs, ours)
