"""``save`` is atomic and ``load`` reads (or maps) the file and finds its type as ``show`` does.

``save``: a failure at any point (a write, fsync, the rename, an invalid
message) leaves the old file intact and no temporary file behind; it keeps
the file's permissions and follows symlinks.  ``load``: every message type
round-trips, with and without mmap and copies; the mapping is released as
soon as nothing refers to it; a loaded message survives a save over its file.
"""

from __future__ import annotations

import itertools
import os
import stat
from array import array
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from onnxdata import (
    DecodeError,
    EncodeTypeError,
    OptionalProto,
    SequenceProto,
    SequenceWriter,
    TensorProto,
    load,
    numpy_helper,
    save,
)
from onnxdata._codec import stream as _stream
from onnxdata._io.type_detection import CANDIDATES, misfit
from tests.support.message_strategies import ELEMENT_CLASSES, messages_of, scaled
from tests.support.numpy_support import every_view, sample_tensor


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
        for kwargs in ({}, {"mmap": True}, {"copy": True}, {"mmap": True, "copy": True}):
            got = load(str(path), type(m), **kwargs)
            assert type(got) is type(m) and got == m, kwargs
            if type(m) is not OptionalProto:  # else a one-element sequence, byte for byte
                assert load(path, **kwargs) == m
            if kwargs.get("copy"):
                assert every_view(got) == []


def test_load_unmaps_at_once_when_nothing_refers_to_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.pb"
    save(TensorProto(dims=[1], data_type=TensorProto.INT64, int64_data=[5]), path)
    m = load(path, mmap=True)
    assert every_view(m) == []  # nothing to map: the mapping is already closed
    m = load(path, TensorProto, copy=True, mmap=True)
    assert list(m.int64_data) == [5]


def test_a_loaded_message_survives_a_save_over_its_file(tmp_path: Path) -> None:
    path = tmp_path / "t.pb"
    old = numpy_helper.from_array(np.arange(1000, dtype=np.float32))
    save(old, path)
    m = load(path, mmap=True)
    assert type(m.raw_data) is memoryview
    save(numpy_helper.from_array(np.zeros(10, dtype=np.float32)), path)  # a new inode
    assert m == old
    assert load(path) != old


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


def check_detection(raw: bytes) -> None:
    """load() and show pick the reference's type, and show its ties.

    The reference: decode every type, score each (misfit, plus 1 unless it
    re-encodes to the bytes), the lowest wins, a tie goes to the first listed.
    load() and show must pick its winner while decoding less.
    """
    from onnxdata._io.type_detection import detect
    from onnxdata._tools.show import detect_view

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


@pytest.mark.parametrize("raw", [b"\x2a\x00", b"\x22\x00", b"\x08\x00\x2a\x00"])
def test_an_empty_packed_field_is_not_written_back(raw: bytes) -> None:
    # As a TensorProto, field 5 (4) of length 0 is an empty packed int32_data
    # (float_data), which the encoder leaves out: show's reader must count
    # that as a difference, as decoding does.
    assert TensorProto.decode(raw).encode() != raw
    check_detection(raw)


@settings(max_examples=scaled(0.3), suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_load_detects_the_type_as_the_cli_does(data: st.DataObject) -> None:
    cls = data.draw(st.sampled_from(ELEMENT_CLASSES))
    check_detection(data.draw(messages_of(cls, big=False)).encode())


# TensorProto.data_location (field 14) is a closed enum: a value it does not name is
# an unknown field, kept byte for byte and written last.  So neither two of them nor
# one after field 16 make the re-encoding differ, as a known field would.
_OUT_OF_RANGE = [b"\x70\x02", b"\x70\x7f", b"\x70\xff\xff\xff\xff\x0f"]  # 2, 127, -1


@pytest.mark.parametrize(
    "raw",
    [
        b"\x70\x02\x70\x02",  # twice: a tie of all five types, TensorProto first
        bytes.fromhex("10001a05820100700232021800"),  # after field 16, in a sequence's tensor
        bytes.fromhex("10001a075a01007002700232021800"),  # in a sequence's tensor
    ],
    ids=["twice", "after-16", "nested"],
)
def test_an_unknown_enum_value_is_scored_as_an_unknown_field(raw: bytes) -> None:
    check_detection(raw)


def test_detection_of_short_fields_that_most_types_read() -> None:
    # Every sequence of up to three fields short enough for most types to read
    # them, so that scores tie: data_location values in and out of range, a packed
    # field, a metadata_props entry; at the top, in a sequence's tensor or in
    # field 3 alone, with or without an unknown field after.
    pieces = [*_OUT_OF_RANGE[::2], b"\x70\x01", b"\x82\x01\x00", b"\x5a\x01\x00"]
    for n in (1, 2, 3):
        for body in itertools.product(pieces, repeat=n):
            payload = b"".join(body)
            for wrap in (b"", b"\x10\x00\x1a", b"\x1a"):
                raw = wrap + bytes([len(payload)]) + payload if wrap else payload
                for tail in (b"", b"\x32\x02\x18\x00"):
                    check_detection(raw + tail)


@pytest.mark.parametrize("nested", [False, True], ids=["tensors", "sequences"])
def test_load_detects_a_sequence_without_decoding_it_as_anything_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nested: bool
) -> None:
    # Read as a TensorProto, a sequence of tensors is a "segment" whose unknown
    # fields are the whole file, and a sequence of sequences is int32_data:
    # packed varints, ten times the file in memory.  As a MapProto, the tensors
    # are packed keys.  The quick look rules all of that out before decoding.
    from onnxdata._io import type_detection

    path = tmp_path / "s.pb"
    tensors = [numpy_helper.from_array(np.full(4096, i, np.float32)) for i in range(8)]
    elements: list[Any] = tensors
    if nested:
        elements = [SequenceProto(elem_type=1, tensor_values=[t]) for t in tensors]
    with SequenceWriter(path, SequenceProto.SEQUENCE if nested else SequenceProto.TENSOR) as w:
        for e in elements:
            w.append(e)
    decoded: list[type] = []
    real = type_detection.decode_part

    def spy(cls: type, *args: Any) -> Any:
        decoded.append(cls)
        return real(cls, *args)

    monkeypatch.setattr(type_detection, "decode_part", spy)
    m = load(path)
    assert type(m) is SequenceProto
    assert (m.sequence_values if nested else m.tensor_values) == elements
    assert decoded == [SequenceProto]


def test_load_needs_a_message_class(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="message class"):
        load(tmp_path / "absent.pb", 42)
    with pytest.raises(TypeError, match="message class"):
        load(tmp_path / "absent.pb", type=dict)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Unsupported format: 'TensorProto'"):
        load(tmp_path / "absent.pb", "TensorProto")  # a string names a format, as in onnx


def test_save_keeps_the_old_file_when_writing_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.pb"
    old = sample_tensor()
    save(old, path)
    before = path.read_bytes()
    big = TensorProto(raw_data=bytes(4 << 20), float_data=array("f", bytes(4 << 20)))

    calls = {"n": 0}
    real_out = _stream.Sink._out

    def crash_midway(self: Any, data: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:  # after some bytes reached the temporary file
            raise OSError(28, "No space left on device")
        real_out(self, data)

    monkeypatch.setattr(_stream.Sink, "_out", crash_midway)
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


def test_save_through_a_symlink_replaces_its_target(tmp_path: Path) -> None:
    real = tmp_path / "real.pb"
    link = tmp_path / "link.pb"
    save(TensorProto(name="old"), real)
    link.symlink_to(real)
    save(TensorProto(name="new"), link)
    assert link.is_symlink() and load(real, TensorProto).name == "new"
