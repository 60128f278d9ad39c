"""``encode_to(file)`` writes exactly what ``encode()`` returns, in bounded memory.

Byte-identical output (hypothesis), to writers that take part of a buffer
(one returning None is refused: tests/io/test_encode_to_writes.py); large
payloads passed on without a copy; long packed integer fields streamed in
pieces; the errors ``encode()`` raises, raised before a single byte is written.
"""

from __future__ import annotations

import io
import tracemalloc
from array import array
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import (
    EncodeTypeError,
    EncodeValueError,
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)
from onnxdata._codec import stream as _stream
from tests.support.message_strategies import MESSAGE_TYPES, messages_of, scaled
from tests.support.numpy_support import sample_tensor
from tests.support.oracle import ALL_MESSAGE_TYPES, ORACLE


class PartialWriter:
    """A raw-file-like object that accepts at most 7 bytes per call."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.calls = 0

    def write(self, b: Any) -> int:
        self.calls += 1
        chunk = bytes(memoryview(b)[:7])
        self.data += chunk
        return len(chunk)


class SilentWriter:
    """A file-like object whose write returns None: "would block", by the I/O contract."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def write(self, b: Any) -> None:
        self.parts.append(bytes(b))


@settings(max_examples=scaled(0.4), suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_encode_to_writes_what_encode_returns(data: st.DataObject) -> None:
    cls = data.draw(st.sampled_from(ALL_MESSAGE_TYPES))
    m = data.draw(messages_of(cls, 4, cls in MESSAGE_TYPES))
    expected = m.encode()
    buf = io.BytesIO()
    assert m.encode_to(buf) == len(expected)
    assert buf.getvalue() == expected


def test_encode_to_handles_partial_writes_and_refuses_silent_ones() -> None:
    m = SequenceProto(elem_type=1, tensor_values=[sample_tensor()] * 3)
    expected = m.encode()
    partial = PartialWriter()
    m.encode_to(partial)
    assert bytes(partial.data) == expected
    silent = SilentWriter()
    with pytest.raises(BlockingIOError) as caught:
        m.encode_to(silent)  # None is "nothing written": never success
    assert caught.value.characters_written == 0
    with pytest.raises(TypeError, match="write method"):
        m.encode_to(object())
    with pytest.raises(TypeError, match="not an onnxdata message"):
        onnxdata.Message.encode_to(object(), io.BytesIO())  # type: ignore[arg-type]


def test_encode_to_passes_large_payloads_without_copying() -> None:
    payload = np.arange(1 << 20, dtype=np.float32)
    t = TensorProto(dims=[1 << 20], data_type=1, raw_data=memoryview(payload).cast("B"))
    seen: list[Any] = []

    class Recorder:
        def write(self, b: Any) -> int:
            seen.append(b)
            return len(b)

    t.encode_to(Recorder())
    big = [b for b in seen if len(b) == payload.nbytes]
    assert len(big) == 1 and np.shares_memory(np.frombuffer(big[0], np.uint8), payload)


@pytest.mark.parametrize("nested", [False, True])
def test_encode_to_memory_stays_small(nested: bool) -> None:
    payload = bytes(32 << 20)
    t = TensorProto(
        dims=[8 << 20], data_type=1, raw_data=payload, float_data=array("f", bytes(16 << 20))
    )
    m: Any = t
    if nested:
        m = MapProto(key_type=7, keys=[1], values=SequenceProto(elem_type=1, tensor_values=[t, t]))

    class Null:
        def write(self, b: Any) -> int:
            return len(b)

    tracemalloc.start()
    try:
        m.encode_to(Null())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, peak  # against 48 MiB (or 96 MiB) of payload


@pytest.mark.parametrize(
    "field, code, values",
    [
        ("int64_data", "q", [(-1) ** i * i * 1_000_003 for i in range(150_000)]),
        ("int32_data", "i", list(range(-70_000, 70_000))),
        ("uint64_data", "Q", [i * 0x1_0000_0001 for i in range(140_000)]),
    ],
)
def test_long_packed_int_fields_stream_in_pieces(field: str, code: str, values: list[int]) -> None:
    assert len(values) > _stream.PIECE
    for given_values in (array(code, values), values):
        t = TensorProto(dims=[len(values)], **{field: given_values})
        expected = t.encode()
        seq = SequenceProto(elem_type=1, tensor_values=[t])
        for m, want in ((t, expected), (seq, seq.encode())):
            buf = io.BytesIO()
            m.encode_to(buf)
            assert buf.getvalue() == want
        assert ORACLE[TensorProto].FromString(expected) is not None


def test_a_bad_value_in_a_long_int_field_is_named_by_its_index() -> None:
    values = list(range(200_000))
    values[150_001] = "x"  # type: ignore[call-overload]
    t = TensorProto(int64_data=values)
    with pytest.raises(EncodeTypeError) as encode_err:
        t.encode()
    buf = io.BytesIO()
    with pytest.raises(EncodeTypeError) as stream_err:
        t.encode_to(buf)
    assert stream_err.value.path == encode_err.value.path == "TensorProto.int64_data[150001]"
    assert buf.getvalue() == b""


BAD_MESSAGES = [
    SequenceProto(tensor_values=[TensorProto(dims=[1 << 64])]),
    SequenceProto(tensor_values=[TensorProto(), TensorProto(data_type="x")]),  # type: ignore[arg-type]
    SequenceProto(sequence_values=[SequenceProto(map_values=[MapProto(keys=[True])])]),  # type: ignore[list-item]
    SequenceProto(tensor_values=[SequenceProto()]),  # type: ignore[list-item]
    MapProto(string_keys=[b"a", "b"]),  # type: ignore[list-item]
    MapProto(values=TensorProto()),  # type: ignore[arg-type]
    MapProto(name=5, values=SequenceProto()),  # type: ignore[arg-type]
    OptionalProto(optional_value=OptionalProto(elem_type=1 << 40)),
    OptionalProto(map_value=MapProto(values=SequenceProto(unknown_fields=b"\x08"))),
    SparseTensorProto(values=TensorProto(), indices=TensorProto(), dims=[1.5]),  # type: ignore[list-item]
    SparseTensorProto(indices=TensorProto(external_data=[StringStringEntryProto(key=b"k")])),  # type: ignore[arg-type]
    TensorProto(segment=TensorProto.Segment(begin=-(1 << 63) - 1)),
]


def _cycle() -> SequenceProto:
    s = SequenceProto()
    s.sequence_values.append(s)
    return s


@pytest.mark.parametrize("m", [*BAD_MESSAGES, _cycle()], ids=lambda m: type(m).__name__)
def test_encode_to_raises_what_encode_raises_before_writing(m: Any) -> None:
    with pytest.raises(onnxdata.EncodeError) as encode_err:
        m.encode()
    buf = io.BytesIO()
    with pytest.raises(onnxdata.EncodeError) as stream_err:
        m.encode_to(buf)
    a, b = encode_err.value, stream_err.value
    assert (type(a), a.path, str(a)) == (type(b), b.path, str(b))
    assert buf.getvalue() == b""


def test_nesting_at_the_limit_streams() -> None:
    m = SequenceProto()
    for _ in range(100):
        m = SequenceProto(sequence_values=[m])
    buf = io.BytesIO()
    m.encode_to(buf)
    assert buf.getvalue() == m.encode()
    with pytest.raises(EncodeValueError, match="nesting"):
        SequenceProto(sequence_values=[m]).encode_to(io.BytesIO())
