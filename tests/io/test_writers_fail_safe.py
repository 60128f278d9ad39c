"""A failed write never leaves a corrupt file, and no temporary outlives its writer.

- A SequenceWriter whose write failed (a flaky file object, a full disk) refuses
  to go on: later append() and close() raise, and a path's target keeps its old
  contents.
- A writer dropped without close() removes its temporary file.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import onnxdata
from onnxdata import SequenceProto, SequenceWriter, TensorProto

ELEMENT = TensorProto(dims=[1024], data_type=TensorProto.UINT8, raw_data=bytes(1024))


class Flaky:
    """A file object whose write fails once, on the ``fail_at``-th call."""

    def __init__(self, fail_at: int) -> None:
        self.calls = 0
        self.fail_at = fail_at
        self.data = bytearray()

    def write(self, chunk: Any) -> int:
        self.calls += 1
        if self.calls == self.fail_at:
            raise OSError(28, "No space left on device")
        self.data += chunk
        return len(chunk)


def _temporaries(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_a_writer_refuses_to_go_on_after_a_failed_write() -> None:
    file = Flaky(fail_at=2)
    writer = SequenceWriter(file, TensorProto)
    big = TensorProto(raw_data=bytes(1 << 17))  # written straight through, not gathered
    with pytest.raises(OSError, match="No space"):
        writer.append(big)
    with pytest.raises(ValueError, match="failed to write element 0"):
        writer.append(ELEMENT)
    with pytest.raises(ValueError, match="nothing more can be written"):
        writer.close()


def test_a_bad_element_does_not_break_the_writer(tmp_path: Path) -> None:
    target = tmp_path / "seq.pb"
    with SequenceWriter(target, TensorProto) as writer:
        with pytest.raises(TypeError):
            writer.append(TensorProto(dims=["x"]))  # type: ignore[list-item]
        writer.append(ELEMENT)
    assert SequenceProto.decode(target.read_bytes()).tensor_values == [ELEMENT]


def test_a_full_disk_never_replaces_the_target(tmp_path: Path) -> None:
    # A file size limit makes writes fail as a full disk does, in a child process.
    target = tmp_path / "seq.pb"
    old = SequenceProto(elem_type=SequenceProto.TENSOR, tensor_values=[ELEMENT]).encode()
    target.write_bytes(old)
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        sys.path.insert(0, {str(Path(onnxdata.__file__).parent.parent)!r})
        from onnxdata import SequenceWriter, TensorProto
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
        element = TensorProto(dims=[1 << 16], data_type=2, raw_data=bytes(1 << 16))
        writer = SequenceWriter({str(target)!r}, TensorProto)
        try:
            for _ in range(100):
                writer.append(element)
        except OSError:
            print("append failed")
        for call in (lambda: writer.append(element), writer.close):
            try:
                call()
            except ValueError:
                print("refused")
        """
    )
    if not hasattr(os, "fork") or sys.platform == "win32":
        pytest.skip("needs resource limits")
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[:3] == ["append failed", "refused", "refused"]
    assert target.read_bytes() == old
    assert _temporaries(tmp_path) == []


def test_a_writer_dropped_without_close_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "seq.pb"
    writer = SequenceWriter(target, TensorProto)
    writer.append(ELEMENT)
    assert len(_temporaries(tmp_path)) == 1
    del writer
    gc.collect()
    assert _temporaries(tmp_path) == []
    assert not target.exists()


def test_a_failed_save_leaves_the_target_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "t.pb"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        onnxdata.save(TensorProto(name=5), target)  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert _temporaries(tmp_path) == []
