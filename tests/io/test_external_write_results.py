"""The external-data writer reads every ``os.write`` result as the package's other writers do.

``os.write`` may take less than it is given; a result of 0 (a file that takes
nothing) must raise, not loop, and the file is cut back to what it held.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from onnxdata import TensorProto
from onnxdata._io import external


def _tensor() -> TensorProto:
    t = TensorProto(name="w", dims=[4], data_type=TensorProto.FLOAT)
    t.data_location = TensorProto.EXTERNAL
    t.external_data.add(key="location", value="weights.bin")
    return t


def test_short_writes_are_completed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.write
    calls = []

    def one_byte(fd: int, data: bytes) -> int:
        calls.append(len(data))
        return real(fd, bytes(data[:1]))

    monkeypatch.setattr(external.os, "write", one_byte)
    payload = bytes(range(16))
    offset, length = external.write_external_data(_tensor(), str(tmp_path), payload)
    assert (offset, length) == (0, 16)
    assert (tmp_path / "weights.bin").read_bytes() == payload
    assert len(calls) == 16


def test_a_write_of_nothing_raises_and_leaves_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "weights.bin").write_bytes(b"kept")
    monkeypatch.setattr(external.os, "write", lambda fd, data: 0)
    with pytest.raises(OSError):
        external.write_external_data(_tensor(), str(tmp_path), bytes(16))
    assert (tmp_path / "weights.bin").read_bytes() == b"kept"
