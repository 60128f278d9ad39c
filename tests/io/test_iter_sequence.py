"""``iter_sequence`` yields what ``SequenceProto.decode`` holds, lazily, failing where it fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from onnxdata import (
    DecodeError,
    MapProto,
    SequenceProto,
    SequenceWriter,
    TensorProto,
    iter_sequence,
)
from onnxdata._io import sequences as _sequences
from tests.support import wirekit as wk
from tests.support.message_strategies import ELEMENT_CLASSES, SEQUENCE_FIELD, messages_of, scaled


def test_iter_sequence_yields_elements_in_file_order(tmp_path: Path) -> None:
    # not something a writer makes, but valid: mixed kinds, name, unknown fields
    parts = [
        SequenceProto(tensor_values=[TensorProto(name="a")]).encode(),
        SequenceProto(name="n", elem_type=1).encode(),
        SequenceProto(map_values=[MapProto(keys=[1])]).encode(),
        b"\xa8\x01\x05",  # unknown field 21
        SequenceProto(tensor_values=[TensorProto(name="b")]).encode(),
    ]
    path = tmp_path / "mixed.pb"
    path.write_bytes(b"".join(parts))
    got = list(iter_sequence(path))
    assert got == [TensorProto(name="a"), MapProto(keys=[1]), TensorProto(name="b")]


def test_iter_sequence_is_lazy_and_fails_where_decode_fails(tmp_path: Path) -> None:
    good = [TensorProto(name=str(i), dims=[i]) for i in range(5)]
    data = SequenceProto(tensor_values=good).encode()
    bad = data + b"\x1a\x02\x08\x80"  # element 5: a truncated varint
    path = tmp_path / "bad.pb"
    path.write_bytes(bad)
    it = iter_sequence(path)
    assert [next(it) for _ in range(5)] == good
    with pytest.raises(DecodeError) as info:
        next(it)
    with pytest.raises(DecodeError) as expected:
        SequenceProto.decode(bad)
    a, b = info.value, expected.value
    assert (a.path, a.offset, a.reason) == (b.path, b.offset, b.reason)
    assert a.path == "SequenceProto.tensor_values[5].dims"


@settings(max_examples=scaled(0.4), suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_iter_sequence_matches_decode_on_damaged_files(data: st.DataObject) -> None:
    m = data.draw(messages_of(SequenceProto, max_leaves=4, big=False))
    rng = data.draw(st.randoms(use_true_random=False))
    raw = m.encode()
    if rng.random() < 0.8:  # damaged by the tests' one mutation engine
        raw = wk.mutate_bytes(raw, rng, [])
    got: list[Any] = []
    try:
        got.extend(_sequences._elements(memoryview(raw), False, None))
        error = None
    except DecodeError as err:
        error = err
    try:
        decoded = SequenceProto.decode(raw)
    except DecodeError as err:
        assert error is not None
        assert (error.path, error.offset, error.reason) == (err.path, err.offset, err.reason)
        return
    assert error is None
    by_kind = [[e for e in got if type(e) is cls] for cls in ELEMENT_CLASSES]
    assert by_kind == [getattr(decoded, SEQUENCE_FIELD[c]) for c in ELEMENT_CLASSES]


def test_iter_sequence_releases_the_mapping(tmp_path: Path) -> None:
    path = tmp_path / "seq.pb"
    with SequenceWriter(path, 1) as w:
        for i in range(3):
            w.append(TensorProto(int64_data=[i]))
    assert [list(t.int64_data) for t in iter_sequence(path)] == [[0], [1], [2]]
    it = iter_sequence(path, mmap=True)
    next(it)
    it.close()  # stopped early: cleaned up, nothing refers to the mapping
    assert list(iter_sequence(tmp_path / "seq.pb", mmap=True)) == list(iter_sequence(path))
    empty = tmp_path / "empty.pb"
    empty.write_bytes(b"")
    assert list(iter_sequence(empty)) == []
