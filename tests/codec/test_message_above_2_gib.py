"""A message above 2 GiB: written, mapped, read back, re-encoded.

protobuf cannot parse a message over 2 GiB; onnxdata has no such ceiling.
One test, marked ``slow`` (most of its time is the kernel copying 2.1 GiB
into the page cache) but not deselected: every CI run runs it.

No copy of the message is ever made: the payload is an anonymous mapping,
written only at a few marker bytes (the resident set still grows by the
message's size, as the kernel fills its zero pages while they are written
out), the file is written by ``SequenceWriter`` (streaming ``encode_to``),
and everything after reads the file through ``mmap``; the re-encoding is
checked by address, not by value.
The file is deleted at the end.
"""

from __future__ import annotations

import io
import mmap
import shutil
from pathlib import Path

import numpy as np
import pytest

from onnxdata import (
    DecodeError,
    EncodeValueError,
    SequenceProto,
    SequenceWriter,
    TensorProto,
    iter_sequence,
    load,
    numpy_helper,
)
from onnxdata._core import mapped

SIZE = (2 << 30) + (100 << 20)  # 2.1 GiB of raw_data: one field longer than 2**31 bytes
MARKERS = {
    0: b"head",
    (1 << 31) - 3: b"across 2**31",
    SIZE // 3 * 2: b"two thirds",
    SIZE - 4: b"tail",
}


@pytest.mark.slow
def test_a_sequence_above_2_gib(tmp_path: Path) -> None:
    if shutil.disk_usage(tmp_path).free < SIZE + (1 << 30):
        pytest.skip("needs 3.2 GB of free disk")  # pragma: no cover
    payload = mmap.mmap(-1, SIZE)
    for pos, marker in MARKERS.items():
        payload[pos : pos + len(marker)] = marker
    huge = TensorProto(dims=[SIZE], data_type=TensorProto.UINT8, name="huge")
    huge.raw_data = memoryview(payload)  # type: ignore[assignment]
    small = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), name="small")
    path = tmp_path / "huge.pb"
    try:
        with SequenceWriter(path, SequenceProto.TENSOR, name="big") as writer:
            writer.append(huge)
            writer.append(small)
        size = path.stat().st_size
        assert size > SIZE > 1 << 31

        # load: mapped, type detected, values are views of the file
        seq = load(path, mmap=True)
        assert isinstance(seq, SequenceProto) and seq.name == "big"
        got, got_small = seq.tensor_values
        assert got.name == "huge" and list(got.dims) == [SIZE] and len(got.raw_data) == SIZE
        assert type(got.raw_data) is memoryview
        for pos, marker in MARKERS.items():
            assert got.raw_data[pos : pos + len(marker)] == marker
        values = numpy_helper.to_array(got)  # a view: no 2.1 GiB copy
        assert values.shape == (SIZE,) and not values.flags.writeable
        assert bytes(values[(1 << 31) - 3 : (1 << 31) + 9]) == b"across 2**31"
        assert got_small == small

        # Re-encoding the loaded message gives the file back, byte for byte:
        # the small chunks are compared, and the 2.1 GiB one must be the
        # mapping itself at the right offset (no copy, nothing to compare).
        mapping = got.raw_data.obj
        assert mapped.is_mapped(got.raw_data) and len(mapping) == size
        recorder = _Recorder(np.frombuffer(mapping, np.uint8))
        assert seq.encode_to(recorder) == size == recorder.pos
        assert sum(recorder.big) == SIZE  # written in pieces of at most 1 GiB
        del recorder, mapping
        del values, got, got_small, seq

        # iter_sequence: one element at a time
        names = []
        for element in iter_sequence(path, mmap=True):
            assert isinstance(element, TensorProto)
            names.append(element.name)
            if element.name == "huge":
                assert element.raw_data[SIZE - 4 :] == b"tail"
            del element
        assert names == ["huge", "small"]

        # max_size gives protobuf's limit back to whoever needs it
        with pytest.raises(DecodeError, match="max_size"):
            load(path, SequenceProto, max_size=(1 << 31) - 1)
        with pytest.raises(EncodeValueError, match="max_size"):
            huge.encode_to(io.BytesIO(), max_size=(1 << 31) - 1)
    finally:
        path.unlink(missing_ok=True)
        del huge
        payload.close()


class _Recorder:
    """Checks each chunk written against the file: a small one by value, a big
    one by address, which must be the file's own bytes at that offset."""

    def __init__(self, file: np.ndarray) -> None:
        self.file: np.ndarray | None = file
        self.pos = 0
        self.big: list[int] = []

    def write(self, b: object) -> int:
        assert self.file is not None
        chunk = np.frombuffer(b, np.uint8)  # type: ignore[call-overload]
        n = len(chunk)
        if n >= 1 << 20:
            address = chunk.__array_interface__["data"][0]
            assert address == self.file.__array_interface__["data"][0] + self.pos
            self.big.append(n)
        else:
            assert np.array_equal(chunk, self.file[self.pos : self.pos + n])
        self.pos += n
        return n
