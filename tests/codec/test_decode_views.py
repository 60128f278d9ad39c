"""``decode(copy=False)``: read-only views of the input, equal to what the copying decoder makes.

Which fields are views (``raw_data``, packed floats on a little-endian host)
and which are not (the other ``bytes`` fields, varints, ``str``); that
they are read-only even over a writable buffer; equality and ``encode()``
parity with ``copy=True``, bit for bit; the same errors.  The lifetime rule:
the message keeps the input alive, and a bytearray cannot be resized nor an
mmap closed under it.
"""

from __future__ import annotations

import gc
import io
import mmap
from array import array
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from onnxdata import (
    DecodeError,
    MapProto,
    TensorProto,
    numpy_helper,
)
from tests.support.message_strategies import MESSAGE_TYPES, messages_of, scaled
from tests.support.numpy_support import LITTLE, SNAN32, every_view, raw_tensor, sample_tensor
from tests.support.oracle import ALL_MESSAGE_TYPES


def test_copy_false_makes_views_of_the_bulk_fields() -> None:
    t = sample_tensor()
    data = t.encode()
    v = TensorProto.decode(data, copy=False)
    assert type(v.raw_data) is memoryview and v.raw_data.obj is data
    # string entries are bytes, long or short, as onnx reads them (only raw_data is declared a view)
    assert all(type(s) is bytes for s in v.string_data)
    long = TensorProto(string_data=[b"s" * 200])
    assert type(TensorProto.decode(long.encode(), copy=False).string_data[0]) is bytes
    if LITTLE:
        assert type(v.float_data) is memoryview and v.float_data.format == "f"
        assert type(v.double_data) is memoryview and v.double_data.format == "d"
        assert v.float_data.obj is data and v.double_data.obj is data
    # varints cannot be views; strings are str
    assert isinstance(v.int64_data, array) and type(v.name) is str
    assert all(view.readonly for _, view in every_view(v))
    assert v == t and t == v
    assert v.encode() == data
    assert v.float_data.tobytes()[:4] == SNAN32  # every bit kept


def test_copy_false_views_of_a_writable_buffer_are_read_only() -> None:
    data = bytearray(raw_tensor().encode())
    v = TensorProto.decode(data, copy=False)
    with pytest.raises(TypeError):
        v.raw_data[0] = 1  # type: ignore[index]
    arr = numpy_helper.to_array(v)
    assert not arr.flags.writeable
    with pytest.raises(ValueError):
        arr[0, 0] = 1


def test_copy_false_string_keys_are_bytes_at_any_length() -> None:
    long = b"k" * 128
    m = MapProto(key_type=TensorProto.STRING, string_keys=[b"k1", long, b"x" * 127, long * 200])
    data = m.encode()
    v = MapProto.decode(memoryview(data), copy=False)
    assert [type(k) for k in v.string_keys] == [bytes] * 4
    assert v == m and v.encode() == data


def test_copy_true_of_a_view_input_still_copies() -> None:
    data = bytearray(sample_tensor().encode())
    c = TensorProto.decode(data)
    assert type(c.raw_data) is bytes and all(type(s) is bytes for s in c.string_data)
    assert isinstance(c.float_data, array)
    data.extend(b"")  # nothing holds an export of it
    data[:] = b""


def test_to_array_of_views_is_a_read_only_view_of_the_input() -> None:
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    data = numpy_helper.from_array(arr).encode()
    v = TensorProto.decode(data, copy=False)
    out = numpy_helper.to_array(v)
    assert np.array_equal(out, arr) and not out.flags.writeable
    assert np.shares_memory(out, np.frombuffer(data, dtype=np.uint8))
    t = TensorProto(dims=[3], data_type=TensorProto.FLOAT, float_data=[1.0, 2.0, 3.0])
    data = t.encode()
    v = TensorProto.decode(data, copy=False)
    out = numpy_helper.to_array(v)
    assert out.tolist() == [1.0, 2.0, 3.0] and not out.flags.writeable
    if LITTLE:
        assert np.shares_memory(out, np.frombuffer(data, dtype=np.uint8))


def test_a_merged_float_field_becomes_an_array_with_every_bit() -> None:
    # float_data packed twice (protobuf writers never do it, but it is valid):
    # the second run is appended to a copy of the first.
    first = b"\x22\x04" + SNAN32
    data = first + b"\x22\x08" + np.array([1, 2], dtype=np.float32).tobytes() + b"\x25" + SNAN32
    v = TensorProto.decode(data, copy=False)
    c = TensorProto.decode(data)
    assert isinstance(v.float_data, array)
    assert v.float_data.tobytes() == c.float_data.tobytes() == SNAN32 + c.float_data.tobytes()[4:]
    assert v == c and v.encode() == c.encode()


def test_empty_packed_float_field_keeps_the_empty_array() -> None:
    v = TensorProto.decode(b"\x22\x00\x52\x00", copy=False)
    assert isinstance(v.float_data, array) and len(v.float_data) == 0
    assert isinstance(v.double_data, array) and len(v.double_data) == 0


def test_copy_false_accepts_every_input_kind() -> None:
    t = sample_tensor()
    data = t.encode()
    for kind in (
        data,
        bytearray(data),
        memoryview(data),
        array("B", data),
        np.frombuffer(data, np.uint8),
    ):
        assert TensorProto.decode(kind, copy=False) == t
    # a non-contiguous input is copied once, then viewed
    padded = bytes(b for pair in zip(data, b"\0" * len(data), strict=True) for b in pair)
    assert TensorProto.decode(memoryview(padded)[::2], copy=False) == t
    with pytest.raises(TypeError):
        TensorProto.decode("text", copy=False)  # type: ignore[arg-type]


def test_copy_false_errors_are_the_same_decode_errors() -> None:
    data = sample_tensor().encode()
    for cut in range(len(data)):
        try:
            TensorProto.decode(data[:cut])
        except DecodeError as err:
            with pytest.raises(DecodeError) as info:
                TensorProto.decode(data[:cut], copy=False)
            assert (info.value.path, info.value.offset, info.value.reason) == (
                err.path, err.offset, err.reason,
            )  # fmt: skip
    with pytest.raises(DecodeError, match="not a multiple of 4"):
        TensorProto.decode(b"\x22\x03\x00\x00\x00", copy=False)


def test_the_decode_mode_does_not_leak_into_the_next_decode() -> None:
    data = sample_tensor().encode()
    with pytest.raises(DecodeError):
        TensorProto.decode(memoryview(data + b"\x80"), copy=False)
    assert type(TensorProto.decode(memoryview(data)).raw_data) is bytes


@settings(max_examples=scaled(0.4), suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_copy_false_decodes_to_the_same_message(data: st.DataObject) -> None:
    cls = data.draw(st.sampled_from(ALL_MESSAGE_TYPES))
    m = data.draw(messages_of(cls, 4, cls in MESSAGE_TYPES))
    raw = m.encode()
    v = cls.decode(raw, copy=False)
    c = cls.decode(raw)
    assert v == c and c == v
    assert v.encode() == raw
    buf = io.BytesIO()
    assert v.encode_to(buf) == len(raw) and buf.getvalue() == raw


def test_the_message_keeps_the_input_alive() -> None:
    data = bytes(sample_tensor().encode())
    v = TensorProto.decode(data, copy=False)
    expected = bytes(v.raw_data)
    del data
    gc.collect()
    assert bytes(v.raw_data) == expected
    assert v == sample_tensor()


def test_a_bytearray_cannot_be_resized_under_a_message() -> None:
    data = bytearray(raw_tensor().encode())
    v = TensorProto.decode(data, copy=False)
    with pytest.raises(BufferError):
        data.extend(b"more")
    # writes in place show through: the message sees the buffer, not a snapshot
    pos = bytes(data).index(np.arange(4, dtype=np.float32).tobytes())
    data[pos : pos + 4] = np.float32(7).tobytes()
    assert numpy_helper.to_array(v)[0, 0] == 7
    del v
    gc.collect()
    data.extend(b"more")  # no view left: resizing works again


def test_an_mmap_cannot_be_closed_under_a_message(tmp_path: Path) -> None:
    path = tmp_path / "t.pb"
    path.write_bytes(sample_tensor().encode())
    with open(path, "rb") as f:
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    v = TensorProto.decode(mm, copy=False)
    with pytest.raises(BufferError):
        mm.close()
    assert v == sample_tensor()
    del v
    gc.collect()
    mm.close()
