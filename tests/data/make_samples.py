"""Regenerate the sample ``.pb`` files in this folder.

    python tests/data/make_samples.py

Four files are copied from the ``onnx`` wheel's backend test data
(``onnx/backend/test/data``, Apache-2.0, from onnx 1.23.2); the others are
built here with the oracle (protobuf's own ``onnx`` classes), so every file is
exactly what protobuf writes.  The files are committed: the tests only read
them, and the Pyodide check copies them into its in-memory file system.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import onnx
from onnx import helper

HERE = Path(__file__).resolve().parent

COPIED = {
    "onnx_float_1x1000.pb": "light/light_resnet50_output_0.pb",
    "onnx_double_named.pb": "simple/test_sequence_model7/test_data_set_0/output_0.pb",
    "onnx_int64_shape.pb": "simple/test_expand_shape_model1/test_data_set_0/input_1.pb",
    "onnx_string_tensor.pb": (
        "simple/test_strnorm_model_monday_insensintive_upper_twodim/test_data_set_0/input_0.pb"
    ),
}


def _tensors() -> list[onnx.TensorProto]:
    t = onnx.TensorProto
    return [
        helper.make_tensor(
            "f", t.FLOAT, [2, 2], struct.pack("<4f", 1.0, -2.5, 3.25, float("inf")), raw=True
        ),
        helper.make_tensor("i", t.INT32, [3], [1, -1, 2**31 - 1]),
        helper.make_tensor("s", t.STRING, [2], [b"hello", "w\u00f6rld".encode()]),
    ]


def _model() -> onnx.ModelProto:
    """A small model with a subgraph (an ``If``), attributes of several kinds,
    an initializer, and inputs of tensor, sequence and optional types."""
    t = onnx.TensorProto
    branch = helper.make_graph(
        [helper.make_node("Identity", ["w"], ["y_then"])],
        "then",
        [],
        [helper.make_tensor_value_info("y_then", t.FLOAT, [2, "n"])],
    )
    other = helper.make_graph(
        [helper.make_node("Neg", ["w"], ["y_else"], name="neg")],
        "else",
        [],
        [helper.make_tensor_value_info("y_else", t.FLOAT, [2, "n"])],
    )
    nodes = [
        helper.make_node("If", ["cond"], ["y"], then_branch=branch, else_branch=other),
        helper.make_node(
            "LeakyRelu", ["y"], ["z"], alpha=0.25, doc_string="a float attribute"
        ),
        helper.make_node(
            "Custom", ["z", "s"], ["out"], domain="example.domain",
            ints=[1, -2, 3], floats=[0.5, -1.5], strings=[b"a", b"bc"], name="custom",
        ),
    ]  # fmt: skip
    graph = helper.make_graph(
        nodes,
        "sample",
        [
            helper.make_tensor_value_info("cond", t.BOOL, []),
            helper.make_tensor_sequence_value_info("s", t.INT64, None),
            helper.make_value_info(
                "o", helper.make_optional_type_proto(helper.make_tensor_type_proto(t.FLOAT, [3]))
            ),
        ],
        [helper.make_tensor_value_info("out", t.FLOAT, [2, "n"])],
        initializer=[helper.make_tensor("w", t.FLOAT, [2, 1], [1.0, -2.0])],
    )
    model = helper.make_model(
        graph,
        producer_name="onnxdata samples",
        opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("example.domain", 1)],
    )
    helper.set_model_props(model, {"purpose": "tests"})
    return model


def built() -> dict[str, bytes]:
    """The generated samples, by file name."""
    t = onnx.TensorProto
    seq = helper.make_sequence("seq", onnx.SequenceProto.TENSOR, _tensors())

    keys = [1, -2, 3]
    values = helper.make_sequence("v", onnx.SequenceProto.TENSOR, _tensors())
    int_map = helper.make_map("m", t.INT64, keys, values)

    skeys = [b"a", b"bb"]
    svalues = helper.make_sequence("v", onnx.SequenceProto.TENSOR, _tensors()[:2])
    str_map = helper.make_map("sm", t.STRING, skeys, svalues)

    opt = helper.make_optional("o", onnx.OptionalProto.SEQUENCE, seq)

    sparse = helper.make_sparse_tensor(
        helper.make_tensor("vals", t.FLOAT, [3], [1.5, 2.5, -0.0]),
        helper.make_tensor("idx", t.INT64, [3], [0, 5, 11]),
        [3, 4],
    )

    full = onnx.TensorProto(
        dims=[2, 3],
        data_type=t.FLOAT,
        name="full",
        doc_string="every kind of field",
        float_data=[0.5, -1.0, 1e-30, 3.0e38, float("nan"), -0.0],
        int32_data=[-5, 7],
        int64_data=[-(2**63), 2**63 - 1],
        double_data=[1.0 / 3.0],
        uint64_data=[2**64 - 1, 0],
        string_data=[b"\xff\x00"],
    )
    full.segment.begin = 0
    full.segment.end = 6
    entry = full.external_data.add()
    entry.key = "location"
    entry.value = "weights.bin"
    full.data_location = t.DEFAULT

    return {
        "model_if_subgraph.onnx": _model().SerializeToString(),
        "sequence_of_tensors.pb": seq.SerializeToString(),
        "map_int64_keys.pb": int_map.SerializeToString(),
        "map_string_keys.pb": str_map.SerializeToString(),
        "optional_sequence.pb": opt.SerializeToString(),
        "sparse_tensor.pb": sparse.SerializeToString(),
        "tensor_all_fields.pb": full.SerializeToString(),
    }


def main() -> None:
    src = Path(onnx.__file__).resolve().parent / "backend" / "test" / "data"
    for name, rel in COPIED.items():
        shutil.copyfile(src / rel, HERE / name)
    for name, data in built().items():
        (HERE / name).write_bytes(data)


if __name__ == "__main__":
    main()
