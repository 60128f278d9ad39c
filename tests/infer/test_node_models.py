"""onnx's node-test models, with their ``value_info`` and output types cleared, inferred by
onnx and by onnxdata, data propagation off and on: where onnxdata covers every operator of a
model, the bytes are the same; where it does not, it raises ShapeInferenceUnavailableError."""

from __future__ import annotations

import collections
import contextlib

import onnx
import pytest
from google.protobuf.message import DecodeError
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxdata import shape_inference

from .harness import cleared, compare, node_models, run_onnx_isolated, run_ours


def _outcomes(
    data_prop: bool, strict_mode: bool, check_type: bool = False
) -> collections.Counter[str]:
    counts: collections.Counter[str] = collections.Counter()
    for name, data in node_models():
        outcome, theirs, ours = compare(
            cleared(data), data_prop=data_prop, strict_mode=strict_mode, check_type=check_type
        )
        assert outcome != "differs", (name, theirs, ours)
        counts[outcome] += 1
    return counts


@pytest.mark.parametrize("data_prop", [False, True])
def test_covered_node_models_are_identical(data_prop: bool) -> None:
    counts = _outcomes(data_prop, strict_mode=False)
    # the element-wise family alone covers hundreds of them (the figure is in the commit)
    assert counts["same"] > 250, counts


@pytest.mark.slow
@pytest.mark.parametrize("check_type", [False, True])
@pytest.mark.parametrize("data_prop", [False, True])
def test_covered_node_models_are_identical_in_strict_mode(
    data_prop: bool, check_type: bool
) -> None:
    assert _outcomes(data_prop, strict_mode=True, check_type=check_type)["same"] > 250


def test_uncovered_operator_raises_unavailable() -> None:
    import onnx.helper as oh

    graph = oh.make_graph(
        [oh.make_node("Conv", ["x", "w"], ["y"])],
        "g",
        [oh.make_tensor_value_info("x", 1, [1, 1, 4, 4])],
        [oh.make_tensor_value_info("y", 1, None)],
    )
    data = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)]).SerializeToString()
    with pytest.raises(shape_inference.ShapeInferenceUnavailableError, match="Conv-11"):
        shape_inference.infer_shapes(data)
    with pytest.raises(shape_inference.InferenceError):  # what onnx's callers catch
        shape_inference.infer_shapes(data)


def test_the_given_model_is_not_changed() -> None:
    import onnxdata
    import onnxdata.helper as h

    graph = h.make_graph(
        [h.make_node("Relu", ["x"], ["y"])],
        "g",
        [h.make_tensor_value_info("x", 1, ["N"])],
        [h.make_tensor_value_info("y", 0, None)],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 14)])
    before = model.SerializeToString()
    inferred = shape_inference.infer_shapes(model)
    assert model.SerializeToString() == before
    assert isinstance(inferred, onnxdata.ModelProto)
    assert inferred.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "N"
    with pytest.raises(TypeError, match="infer_shapes_path"):
        shape_inference.infer_shapes("model.onnx")


_MUTATIONS = {
    "index": st.integers(0, 2000),
    "edits": st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=4
    ),
    "options": st.fixed_dictionaries(
        {"strict_mode": st.booleans(), "data_prop": st.booleans(), "check_type": st.booleans()}
    ),
}


def _mutated(index: int, edits: list[tuple[int, int]]) -> bytes:
    models = node_models()
    data = bytearray(cleared(models[index % len(models)][1]))
    for at, value in edits:
        data[at % len(data)] = value
    return bytes(data)


@settings(max_examples=300, deadline=None)
@given(**_MUTATIONS)
def test_mutated_models_raise_only_documented_errors(
    index: int, edits: list[tuple[int, int]], options: dict[str, bool]
) -> None:
    # onnxdata alone: onnx's C++ is not run on these by default (a crash of it, which
    # mutated input can cause, would end the test process)
    with contextlib.suppress(shape_inference.InferenceError, ValueError):
        shape_inference.infer_shapes(_mutated(index, edits), **options)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(**_MUTATIONS)
def test_mutated_models_as_onnx(
    index: int, edits: list[tuple[int, int]], options: dict[str, bool]
) -> None:
    data = _mutated(index, edits)
    # onnx's outcome, the unavailable, or DecodeError (a ValueError) for bytes that protobuf's
    # Python (upb) refuses too: onnx's C++ parser accepts some that upb refuses (a zero tag
    # ends its parse), and onnxdata reads as upb reads.  onnx runs in a child process: it
    # crashes on some of these models, where onnxdata only has to raise its documented errors
    theirs, ours = run_onnx_isolated(data, **options), run_ours(data, **options)
    if theirs[0] == "crash":
        return
    outcome = (
        "unavailable" if ours[0] == "unavailable" else ("same" if theirs == ours else "differs")
    )
    if ours[0] == "ValueError":  # the texts differ (ours names the offset): compat.md
        if theirs[0] != "ValueError":
            with pytest.raises(DecodeError):
                onnx.ModelProto.FromString(bytes(data))
    elif _canonical(bytes(data)):
        assert outcome in ("same", "unavailable"), (theirs, ours)
    # bytes protobuf would not write (unknown, repeated or misplaced fields) are read
    # otherwise by onnx's C++ parser than by upb, which onnxdata follows (unknown fields kept
    # in place, a repeated message merged): only the error classes count there


def _known(data: bytes) -> bytes:
    model = onnx.ModelProto.FromString(data)
    model.DiscardUnknownFields()
    return model.SerializeToString()


def _canonical(data: bytes) -> bool:
    """Bytes protobuf would write: they read back to themselves, with no unknown field."""
    try:
        return _known(data) == data
    except DecodeError:
        return False
