"""``helper``'s makers of nodes, graphs, functions, models, types and value infos
against onnx 1.23.2's: the same bytes, the same text format, the same
exception classes, for the same calls."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import onnx
import pytest

import onnxdata
from onnxdata import helper
from tests.messages.test_helper_attributes import _same

Build = Callable[[ModuleType, ModuleType], Any]


def _body(m: ModuleType, h: ModuleType) -> Any:
    dt = m.TensorProto
    return h.make_graph(
        [h.make_node("Add", ["a", "b"], ["c"], name="add")],
        "body",
        [h.make_tensor_value_info("a", dt.FLOAT, [])],
        [h.make_tensor_value_info("c", dt.FLOAT, None)],
    )


def _model(m: ModuleType, h: ModuleType) -> Any:
    """A model using every maker, the way converters build one."""
    dt, at = m.TensorProto, m.AttributeProto
    sub = _body(m, h)
    nodes = [
        h.make_node("Conv", ["X", "W"], ["Y"], name="conv", doc_string="d", domain="",
                    kernel_shape=[3, 3], pads=np.array([1, 1, 1, 1]), alpha=0.1,
                    mode="x", auto_pad=b"SAME", none=None),
        h.make_node("If", ["cond"], ["Z"], then_branch=sub, else_branch=sub, gs=[sub, sub],
                    tp=h.make_tensor_type_proto(dt.INT64, ["N", 3, None], ["a", "b", "c"])),
        h.make_node("Custom", [], ["W"], domain="my.domain", overload="ov"),
    ]  # fmt: skip
    nodes[2].attribute.extend([h.make_attribute("e", [], attr_type=at.INTS)])
    inputs = [
        h.make_tensor_value_info("X", dt.FLOAT, ["N", 3, 224, 224], doc_string="in"),
        h.make_sparse_tensor_value_info("S", dt.FLOAT, [2, 2], "doc", ["r", "c"]),
        h.make_tensor_sequence_value_info("Q", dt.INT32, [1]),
        h.make_tensor_value_info("W", dt.FLOAT, [2]),
    ]
    map_type = h.make_map_type_proto(
        dt.INT64, h.make_sequence_type_proto(h.make_tensor_type_proto(dt.FLOAT, []))
    )
    outputs = [
        h.make_value_info("Y", h.make_optional_type_proto(map_type), "out"),
        h.make_empty_tensor_value_info("E"),
    ]
    graph = h.make_graph(
        nodes, "main", inputs, outputs,
        initializer=[h.make_tensor("W", dt.FLOAT, [2], [1, 2]),
                     h.make_tensor("extra", dt.INT64, [], [1])],
        doc_string="graph doc",
        value_info=[h.make_tensor_value_info("Z", dt.BOOL, [1])],
        sparse_initializer=[h.make_sparse_tensor(h.make_tensor("v", dt.FLOAT, [1], [1]),
                                                 h.make_tensor("i", dt.INT64, [1], [0]), [3])],
    )  # fmt: skip
    function = h.make_function(
        "my.domain", "Custom", ["x"], ["y"], [h.make_node("Identity", ["x"], ["y"])],
        [h.make_opsetid("", 18)], attributes=["a"],
        attribute_protos=[h.make_attribute_ref("b", at.FLOAT)], doc_string="fd",
        overload="ov", value_info=[h.make_tensor_value_info("x", dt.FLOAT, [1])],
    )  # fmt: skip
    model = h.make_model(
        graph,
        opset_imports=[h.make_opsetid("", 17), h.make_operatorsetid("my.domain", 1)],
        functions=[function], producer_name="p", model_version=3, doc_string="md",
    )  # fmt: skip
    h.set_model_props(model, {"k": "v", "a": "b"})
    h.set_metadata_props(model.graph.node[0], {"n": "1"})
    model.training_info.extend([h.make_training_info(sub, [("a", "b")], sub, [("c", "d")])])
    return model


def test_a_model_of_every_maker_has_onnx_s_bytes_and_text() -> None:
    ours, theirs = _model(onnxdata, helper), _model(onnx, onnx.helper)
    assert ours.SerializeToString() == theirs.SerializeToString()
    assert str(ours) == str(theirs)
    assert onnxdata.ModelProto.decode(ours.encode()) == ours


MODELS: list[Build] = [
    lambda m, h: h.make_model(_body(m, h)),
    lambda m, h: h.make_model(_body(m, h), ir_version=7, producer_version="1", domain="d"),
    lambda m, h: h.make_model(_body(m, h), opset_imports=[]),
    lambda m, h: h.make_model(_body(m, h), functions=[]),
    lambda m, h: h.make_model(_body(m, h), bogus=1),
    lambda m, h: h.make_model(_body(m, h), opset_import=[]),
    lambda m, h: h.make_model(_body(m, h), metadata_props=[]),
    lambda m, h: h.make_model(_body(m, h), training_info=[]),
    lambda m, h: h.make_model(_body(m, h), ir_version="3"),
    lambda m, h: h.make_model(_body(m, h), ir_version=2**63),
    lambda m, h: h.make_model(_body(m, h), producer_name=b"bytes"),
    lambda m, h: h.make_model(_body(m, h), producer_name=1),
    lambda m, h: h.make_model(m.NodeProto()),
    lambda m, h: h.make_model(_body(m, h), opset_imports=[m.NodeProto()]),
    lambda m, h: h.make_model_gen_version(_body(m, h)),
    lambda m, h: h.make_model_gen_version(
        _body(m, h), opset_imports=[h.make_opsetid("", 13), h.make_opsetid("ai.onnx.ml", 2)]
    ),
    lambda m, h: h.make_model_gen_version(_body(m, h), opset_imports=[h.make_opsetid("x", 1)]),
    lambda m, h: h.make_model_gen_version(_body(m, h), ir_version=5),
]


@pytest.mark.parametrize("build", MODELS)
def test_make_model(build: Build) -> None:
    _same(build)


NODES: list[Build] = [
    lambda m, h: h.make_node("A", ["x", ""], ["y"]),
    lambda m, h: h.make_node("A", "xy", ("y",)),
    lambda m, h: h.make_node("A", [], [], name="", doc_string="", domain=None, overload=""),
    lambda m, h: h.make_node("A", ["x"], ["y"], name=b"n"),
    lambda m, h: h.make_node("A", ["x"], ["y"], name=b"\xff"),
    lambda m, h: h.make_node("A", ["x", 1], ["y"]),
    lambda m, h: h.make_node("A", None, ["y"]),
    lambda m, h: h.make_node(1, ["x"], ["y"]),
    lambda m, h: h.make_node("A", ["x"], ["y"], domain=1),
    lambda m, h: h.make_node("A", [], [], z=1, a=2.0, m="s"),
    lambda m, h: h.make_node("A", [], [], a=[]),
    lambda m, h: h.make_node("A", [], [], a=object()),
    lambda m, h: h.make_opsetid("", 2**64),
    lambda m, h: h.make_opsetid("", True),
    lambda m, h: h.make_opsetid("", 1.0),
    lambda m, h: h.make_operatorsetid(None, 1),
    lambda m, h: h.make_graph([], "g", [], []),
    lambda m, h: h.make_graph([m.TensorProto()], "g", [], []),
    lambda m, h: h.make_graph([], 1, [], []),
    lambda m, h: h.make_graph(None, "g", [], []),
    lambda m, h: h.make_graph([], "g", [], [], initializer=[m.SparseTensorProto()]),
    lambda m, h: h.make_function("d", "f", [], [], [], []),
    lambda m, h: h.make_function("d", "f", ["x"], ["y"], [], [], overload="", doc_string=""),
    lambda m, h: h.make_function("d", "f", [], [], [], [m.NodeProto()]),
    lambda m, h: h.make_training_info(_body(m, h), [], None, None),
    lambda m, h: h.make_training_info(_body(m, h), [("a", 1)], None, None),
    lambda m, h: h.make_training_info(m.NodeProto(), [], None, None),
]


@pytest.mark.parametrize("build", NODES)
def test_makers(build: Build) -> None:
    _same(build)


TYPES: list[Build] = [
    lambda m, h: h.make_tensor_type_proto(1, None),
    lambda m, h: h.make_tensor_type_proto(1, []),
    lambda m, h: h.make_tensor_type_proto(0, [1, "a", None]),
    lambda m, h: h.make_tensor_type_proto(1, [1, "a", None, 1.5]),
    lambda m, h: h.make_tensor_type_proto(1, [np.int64(1)]),
    lambda m, h: h.make_tensor_type_proto(1, [True]),
    lambda m, h: h.make_tensor_type_proto(1, [2**64]),
    lambda m, h: h.make_tensor_type_proto(1, [-1]),
    lambda m, h: h.make_tensor_type_proto(1.0, [1]),
    lambda m, h: h.make_tensor_type_proto(99, [1]),
    lambda m, h: h.make_tensor_type_proto(2**40, [1]),
    lambda m, h: h.make_tensor_type_proto(1, [1], ["a", "b"]),
    lambda m, h: h.make_tensor_type_proto(1, [1, 2], ["a", ""]),
    lambda m, h: h.make_tensor_type_proto(1, [1], []),
    lambda m, h: h.make_tensor_type_proto(1, None, ["a"]),
    lambda m, h: h.make_sparse_tensor_type_proto(1, [1, "a", None]),
    lambda m, h: h.make_sparse_tensor_type_proto(1, None),
    lambda m, h: h.make_sparse_tensor_type_proto(1, [1.5]),
    lambda m, h: h.make_sequence_type_proto(h.make_tensor_type_proto(1, [])),
    lambda m, h: h.make_sequence_type_proto(m.TypeProto()),
    lambda m, h: h.make_sequence_type_proto(m.NodeProto()),
    lambda m, h: h.make_optional_type_proto(h.make_sparse_tensor_type_proto(1, [2])),
    lambda m, h: h.make_map_type_proto(m.TensorProto.STRING, m.TypeProto()),
    lambda m, h: h.make_map_type_proto(2**40, m.TypeProto()),
    lambda m, h: h.make_value_info("v", m.TypeProto()),
    lambda m, h: h.make_value_info("v", m.TypeProto(), doc_string="d"),
    lambda m, h: h.make_value_info("v", None),
    lambda m, h: h.make_empty_tensor_value_info("e"),
    lambda m, h: h.make_empty_tensor_value_info(None),
    lambda m, h: h.make_tensor_value_info("x", 1, None),
    lambda m, h: h.make_tensor_value_info("x", 1, [], "doc", []),
    lambda m, h: h.make_sparse_tensor_value_info("x", 1, None),
    lambda m, h: h.make_tensor_sequence_value_info("x", 1, ["N"], "d", ["batch"]),
]


@pytest.mark.parametrize("build", TYPES)
def test_type_and_value_info_makers(build: Build) -> None:
    _same(build)


def test_makers_copy_what_they_are_given() -> None:
    node = helper.make_node("Relu", ["x"], ["y"])
    graph = helper.make_graph([node], "g", [], [])
    node.op_type = "Changed"
    model = helper.make_model(graph)
    graph.name = "changed"
    assert graph.node[0].op_type == "Relu" and model.graph.name == "g"


def test_makers_take_onnx_s_messages() -> None:
    ours = helper.make_model(_body(onnx, onnx.helper), functions=[onnx.FunctionProto()])
    theirs = onnx.helper.make_model(_body(onnx, onnx.helper), functions=[onnx.FunctionProto()])
    assert ours.SerializeToString() == theirs.SerializeToString()
    assert isinstance(ours.graph.node[0], onnxdata.NodeProto)


def test_a_mapped_initializer_is_copied() -> None:
    tensor = onnxdata.TensorProto(name="w", data_type=1, dims=[1], raw_data=b"\0\0\x80?")
    viewed = onnxdata.TensorProto.decode(tensor.encode(), copy=False)
    assert isinstance(viewed.raw_data, memoryview)
    graph = helper.make_graph([], "g", [], [], initializer=[viewed])
    assert bytes(graph.initializer[0].raw_data) == b"\0\0\x80?"


def test_version_tables_are_onnx_s() -> None:
    assert helper.VERSION_TABLE == onnx.helper.VERSION_TABLE
    assert helper.OP_SET_ID_VERSION_MAP == onnx.helper.OP_SET_ID_VERSION_MAP
    table = onnx.helper.VERSION_TABLE[:5]
    assert helper._create_op_set_id_version_map(table) == (
        onnx.helper._create_op_set_id_version_map(table)
    )
    # make_model's default opset is onnx's newest, the table's last row
    assert helper.make_model(helper.make_graph([], "g", [], [])).opset_import[0].version == (
        onnx.defs.onnx_opset_version()
    )


@pytest.mark.parametrize(
    "opsets",
    [[], [("", 1)], [("", 28), ("ai.onnx.ml", 5)], [("ai.onnx.preview.training", 1)],
     [("ai.onnx.training", 1)], [("custom", 1)], [("", 99)]],
)  # fmt: skip
@pytest.mark.parametrize("ignore_unknown", [False, True])
def test_find_min_ir_version_for(opsets: list[tuple[str, int]], ignore_unknown: bool) -> None:
    _same(
        lambda m, h: h.find_min_ir_version_for(
            [h.make_opsetid(d, v) for d, v in opsets], ignore_unknown
        ),
        message=True,
    )


@pytest.mark.parametrize("cls", ["ModelProto", "GraphProto", "FunctionProto", "NodeProto",
                                 "TensorProto", "ValueInfoProto", "AttributeProto"])  # fmt: skip
def test_set_metadata_props(cls: str) -> None:
    def build(m: ModuleType, h: ModuleType) -> Any:
        proto = getattr(m, cls)()
        h.set_metadata_props(proto, {"a": "1"})
        h.set_metadata_props(proto, {"b": "2", "c": "3"})
        return proto

    _same(build)


MODEL_FILES = sorted(Path(onnx.__file__).parent.rglob("*.onnx"))


def test_copies_of_real_models_have_their_bytes() -> None:
    """The makers' copy (slot by slot) of every model in onnx's package, decoded
    with and without views over the bytes, encodes to the bytes it came from,
    and shares no container with the original."""
    assert len(MODEL_FILES) > 100
    for path in MODEL_FILES:
        data = path.read_bytes()
        for copy in (True, False):
            model = onnxdata.ModelProto.decode(data, copy=copy)
            made = helper.make_model(model.graph, **_fields_of(model))
            made.opset_import[:] = model.opset_import
            assert made.graph.encode() == model.graph.encode(), path.name
            assert made.graph == model.graph
            for a, b in zip(made.graph.node, model.graph.node, strict=True):
                assert a is not b and a.input is not b.input
            raws = [t.raw_data for t in made.graph.initializer if t.HasField("raw_data")]
            assert not any(isinstance(r, memoryview) for r in raws), path.name


def _fields_of(model: Any) -> dict[str, Any]:
    return {k: getattr(model, k) for k in ("ir_version", "producer_name") if model.HasField(k)}


def test_a_copy_keeps_unknown_fields_and_values_the_encoder_refuses() -> None:
    node = onnxdata.NodeProto.decode(b'"\x01A' + b"\xa8\x06\x2a")  # op_type A, field 101
    graph = helper.make_graph([node], "g", [], [])
    assert graph.node[0].unknown_fields == b"\xa8\x06\x2a"
    odd = onnxdata.NodeProto(op_type="A")
    odd.input = [1]  # kept as given by onnxdata; encode() refuses it, naming the field
    copied = helper.make_graph([odd], "g", [], [])
    with pytest.raises(onnxdata.EncodeError, match="input"):
        copied.encode()


# What onnx.helper's namespace holds that is no part of its API: modules and
# typing names it imports, and private helpers its tests do not use.
NOT_API = {
    "TYPE_CHECKING", "TypeVar", "collections", "defs", "functools", "google", "numbers",
    "onnx", "typing", "typing_extensions", "_mapping", "_sanitize_str", "_to_bytes",
    "_ATTRIBUTE_TYPE_TO_STR",
}  # fmt: skip


def test_every_name_of_onnx_s_helper_is_here() -> None:
    theirs = {n for n in dir(onnx.helper) if not n.startswith("__")}
    assert theirs - set(dir(helper)) == NOT_API
    assert helper.NodeProto is onnxdata.NodeProto  # as onnx.helper.NodeProto is onnx's


def test_data_makers_copy_tensors_viewing_a_mapped_file() -> None:
    """make_sparse_tensor, make_sequence, make_optional, make_map copy a tensor
    whose raw_data is a view (``copy.deepcopy`` cannot: a memoryview does not pickle)."""
    data = helper.make_tensor("v", onnxdata.TensorProto.FLOAT, [1], b"\0\0\x80?", raw=True).encode()
    view = onnxdata.TensorProto.decode(data, copy=False)
    assert isinstance(view.raw_data, memoryview)
    indices = helper.make_tensor("i", onnxdata.TensorProto.INT64, [1], [0])
    sparse = helper.make_sparse_tensor(view, indices, [3])
    seq = helper.make_sequence("s", onnxdata.SequenceProto.TENSOR, [view])
    opt = helper.make_optional("o", onnxdata.OptionalProto.TENSOR, view)
    mapped = helper.make_map("m", onnxdata.TensorProto.INT64, [1], seq)
    for tensor in (sparse.values, seq.tensor_values[0], opt.tensor_value,
                   mapped.values.tensor_values[0]):  # fmt: skip
        assert type(tensor.raw_data) is bytes and tensor.encode() == data
