"""Data propagation through the element-wise operators that define it (Add/Sub/Mul-14,
Cast-13 and later) against onnx: chains over int64/int32 initializers of rank 0 and 1 (values
up to int64's ends: the overflow checks), 1-D inputs of known length, with ``data_prop=True``,
normal and strict mode."""

from __future__ import annotations

import onnx.helper as oh
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .harness import compare

values = st.one_of(st.integers(-3, 5), st.sampled_from([2**62, -(2**62), 2**63 - 1, -(2**63)]))


@st.composite
def models(draw: st.DrawFn) -> bytes:
    initializers = []
    for i in range(draw(st.integers(1, 3))):
        scalar = draw(st.booleans())
        count = 1 if scalar else draw(st.integers(0, 3))
        data = draw(st.lists(values, min_size=count, max_size=count))
        elem_type = draw(st.sampled_from([7, 7, 6]))
        if elem_type == 6:
            data = [max(min(v, 2**31 - 1), -(2**31)) for v in data]
        raw = draw(st.booleans())
        tensor = oh.make_tensor(f"c{i}", elem_type, [] if scalar else [count], data, raw=False)
        if raw:
            import numpy as np

            dtype = np.int64 if elem_type == 7 else np.int32
            tensor = oh.make_tensor(
                f"c{i}", elem_type, [] if scalar else [count],
                np.array(data, dtype=dtype).tobytes(), raw=True,
            )  # fmt: skip
        initializers.append(tensor)
    inputs = [oh.make_tensor_value_info("v", 7, [draw(st.integers(0, 3))])]
    names = [t.name for t in initializers] + ["v"]
    nodes = []
    for j in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["Add", "Sub", "Mul", "Cast"]))
        if op == "Cast":
            node = oh.make_node(op, [draw(st.sampled_from(names))], [f"n{j}"], to=7)
        else:
            pair = [draw(st.sampled_from(names)), draw(st.sampled_from(names))]
            node = oh.make_node(op, pair, [f"n{j}"])
        nodes.append(node)
        names.append(f"n{j}")
    outputs = [oh.make_tensor_value_info(names[-1], 0, None)]
    graph = oh.make_graph(nodes, "g", inputs, outputs, initializer=initializers)
    opset = draw(st.sampled_from([14, 19, 25]))
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset)])
    return model.SerializeToString()


@pytest.mark.parametrize("strict_mode", [False, True])
@settings(max_examples=150, deadline=None)
@given(data=models())
def test_propagated_values_as_onnx(data: bytes, strict_mode: bool) -> None:
    outcome, theirs, ours = compare(data, data_prop=True, strict_mode=strict_mode)
    assert outcome == "same", (theirs, ours)
