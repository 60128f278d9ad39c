"""The ``onnxtxt`` format (onnx's textual syntax) in ``load``, ``load_model``,
``load_model_from_string`` and ``onnxdata.serialization``, against onnx's."""

from __future__ import annotations

import pathlib
import warnings
from typing import Any

import onnx
import onnx.printer
import pytest

import onnxdata
from onnxdata import serialization
from tests.syntax.corpus import FUNCTION, GRAPH, MODEL, NODE

_EXPERIMENTAL = "The onnxtxt format is experimental"


def _quietly(call: Any, *args: Any, **kwargs: Any) -> Any:
    with pytest.warns(UserWarning, match=_EXPERIMENTAL):
        return call(*args, **kwargs)


@pytest.mark.parametrize("extension", [".onnxtxt", ".onnxtext"])
def test_a_model_file_loads_as_onnx_loads_it(extension: str, tmp_path: pathlib.Path) -> None:
    path = tmp_path / f"m{extension}"
    path.write_text(MODEL, encoding="utf-8")
    theirs = _quietly(onnx.load_model, str(path), load_external_data=False)
    for load in (onnxdata.load_model, onnxdata.load):
        ours = _quietly(load, str(path), load_external_data=False)
        assert ours.SerializeToString() == theirs.SerializeToString()


def test_a_model_string_loads_as_onnx_loads_it() -> None:
    for text in (MODEL, MODEL.encode()):
        theirs = _quietly(onnx.load_model_from_string, text, format="onnxtxt")
        ours = _quietly(onnxdata.load_model_from_string, text, format="onnxtxt")
        assert ours.SerializeToString() == theirs.SerializeToString()


@pytest.mark.parametrize(
    ("name", "text"),
    [("ModelProto", MODEL), ("GraphProto", GRAPH), ("FunctionProto", FUNCTION),
     ("NodeProto", NODE)],
)  # fmt: skip
def test_the_serializer_reads_each_kind_and_leaves_its_argument(name: str, text: str) -> None:
    theirs_target = getattr(onnx, name)()
    theirs = _quietly(
        onnx.serialization.registry.get("onnxtxt").deserialize_proto, text, theirs_target
    )
    for target in (getattr(onnxdata, name)(), getattr(onnx, name)()):
        ours = _quietly(serialization.registry.get("onnxtxt").deserialize_proto, text, target)
        assert ours.SerializeToString() == theirs.SerializeToString()
        assert target.SerializeToString() == theirs_target.SerializeToString() == b""


def test_the_format_s_name_and_extensions_are_onnx_s() -> None:
    ours, theirs = serialization.registry, onnx.serialization.registry
    assert ours.get("onnxtxt").file_extensions == theirs.get("onnxtxt").file_extensions
    for extension in (".onnxtxt", ".onnxtext"):
        assert ours.get_format_from_file_extension(extension) == "onnxtxt"


@pytest.mark.parametrize(
    ("data", "target", "error"),
    [
        (b"\xff<ir_version: 8>", "ModelProto", UnicodeDecodeError),
        (42, "ModelProto", TypeError),
        ("g () => () {}", "TensorProto", ValueError),
    ],
)
def test_what_onnx_refuses_is_refused_the_same_way(data: Any, target: str, error: type) -> None:
    for module in (onnx, onnxdata):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(error):
                module.serialization.registry.get("onnxtxt").deserialize_proto(
                    data, getattr(module, target)()
                )


def test_a_text_that_is_not_the_syntax_is_a_parse_error(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "bad.onnxtxt"
    path.write_text("<ir_version: 8>\ng (float[N] x) => (y) {\n  y = Relu [x]\n}")
    with pytest.raises(onnx.parser.ParseError) as theirs:
        _quietly(onnx.load_model, str(path))
    with pytest.raises(onnxdata.parser.ParseError) as ours:
        _quietly(onnxdata.load_model, str(path))
    assert ours.value.args == theirs.value.args
    assert (ours.value.line, ours.value.column) == (3, 12)


def test_a_printed_model_file_loads_as_onnx_loads_it(tmp_path: pathlib.Path) -> None:
    """A model onnx's printer wrote, as onnx's ``save_model(format="onnxtxt")`` writes it."""
    model = onnx.load(
        str(pathlib.Path(onnx.__file__).parent / "backend/test/data/light/light_resnet50.onnx"),
        load_external_data=False,
    )
    path = tmp_path / "m.onnxtxt"
    path.write_text(onnx.printer.to_text(model), encoding="utf-8")
    theirs = _quietly(onnx.load_model, str(path))
    assert _quietly(onnxdata.load_model, str(path)).SerializeToString() == (
        theirs.SerializeToString()
    )
