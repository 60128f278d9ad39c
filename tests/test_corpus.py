"""Every ``.pb`` file shipped in the onnx wheel's backend test data.

Each file is typed by its test's model: ``input_N.pb`` holds a value of
``graph.input[N]`` and ``output_N.pb`` one of ``graph.output[N]`` (as onnx's
own backend runner reads them); the value's ``TypeProto`` says which message
it is.  Each file must decode, re-encode to the identical bytes, and match the
oracle field by field.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import onnx
import pytest
from oracle import ORACLE, assert_same

from onnxdata import MapProto, OptionalProto, SequenceProto, SparseTensorProto, TensorProto

DATA = Path(onnx.__file__).parent / "backend" / "test" / "data"
FILES = sorted(DATA.rglob("*.pb")) if DATA.is_dir() else []

_KIND = {
    "tensor_type": TensorProto,
    "sparse_tensor_type": SparseTensorProto,
    "sequence_type": SequenceProto,
    "map_type": MapProto,
    "optional_type": OptionalProto,
}
_NAME = re.compile(r"(?:(?P<prefix>.+)_)?(?P<kind>input|output)_(?P<index>\d+)\.pb")


@functools.cache
def _graph(model: Path) -> Any:
    return onnx.load(str(model), load_external_data=False).graph


def message_type(path: Path) -> type:
    """The onnxdata class of the value stored in ``path``."""
    match = _NAME.fullmatch(path.name)
    assert match, path
    if match["prefix"]:  # light/light_<model>_output_0.pb next to light_<model>.onnx
        model = path.with_name(match["prefix"] + ".onnx")
    else:  # <test>/test_data_set_K/input_N.pb, with <test>/model.onnx
        model = path.parent.parent / "model.onnx"
    graph = _graph(model)
    values = graph.input if match["kind"] == "input" else graph.output
    kind = values[int(match["index"])].type.WhichOneof("value")
    return _KIND[kind]


def test_corpus_is_there() -> None:
    if not DATA.is_dir():
        pytest.skip("this onnx wheel ships no backend test data")
    # onnx 1.23.2 ships 327; fail loudly if the corpus silently vanishes.
    assert len(FILES) >= 300, len(FILES)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(DATA)) for p in FILES])
def test_corpus_file_round_trips(path: Path) -> None:
    cls = message_type(path)
    data = path.read_bytes()
    ours = cls.decode(data)
    assert ours.encode() == data
    oracle = ORACLE[cls].FromString(data)
    assert oracle.SerializeToString() == data
    assert_same(ours, oracle)
