"""External data of models: onnx's files and values, read lazily, written in bounded memory.

``load_model`` maps each external file once and gives ``raw_data`` views of
it; the values, and the bytes the model re-encodes to, are onnx's.  The
reader's refusals (escaping or absolute locations, links, ranges past the
end) hold for models.  ``save_model(save_as_external_data=True)`` writes the
same model and data files as onnx, mutating the model as onnx does; the
tensor walkers visit onnx's tensors in onnx's order, subgraphs and functions
included.  A model with more than 2 GiB of weights (a sparse file: big on
disk, cheap to make) converts to and from external data while the Python
heap never holds its weights.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import external_data_helper as theirs_helper
from onnx import helper
from onnx import numpy_helper as onnx_numpy

import onnxdata
from onnxdata import ModelProto, external_data_helper, numpy_helper
from onnxdata._core import mapped
from onnxdata.checker import ValidationError
from tests.support.paths import ROOT


def _weights(name: str, n: int, seed: int) -> onnx.TensorProto:
    return onnx_numpy.from_array(np.arange(seed, seed + n, dtype=np.float32), name)


def nested_model() -> onnx.ModelProto:
    """Initializers in the graph and in If/Loop subgraphs, attribute tensors in
    the graph, in a subgraph and in a function: every place onnx looks."""
    const = helper.make_node("Constant", [], ["c"], value=_weights("attr", 300, 7))
    then_graph = helper.make_graph(
        [helper.make_node("Constant", [], ["t"], value=_weights("then_attr", 400, 1))],
        "then", [], [helper.make_tensor_value_info("t", T.FLOAT, [400])],
        initializer=[_weights("then_init", 500, 2)],
    )  # fmt: skip
    else_graph = helper.make_graph(
        [], "else", [], [helper.make_tensor_value_info("e", T.FLOAT, [600])],
        initializer=[_weights("e", 600, 3)],
    )  # fmt: skip
    if_node = helper.make_node("If", ["cond"], ["out"], then_branch=then_graph,
                               else_branch=else_graph)  # fmt: skip
    loop_body = helper.make_graph([], "body", [], [], initializer=[_weights("body", 700, 4)])
    loop = helper.make_node("Loop", ["", "cond"], [], body=loop_body)
    graph = helper.make_graph(
        [const, if_node, loop], "main",
        [helper.make_tensor_value_info("cond", T.BOOL, [])],
        [helper.make_tensor_value_info("out", T.FLOAT, None)],
        initializer=[_weights("w", 1000, 5), _weights("tiny", 3, 6)],
    )  # fmt: skip
    function = helper.make_function(
        "custom", "F", [], ["f"],
        [helper.make_node("Constant", [], ["f"], value=_weights("fn_attr", 800, 8))],
        [helper.make_opsetid("", 17)],
    )  # fmt: skip
    return helper.make_model(graph, functions=[function], opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("custom", 1)])  # fmt: skip


def _names(tensors: object) -> list[str]:
    return [t.name for t in tensors]  # type: ignore[attr-defined]


def test_the_walkers_visit_onnx_s_tensors_in_onnx_s_order() -> None:
    theirs = nested_model()
    ours = onnxdata.load_model_from_string(theirs.SerializeToString())
    pairs = [
        (external_data_helper.get_all_tensors, theirs_helper._get_all_tensors),
        (external_data_helper.get_initializer_tensors, theirs_helper._get_initializer_tensors),
        (external_data_helper.get_attribute_tensors, theirs_helper._get_attribute_tensors),
        (external_data_helper._get_all_tensors, theirs_helper._get_all_tensors),
    ]
    for mine, onnx_s in pairs:
        assert _names(mine(ours)) == _names(onnx_s(theirs))
        assert _names(mine(theirs)) == _names(onnx_s(theirs))  # onnx's message, read through bytes
    assert "then_init" in _names(external_data_helper.get_initializer_tensors(ours))


def test_a_model_nested_deeper_than_the_recursion_limit_is_walked() -> None:
    graph = onnxdata.GraphProto(name="g0")
    deepest = graph
    for i in range(sys.getrecursionlimit() + 50):
        body = onnxdata.GraphProto(name=f"g{i + 1}")
        attr = onnxdata.AttributeProto(name="body", type=onnxdata.AttributeProto.GRAPH, g=body)
        deepest.node.append(onnxdata.NodeProto(op_type="Loop", attribute=[attr]))
        deepest = body
    deepest.initializer.append(onnxdata.TensorProto(name="bottom", raw_data=b"x"))
    model = ModelProto(graph=graph)
    assert _names(external_data_helper.get_all_tensors(model)) == ["bottom"]


@pytest.mark.parametrize("one_file", [True, False])
@pytest.mark.parametrize("convert_attribute", [False, True])
def test_save_as_external_data_writes_onnx_s_files(
    tmp_path: Path, one_file: bool, convert_attribute: bool
) -> None:
    options = {"save_as_external_data": True, "all_tensors_to_one_file": one_file,
               "location": "weights.bin" if one_file else None, "size_threshold": 1024,
               "convert_attribute": convert_attribute}  # fmt: skip
    (tmp_path / "onnx").mkdir()
    (tmp_path / "ours").mkdir()
    theirs = nested_model()
    ours = onnxdata.load_model_from_string(theirs.SerializeToString())
    onnx.save_model(theirs, tmp_path / "onnx" / "m.onnx", **options)  # type: ignore[arg-type]
    onnxdata.save_model(ours, tmp_path / "ours" / "m.onnx", **options)  # type: ignore[arg-type]
    assert ours.encode() == theirs.SerializeToString()  # changed in place as onnx changes it
    names = sorted(os.listdir(tmp_path / "onnx"))
    assert sorted(os.listdir(tmp_path / "ours")) == names and len(names) > 1
    for name in names:
        assert (tmp_path / "ours" / name).read_bytes() == (tmp_path / "onnx" / name).read_bytes()
    loaded = onnxdata.load_model(tmp_path / "onnx" / "m.onnx")
    assert loaded.encode() == onnx.load(tmp_path / "onnx" / "m.onnx").SerializeToString()


def test_save_model_changes_onnx_s_message_as_onnx_does(tmp_path: Path) -> None:
    theirs = nested_model()
    expected = onnx.ModelProto.FromString(theirs.SerializeToString())
    onnx.save_model(expected, tmp_path / "a.onnx", save_as_external_data=True, location="a.bin")
    onnxdata.save_model(theirs, tmp_path / "b.onnx", save_as_external_data=True, location="b.bin")
    for t in theirs.graph.initializer:
        if t.name == "w":
            assert t.data_location == T.EXTERNAL and not t.HasField("raw_data")
    assert (tmp_path / "a.bin").read_bytes() == (tmp_path / "b.bin").read_bytes()


def test_loading_maps_each_file_once_and_gives_onnx_s_values(tmp_path: Path) -> None:
    onnx.save_model(nested_model(), tmp_path / "m.onnx", save_as_external_data=True,
                    location="w.bin", convert_attribute=True, size_threshold=0)  # fmt: skip
    expected = onnx.load(tmp_path / "m.onnx")
    model = onnxdata.load_model(tmp_path / "m.onnx", mmap=True)
    assert model.encode() == expected.SerializeToString()
    views = [t.raw_data for t in external_data_helper.get_all_tensors(model)]
    assert all(isinstance(v, memoryview) and v.readonly for v in views)
    assert len({id(v.obj) for v in views}) == 1 and mapped.is_mapped(views[0])
    w = next(t for t in model.graph.initializer if t.name == "w")
    out = numpy_helper.to_array(w)
    np.testing.assert_array_equal(out, np.arange(5, 1005, dtype=np.float32))
    for read in ({}, dict(copy=True), dict(mmap=True, copy=True)):
        # By default the external data is read, as onnx reads it: bytes of their own.
        copied = onnxdata.load_model(tmp_path / "m.onnx", **read)  # type: ignore[arg-type]
        assert copied == model
        assert all(type(t.raw_data) is bytes
                   for t in external_data_helper.get_all_tensors(copied))  # fmt: skip
    assert onnxdata.load(tmp_path / "m.onnx") == model


def test_external_data_left_out_then_loaded(tmp_path: Path) -> None:
    onnx.save_model(nested_model(), tmp_path / "m.onnx", save_as_external_data=True,
                    location="w.bin")  # fmt: skip
    model = onnxdata.load_model(tmp_path / "m.onnx", load_external_data=False)
    assert model.encode() == (tmp_path / "m.onnx").read_bytes()
    with pytest.raises(ValueError, match="raw_data field doesn't exist"):
        external_data_helper.convert_model_from_external_data(model)
    external_data_helper.load_external_data_for_model(model, str(tmp_path))
    assert model.encode() == onnx.load(tmp_path / "m.onnx").SerializeToString()
    theirs = onnx.load(tmp_path / "m.onnx", load_external_data=False)
    external_data_helper.load_external_data_for_model(theirs, str(tmp_path))
    assert theirs.SerializeToString() == model.encode()


def test_from_external_data_to_one_file(tmp_path: Path) -> None:
    onnx.save_model(nested_model(), tmp_path / "m.onnx", save_as_external_data=True,
                    location="w.bin")  # fmt: skip
    model = onnxdata.load_model(tmp_path / "m.onnx", load_external_data=False)
    external_data_helper.load_external_data_for_model(model, str(tmp_path))
    external_data_helper.convert_model_from_external_data(model)
    onnxdata.save_model(model, tmp_path / "one.onnx")
    theirs = onnx.load(tmp_path / "m.onnx", load_external_data=False)
    theirs_helper.load_external_data_for_model(theirs, str(tmp_path))
    theirs_helper.convert_model_from_external_data(theirs)
    onnx.save_model(theirs, tmp_path / "onnx.onnx")
    # data_location stays set (to DEFAULT), in both: not the bytes of the original model
    assert (tmp_path / "one.onnx").read_bytes() == (tmp_path / "onnx.onnx").read_bytes()


def _with_location(tmp_path: Path, location: str, offset: int | None = None,
                   length: int | None = None) -> Path:  # fmt: skip
    model = nested_model()
    tensor = model.graph.initializer[0]
    external = onnx.TensorProto(name=tensor.name, data_type=tensor.data_type, dims=tensor.dims)
    external.data_location = T.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            external.external_data.add(key=key, value=str(value))
    tensor.CopyFrom(external)
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    return path


@pytest.mark.parametrize("location", ["../outside.bin", "/etc/passwd", "a/../../b"])
def test_escaping_locations_are_refused(tmp_path: Path, location: str) -> None:
    path = _with_location(tmp_path, location)
    with pytest.raises(ValidationError):
        onnxdata.load_model(path)
    assert onnxdata.load_model(path, load_external_data=False).encode() == path.read_bytes()


def test_links_missing_files_and_ranges_are_refused(tmp_path: Path) -> None:
    (tmp_path / "real.bin").write_bytes(bytes(4000))
    (tmp_path / "link.bin").symlink_to(tmp_path / "real.bin")
    with pytest.raises(ValidationError, match="symbolic link"):
        onnxdata.load_model(_with_location(tmp_path, "link.bin"))
    with pytest.raises(FileNotFoundError):
        onnxdata.load_model(_with_location(tmp_path, "absent.bin"))
    with pytest.raises(ValueError, match="exceeds file size"):
        onnxdata.load_model(_with_location(tmp_path, "real.bin", offset=4001))
    with pytest.raises(ValueError, match="exceeds available data"):
        onnxdata.load_model(_with_location(tmp_path, "real.bin", offset=4, length=4000))
    model = onnxdata.load_model(_with_location(tmp_path, "real.bin", offset=0, length=4000))
    assert bytes(model.graph.initializer[0].raw_data) == bytes(4000)


def test_convert_refuses_what_onnx_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken.bin").write_bytes(b"")
    for convert in (theirs_helper.convert_model_to_external_data,
                    external_data_helper.convert_model_to_external_data):  # fmt: skip
        with pytest.raises(FileExistsError):
            convert(nested_model(), location="taken.bin")
        with pytest.raises(ValueError, match="relative path"):
            convert(nested_model(), location=str(tmp_path / "abs.bin"))
    with pytest.raises(FileExistsError):
        onnxdata.save_model(nested_model(), tmp_path / "m.onnx", save_as_external_data=True,
                            location="taken.bin")  # fmt: skip
    assert not (tmp_path / "m.onnx").exists()


_BIG = textwrap.dedent(
    """
    import os, sys, tracemalloc
    import onnxdata
    from onnxdata import external_data_helper as x
    folder, size = sys.argv[1], int(sys.argv[2])
    with open(os.path.join(folder, "w.bin"), "wb") as f:
        f.truncate(size)  # sparse: gigabytes on paper, nothing on disk
    model = onnxdata.ModelProto(ir_version=10, graph=onnxdata.GraphProto(name="g"))
    for i in range(3):
        t = onnxdata.TensorProto(name=f"w{i}", data_type=2, dims=[size // 3], raw_data=b"")
        x.set_external_data(t, "w.bin", offset=i * (size // 3), length=size // 3)
        t.ClearField("raw_data")
        model.graph.initializer.append(t)
    onnxdata.save_model(model, os.path.join(folder, "m.onnx"))
    tracemalloc.start()
    loaded = onnxdata.load_model(os.path.join(folder, "m.onnx"), mmap=True)
    os.mkdir(os.path.join(folder, "out"))
    onnxdata.save_model(loaded, os.path.join(folder, "out", "m.onnx"),
                        save_as_external_data=True, location="copy.bin")
    print(tracemalloc.get_traced_memory()[1])
    """
)


@pytest.mark.slow
def test_more_than_2_gib_of_weights_are_converted_without_holding_them(tmp_path: Path) -> None:
    size = 3 * (3 << 29)  # 4.5 GiB
    done = subprocess.run([sys.executable, "-c", _BIG, str(tmp_path), str(size)], cwd=ROOT,
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert int(done.stdout) < 64 << 20  # the heap's peak: metadata and write buffers only
    assert os.path.getsize(tmp_path / "out" / "copy.bin") == size
    model = onnxdata.load_model(tmp_path / "out" / "m.onnx", load_external_data=False)
    offsets = [dict((e.key, e.value) for e in t.external_data)["offset"]
               for t in model.graph.initializer]  # fmt: skip
    assert offsets == ["0", str(size // 3), str(2 * size // 3)]
    (tmp_path / "out" / "copy.bin").unlink()  # gigabytes of real blocks: not left behind
