"""Writers of one external-data file never mix their tensors (issue 31, class 8).

``save_external_data`` found the end of the file, then wrote there: 16 threads
writing into one file read back, up to 10 of them, another tensor's bytes.
Finding the end and writing is now one step among the threads of a process
(a lock per file, by device and inode, whatever path reaches it) and among
processes (``flock``).  Each test checks that every tensor reads back its own
bytes, that no two tensors' ranges overlap, and that nothing else is in the file
but the zeros of alignment gaps.
"""

from __future__ import annotations

import errno
import itertools
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import onnxdata._io.external as external
from onnxdata import TensorProto
from onnxdata.checker import ValidationError
from onnxdata.external_data_helper import (
    ExternalDataInfo,
    load_external_data_for_tensor,
    save_external_data,
    set_external_data,
)

SIZES = [1, 3, 64, 1000, 4096, 4097, 65_536, 300_001]


def _payload(writer: int, index: int, size: int) -> bytes:
    """Bytes that say whose they are, at every position."""
    stamp = f"<{writer}:{index}>".encode()
    return (stamp * (size // len(stamp) + 1))[:size]


def _tensor(writer: int, index: int, size: int, location: str = "shared.bin") -> TensorProto:
    t = TensorProto(
        name=f"w{writer}-{index}",
        data_type=TensorProto.UINT8,
        dims=[size],
        raw_data=_payload(writer, index, size),
    )
    set_external_data(t, location)
    return t


def _check_file(path: Path, tensors: list[TensorProto]) -> None:
    """Each tensor reads back its own bytes; ranges are disjoint; the rest is zeros."""
    data = path.read_bytes()
    ranges = []
    for t in tensors:
        info = ExternalDataInfo(t)
        assert info.offset is not None and info.length is not None
        expected = bytes(t.raw_data)  # type: ignore[arg-type]
        assert data[info.offset : info.offset + info.length] == expected, t.name
        copy = TensorProto.decode(t.encode())
        copy.ClearField("raw_data")
        load_external_data_for_tensor(copy, str(path.parent))
        assert copy.raw_data == expected
        ranges.append((info.offset, info.offset + info.length))
    ranges.sort()
    for (_, end), (start, _) in itertools.pairwise(ranges):
        assert end <= start, "two tensors overlap"
    assert ranges[-1][1] == len(data)
    covered = bytearray(len(data))
    for start, end in ranges:
        covered[start:end] = b"\x01" * (end - start)
    outside = [b for b, mine in zip(data, covered, strict=True) if not mine]
    assert outside == [0] * len(outside), "bytes outside any tensor"


def _run_threads(count: int, work: Any) -> list[Any]:
    start = threading.Barrier(count)
    results: list[Any] = [None] * count
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            start.wait()
            results[i] = work(i)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


@pytest.mark.parametrize("round_", range(12))
def test_sixteen_threads_each_read_back_their_own_bytes(tmp_path: Path, round_: int) -> None:
    per_thread = 3

    def work(i: int) -> list[TensorProto]:
        done = []
        for k in range(per_thread):
            t = _tensor(i, k, SIZES[(i + k + round_) % len(SIZES)])
            save_external_data(t, str(tmp_path))
            done.append(t)
        return done

    tensors = [t for batch in _run_threads(16, work) for t in batch]
    _check_file(tmp_path / "shared.bin", tensors)


def test_aligned_writers_never_overwrite(tmp_path: Path) -> None:
    """Writers that ask for an aligned offset after the end they saw: a writer
    whose offset another writer has passed meanwhile is refused, writes
    nothing, and tries again; every accepted offset is aligned."""
    align = 4096
    path = tmp_path / "shared.bin"
    path.write_bytes(b"")
    refused = [0] * 16

    def work(i: int) -> list[TensorProto]:
        done = []
        for k in range(4):
            while True:
                end = path.stat().st_size
                t = _tensor(i, k, SIZES[(i * 4 + k) % len(SIZES)])
                set_external_data(t, "shared.bin", offset=-(-end // align) * align)
                try:
                    save_external_data(t, str(tmp_path))
                except ValidationError:
                    refused[i] += 1
                    continue
                done.append(t)
                break
        return done

    tensors = [t for batch in _run_threads(16, work) for t in batch]
    assert all(ExternalDataInfo(t).offset % align == 0 for t in tensors)  # type: ignore[operator]
    _check_file(path, tensors)


def test_one_file_by_two_paths_is_one_lock(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")  # the base folder may be a link

    def work(i: int) -> list[TensorProto]:
        base = tmp_path / ("real" if i % 2 else "alias")
        t = _tensor(i, 0, SIZES[i % len(SIZES)])
        save_external_data(t, str(base))
        return [t]

    tensors = [t for batch in _run_threads(16, work) for t in batch]
    _check_file(tmp_path / "real" / "shared.bin", tensors)


def test_a_file_system_without_locks_still_keeps_threads_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if external.fcntl is None:
        pytest.skip("no flock here")
    calls = []

    def no_locks(fd: int, op: int) -> None:
        calls.append(op)
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(external.fcntl, "flock", no_locks)

    def work(i: int) -> list[TensorProto]:
        t = _tensor(i, 0, SIZES[i % len(SIZES)])
        save_external_data(t, str(tmp_path))
        return [t]

    tensors = [t for batch in _run_threads(16, work) for t in batch]
    assert len(calls) == 16
    _check_file(tmp_path / "shared.bin", tensors)


def test_other_lock_errors_are_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if external.fcntl is None:
        pytest.skip("no flock here")

    def broken(fd: int, op: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(external.fcntl, "flock", broken)
    with pytest.raises(OSError, match="Input/output"):
        save_external_data(_tensor(0, 0, 10), str(tmp_path))
    assert (tmp_path / "shared.bin").read_bytes() == b""


_CHILD = """
import json, sys
from onnxdata import TensorProto
from onnxdata.external_data_helper import ExternalDataInfo, save_external_data, set_external_data
from tests.io.test_external_concurrency import _tensor
writer, count, folder = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
sys.stdin.readline()  # start together
out = []
for k in range(count):
    t = _tensor(writer, k, [1, 3, 64, 1000, 4096, 4097, 65536, 300001][(writer + k) % 8])
    save_external_data(t, folder)
    info = ExternalDataInfo(t)
    out.append([info.offset, info.length])
print(json.dumps(out))
"""


@pytest.mark.skipif(external.fcntl is None, reason="processes are kept apart with flock")
def test_several_processes_each_read_back_their_own_bytes(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    count = 25
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(w), str(count), str(tmp_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=root,
            env=env,
        )
        for w in range(4)
    ]
    for child in children:  # all imported and waiting: now go
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    tensors = []
    for w, child in enumerate(children):
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        for k, (offset, length) in enumerate(json.loads(out)):
            t = _tensor(w, k, length)
            set_external_data(t, "shared.bin", offset, length)
            tensors.append(t)
    _check_file(tmp_path / "shared.bin", tensors)
