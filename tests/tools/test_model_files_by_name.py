"""The command reads a file as ``onnxdata.load`` does: a ``.onnx`` file (or one with
a text or JSON extension) is a model, whatever its bytes would also fit; type
detection is for ``.pb`` files and names without an extension.  And ``check``
opens a model's external data files as the reader does, refusing what
``onnx.checker.check_model(path)`` refuses.

Each case is compared with onnx 1.23.2 on the same file.
"""

from __future__ import annotations

import os
import pathlib
from typing import Any

import numpy as np
import onnx
import pytest
from google.protobuf import json_format
from onnx import TensorProto as T
from onnx import helper, numpy_helper

from onnxdata.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def small_model() -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", T.FLOAT, [2])
    y = helper.make_tensor_value_info("y", T.FLOAT, [2])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def onnx_refuses(path: pathlib.Path) -> str | None:
    """onnx's checker on the file at ``path``: its message, or None when it passes."""
    try:
        onnx.checker.check_model(str(path))
    except onnx.checker.ValidationError as err:
        return str(err)
    return None


# -- .onnx is a model --------------------------------------------------------------

CUT_MODELS = {
    "empty": (b"", "ModelProto.ir_version: is not set", "ir_version"),
    "cut after ir_version": (
        small_model().SerializeToString()[:2],
        "ModelProto.opset_import: is empty",
        "opset_import",
    ),
}


@pytest.mark.parametrize("case", sorted(CUT_MODELS))
def test_a_cut_model_fails_check_as_onnx_checker_fails_it(
    case: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty .onnx file read as any type that fits was a valid empty TensorProto
    (exit 0); as the model its name says, it breaks the model rules, as in onnx."""
    data, ours, theirs = CUT_MODELS[case]
    path = tmp_path / "model.onnx"
    path.write_bytes(data)
    refused = onnx_refuses(path)
    assert refused is not None and theirs in refused
    status, out, err = run(capsys, "check", path)
    assert (status, err) == (1, "")
    assert f"{path}: {ours}" in out
    status, out, err = run(capsys, "show", path)
    assert (status, err) == (0, "")
    assert out.startswith(f"{path}: ModelProto ir_version=")
    status, _, err = run(capsys, "to-npy", path, "-o", tmp_path / "w.npy")
    assert status == 2 and "is a model: name the initializer" in err
    # The same bytes without the extension are detected, as before: an empty TensorProto.
    bare = tmp_path / "model"
    bare.write_bytes(data)
    if not data:
        assert run(capsys, "check", bare)[0] == 0
        assert run(capsys, "show", bare)[1].startswith(f"{bare}: TensorProto")


def test_a_model_with_a_singular_field_twice_is_a_model(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """protobuf keeps the last of a singular field written twice; the bytes then no
    longer have a model's canonical shape, but the name says what they are."""
    model = small_model()
    again = onnx.ModelProto(producer_name="twice").SerializeToString()
    data = model.SerializeToString() + again + again
    path = tmp_path / "m.onnx"
    path.write_bytes(data)
    oracle = onnx.load(str(path))
    assert oracle.producer_name == "twice"
    assert onnx_refuses(path) is None
    status, out, err = run(capsys, "show", path)
    assert (status, err) == (0, "")
    assert out.startswith(f"{path}: ModelProto ir_version={model.ir_version} producer_name=twice")
    assert run(capsys, "check", path)[:2] == (0, "")
    status, out, _ = run(capsys, "json", path)
    assert status == 0 and out == json_format.MessageToJson(oracle) + "\n"
    status, out, _ = run(capsys, "raw", path)
    assert status == 0 and "producer_name" in out
    # Asked for, another type is read: the extension only decides when nothing is said.
    status, out, _ = run(capsys, "show", "--type", "tensor", path)
    assert status == 0 and out.startswith(f"{path}: TensorProto")


@pytest.mark.parametrize("extension", [".json", ".onnxjson", ".textproto", ".txtpb"])
def test_a_model_in_text_or_json_is_read_in_its_format(
    extension: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = small_model()
    model.graph.name = ""  # one violation, for check to find in every format
    binary = tmp_path / "m.onnx"
    onnx.save(model, binary)
    text = tmp_path / f"m{extension}"
    onnx.save(model, text)  # onnx picks the format by the extension too
    assert onnx.load(str(text)) == model
    expected = run(capsys, "check", binary)
    assert expected[0] == 1
    assert run(capsys, "check", text) == (1, expected[1].replace(str(binary), str(text)), "")
    status, out, _ = run(capsys, "show", text)
    assert status == 0 and out.startswith(f"{text}: ModelProto ir_version=")
    status, out, _ = run(capsys, "json", text)
    assert status == 0 and out == json_format.MessageToJson(model) + "\n"
    status, _, err = run(capsys, "raw", text)
    assert status == 2 and err.count("\n") == 1 and "raw dumps the binary encoding" in err


def test_a_data_message_in_json_is_read_as_the_type_given(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tensor = numpy_helper.from_array(np.arange(3, dtype=np.float32), "t")
    path = tmp_path / "t.json"
    path.write_text(json_format.MessageToJson(tensor))
    status, out, _ = run(capsys, "show", "--type", "tensor", path)
    assert status == 0 and out.startswith(f"{path}: TensorProto")
    assert "'t'" in out and "[0.0, 1.0, 2.0]" in out
    assert run(capsys, "check", "--type", "tensor", path)[:2] == (0, "")
    for command in ("show", "check", "json"):  # unnamed, it is read as its extension says
        status, out, err = run(capsys, command, path)
        assert (status, out) == (2, "") and err.count("\n") == 1
        assert err.endswith("(read as a model in json, as its extension says: --type names "
                            "another type)\n")  # fmt: skip


@pytest.mark.parametrize("extension", [".onnxtxt", ".onnxtext"])
def test_onnx_textual_syntax_is_read_as_the_model_it_holds(
    extension: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``show``, ``check`` and ``json`` of a model in onnx's textual syntax say what
    they say of the same model as onnx's parser reads it, saved as ``.onnx``."""
    text = onnx.printer.to_text(small_model())
    path = tmp_path / f"m{extension}"
    path.write_text(text)
    binary = tmp_path / "m.onnx"
    onnx.save(onnx.parser.parse_model(text), binary)
    for command in ("show", "check", "json"):
        status, out, err = run(capsys, command, path)
        expected = run(capsys, command, binary)
        assert (status, err) == (expected[0], "") == (0, "")
        assert out.replace(str(path), "M") == expected[1].replace(str(binary), "M")
    status, out, err = run(capsys, "raw", path)  # raw dumps the wire: there is none
    assert (status, out) == (2, "") and err.count("\n") == 1


def test_a_parse_error_is_one_line_with_its_line_and_column(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.onnxtxt"
    path.write_text('<ir_version: 8>\ng (float[N] x) => (y) {\n  y = Relu "\x1b[31m" (x)\n}')
    for command in ("show", "check", "json"):
        status, out, err = run(capsys, command, path)
        assert (status, out) == (2, "")
        assert err == f"onnxdata: {path}: line 3 column 12: Expected character ( not found.\n"


# -- external data files -------------------------------------------------------------


def external_model(folder: pathlib.Path, location: str, **entries: str) -> pathlib.Path:
    """``folder/model.onnx`` whose initializer ``w`` (4 floats) is stored at ``location``."""
    t = numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")
    t.ClearField("raw_data")
    t.data_location = T.EXTERNAL
    t.external_data.add(key="location", value=location)
    for key, value in entries.items():
        t.external_data.add(key=key, value=value)
    x = helper.make_tensor_value_info("x", T.FLOAT, [4])
    y = helper.make_tensor_value_info("y", T.FLOAT, [4])
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])], "g", [x], [y], initializer=[t]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    folder.mkdir(exist_ok=True)
    path = folder / "model.onnx"
    onnx.save(model, path)
    return path


def _outside(tmp_path: pathlib.Path) -> pathlib.Path:
    secret = tmp_path / "secret.bin"
    secret.write_bytes(bytes(16))
    return secret


def _symlink(tmp_path: pathlib.Path, data: pathlib.Path) -> None:
    os.symlink(_outside(tmp_path), data)


def _hard_link(tmp_path: pathlib.Path, data: pathlib.Path) -> None:
    os.link(_outside(tmp_path), data)


def _fifo(tmp_path: pathlib.Path, data: pathlib.Path) -> None:
    os.mkfifo(data)


def _directory(tmp_path: pathlib.Path, data: pathlib.Path) -> None:
    data.mkdir()


def _missing(tmp_path: pathlib.Path, data: pathlib.Path) -> None:
    pass


def _linked_folder(tmp_path: pathlib.Path, data: pathlib.Path) -> None:
    """The location ``up/w.bin`` goes through ``up``, a link to a folder outside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "w.bin").write_bytes(bytes(16))
    os.symlink(outside, data.parent / "up")


REFUSED = {
    "missing": (_missing, "cannot be opened: No such file or directory"),
    "symlink out of the folder": (_symlink, "is a symbolic link"),
    "hard link to an outside file": (_hard_link, "has 2 hard links"),
    "FIFO": (_fifo, "is not a regular file"),
    "directory": (_directory, "is not a regular file"),
    "a folder on the way linked out": (_linked_folder, "is a symbolic link"),
}
_LOCATIONS = {"a folder on the way linked out": "up/w.bin"}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_check_refuses_the_external_data_onnx_refuses(
    case: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, reason = REFUSED[case]
    if make is _fifo and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    folder = tmp_path / "m"
    location = _LOCATIONS.get(case, "w.bin")
    path = external_model(folder, location)
    make(tmp_path, folder / "w.bin")
    assert onnx_refuses(path) is not None
    status, out, err = run(capsys, "check", path)
    assert (status, err) == (1, "")
    assert out.startswith(f"{path}: ModelProto.graph.initializer[0].external_data: ")
    assert reason in out and out.count("\n") == 1
    status, out, err = run(capsys, "show", path)  # show says so, and reads nothing
    assert (status, err) == (0, "")
    assert out.splitlines()[-1].startswith(f"    {location}: 1 tensors, 16 bytes, ")
    assert out.splitlines()[-1].endswith("missing" if case == "missing" else ")")
    # A test case's model is checked the same way.
    status, out, _ = run(capsys, "check", folder)
    assert status == 1
    assert out.startswith(f"{folder}: model.onnx: ModelProto.graph.initializer[0].external_data: ")


def test_readable_external_data_passes_check_as_in_onnx(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "m"
    path = external_model(folder, "w.bin")
    (folder / "w.bin").write_bytes(np.arange(4, dtype=np.float32).tobytes())
    assert onnx_refuses(path) is None
    assert run(capsys, "check", path) == (0, "", "")
    assert run(capsys, "show", path)[1].splitlines()[-1] == "    w.bin: 1 tensors, 16 bytes, found"
    assert run(capsys, "check", folder) == (0, "", "")


def test_a_range_past_the_end_of_the_file_is_a_violation(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """onnx's checker does not look at the range, but onnx.load refuses the model:
    check passes only what load_model reads."""
    folder = tmp_path / "m"
    path = external_model(folder, "w.bin", offset="8", length="16")
    (folder / "w.bin").write_bytes(bytes(16))
    with pytest.raises(Exception):  # noqa: B017 - onnx raises what its reading gives
        onnx.load(str(path))
    status, out, _ = run(capsys, "check", path)
    assert status == 1
    assert out == (
        f"{path}: ModelProto.graph.initializer[0].external_data: External data length (16) "
        "exceeds available data (8 bytes from offset 8) for tensor 'w'\n"
    )
