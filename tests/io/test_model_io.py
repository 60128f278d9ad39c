"""``load_model``/``save_model`` and friends give onnx's values, bytes and errors.

Every model of onnx's package loads to the bytes upb gives; a mapped model's
initializers are read-only views of the file that still behave as ordinary
fields; the formats (protobuf, text, JSON) are chosen by name or extension,
for paths and file objects; missing files, unknown formats and corrupt
bytes raise what onnx raises (protobuf's ``DecodeError`` becomes ours);
``save_model`` writes onnx's bytes and refuses a model over 2 GiB as onnx
does, without writing anything.
"""

from __future__ import annotations

import glob
import io
import mmap
import os
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from google.protobuf import json_format
from onnx import TensorProto as T
from onnx import helper
from onnx import numpy_helper as onnx_numpy

import onnxdata
from onnxdata import DecodeError, ModelProto, numpy_helper
from onnxdata._core import mapped
from onnxdata._io.formats import MAX_PROTOBUF, TOO_LARGE

ONNX_FILES = sorted(
    glob.glob(os.path.join(os.path.dirname(onnx.__file__), "**", "*.onnx"), recursive=True)
)


def small_model(weights: int = 64) -> onnx.ModelProto:
    """A MatMul with a ``weights`` x ``weights`` float initializer and a small one."""
    w = onnx_numpy.from_array(np.arange(weights * weights, dtype=np.float32).reshape(
        weights, weights), "w")  # fmt: skip
    b = onnx_numpy.from_array(np.ones(3, np.int64), "b")
    x = helper.make_tensor_value_info("x", T.FLOAT, [1, weights])
    y = helper.make_tensor_value_info("y", T.FLOAT, [1, weights])
    node = helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")
    graph = helper.make_graph([node], "g", [x], [y], initializer=[w, b])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.skipif(not ONNX_FILES, reason="onnx's package holds no .onnx file here")
def test_every_model_of_onnx_s_package_loads_to_upb_s_bytes_text_and_json() -> None:
    for path in ONNX_FILES:
        theirs = onnx.load(path)
        for ours in (onnxdata.load_model(path), onnxdata.load(path)):
            assert type(ours) is ModelProto
            assert ours.encode() == theirs.SerializeToString(), path
        if os.path.getsize(path) < 100_000:  # the text formats' own tests cover the rest
            assert str(ours) == str(theirs), path
            assert onnxdata.json_format.MessageToJson(ours) == json_format.MessageToJson(theirs)


def test_a_mapped_model_s_initializers_are_views_that_behave_as_fields(tmp_path: Path) -> None:
    theirs = small_model()
    path = tmp_path / "m.onnx"
    onnx.save(theirs, path)
    data = path.read_bytes()
    model = onnxdata.load_model(path, mmap=True)
    raw = model.graph.initializer[0].raw_data
    assert isinstance(raw, memoryview) and raw.readonly
    assert mapped.is_mapped(raw)  # the mapping, not a copy of the file
    copied = onnxdata.load_model(path, copy=True)
    assert type(copied.graph.initializer[0].raw_data) is bytes
    read = onnxdata.load_model(path)  # the default: one buffer the model owns
    raw = read.graph.initializer[0].raw_data
    assert isinstance(raw, memoryview) and raw.readonly and not mapped.is_mapped(raw)
    assert type(raw.obj) is bytes and len(raw.obj) == len(data)
    assert model == copied == read
    assert model.encode() == data and str(model) == str(copied)
    other = ModelProto()
    other.CopyFrom(model)
    assert other.encode() == data


def test_formats_by_name_and_by_extension(tmp_path: Path) -> None:
    theirs = small_model(4)
    data = theirs.SerializeToString()
    for name, fmt in [("m.txtpb", "textproto"), ("m.json", "json"), ("m.pb", "protobuf")]:
        path = tmp_path / name
        onnx.save_model(theirs, path)
        assert onnxdata.load_model(path).encode() == data
        assert onnxdata.load_model(str(path), fmt).encode() == data
        assert onnxdata.load(path).encode() == data
        with open(path, "rb") as f:  # the format from the file object's name
            assert onnxdata.load_model(f).encode() == data
        ours = tmp_path / ("ours-" + name)
        onnxdata.save_model(onnxdata.load_model(path), ours)
        assert ours.read_bytes() == path.read_bytes()
        buf = io.BytesIO()
        onnxdata.save_model(onnxdata.load_model(path), buf, fmt)
        expected = io.BytesIO()
        onnx.save_model(theirs, expected, fmt)
        assert buf.getvalue() == expected.getvalue()
        assert onnxdata.load_model_from_string(buf.getvalue(), fmt).encode() == data
    assert onnxdata.load_from_string(data).encode() == data
    assert onnxdata.load_model(io.BytesIO(data)).encode() == data


def test_load_tells_models_from_data_files(tmp_path: Path) -> None:
    tensor = onnxdata.TensorProto(dims=[2], data_type=1, float_data=[1.0, 2.0], name="t")
    onnxdata.save(tensor, tmp_path / "t.pb")
    assert type(onnxdata.load(tmp_path / "t.pb")) is onnxdata.TensorProto
    assert type(onnxdata.load(io.BytesIO(tensor.encode()))) is onnxdata.TensorProto
    # A ".onnx" file is a model whatever it holds, as in onnx (an empty one too).
    (tmp_path / "empty.onnx").write_bytes(b"")
    assert onnxdata.load(tmp_path / "empty.onnx") == ModelProto()
    assert onnxdata.load(tmp_path / "t.pb", type=onnxdata.TensorProto) == tensor
    assert onnxdata.save(onnx.load_from_string(small_model(2).SerializeToString()),
                         tmp_path / "m.onnx") is None  # fmt: skip
    assert onnxdata.save(tensor, tmp_path / "u.pb") == len(tensor.encode())


def test_errors_are_onnx_s(tmp_path: Path) -> None:
    for load in (onnx.load_model, onnxdata.load_model, onnxdata.load):
        with pytest.raises(FileNotFoundError):
            load(tmp_path / "absent.onnx")
        with pytest.raises(ValueError, match="Unsupported format: 'nope'"):
            load(io.BytesIO(b""), "nope")
    path = tmp_path / "corrupt.onnx"
    path.write_bytes(b"\x3a\x05\x0a")  # a graph whose length runs past the end
    with pytest.raises(DecodeError) as err:
        onnxdata.load_model(path)
    assert "ModelProto.graph" in str(err.value) and err.value.offset >= 0
    with pytest.raises(TypeError, match="must be bytes"):
        onnxdata.load_model_from_string("text")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be bytes"):
        onnxdata.load_model(io.StringIO("text"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a directory"):
        onnxdata.load_model(tmp_path)  # onnx: IsADirectoryError
    with pytest.raises(TypeError):
        onnxdata.load_model(3.5)  # type: ignore[arg-type]
    with pytest.raises(DecodeError, match="max_size"):
        onnxdata.load_model(tmp_path / "corrupt.onnx", max_size=1)


def test_save_model_of_onnx_s_message_and_of_bytes(tmp_path: Path) -> None:
    theirs = small_model(4)
    onnxdata.save_model(theirs, tmp_path / "a.onnx")
    onnxdata.save_model(theirs.SerializeToString(), tmp_path / "b.onnx")
    onnx.save_model(theirs, tmp_path / "c.onnx")
    assert (tmp_path / "a.onnx").read_bytes() == (tmp_path / "c.onnx").read_bytes()
    assert (tmp_path / "b.onnx").read_bytes() == (tmp_path / "c.onnx").read_bytes()
    with pytest.raises(TypeError):
        onnxdata.save_model(theirs, 3.5)  # type: ignore[arg-type]


def _huge_model(tmp_path: Path) -> tuple[ModelProto, Any]:
    """A model whose one initializer is a view of a sparse 2 GiB file: big, cheap."""
    path = tmp_path / "sparse.bin"
    with open(path, "wb") as f:
        f.truncate(MAX_PROTOBUF + 1)
    with open(path, "rb") as f:
        mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    model = onnxdata.load_model_from_string(small_model(2).SerializeToString())
    model.graph.initializer[0].raw_data = memoryview(mapping)
    return model, mapping


def test_a_model_over_2_gib_is_refused_as_onnx_refuses_it_writing_nothing(tmp_path: Path) -> None:
    model, mapping = _huge_model(tmp_path)
    target = tmp_path / "big.onnx"
    target.write_bytes(b"old")
    with pytest.raises(ValueError) as err:
        onnxdata.save_model(model, target)
    assert str(err.value) == TOO_LARGE
    assert target.read_bytes() == b"old"
    buf = io.BytesIO()
    with pytest.raises(ValueError, match="2 GB limit"):
        onnxdata.save_model(model, buf)
    assert buf.getvalue() == b""
    with pytest.raises(ValueError, match="2 GB limit"):
        onnxdata.serialization.registry.get("protobuf").serialize_proto(model)
    assert sorted(os.listdir(tmp_path)) == ["big.onnx", "sparse.bin"]
    assert mapping.size() == MAX_PROTOBUF + 1  # never read: the file is sparse


def test_to_array_of_a_mapped_initializer_shares_the_mapping_when_aligned(tmp_path: Path) -> None:
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    for pad in range(8):  # moves the initializer's bytes through every alignment
        w = onnx_numpy.from_array(values, "w" + "x" * pad)
        graph = helper.make_graph([], "g", [], [], initializer=[w])
        path = tmp_path / f"m{pad}.onnx"
        onnx.save(helper.make_model(graph), path)
        tensor = onnxdata.load_model(path).graph.initializer[0]
        raw = np.frombuffer(tensor.raw_data, np.uint8)
        out = numpy_helper.to_array(tensor)
        np.testing.assert_array_equal(out, values)
        assert not out.flags.writeable and out.flags.aligned
        aligned = raw.ctypes.data % 4 == 0
        assert np.shares_memory(out, raw) == aligned, pad
