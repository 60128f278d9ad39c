"""``helper.printable_*`` and ``strip_doc_string`` against onnx 1.23.2: the same
text, character for character, and the same errors and warning."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import onnx
import pytest

import onnxdata
from onnxdata import helper
from tests.messages.test_helper_attributes import _same
from tests.messages.test_helper_models import _body, _model

Build = Callable[[ModuleType, ModuleType], Any]


def _graph_with_inputs(m: ModuleType, h: ModuleType, inputs: list[str], inits: list[str]) -> Any:
    dt = m.TensorProto
    return h.make_graph(
        [h.make_node("Loop", ["x"], ["y", "z"], body=_body(m, h), k=[1, 2]),
         h.make_node("Scan", [], [], bodies=[_body(m, h), _body(m, h)])],
        "g",
        [h.make_tensor_value_info(n, dt.FLOAT, ["N", 2, None]) for n in inputs],
        [h.make_tensor_value_info("y", dt.FLOAT, None), h.make_empty_tensor_value_info("z")],
        initializer=[h.make_tensor(n, dt.INT64, [1, 2], [1, 2]) for n in inits],
    )  # fmt: skip


GRAPHS: list[Build] = [
    lambda m, h: _model(m, h).graph,
    lambda m, h: _body(m, h),
    lambda m, h: h.make_graph([], "empty", [], []),
    lambda m, h: _graph_with_inputs(m, h, [], []),
    lambda m, h: _graph_with_inputs(m, h, ["a"], []),
    lambda m, h: _graph_with_inputs(m, h, ["a", "w"], ["w"]),
    lambda m, h: _graph_with_inputs(m, h, ["w"], ["w"]),
    lambda m, h: _graph_with_inputs(m, h, ["a"], ["w", "v"]),
    lambda m, h: _graph_with_inputs(m, h, [], ["w"]),
    lambda m, h: _graph_with_inputs(m, h, ["a", "w"], ["w", "v"]),
]


@pytest.mark.parametrize("build", GRAPHS)
@pytest.mark.parametrize("prefix", ["", "> "])
def test_printable_graph(build: Build, prefix: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        _same(lambda m, h: h.printable_graph(build(m, h), prefix), message=True)


def test_printable_graph_is_deprecated_as_onnx_s() -> None:
    graph = helper.make_graph([], "g", [], [])
    with pytest.warns(DeprecationWarning) as ours:
        helper.printable_graph(graph)
    with pytest.warns(DeprecationWarning) as theirs:
        onnx.helper.printable_graph(onnx.GraphProto())
    assert str(ours[0].message) == str(theirs[0].message)
    assert ours[0].filename == __file__  # the caller's line, as onnx's warning


def test_printable_graph_warns_once_per_graph_printed_as_onnx_s() -> None:
    counts = []
    for m, h in ((onnx, onnx.helper), (onnxdata, helper)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            h.printable_graph(_graph_with_inputs(m, h, ["a"], []))
        counts.append([w.category for w in caught])
    assert counts[0] == counts[1] == [DeprecationWarning] * 4  # the graph and 3 bodies


def _attributes(m: ModuleType, h: ModuleType) -> list[Any]:
    dt = m.TensorProto
    long = "x" * 70
    return [
        h.make_attribute("f", 0.1), h.make_attribute("i", 0), h.make_attribute("s", long),
        h.make_attribute("b", b"\xff\xfeab"),
        h.make_attribute("t", h.make_tensor("t", dt.FLOAT, [2], [1, 2])),
        h.make_attribute("st", h.make_tensor("t", dt.FLOAT, [], [1.5])),
        h.make_attribute("sd", h.make_tensor("t", dt.DOUBLE, [], [2.5])),
        h.make_attribute("ss", h.make_tensor("t", dt.STRING, [], ["x"])),
        h.make_attribute("sb", h.make_tensor("t", dt.BFLOAT16, [], [1.5])),
        h.make_attribute("g", _body(m, h)),
        h.make_attribute("tp", h.make_tensor_type_proto(1, [2])),
        h.make_attribute("sp", h.make_sparse_tensor(h.make_tensor("v", dt.FLOAT, [1], [1]),
                                                    h.make_tensor("i", dt.INT64, [1], [0]), [3])),
        h.make_attribute("fs", [0.1, 1e20, 3]), h.make_attribute("is", [1, -2]),
        h.make_attribute("strs", ["a", long, b"\xff"]),
        h.make_attribute("ts", [h.make_tensor("t", dt.FLOAT, [1], [1])]),
        h.make_attribute("sps", [m.SparseTensorProto()]),
        h.make_attribute("tps", [h.make_tensor_type_proto(1, [2]), m.TypeProto()]),
        h.make_attribute("gs", [_body(m, h), h.make_graph([], "other", [], [])]),
        h.make_attribute("e", [], attr_type=m.AttributeProto.INTS),
        h.make_attribute_ref("r", m.AttributeProto.INT),
        m.AttributeProto(name="u"),
    ]  # fmt: skip


@pytest.mark.parametrize("index", range(22))
@pytest.mark.parametrize("subgraphs", [False, True])
def test_printable_attribute(index: int, subgraphs: bool) -> None:
    def build(m: ModuleType, h: ModuleType) -> Any:
        text = h.printable_attribute(_attributes(m, h)[index], subgraphs)
        if subgraphs:  # the graphs as bytes
            return text[0], [g.SerializeToString() for g in text[1]]
        return text

    _same(build, message=True)


@pytest.mark.parametrize("subgraphs", [False, True])
@pytest.mark.parametrize("prefix", ["", "  "])
def test_printable_node(subgraphs: bool, prefix: str) -> None:
    def build(m: ModuleType, h: ModuleType) -> Any:
        nodes = [h.make_node("N", ["a", ""], ["b"]), h.make_node("N", [], []),
                 m.NodeProto(op_type="A", attribute=_attributes(m, h))]  # fmt: skip
        out = [h.printable_node(n, prefix, subgraphs) for n in nodes]
        if subgraphs:
            return [(t, [g.SerializeToString() for g in gs]) for t, gs in out]
        return out

    _same(build, message=True)


@pytest.mark.parametrize(
    "build",
    [
        lambda m, h: h.printable_attribute(m.AttributeProto(name="t", t=m.TensorProto())),
        lambda m, h: h.printable_attribute(
            m.AttributeProto(name="t", t=m.TensorProto(data_type=99))
        ),
        lambda m, h: h.printable_tensor_proto(m.TensorProto(data_type=99)),
        lambda m, h: h.printable_tensor_proto(m.TensorProto(name="w", data_type=1, dims=[2, 3])),
        lambda m, h: h.printable_tensor_proto(m.TensorProto()),
        lambda m, h: h.printable_type(m.TypeProto(tensor_type=m.TypeProto.Tensor(elem_type=99))),
        lambda m, h: h.printable_type(m.TypeProto()),
        lambda m, h: h.printable_type(h.make_tensor_type_proto(1, None)),
        lambda m, h: h.printable_type(h.make_tensor_type_proto(1, [])),
        lambda m, h: h.printable_type(h.make_sequence_type_proto(m.TypeProto())),
        lambda m, h: h.printable_type(h.make_map_type_proto(1, m.TypeProto())),
        lambda m, h: h.printable_value_info(m.ValueInfoProto(name="v")),
        lambda m, h: h.printable_value_info(h.make_tensor_value_info("v", 7, ["N", None, 3])),
        lambda m, h: [h.printable_dim(d) for d in
                      h.make_tensor_type_proto(1, ["N", None, 0]).tensor_type.shape.dim],
    ],
)  # fmt: skip
def test_printers_of_types_and_tensors(build: Build) -> None:
    _same(build, message=True)


def _without_doc_strings(m: ModuleType, h: ModuleType) -> Any:
    """The model of ``_model`` with every doc_string cleared by hand, field by field."""
    model = _model(m, h)
    model.ClearField("doc_string")
    model.graph.ClearField("doc_string")
    for node in [*model.graph.node, *model.functions[0].node]:
        node.ClearField("doc_string")
    for info in [*model.graph.input, *model.graph.output, *model.graph.value_info]:
        info.ClearField("doc_string")
    model.functions[0].ClearField("doc_string")
    return model


def test_strip_doc_string_clears_every_doc_string() -> None:
    # onnx 1.23.2's own fails with protobuf 7 (FieldDescriptor.label is gone),
    # so the reference is the model cleared by hand.
    model = _model(onnxdata, helper)
    helper.strip_doc_string(model)
    assert "doc_string" not in str(model)
    assert model.SerializeToString() == _without_doc_strings(onnx, onnx.helper).SerializeToString()
    assert not model.graph.node[0].HasField("doc_string")


def test_strip_doc_string_leaves_unset_messages_unset() -> None:
    node = onnxdata.NodeProto(op_type="A", doc_string="d")
    helper.strip_doc_string(node)
    assert node.SerializeToString() == b'"\x01A'
    with pytest.raises(TypeError, match="proto must be an instance of"):
        helper.strip_doc_string(onnx.NodeProto())
