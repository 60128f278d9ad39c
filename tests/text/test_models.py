"""Real models print and parse as protobuf does: every ``.onnx`` file of the onnx package.

For each model: ``str()``, ``MessageToString`` (default and one-line),
``MessageToJson`` and ``MessageToDict`` equal protobuf's on onnx's own
``ModelProto`` of the same bytes, and protobuf's text and JSON read back to
the file's bytes (text) or to what protobuf reads (JSON).

More models (onnx's generated node tests, say) are checked by the slow test
when ``ONNXDATA_TEXT_MODELS`` names a directory: every ``*.onnx`` under it.
"""

from __future__ import annotations

import os
from pathlib import Path

import onnx
import pytest
from google.protobuf import json_format as pb_json
from google.protobuf import text_format as pb_text

import onnxdata
from onnxdata import json_format, text_format

PACKAGED = sorted(Path(onnx.__file__).parent.rglob("*.onnx"))
_MORE = os.environ.get("ONNXDATA_TEXT_MODELS")
MORE = sorted(Path(_MORE).rglob("*.onnx")) if _MORE else []


def _name(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def check_model(path: Path) -> None:
    data = path.read_bytes()
    ours, theirs = onnxdata.ModelProto.decode(data), onnx.ModelProto.FromString(data)
    assert str(ours) == str(theirs)
    text = pb_text.MessageToString(theirs)
    assert text_format.MessageToString(ours) == text
    assert text_format.MessageToString(ours, as_one_line=True) == pb_text.MessageToString(
        theirs, as_one_line=True
    )
    js = pb_json.MessageToJson(theirs)
    assert json_format.MessageToJson(ours) == js
    assert json_format.MessageToDict(ours) == pb_json.MessageToDict(theirs)
    assert text_format.Parse(text, onnxdata.ModelProto()).encode() == data
    expected = pb_json.Parse(js, onnx.ModelProto()).SerializeToString()
    assert json_format.Parse(js, onnxdata.ModelProto()).encode() == expected


def test_the_package_holds_models() -> None:
    assert len(PACKAGED) > 100


@pytest.mark.parametrize("path", PACKAGED, ids=[_name(p) for p in PACKAGED])
def test_packaged_models_print_and_parse_as_protobuf_does(path: Path) -> None:
    check_model(path)


@pytest.mark.slow
@pytest.mark.skipif(not MORE, reason="ONNXDATA_TEXT_MODELS names no directory of .onnx files")
def test_models_of_a_directory_print_and_parse_as_protobuf_does() -> None:
    failed = []
    for path in MORE:
        try:
            check_model(path)
        except AssertionError:
            failed.append(str(path))
    assert failed == []
