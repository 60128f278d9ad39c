"""Big data (issue 7): zero-copy decoding, load/save, streaming encode, sequence files.

* ``decode(copy=False)``: which fields are views, that they are read-only
  views of the input, the lifetime rule (the message keeps the input alive, a
  bytearray cannot be resized nor an mmap closed under it), equality and
  ``encode()`` parity with the copying decoder, bit for bit.
* ``encode_to``: byte-identical to ``encode()`` (hypothesis), errors identical
  and raised before anything is written, long packed integer fields streamed
  in pieces, bounded memory.
* ``save``: atomic; a failure at any point leaves the old file intact and no
  temporary file behind.  ``load``: memory-mapped views, type detection that
  agrees with ``onnxdata show``.
* ``SequenceWriter`` / ``iter_sequence``: the writer's bytes are those of
  ``SequenceProto.encode()`` and parse with the oracle to the same message;
  the reader yields what ``SequenceProto.decode`` holds, lazily, and fails
  with the same error.
* ``max_size`` on decode, encode, encode_to, load.

The message above 2 GiB lives in test_bigdata_huge.py.
"""

from __future__ import annotations

import dataclasses
import gc
import io
import mmap
import os
import stat
import sys
import tracemalloc
from array import array
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import ORACLE
from strategies import MESSAGE_TYPES, messages_of, scaled

import onnxdata
from onnxdata import (
    DecodeError,
    EncodeTypeError,
    EncodeValueError,
    MapProto,
    OptionalProto,
    SequenceProto,
    SequenceWriter,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
    _stream,
    iter_sequence,
    load,
    numpy_helper,
    save,
)
from onnxdata._files import CANDIDATES, misfit

LITTLE = sys.byteorder == "little"
SNAN32 = b"\x01\x00\x80\x7f"  # a signalling NaN: a float round trip would quiet it
ELEMENT_CLASSES = [TensorProto, SparseTensorProto, SequenceProto, MapProto, OptionalProto]


def sample_tensor() -> TensorProto:
    return TensorProto(
        dims=[2, 2],
        data_type=TensorProto.FLOAT,
        name="t",
        raw_data=np.arange(4, dtype=np.float32).tobytes(),
        string_data=[b"ab", b"", b"\xff\x00"],
        float_data=array("f", SNAN32 + np.float32(1.5).tobytes()),
        double_data=array("d", [2.5, -0.0]),
        int64_data=array("q", [1, -1]),
    )


def every_view(m: Any) -> list[tuple[str, memoryview]]:
    """(path, view) for every memoryview held anywhere in ``m``."""
    found = []
    for name in [f.name for f in dataclasses.fields(m)]:
        value = getattr(m, name)
        if isinstance(value, memoryview):
            found.append((name, value))
        elif isinstance(value, onnxdata.Message):
            found += [(f"{name}.{p}", v) for p, v in every_view(value)]
        elif type(value) is list:
            for i, item in enumerate(value):
                if isinstance(item, memoryview):
                    found.append((f"{name}[{i}]", item))
                elif isinstance(item, onnxdata.Message):
                    found += [(f"{name}[{i}].{p}", v) for p, v in every_view(item)]
    return found


# --------------------------------------------------------------------------
# decode(copy=False)


def test_copy_false_makes_views_of_the_bulk_fields() -> None:
    t = sample_tensor()
    data = t.encode()
    v = TensorProto.decode(data, copy=False)
    assert type(v.raw_data) is memoryview and v.raw_data.obj is data
    assert all(type(s) is memoryview and s.obj is data for s in v.string_data)
    if LITTLE:
        assert type(v.float_data) is memoryview and v.float_data.format == "f"
        assert type(v.double_data) is memoryview and v.double_data.format == "d"
        assert v.float_data.obj is data and v.double_data.obj is data
    # varints cannot be views; strings are str
    assert type(v.int64_data) is array and type(v.name) is str
    assert all(view.readonly for _, view in every_view(v))
    assert v == t and t == v
    assert v.encode() == data
    assert v.float_data.tobytes()[:4] == SNAN32  # every bit kept


def raw_tensor() -> TensorProto:
    return numpy_helper.from_array(np.arange(4, dtype=np.float32).reshape(2, 2))


def test_copy_false_views_of_a_writable_buffer_are_read_only() -> None:
    data = bytearray(raw_tensor().encode())
    v = TensorProto.decode(data, copy=False)
    with pytest.raises(TypeError):
        v.raw_data[0] = 1  # type: ignore[index]
    arr = numpy_helper.to_array(v)
    assert not arr.flags.writeable
    with pytest.raises(ValueError):
        arr[0, 0] = 1


def test_copy_false_string_keys_are_views() -> None:
    m = MapProto(key_type=TensorProto.STRING, string_keys=[b"k1", b"k2"])
    data = m.encode()
    v = MapProto.decode(memoryview(data), copy=False)
    assert [type(k) for k in v.string_keys] == [memoryview, memoryview]
    assert v == m and v.encode() == data


def test_copy_true_of_a_view_input_still_copies() -> None:
    data = bytearray(sample_tensor().encode())
    c = TensorProto.decode(data)
    assert type(c.raw_data) is bytes and all(type(s) is bytes for s in c.string_data)
    assert type(c.float_data) is array
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
    assert type(v.float_data) is array
    assert v.float_data.tobytes() == c.float_data.tobytes() == SNAN32 + c.float_data.tobytes()[4:]
    assert v == c and v.encode() == c.encode()


def test_empty_packed_float_field_keeps_the_empty_array() -> None:
    v = TensorProto.decode(b"\x22\x00\x52\x00", copy=False)
    assert type(v.float_data) is array and len(v.float_data) == 0
    assert type(v.double_data) is array and len(v.double_data) == 0


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
    cls = data.draw(st.sampled_from(MESSAGE_TYPES))
    m = data.draw(messages_of(cls))
    raw = m.encode()
    v = cls.decode(raw, copy=False)
    c = cls.decode(raw)
    assert v == c and c == v
    assert v.encode() == raw
    buf = io.BytesIO()
    assert v.encode_to(buf) == len(raw) and buf.getvalue() == raw


# --------------------------------------------------------------------------
# the lifetime rule


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


def test_load_unmaps_at_once_when_nothing_refers_to_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.pb"
    save(TensorProto(dims=[1], data_type=TensorProto.INT64, int64_data=[5]), path)
    m = load(path)
    assert every_view(m) == []  # nothing to map: the mapping is already closed
    m = load(path, TensorProto, copy=True)
    assert list(m.int64_data) == [5]


def test_a_loaded_message_survives_a_save_over_its_file(tmp_path: Path) -> None:
    path = tmp_path / "t.pb"
    old = numpy_helper.from_array(np.arange(1000, dtype=np.float32))
    save(old, path)
    m = load(path)
    assert type(m.raw_data) is memoryview
    save(numpy_helper.from_array(np.zeros(10, dtype=np.float32)), path)  # a new inode
    assert m == old
    assert load(path) != old


# --------------------------------------------------------------------------
# encode_to


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
    """A file-like object whose write returns None (as some wrappers do)."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def write(self, b: Any) -> None:
        self.parts.append(bytes(b))


@settings(max_examples=scaled(0.4), suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_encode_to_writes_what_encode_returns(data: st.DataObject) -> None:
    cls = data.draw(st.sampled_from(MESSAGE_TYPES))
    m = data.draw(messages_of(cls))
    expected = m.encode()
    buf = io.BytesIO()
    assert m.encode_to(buf) == len(expected)
    assert buf.getvalue() == expected


def test_encode_to_handles_partial_and_silent_writes() -> None:
    m = SequenceProto(elem_type=1, tensor_values=[sample_tensor()] * 3)
    expected = m.encode()
    partial = PartialWriter()
    m.encode_to(partial)
    assert bytes(partial.data) == expected
    silent = SilentWriter()
    m.encode_to(silent)
    assert b"".join(silent.parts) == expected
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


def test_float_fields_encode_from_buffers_bit_for_bit() -> None:
    # A memoryview of a native float32/float64 numpy array (or a copy=False
    # view) is written as it is: no float round trip, a signalling NaN kept.
    f32 = np.frombuffer(SNAN32 + np.float32(2).tobytes(), dtype=np.float32)
    f64 = np.array([1.5, -0.0])
    t = TensorProto(float_data=memoryview(f32), double_data=memoryview(f64))  # type: ignore[arg-type]
    expected = TensorProto(float_data=array("f", f32.tobytes()), double_data=array("d", f64))
    assert t.encode() == expected.encode()
    assert t == expected
    # another type is converted value by value, as before
    wider = memoryview(np.array([1.5], dtype=np.float64))
    assert TensorProto(float_data=wider).encode() == TensorProto(float_data=[1.5]).encode()  # type: ignore[arg-type]


# --------------------------------------------------------------------------
# max_size


def test_max_size() -> None:
    t = sample_tensor()
    data = t.encode()
    n = len(data)
    assert TensorProto.decode(data, max_size=n) == t
    with pytest.raises(DecodeError) as info:
        TensorProto.decode(data, max_size=n - 1)
    assert info.value.path == "TensorProto" and info.value.offset == n - 1
    assert f"{n} bytes is more than max_size={n - 1}" in str(info.value)
    assert t.encode(max_size=n) == data
    with pytest.raises(EncodeValueError, match=f"{n} bytes, more than max_size={n - 1}") as e:
        t.encode(max_size=n - 1)
    assert isinstance(e.value, ValueError) and e.value.path == "TensorProto"
    seq = SequenceProto(tensor_values=[t, t])
    buf = io.BytesIO()
    with pytest.raises(EncodeValueError, match="max_size"):
        seq.encode_to(buf, max_size=2 * n)
    assert buf.getvalue() == b""
    assert seq.encode_to(buf, max_size=2 * n + 4) == 2 * n + 4
    buf = io.BytesIO()
    with pytest.raises(EncodeValueError, match="max_size"):
        t.encode_to(buf, max_size=n - 1)
    assert buf.getvalue() == b""


def test_max_size_on_files(tmp_path: Path) -> None:
    path = tmp_path / "t.pb"
    t = sample_tensor()
    n = save(t, path)
    assert load(path, TensorProto, max_size=n) == t
    with pytest.raises(DecodeError, match="max_size"):
        load(path, TensorProto, max_size=n - 1)
    with pytest.raises(DecodeError, match="max_size"):
        load(path, max_size=n - 1)
    with pytest.raises(EncodeValueError, match="max_size"):
        save(t, tmp_path / "u.pb", max_size=n - 1)
    assert sorted(os.listdir(tmp_path)) == ["t.pb"]


# --------------------------------------------------------------------------
# save and load


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    cases = [
        sample_tensor(),
        numpy_helper.from_list([np.arange(3, dtype=np.int64), np.ones((2, 2), np.float32)]),
        numpy_helper.from_dict({1: np.arange(2, dtype=np.float32)}),
        numpy_helper.from_optional(np.arange(3, dtype=np.float64), name="o"),
        numpy_helper.from_dense(np.diag(np.arange(1, 4, dtype=np.float32))),
    ]
    for i, m in enumerate(cases):
        path = tmp_path / f"{i}.pb"
        assert save(m, path) == len(m.encode())
        assert path.read_bytes() == m.encode()
        for kwargs in ({}, {"mmap": False}, {"copy": True}, {"mmap": False, "copy": True}):
            got = load(str(path), type(m), **kwargs)
            assert type(got) is type(m) and got == m, kwargs
            if type(m) is not OptionalProto:  # else a one-element sequence, byte for byte
                assert load(path, **kwargs) == m
            if kwargs.get("copy"):
                assert every_view(got) == []


def test_load_resolves_a_tie_as_the_cli_does(tmp_path: Path) -> None:
    path = tmp_path / "empty.pb"
    path.write_bytes(b"")
    assert load(path) == TensorProto()  # every type fits: the first listed wins
    assert load(path, SequenceProto) == SequenceProto()
    optional = numpy_helper.from_optional(np.arange(3.0))
    save(optional, path)  # byte for byte a one-element SequenceProto
    assert type(load(path)) is SequenceProto
    assert load(path, OptionalProto) == optional


def test_load_of_a_malformed_file_raises_the_tensor_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.pb"
    path.write_bytes(b"\x0a\x05ab")
    with pytest.raises(DecodeError) as info:
        load(path)
    with pytest.raises(DecodeError) as expected:
        TensorProto.decode(b"\x0a\x05ab")
    assert str(info.value) == str(expected.value)
    with pytest.raises(DecodeError, match=r"^SequenceProto\.name"):
        load(path, SequenceProto)


@settings(max_examples=scaled(0.3), suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_load_detects_the_type_as_the_cli_does(data: st.DataObject) -> None:
    # The reference: decode every type, score each (misfit, plus 1 unless it
    # re-encodes to the bytes), the lowest wins, a tie goes to the first listed.
    # load() and show must pick its winner while decoding less.
    from onnxdata._files import detect
    from onnxdata._show import detect_view

    cls = data.draw(st.sampled_from(ELEMENT_CLASSES))
    m = data.draw(messages_of(cls, big=False))
    raw = m.encode()
    scored = []
    for rank, candidate in enumerate(CANDIDATES):
        try:
            msg = candidate.decode(raw)
        except DecodeError:
            continue
        scored.append((misfit(msg) + (msg.encode() != raw), rank, msg))
    score, _, best = min(scored, key=lambda s: s[:2])
    got = detect(memoryview(raw), False).result
    assert type(got) is type(best) and got == best
    shown = detect_view(memoryview(raw))
    assert shown.type is type(best)
    assert set(shown.ties) == {type(msg) for s, _, msg in scored if s == score} - {type(best)}


@pytest.mark.parametrize("nested", [False, True], ids=["tensors", "sequences"])
def test_load_detects_a_sequence_without_decoding_it_as_anything_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nested: bool
) -> None:
    # Read as a TensorProto, a sequence of tensors is a "segment" whose unknown
    # fields are the whole file, and a sequence of sequences is int32_data:
    # packed varints, ten times the file in memory.  As a MapProto, the tensors
    # are packed keys.  The quick look rules all of that out before decoding.
    from onnxdata import _files

    path = tmp_path / "s.pb"
    tensors = [numpy_helper.from_array(np.full(4096, i, np.float32)) for i in range(8)]
    elements: list[Any] = tensors
    if nested:
        elements = [SequenceProto(elem_type=1, tensor_values=[t]) for t in tensors]
    with SequenceWriter(path, SequenceProto.SEQUENCE if nested else SequenceProto.TENSOR) as w:
        for e in elements:
            w.append(e)
    decoded: list[type] = []
    real = _files.decode_part

    def spy(cls: type, *args: Any) -> Any:
        decoded.append(cls)
        return real(cls, *args)

    monkeypatch.setattr(_files, "decode_part", spy)
    m = load(path)
    assert type(m) is SequenceProto
    assert (m.sequence_values if nested else m.tensor_values) == elements
    assert decoded == [SequenceProto]


def test_save_keeps_the_old_file_when_writing_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.pb"
    old = sample_tensor()
    save(old, path)
    before = path.read_bytes()
    big = TensorProto(raw_data=bytes(4 << 20), float_data=array("f", bytes(4 << 20)))

    calls = {"n": 0}
    real_out = _stream._Sink._out

    def crash_midway(self: Any, data: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:  # after some bytes reached the temporary file
            raise OSError(28, "No space left on device")
        real_out(self, data)

    monkeypatch.setattr(_stream._Sink, "_out", crash_midway)
    with pytest.raises(OSError, match="No space"):
        save(big, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["t.pb"]

    def no_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", no_fsync)
    with pytest.raises(OSError, match="Input/output"):
        save(big, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["t.pb"]

    def no_replace(src: str, dst: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", no_replace)
    with pytest.raises(PermissionError):
        save(big, path)
    monkeypatch.undo()
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["t.pb"]

    with pytest.raises(EncodeTypeError):  # an invalid message: nothing written at all
        save(TensorProto(dims=["x"]), path)  # type: ignore[list-item]
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["t.pb"]

    save(big, path)
    assert load(path) == big


def test_save_keeps_permissions_and_follows_the_umask(tmp_path: Path) -> None:
    path = tmp_path / "t.pb"
    save(TensorProto(), path)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    path.chmod(0o640)
    save(sample_tensor(), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


# --------------------------------------------------------------------------
# SequenceWriter and iter_sequence

FIELDS = [f"{kind}_values" for kind in ("tensor", "sparse_tensor", "sequence", "map", "optional")]


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
    expected = SequenceProto(name=name, elem_type=kind, **{FIELDS[kind - 1]: elements})
    assert buf.getvalue() == expected.encode()
    oracle = onnx.SequenceProto.FromString(buf.getvalue())
    assert oracle == onnx.SequenceProto.FromString(expected.encode())
    assert oracle.elem_type == kind and len(getattr(oracle, FIELDS[kind - 1])) == len(elements)


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
    raw = bytearray(m.encode())
    if raw:
        for _ in range(data.draw(st.integers(0, 3))):
            i = data.draw(st.integers(0, len(raw) - 1))
            raw[i] = data.draw(st.integers(0, 255))
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    raw = bytes(raw)
    got: list[Any] = []
    try:
        got.extend(_stream._elements(memoryview(raw), False, None))
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
    assert by_kind == [getattr(decoded, f) for f in FIELDS]


def test_iter_sequence_releases_the_mapping(tmp_path: Path) -> None:
    path = tmp_path / "seq.pb"
    with SequenceWriter(path, 1) as w:
        for i in range(3):
            w.append(TensorProto(int64_data=[i]))
    assert [list(t.int64_data) for t in iter_sequence(path)] == [[0], [1], [2]]
    it = iter_sequence(path)
    next(it)
    it.close()  # stopped early: cleaned up, nothing refers to the mapping
    assert list(iter_sequence(tmp_path / "seq.pb", mmap=False)) == list(iter_sequence(path))
    empty = tmp_path / "empty.pb"
    empty.write_bytes(b"")
    assert list(iter_sequence(empty)) == []


def test_load_needs_a_message_class(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="message class"):
        load(tmp_path / "absent.pb", "TensorProto")  # type: ignore[call-overload]


# --------------------------------------------------------------------------
# lengths: 5 bytes as upb reads them, more only where 5 cannot say it


@pytest.mark.parametrize(
    "prefix, value",
    [
        ("ff ff ff ff 7f", (1 << 35) - 1),  # the largest 5-byte length: upb's limit
        ("80 80 80 80 80 01", 1 << 35),  # 32 GiB: the smallest that needs 6 bytes
        ("ff ff ff ff ff ff ff ff ff 01", (1 << 64) - 1),
    ],
)
def test_lengths_past_32_gib_need_and_get_more_bytes(prefix: str, value: int) -> None:
    from onnxdata._encode import encode_varint
    from onnxdata._wire import read_length

    raw = bytes.fromhex(prefix)
    assert encode_varint(value) == raw
    # a payload that long cannot be built here: tell the reader the input goes on
    assert read_length(raw, 0, 1 << 70) == (value, len(raw))


@pytest.mark.parametrize(
    "prefix", ["81 80 80 80 80 00", "ff ff ff ff ff 00", "ff ff ff ff ff 80 00"]
)
def test_over_long_lengths_are_still_rejected(prefix: str) -> None:
    from onnxdata._wire import read_length

    with pytest.raises(DecodeError, match="longer than 5 bytes"):
        read_length(bytes.fromhex(prefix), 0, 1 << 70)


def test_save_through_a_symlink_replaces_its_target(tmp_path: Path) -> None:
    real = tmp_path / "real.pb"
    link = tmp_path / "link.pb"
    save(TensorProto(name="old"), real)
    link.symlink_to(real)
    save(TensorProto(name="new"), link)
    assert link.is_symlink() and load(real, TensorProto).name == "new"
