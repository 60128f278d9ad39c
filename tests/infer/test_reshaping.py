"""``Transpose`` against onnx at every version registered: inputs of random rank, dims and
kind (dense, sparse, untyped), ``perm`` absent, valid, out of range, repeated or empty, the
output declared beforehand or not; normal and strict mode."""

from __future__ import annotations

from typing import Any

import onnx
import onnx.helper as oh
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxdata._infer.operators import covered

from .harness import compare

VERSIONS = [v for d, o, v in covered() if o == "Transpose"]
dims = st.one_of(
    st.integers(0, 4).map(lambda v: ("value", v)),
    st.sampled_from(["N", "unk__1"]).map(lambda p: ("param", p)),
    st.just(("none", None)),
)


def _value(name: str, kind: str, shape: Any) -> onnx.ValueInfoProto:
    value = onnx.ValueInfoProto(name=name)
    if kind == "none":
        return value
    holder = value.type.sparse_tensor_type if kind == "sparse" else value.type.tensor_type
    holder.elem_type = 1
    if shape is not None:
        holder.shape.SetInParent()
        for what, item in shape:
            dim = holder.shape.dim.add()
            if what == "value":
                dim.dim_value = item
            elif what == "param":
                dim.dim_param = item
    return value


@st.composite
def models(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["dense"] * 5 + ["sparse", "none"]))
    shape = draw(st.one_of(st.none(), st.lists(dims, max_size=4)))
    rank = len(shape or [])
    attributes: dict[str, Any] = {}
    choice = draw(st.sampled_from(["absent", "valid", "valid", "any", "empty"]))
    if choice == "valid":
        attributes["perm"] = draw(st.permutations(range(rank)))
    elif choice == "any":
        attributes["perm"] = draw(st.lists(st.integers(-1, rank + 1), min_size=1, max_size=4))
    elif choice == "empty":
        attributes["perm"] = []
    node = oh.make_node("Transpose", ["x"], ["y"], name=draw(st.sampled_from(["", "t"])))
    if "perm" in attributes:
        node.attribute.append(oh.make_attribute("perm", attributes["perm"], attr_type=7))
    second = oh.make_node("Transpose", ["y"], ["z"])
    declared = []
    if draw(st.booleans()):
        declared.append(_value("y", draw(st.sampled_from(["dense", "none"])), draw(
            st.one_of(st.none(), st.lists(dims, max_size=4))
        )))  # fmt: skip
    graph = oh.make_graph(
        [node, second], "g", [_value("x", kind, shape)],
        [onnx.ValueInfoProto(name="z")], value_info=declared,
    )  # fmt: skip
    opsets = [oh.make_opsetid("", draw(st.sampled_from(VERSIONS)))]
    return oh.make_model(graph, opset_imports=opsets).SerializeToString()


@pytest.mark.parametrize("strict_mode", [False, True])
@settings(max_examples=150, deadline=None)
@given(data=models(), check_type=st.booleans())
def test_transpose_as_onnx(data: bytes, strict_mode: bool, check_type: bool) -> None:
    outcome, theirs, ours = compare(data, strict_mode=strict_mode, check_type=check_type)
    assert outcome == "same", (theirs, ours)
