"""``SequenceWriter`` writes the bytes of ``SequenceProto.encode()``, atomically.

The oracle parses what it writes to the same message; a wrong element is
refused with its path and the writer stays usable; nothing is visible before
``close()`` and an aborted write leaves the old file.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from onnxdata import (
    EncodeTypeError,
    MapProto,
    SequenceProto,
    SequenceWriter,
    StringStringEntryProto,
    TensorProto,
    iter_sequence,
    numpy_helper,
)
from tests.support.message_strategies import ELEMENT_CLASSES, SEQUENCE_FIELD, messages_of, scaled


@settings(max_examples=scaled(0.3), suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_writer_writes_what_the_sequence_encodes(data: st.DataObject) -> None:
    kind = data.draw(st.integers(1, 5))
    cls = ELEMENT_CLASSES[kind - 1]
    elements = data.draw(st.lists(messages_of(cls, max_leaves=4), max_size=4))
    name = data.draw(st.none() | st.text(max_size=5))
    buf = io.BytesIO()
    with SequenceWriter(buf, kind, name=name) as w:
        for e in elements:
            w.append(e)
        assert len(w) == len(elements)
    expected = SequenceProto(name=name, elem_type=kind, **{SEQUENCE_FIELD[cls]: elements})
    assert buf.getvalue() == expected.encode()
    oracle = onnx.SequenceProto.FromString(buf.getvalue())
    assert oracle == onnx.SequenceProto.FromString(expected.encode())
    assert oracle.elem_type == kind and len(getattr(oracle, SEQUENCE_FIELD[cls])) == len(elements)


def test_writer_and_reader_agree_with_the_oracle(tmp_path: Path) -> None:
    path = tmp_path / "seq.pb"
    tensors = [
        numpy_helper.from_array(np.full((i + 1, 3), i, np.float32), name=f"t{i}") for i in range(20)
    ]
    with SequenceWriter(path, TensorProto, name="steps") as w:
        for t in tensors:
            w.append(t)
    data = path.read_bytes()
    oracle = onnx.SequenceProto.FromString(data)
    assert [onnx.numpy_helper.to_array(t).tolist() for t in oracle.tensor_values] == [
        numpy_helper.to_array(t).tolist() for t in tensors
    ]
    assert oracle.name == "steps" and oracle.elem_type == onnx.SequenceProto.TENSOR
    in_memory = onnx.SequenceProto(name="steps", elem_type=onnx.SequenceProto.TENSOR)
    in_memory.tensor_values.extend(onnx.TensorProto.FromString(t.encode()) for t in tensors)
    assert oracle == in_memory
    assert data == in_memory.SerializeToString()
    got = list(iter_sequence(path))
    assert got == tensors
    assert all(type(t.raw_data) is memoryview for t in got)
    copied = list(iter_sequence(path, copy=True, mmap=False))
    assert copied == tensors and all(type(t.raw_data) is bytes for t in copied)


def test_writer_rejects_a_wrong_element_and_stays_usable(tmp_path: Path) -> None:
    path = tmp_path / "seq.pb"
    with SequenceWriter(path, SequenceProto.MAP) as w:
        w.append(MapProto(keys=[1]))
        with pytest.raises(EncodeTypeError) as info:
            w.append(TensorProto())  # type: ignore[arg-type]
        assert info.value.path == "SequenceProto.map_values[1]"
        with pytest.raises(EncodeTypeError) as info:
            w.append(MapProto(keys=["x"]))  # type: ignore[list-item]
        assert info.value.path == "SequenceProto.map_values[1].keys[0]"
        w.append(MapProto(keys=[2]))
    assert SequenceProto.decode(path.read_bytes()) == SequenceProto(
        elem_type=4, map_values=[MapProto(keys=[1]), MapProto(keys=[2])]
    )
    with pytest.raises(ValueError, match="closed"):
        w.append(MapProto())
    for bad in (0, 6, True, "TENSOR", StringStringEntryProto):
        with pytest.raises(ValueError, match="elem_type"):
            SequenceWriter(io.BytesIO(), bad)
    assert os.listdir(tmp_path) == ["seq.pb"]


def test_writer_is_atomic(tmp_path: Path) -> None:
    path = tmp_path / "seq.pb"
    path.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="stop"), SequenceWriter(path, 1) as w:
        w.append(TensorProto(name="a"))
        raise RuntimeError("stop")
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["seq.pb"]
    w = SequenceWriter(path, 1)
    w.append(TensorProto(name="b"))
    assert path.read_bytes() == b"old"  # nothing visible before close()
    w.abort()
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["seq.pb"]
    w = SequenceWriter(path, 1)
    w.append(TensorProto(name="c"))
    w.close()
    w.close()  # idempotent
    assert [t.name for t in iter_sequence(path)] == ["c"]
