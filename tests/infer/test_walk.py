"""The graph walk against onnx on drawn graphs of covered operators: chains whose values are
graph inputs, initializers (declared as inputs or not, agreeing or not, IR versions 3 and 8),
sparse initializers, ``Constant`` outputs and earlier nodes' outputs; value infos and outputs
declared beforehand (typed, untyped, contradicting); symbols that collide with ``unk__N``;
nodes of a custom domain (unknown to onnx: later errors are dropped), of a domain the model
does not import (onnx raises at once), with empty output names; normal and strict mode, data
propagation off and on."""

from __future__ import annotations

from typing import Any

import onnx
import onnx.helper as oh
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .harness import compare

OPS = ["Add", "Mul", "Relu", "Identity", "Equal", "Where", "Cast", "Shape", "Sum", "Custom"]
ARITY = {"Relu": 1, "Identity": 1, "Cast": 1, "Shape": 1, "Where": 3, "Sum": 2, "Custom": 1}

dims = st.one_of(
    st.integers(1, 3).map(lambda v: ("value", v)),
    st.sampled_from(["N", "unk__0", "unk__2"]).map(lambda p: ("param", p)),
    st.just(("none", None)),
)
shapes = st.one_of(st.none(), st.lists(dims, max_size=3))


def _type(value: Any, elem_type: int, shape: Any) -> None:
    value.type.tensor_type.elem_type = elem_type
    if shape is not None:
        value.type.tensor_type.shape.SetInParent()
        for kind, item in shape:
            dim = value.type.tensor_type.shape.dim.add()
            if kind == "value":
                dim.dim_value = item
            elif kind == "param":
                dim.dim_param = item


def _declared(draw: st.DrawFn, name: str) -> onnx.ValueInfoProto:
    value = onnx.ValueInfoProto(name=name)
    if draw(st.integers(0, 3)):
        _type(value, draw(st.sampled_from([1, 1, 1, 7, 0])), draw(shapes))
    return value


@st.composite
def models(draw: st.DrawFn) -> bytes:
    inputs = [_declared(draw, f"i{k}") for k in range(draw(st.integers(1, 3)))]
    names = [v.name for v in inputs]
    initializers, sparse = [], []
    for k in range(draw(st.integers(0, 2))):
        name = draw(st.sampled_from([f"w{k}", *names]))
        size = draw(st.integers(1, 3))
        elem_type = draw(st.sampled_from([1, 7]))
        initializers.append(oh.make_tensor(name, elem_type, [size], [1] * size))
        names.append(name)
    if draw(st.booleans()):
        values = oh.make_tensor("sv", 1, [1], [1.0])
        sparse.append(oh.make_sparse_tensor(values, oh.make_tensor("si", 7, [1], [0]), [3]))
        names.append("sv")
    nodes = []
    if draw(st.booleans()):
        nodes.append(oh.make_node("Constant", [], ["c"], value_floats=[1.0, 2.0]))
        names.append("c")
    for k in range(draw(st.integers(1, 5))):
        op = draw(st.sampled_from(OPS))
        ins = [draw(st.sampled_from(names)) for _ in range(ARITY.get(op, 2))]
        out = draw(st.sampled_from([f"n{k}", f"n{k}", ""]))
        domain = "custom" if op == "Custom" else draw(st.sampled_from(["", "", "", "ai.onnx"]))
        attrs = {"to": 1} if op == "Cast" else {}
        name = draw(st.sampled_from(["", f"node{k}"]))
        nodes.append(oh.make_node(op, ins, [out], name=name, domain=domain, **attrs))
        if out:
            names.append(out)
    produced = [n for n in names if n.startswith("n")] or names[-1:]
    outputs = [_declared(draw, n) for n in draw(st.lists(st.sampled_from(produced), max_size=2))]
    value_info = [_declared(draw, n) for n in draw(st.lists(st.sampled_from(names), max_size=2))]
    graph = oh.make_graph(
        nodes, "g", inputs, outputs, initializer=initializers, value_info=value_info
    )
    graph.sparse_initializer.extend(sparse)
    opsets = [oh.make_opsetid("", draw(st.sampled_from([7, 13, 14, 19, 25])))]
    if draw(st.integers(0, 4)):
        opsets.append(oh.make_opsetid("custom", 1))
    model = oh.make_model(graph, opset_imports=opsets, ir_version=draw(st.sampled_from([3, 8])))
    return model.SerializeToString()


@pytest.mark.parametrize("data_prop", [False, True])
@pytest.mark.parametrize("strict_mode", [False, True])
@settings(max_examples=100, deadline=None)
@given(data=models(), check_type=st.booleans())
def test_walk_as_onnx(data: bytes, strict_mode: bool, data_prop: bool, check_type: bool) -> None:
    outcome, theirs, ours = compare(
        data, strict_mode=strict_mode, data_prop=data_prop, check_type=check_type
    )
    assert outcome == "same", (theirs, ours)
