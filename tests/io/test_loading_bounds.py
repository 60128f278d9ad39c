"""Loading does bounded work on every input.

Only regular files are read: a device, a FIFO, a socket or a directory is
refused before a byte is read (and a FIFO with no writer cannot block the
open); ``max_size`` is checked against the file's size before it is mapped or
read; type detection reads one type when the bytes are mostly unknown fields.
The cases that used to hang or exhaust memory run in a child process with a
time and memory limit, so that a regression fails instead of hanging.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import onnxdata
from onnxdata import DecodeError, SequenceProto, TensorProto, iter_sequence, load
from onnxdata._core import wire
from onnxdata._io import entry, file_buffers, regular_files, type_detection
from tests.support.paths import ROOT

ROOT = ROOT
POSIX = os.name == "posix"


def run_bounded(code: str, seconds: float = 30) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a child limited to ``seconds`` and 1 GiB of address space."""
    limit = textwrap.dedent(
        """
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        """
    )
    return subprocess.run(
        [sys.executable, "-c", limit + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=seconds,
        cwd=ROOT,
        check=False,
    )


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize(
    "call",
    [
        "onnxdata.load('/dev/zero', max_size=1000)",
        "onnxdata.load('/dev/zero')",
        "onnxdata.load('/dev/zero', onnxdata.TensorProto, mmap=False)",
        "list(onnxdata.iter_sequence('/dev/zero'))",
    ],
)
def test_a_character_device_is_refused_before_reading(call: str) -> None:
    done = run_bounded(
        f"""
        import onnxdata
        try:
            {call}
        except ValueError as err:
            print(type(err).__name__, err)
        """
    )
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout == "ValueError '/dev/zero' is a character device, not a regular file: refused\n"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("how", ["load", "load_typed", "iter_sequence", "cli"])
def test_a_fifo_with_no_writer_does_not_block(tmp_path: Path, how: str) -> None:
    fifo = tmp_path / "pipe.pb"
    os.mkfifo(fifo)
    call = {
        "load": f"onnxdata.load({str(fifo)!r})",
        "load_typed": f"onnxdata.load({str(fifo)!r}, onnxdata.SequenceProto, mmap=False)",
        "iter_sequence": f"list(onnxdata.iter_sequence({str(fifo)!r}))",
        "cli": f"print(main(['show', {str(fifo)!r}]))",
    }[how]
    done = run_bounded(
        f"""
        import onnxdata
        from onnxdata.cli import main
        try:
            {call}
        except ValueError as err:
            print(err)
        """,
        seconds=20,
    )
    assert done.returncode == 0, done.stderr
    assert "is a FIFO, not a regular file" in done.stdout + done.stderr


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is a directory, not a regular file"):
        load(tmp_path)
    with pytest.raises(ValueError, match="is a directory"):
        list(iter_sequence(tmp_path))


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")
def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s"
    if len(str(path)) > 100:
        pytest.skip("socket path too long")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises((ValueError, OSError)) as info:
            load(path)
        # Opening a socket fails on Linux (ENXIO); where it opens, fstat refuses it.
        if not isinstance(info.value, OSError):
            assert "is a socket" in str(info.value)


def test_not_regular_names_what_a_file_is(tmp_path: Path) -> None:
    regular = tmp_path / "f"
    regular.write_bytes(b"")
    assert regular_files.not_regular(os.stat(regular)) is None
    assert regular_files.not_regular(os.stat(tmp_path)) == "a directory"
    if os.path.exists("/dev/null"):
        assert regular_files.not_regular(os.stat("/dev/null")) == "a character device"


def test_max_size_is_checked_before_mapping_or_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "huge.pb"
    with open(path, "wb") as f:
        f.truncate(1 << 40)  # a sparse TiB: reading it would take hours
    touched: list[str] = []
    monkeypatch.setattr(file_buffers, "map_file", lambda *a: touched.append("map"))
    for kwargs in ({}, {"mmap": True}):
        with pytest.raises(DecodeError, match=f"^TensorProto: {1 << 40} bytes is more than"):
            load(path, max_size=1000, **kwargs)
        with pytest.raises(DecodeError, match=r"^SequenceProto: "):
            load(path, SequenceProto, max_size=1000, **kwargs)
    assert touched == []


def test_a_file_read_without_mapping_is_read_no_further_than_max_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A file that says it is empty may still hold bytes (/proc files do).
    path = tmp_path / "t.pb"
    path.write_bytes(TensorProto(name="x" * 100).encode())
    real_fstat = os.fstat

    def lying_fstat(fd: int) -> Any:
        st = real_fstat(fd)
        return os.stat_result((st.st_mode, *st[1:6], 0, *st[7:10]))

    monkeypatch.setattr(file_buffers.os, "fstat", lying_fstat)
    with pytest.raises(DecodeError, match=r"^TensorProto: 51 bytes is more than max_size=50$"):
        load(path, max_size=50, mmap=False)
    assert load(path, max_size=200).name == "x" * 100


def test_detection_reads_one_type_of_a_file_of_unknown_fields(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every type reads these bytes as unknown fields, equally badly: the first
    # type wins the tie.  Only it may be decoded, and the check that it
    # re-encodes exactly must not run the unknown fields through the encoder.
    path = tmp_path / "unknown.pb"
    path.write_bytes(b"\x78\x00" * 50_000 + b"\x7d\x00\x00\x80\x3f" * 1000)
    decoded: list[type] = []
    encoded: list[int] = []
    real_decode, real_encode = type_detection.decode_part, type_detection.encode_to

    def decode_spy(cls: type, *args: Any) -> Any:
        decoded.append(cls)
        return real_decode(cls, *args)

    def encode_spy(msg: Any, *args: Any) -> Any:
        encoded.append(len(msg.unknown_fields))
        return real_encode(msg, *args)

    monkeypatch.setattr(type_detection, "decode_part", decode_spy)
    monkeypatch.setattr(type_detection, "encode_to", encode_spy)
    m = load(path)
    assert type(m) is TensorProto and len(m.unknown_fields) == 105_000
    assert decoded == [TensorProto]
    assert encoded == [0]


def reference_type(raw: bytes) -> type:
    """Decode every type and score each; the lowest score wins, a tie the first."""
    scored = []
    for rank, cls in enumerate(type_detection.CANDIDATES):
        try:
            msg = cls.decode(raw)
        except DecodeError:
            continue
        scored.append((type_detection.misfit(msg) + (msg.encode() != raw), rank, cls))
    return min(scored)[2]


@pytest.mark.parametrize(
    "raw",
    [
        b"\x0a\x01a" * 10 + b"\x08\x01" * 200,  # names, then dims past the quick look
        b"\x08\x01" * 100 + b"\x0a\x01a" * 200,
        b"\x08\x01" * 100 + b"\x78\x00" * 100 + b"\x1a\x00" * 30,
        b"\x12\x00" * 80 + b"\x10\x01" * 80,  # a sparse tensor's indices, or a name?
        b"\x10\x07" + b"\x18\x01" * 100 + b"\x22\x00" * 70,  # map keys and string keys
        b"\x7d\x00\x00\x80\x3f" * 100 + b"\x10\x01",
    ],
    ids=["dims-late", "names-late", "segments-late", "indices", "keys", "fixed32"],
)
def test_detection_past_the_quick_look_agrees_with_decoding_every_type(
    tmp_path: Path, raw: bytes
) -> None:
    from onnxdata._tools.show import detect_view

    path = tmp_path / "m.pb"
    path.write_bytes(raw)
    assert type(load(path)) is reference_type(raw)
    assert detect_view(memoryview(raw)).type is reference_type(raw)


def test_the_rule_is_public() -> None:
    assert {"open_regular", "not_regular"} <= set(regular_files.__all__)
    assert "open_buffer" in file_buffers.__all__
    assert onnxdata.load is entry.load  # models; data files go on to files.load


def test_runs_of_tiny_fields_are_matched_in_bounded_pieces() -> None:
    # An unbounded repetition would make ``re`` keep state per field.
    run = wire.field_run(0x78)  # field 15, varint
    assert run is not None
    data = b"\x78\x00" * 5000 + b"\x78\x80\x01" + b"\x10\x01"
    assert run.match(data).end() == 2 * 4096
    assert run.match(data, 2 * 4096, 2 * 5000).end() == 2 * 5000
    assert run.match(data, 2 * 5000).end() == 2 * 5000 + 3
    assert wire.field_run(0x7A) is None  # length-delimited: lengths vary
    assert wire.field_run(0x80) is None  # a tag of two bytes


def test_show_steps_over_runs_of_unknown_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    from onnxdata._tools import show as _show

    calls = [0]
    real = _show.read_field

    def counting(*args: Any) -> Any:
        calls[0] += 1
        return real(*args)

    monkeypatch.setattr(_show, "read_field", counting)
    data = b"\x78\x00" * 100_000 + b"\x7d\x00\x00\x80\x3f" * 10_000
    found = _show.detect_view(memoryview(data))
    assert found.type is TensorProto and found.result.unknown == len(data)
    assert len(found.ties) == 4
    assert calls[0] < 5 * 100  # per type: one per 4096 fields of a run, not one per field
