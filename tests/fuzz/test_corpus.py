"""Every ``.pb`` file shipped in the onnx wheel's backend test data.

Each file is typed by its test's model: ``input_N.pb`` holds a value of
``graph.input[N]`` and ``output_N.pb`` one of ``graph.output[N]`` (as onnx's
own backend runner reads them); the value's ``TypeProto`` says which message
it is.  Each file must decode, re-encode to the identical bytes, and match the
oracle field by field.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.oracle import CORPUS, ORACLE, assert_same, corpus_message_type

DATA = CORPUS
FILES = sorted(DATA.rglob("*.pb")) if DATA.is_dir() else []


def test_corpus_is_there() -> None:
    if not DATA.is_dir():
        pytest.skip("this onnx wheel ships no backend test data")
    # onnx 1.23.2 ships 327; fail loudly if the corpus silently vanishes.
    assert len(FILES) >= 300, len(FILES)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(DATA)) for p in FILES])
def test_corpus_file_round_trips(path: Path) -> None:
    cls = corpus_message_type(path)
    assert cls is not None, path
    data = path.read_bytes()
    ours = cls.decode(data)
    assert ours.encode() == data
    oracle = ORACLE[cls].FromString(data)
    assert oracle.SerializeToString() == data
    assert_same(ours, oracle)
