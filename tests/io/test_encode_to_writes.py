"""Streams never lose bytes silently (issue 31, class 2).

A raw ``write()`` may take part of a chunk, or, on a non-blocking file,
return ``None``: nothing written.  ``encode_to`` and ``SequenceWriter`` write
every chunk through ``_core.short_writes.write_all``: a short write is finished,
``None`` raises ``BlockingIOError`` with ``characters_written`` set to the
bytes the file took (as ``io.BufferedWriter`` does), and a result that breaks
the contract (0, negative, more than asked, not an integer) raises instead of
looping.  Checked on a real non-blocking pipe and socket, a buffered file over
a non-blocking pipe, and fake writers.
"""

from __future__ import annotations

import io
import os
import socket
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from onnxdata import SequenceProto, SequenceWriter, TensorProto

BIG = TensorProto(dims=[1 << 18], data_type=1, name="big", float_data=array("f", bytes(1 << 20)))


def _drain(fd: int) -> bytes:
    """Everything waiting in the read end ``fd`` (made non-blocking)."""
    os.set_blocking(fd, False)
    parts = []
    while True:
        try:
            part = os.read(fd, 1 << 16)
        except BlockingIOError:
            break
        if not part:
            break
        parts.append(part)
    return b"".join(parts)


@contextmanager
def nonblocking_pipe(buffering: int = 0) -> Iterator[tuple[int, Any]]:
    r, w = os.pipe()
    os.set_blocking(w, False)
    file = open(w, "wb", buffering=buffering)  # noqa: SIM115 - closed below
    try:
        yield r, file
    finally:
        try:
            file.close()
        except BlockingIOError:  # a buffered file that cannot flush: drop its buffer
            os.close(w)
        os.close(r)


def test_encode_to_a_full_nonblocking_pipe_raises_with_the_count() -> None:
    expected = BIG.encode()
    with nonblocking_pipe() as (r, file):
        with pytest.raises(BlockingIOError) as caught:
            BIG.encode_to(file)
        got = _drain(r)
    written = caught.value.characters_written
    assert 0 < written < len(expected)
    assert len(got) == written
    assert got == expected[:written]


def test_encode_to_a_buffered_file_over_a_full_pipe_counts_from_the_start() -> None:
    # io.BufferedWriter raises BlockingIOError itself, counting only the bytes
    # of the chunk it was given: the count becomes the stream's.
    expected = BIG.encode()
    with nonblocking_pipe(buffering=1 << 13) as (r, file):
        with pytest.raises(BlockingIOError) as caught:
            BIG.encode_to(file)
        written = caught.value.characters_written
        got = bytearray(_drain(r))
        os.set_blocking(file.fileno(), True)
        while True:  # what the file buffered reaches the pipe once it has room
            file.flush()
            more = _drain(r)
            if not more:
                break
            got += more
    assert 0 < written < len(expected)
    assert bytes(got) == expected[:written]


def test_encode_to_a_full_nonblocking_socket_raises_with_the_count() -> None:
    m = TensorProto(dims=[1 << 22], data_type=2, raw_data=bytes(range(256)) * (1 << 14))
    expected = m.encode()
    a, b = socket.socketpair()
    with a, b:
        a.setblocking(False)
        file = a.makefile("wb", buffering=0)
        with file, pytest.raises(BlockingIOError) as caught:
            m.encode_to(file)
        written = caught.value.characters_written
        b.setblocking(False)
        got = bytearray()
        while True:
            try:
                part = b.recv(1 << 16)
            except BlockingIOError:
                break
            got += part
    assert 0 < written < len(expected)
    assert bytes(got) == expected[:written]


def test_a_sequence_writer_on_a_full_pipe_fails_and_stays_failed() -> None:
    sequence = SequenceProto(elem_type=1, tensor_values=[BIG, BIG])
    expected = sequence.encode()
    with nonblocking_pipe() as (r, file):
        writer = SequenceWriter(file, TensorProto)
        with pytest.raises(BlockingIOError) as caught:
            for element in sequence.tensor_values:
                writer.append(element)
        got = _drain(r)
        with pytest.raises(ValueError, match="failed to write"):
            writer.append(BIG)
        with pytest.raises(ValueError, match="failed to write"):
            writer.close()
    written = caught.value.characters_written
    assert 0 < written < len(expected)
    assert got == expected[:written]


class Fake:
    """A writer whose ``write`` returns what ``results`` says, call after call.

    ``"all"`` takes the whole piece, an integer ``k`` takes ``k`` bytes (and
    says so), anything else is returned as it is and takes nothing.
    """

    def __init__(self, *results: Any, then: Any = "all") -> None:
        self.results = list(results)
        self.then = then
        self.data = bytearray()
        self.calls = 0

    def write(self, piece: Any) -> Any:
        self.calls += 1
        result = self.results.pop(0) if self.results else self.then
        if result == "all" and isinstance(result, str):
            self.data += piece
            return len(piece)
        if type(result) is int and 0 < result <= len(piece):
            self.data += bytes(piece[:result])
        return result


def _small() -> TensorProto:
    return TensorProto(dims=[3], data_type=7, int64_data=[1, 2, 3], name="n")


def test_short_writes_are_finished() -> None:
    m = _small()
    fake = Fake(then=1)  # one byte a call
    assert m.encode_to(fake) == len(m.encode())
    assert bytes(fake.data) == m.encode()
    assert fake.calls == len(m.encode())


def test_none_after_some_bytes_reports_them() -> None:
    fake = Fake("all", 1000, None)  # the small fields, then part of float_data
    with pytest.raises(BlockingIOError) as caught:
        BIG.encode_to(fake)
    assert caught.value.characters_written == len(fake.data) > 1000
    assert bytes(fake.data) == BIG.encode()[: len(fake.data)]
    assert fake.calls == 3


@pytest.mark.parametrize(
    ("result", "error", "words"),
    [
        (0, OSError, "returned 0"),
        (-1, OSError, "returned -1"),
        (10**9, OSError, "more than it was given"),
        ("ok", TypeError, "returned str 'ok'"),
        (1.0, TypeError, "returned float 1.0"),
        (True, TypeError, "returned True"),
    ],
)
def test_a_result_that_breaks_the_contract_raises_at_once(
    result: Any, error: type[Exception], words: str
) -> None:
    fake = Fake(result)
    with pytest.raises(error, match=words):
        _small().encode_to(fake)
    assert fake.calls == 1  # never a second try, never a loop


@pytest.mark.parametrize("result", [None, 0, -1, 10**9, "ok"])
def test_a_sequence_writer_refuses_the_same_results(result: Any) -> None:
    fake = Fake("all", result)  # the header goes out, then the element's chunk fails
    writer = SequenceWriter(fake, TensorProto)
    with pytest.raises((OSError, TypeError)):
        writer.append(BIG)
        writer.close()
    assert fake.calls == 2
    with pytest.raises(ValueError, match="failed to write"):
        writer.append(_small())


def test_a_blocking_io_error_raised_by_write_is_counted_from_the_stream_start() -> None:
    class Buffered:
        calls = 0

        def write(self, piece: Any) -> int:
            self.calls += 1
            if self.calls == 1:
                return len(piece)
            raise BlockingIOError(11, "would block", 5)

    first = len(SequenceProto(elem_type=1).encode())
    writer = SequenceWriter(Buffered(), TensorProto)
    writer._sink.flush()  # the header goes out alone
    with pytest.raises(BlockingIOError) as caught:
        writer.append(BIG)
    assert caught.value.characters_written == first + 5


def test_a_blocking_file_object_still_gets_everything() -> None:
    buf = io.BytesIO()
    assert BIG.encode_to(buf) == len(BIG.encode())
    assert buf.getvalue() == BIG.encode()


def test_a_blocking_unbuffered_pipe_gets_everything() -> None:
    # A blocking raw file returns counts, never None: nothing is refused there.
    r, w = os.pipe()
    try:
        with open(w, "wb", buffering=0) as file:
            _small().encode_to(file)
        assert _drain(r) == _small().encode()
    finally:
        os.close(r)


def test_save_tensor_to_a_full_nonblocking_pipe_raises() -> None:
    # onnx's save_tensor(proto, f) writes through the same helper.
    from onnxdata import save_tensor

    expected = BIG.encode()
    with nonblocking_pipe() as (r, file):
        with pytest.raises(BlockingIOError) as caught:
            save_tensor(BIG, file)
        got = _drain(r)
    assert 0 < caught.value.characters_written == len(got) < len(expected)
    assert got == expected[: len(got)]
