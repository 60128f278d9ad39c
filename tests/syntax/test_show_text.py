"""``onnxdata show --text``: a model in ONNX's syntax, as onnx's printer writes it, safe
for a terminal (every string escaped, so each printed line is one of the syntax's)."""

from __future__ import annotations

import pathlib

import onnx
import onnx.printer
import pytest

import onnxdata
from onnxdata import helper
from onnxdata.cli import main
from tests.support.paths import DATA


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_a_model_shows_as_onnxs_printer_writes_it(capsys: pytest.CaptureFixture[str]) -> None:
    path = DATA / "model_if_subgraph.onnx"
    status, out, err = run(capsys, "show", "--text", str(path))
    assert (status, err) == (0, "")
    assert out == onnx.printer.to_text(onnx.load(str(path))) + "\n"


def test_several_models_are_named(
    capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path
) -> None:
    path = DATA / "model_if_subgraph.onnx"
    status, out, _ = run(capsys, "show", "--text", str(path), str(path))
    text = onnx.printer.to_text(onnx.load(str(path)))
    assert status == 0
    assert out == f"# {path}\n{text}\n# {path}\n{text}\n"


def hostile_model(mark: str, byte: bytes) -> onnxdata.ModelProto:
    node = helper.make_node(f"Op{mark}", [f"x{mark}"], [f"y{mark}"], name=f"ok{mark}",
                            s=b"a" + byte)  # fmt: skip
    graph = helper.make_graph(
        [node], f"g{mark}",
        [helper.make_tensor_value_info(f"x{mark}", onnxdata.TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info(f"y{mark}", onnxdata.TensorProto.FLOAT, [1])],
    )  # fmt: skip
    return helper.make_model(graph)


def test_hostile_strings_are_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path
) -> None:
    """A line break, an ESC, a bidi override and a byte that is not UTF-8 in every name,
    the operator type and a string attribute: shown escaped, forging no line.  A quoted
    string's escape shows its backslash doubled, as the syntax writes a backslash."""
    path = tmp_path / "hostile.onnx"
    onnxdata.save_model(hostile_model("\r\n\x1b[2J\u202e", b"\n\xff"), str(path))
    status, out, err = run(capsys, "show", "--text", str(path))
    assert (status, err) == (0, "")
    assert out.isascii() and "\x1b" not in out and "\r" not in out
    node_line = [line for line in out.split("\n") if line.startswith("   [")]
    assert node_line == [
        r'   ["ok\\r\\n\\x1b[2J\\u202e"] "y\\r\\n\\x1b[2J\\u202e" = Op\r\n\x1b[2J\u202e'
        r' <s: string = "a\\n\\udcff"> ("x\\r\\n\\x1b[2J\\u202e")'
    ]
    tame = onnx.ModelProto.FromString(hostile_model("_", b"_").encode())
    assert out.count("\n") == onnx.printer.to_text(tame).count("\n") + 1


def test_a_tensor_that_does_not_fit_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path
) -> None:
    w = onnxdata.TensorProto(name="w", data_type=1, dims=[3], raw_data=b"\0" * 8)
    graph = helper.make_graph([], "g", [], [], [w])
    path = tmp_path / "bad.onnx"
    onnxdata.save_model(helper.make_model(graph), str(path))
    status, out, err = run(capsys, "show", "--text", str(path))
    assert (status, out) == (2, "")
    assert err == (
        f"onnxdata: {path}: [ShapeInferenceError] Data size mismatch. Tensor: w has 8 bytes "
        "of raw_data for 3 elements of size 4\n"
    )


def test_a_data_file_is_refused_unless_read_as_a_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = DATA / "map_int64_to_tensor.pb"
    status, out, err = run(capsys, "show", "--text", str(path))
    assert (status, out) == (2, "")
    assert err == f"onnxdata: {path}: not a model (--type model reads it as one)\n"
    status, out, _ = run(capsys, "show", "--text", "--type", "model", str(path))
    theirs = onnx.ModelProto.FromString(path.read_bytes())
    assert (status, out) == (0, onnx.printer.to_text(theirs) + "\n")


def test_text_and_format_are_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["show", "--text", "--format", "text", str(DATA / "model_if_subgraph.onnx")])
    assert exit_info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
