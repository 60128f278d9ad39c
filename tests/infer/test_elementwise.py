"""The element-wise rules against onnx, at every schema version they are registered for:
hypothesis draws a node of a covered operator with random ranks, dims (values, symbols,
unknown), broadcast-incompatible shapes and declared outputs, and onnx's and onnxdata's
``infer_shapes`` must agree: the same bytes, or the same error text, in normal and strict
mode."""

from __future__ import annotations

from typing import Any

import onnx
import onnx.helper as oh
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxdata._infer.operators import covered

from .harness import compare

KEYS = covered()
INPUTS = {"Where": 3, "Max": 3, "Min": 3, "Sum": 3, "Mean": 3, "Clip": 3}
TWO = {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift", "BitwiseAnd", "BitwiseOr",
       "BitwiseXor", "And", "Or", "Xor", "Equal", "Less", "Greater", "LessOrEqual",
       "GreaterOrEqual", "PRelu", "CastLike"}  # fmt: skip

dims = st.one_of(
    st.integers(0, 4).map(lambda v: ("value", v)),
    st.sampled_from(["N", "M", "unk__0", "unk__1"]).map(lambda p: ("param", p)),
    st.just(("none", None)),
)
shapes = st.one_of(st.none(), st.lists(dims, max_size=4))
elem_types = st.sampled_from([1, 7, 9, 10, 0])


KINDS = ["tensor"] * 6 + ["sparse", "sequence", "optional", "none"]


def _value(name: str, elem_type: int | None, shape: Any, kind: str = "tensor") -> Any:
    value = onnx.ValueInfoProto(name=name)
    if elem_type is None or kind == "none":
        return value
    if kind == "sparse":
        holder = value.type.sparse_tensor_type
    elif kind == "sequence":
        holder = value.type.sequence_type.elem_type.tensor_type
    elif kind == "optional":
        holder = value.type.optional_type.elem_type.tensor_type
    else:
        holder = value.type.tensor_type
    holder.elem_type = elem_type
    if shape is not None:
        holder.shape.SetInParent()
        for kind, item in shape:
            dim = holder.shape.dim.add()
            if kind == "value":
                dim.dim_value = item
            elif kind == "param":
                dim.dim_param = item
    return value


@st.composite
def models(draw: st.DrawFn) -> bytes:
    domain, op, version = draw(st.sampled_from(KEYS))
    count = INPUTS.get(op, 2 if op in TWO else 1)
    count = draw(st.integers(max(1, count - 1), count)) if op in INPUTS else count
    names = [f"x{i}" for i in range(count)]
    kinds = st.sampled_from(KINDS)
    inputs = [_value(n, draw(elem_types), draw(shapes), draw(kinds)) for n in names]
    attributes: dict[str, Any] = {}
    if op == "Cast":
        attributes["to"] = draw(st.sampled_from([1, 6, 7, 9, 16, 40]))
    node = oh.make_node(op, names, ["y"], name=draw(st.sampled_from(["", "n"])), **attributes)
    second = oh.make_node("Abs", ["y"], ["z"])  # the merged type read by a later node
    declared = draw(st.sampled_from(["none", "untyped", "typed"]))
    outputs = [_value("z", None, None)]
    value_info = []
    if declared == "untyped":
        outputs.append(_value("y", None, None))
    elif declared == "typed":
        value_info.append(_value("y", draw(elem_types), draw(shapes), draw(kinds)))
    graph = oh.make_graph([node, second], "g", inputs, outputs, value_info=value_info)
    opsets = [oh.make_opsetid(domain, version)]
    if version < 6:
        opsets.append(oh.make_opsetid("", 13))  # nothing: the last import of a domain counts
        opsets.reverse()
    model = oh.make_model(graph, opset_imports=opsets, ir_version=draw(st.sampled_from([3, 8])))
    return model.SerializeToString()


@pytest.mark.parametrize("strict_mode", [False, True])
@settings(max_examples=150, deadline=None)
@given(data=models(), check_type=st.booleans())
def test_covered_operators_infer_as_onnx(data: bytes, strict_mode: bool, check_type: bool) -> None:
    outcome, theirs, ours = compare(data, strict_mode=strict_mode, check_type=check_type)
    assert outcome == "same", (theirs, ours)
