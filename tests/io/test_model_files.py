"""An ONNX model file (a ``ModelProto``) is read as one where the type is detected.

``load(path)`` and ``onnxdata show`` would otherwise return a data message made
of unknown fields.  Models built with ``onnx.helper`` (tiny graphs,
initializers, opsets, metadata, functions, training info) and every ``.onnx``
file of onnx's own package are detected as ``ModelProto``, whatever the file's
name; no data message of the corpus or of the strategies is; and a caller who
names the type gets what protobuf gives for the bytes.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Any

import google.protobuf.message
import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from onnx import TensorProto as T
from onnx import helper, numpy_helper

import onnxdata
from onnxdata import DecodeError, TensorProto, load
from onnxdata._io.models import is_model
from onnxdata._io.type_detection import detect
from onnxdata.cli import main
from tests.support.message_strategies import any_message, scaled
from tests.support.paths import DATA


def _graph(name: str = "g", initializer: bool = True) -> onnx.GraphProto:
    x = helper.make_tensor_value_info("x", T.FLOAT, [2])
    y = helper.make_tensor_value_info("y", T.FLOAT, [2])
    inits = [numpy_helper.from_array(np.ones(2, np.float32), "w")] if initializer else []
    node = helper.make_node("Add", ["x", "w" if initializer else "x"], ["y"], name="add")
    return helper.make_graph([node], name, [x], [y], initializer=inits)


def _function() -> onnx.FunctionProto:
    node = helper.make_node("Neg", ["a"], ["b"])
    return helper.make_function("custom", "Negate", ["a"], ["b"], [node],
                                [helper.make_opsetid("", 17)])  # fmt: skip


def _models() -> dict[str, onnx.ModelProto]:
    opsets = [helper.make_opsetid("", 17)]
    plain = helper.make_model(_graph(), opset_imports=opsets)
    bare = helper.make_model(_graph(initializer=False), opset_imports=opsets)
    meta = helper.make_model(_graph(), opset_imports=opsets, producer_name="p",
                             producer_version="1", domain="d", model_version=3,
                             doc_string="doc")  # fmt: skip
    helper.set_model_props(meta, {"author": "me", "license": "none"})
    functions = helper.make_model(
        _graph(), opset_imports=[*opsets, helper.make_opsetid("custom", 1)],
        functions=[_function()],
    )  # fmt: skip
    training = helper.make_model(_graph(), opset_imports=opsets)
    training.training_info.add().algorithm.CopyFrom(_graph("train"))
    empty_graph = helper.make_model(helper.make_graph([], "e", [], []), opset_imports=opsets)
    no_opsets = onnx.ModelProto(ir_version=onnx.IR_VERSION, graph=_graph())
    only_functions = onnx.ModelProto(ir_version=onnx.IR_VERSION, opset_import=opsets,
                                     functions=[_function()])  # fmt: skip
    return {
        "plain": plain,
        "no initializer": bare,
        "metadata": meta,
        "functions": functions,
        "training_info": training,
        "empty graph": empty_graph,
        "no opset_import": no_opsets,
        "functions, no graph": only_functions,
    }


MODELS = _models()
ONNX_FILES = sorted(
    glob.glob(os.path.join(os.path.dirname(onnx.__file__), "**", "*.onnx"), recursive=True)
)


@pytest.mark.parametrize("name", list(MODELS))
def test_load_detects_a_model(name: str, tmp_path: Path) -> None:
    data = MODELS[name].SerializeToString()
    for file_name in ("model.onnx", "model.bin"):  # by its shape, not only by its name
        path = tmp_path / file_name
        path.write_bytes(data)
        for mmap in (True, False):
            model = load(path, mmap=mmap)
            assert type(model) is onnxdata.ModelProto
            assert model.encode() == data
    found = detect(memoryview(data))
    assert found.type is onnxdata.ModelProto and found.ties == ()
    assert found.result.encode() == data


@pytest.mark.parametrize("name", list(MODELS))
def test_a_named_type_decodes_a_model_as_protobuf_does(name: str, tmp_path: Path) -> None:
    data = MODELS[name].SerializeToString()
    path = tmp_path / "model.onnx"
    path.write_bytes(data)
    try:
        theirs = onnx.TensorProto.FromString(data)
    except google.protobuf.message.DecodeError:  # e.g. producer_version read as a segment
        for read in (lambda: TensorProto.decode(data), lambda: load(path, TensorProto)):
            with pytest.raises(DecodeError):
                read()
        return
    # protobuf reads ir_version as dims, the graph as int64_data, ...
    for ours in (TensorProto.decode(data), load(path, TensorProto)):
        assert ours.encode() == theirs.SerializeToString()
        assert list(ours.dims) == list(theirs.dims)
        assert ours.HasField("name") == theirs.HasField("name")
    assert onnxdata.load_tensor(str(path)).encode() == theirs.SerializeToString()


@pytest.mark.skipif(not ONNX_FILES, reason="onnx's package holds no .onnx file here")
def test_every_model_of_onnx_s_package_is_detected() -> None:
    for path in ONNX_FILES:
        with open(path, "rb") as f:
            data = f.read()
        assert is_model(data), path
        assert type(detect(memoryview(data)).result) is onnxdata.ModelProto, path


def test_the_data_corpus_is_read_not_refused() -> None:
    files = sorted(DATA.glob("*.pb"))
    assert files
    for path in files:
        data = path.read_bytes()
        assert not is_model(data), path.name
        assert load(path).encode() == data


@pytest.mark.skipif(not ONNX_FILES, reason="onnx's package holds no .onnx file here")
def test_the_data_files_beside_onnx_s_models_are_read_not_refused() -> None:
    folder = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
    files = sorted(glob.glob(os.path.join(folder, "**", "*.pb"), recursive=True))
    for path in files:
        with open(path, "rb") as f:
            assert not is_model(f.read()), path


@settings(max_examples=scaled(0.5), suppress_health_check=[HealthCheck.too_slow])
@given(any_message(big=False))
def test_no_data_message_is_taken_for_a_model(message: Any) -> None:
    data = message.encode()
    assert not is_model(data)
    assert detect(memoryview(data), False).type is not onnxdata.ModelProto


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x08\x09",  # ir_version alone
        b"\x08\x09\x3a\x00\x3a\x00",  # graph twice: protobuf writes it once
        b"\x08\x09\x42\x02\x08\x01",  # an opset_import whose domain is a varint
        b"\x08\x09\x3a\x02\x08\x01",  # a graph whose node is a varint
        b"\x08\x09\x12\x01",  # cut short
        b"\x0a\x00\x3a\x00",  # field 1 length-delimited: TensorProto's packed dims
    ],
)
def test_bytes_that_are_not_a_model(data: bytes) -> None:
    assert not is_model(data)


# -- the command line -----------------------------------------------------------------


def test_show_with_a_type_reads_a_model_as_that_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(MODELS["plain"].SerializeToString())
    assert main(["show", "--type", "tensor", str(path)]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith(f"{path}: TensorProto\n")
    assert f"dims=[{MODELS['plain'].ir_version}]" in out  # ir_version, read as a dimension
