"""``write_all``: the one reader of ``write()`` results, held to Python's I/O contract.

A count short of the piece is followed by another write for the rest;
``None`` is "would block" and raises ``BlockingIOError`` with the bytes taken;
a result that breaks the contract raises after one call, never loops.  The
streams built on it are tested in ``tests/io/test_encode_to_writes.py``.
"""

from __future__ import annotations

import io
from array import array
from typing import Any

import numpy as np
import pytest

from onnxdata._core import short_writes
from onnxdata._core.short_writes import write_all


class Verbatim:
    """A result returned as it is, taking nothing."""

    def __init__(self, value: Any) -> None:
        self.value = value


class Script:
    """``write`` acts as the next of ``results`` says, keeping what it took.

    ``"all"`` takes the whole piece, an ``int`` k takes up to k bytes (and says
    how many), an exception is raised, anything else is returned as it is
    and takes nothing.
    """

    def __init__(self, *results: Any, then: Any = "all") -> None:
        self.results = list(results)
        self.then = then
        self.taken = bytearray()
        self.calls = 0

    def write(self, piece: Any) -> Any:
        self.calls += 1
        result = self.results.pop(0) if self.results else self.then
        if isinstance(result, str) and result == "all":
            result = len(piece)
        if isinstance(result, BaseException):
            raise result
        if isinstance(result, Verbatim):
            return result.value
        if type(result) is int and result > 0:
            result = min(result, len(piece))
            self.taken += bytes(piece[:result])
        return result


DATA = bytes(range(256)) * 4


def test_a_whole_write_is_one_call() -> None:
    s = Script()
    assert write_all(s.write, DATA) == len(DATA)
    assert (bytes(s.taken), s.calls) == (DATA, 1)


@pytest.mark.parametrize("step", [1, 7, 100, 1023])
def test_short_writes_are_finished(step: int) -> None:
    s = Script(then=step)
    assert write_all(s.write, DATA) == len(DATA)
    assert bytes(s.taken) == DATA
    assert s.calls == -(-len(DATA) // step)


def test_none_at_once_is_blocking_with_nothing_written() -> None:
    s = Script(None)
    with pytest.raises(BlockingIOError) as caught:
        write_all(s.write, DATA)
    assert caught.value.characters_written == 0
    assert s.calls == 1


def test_none_after_a_short_write_counts_what_was_taken() -> None:
    s = Script(300, None)
    with pytest.raises(BlockingIOError) as caught:
        write_all(s.write, DATA)
    assert caught.value.characters_written == 300 == len(s.taken)


def test_a_blocking_error_raised_by_write_is_counted_from_the_start() -> None:
    s = Script(300, BlockingIOError(11, "full", 20))
    with pytest.raises(BlockingIOError) as caught:
        write_all(s.write, DATA)
    assert caught.value.characters_written == 320


def test_a_blocking_error_without_a_count_counts_what_came_before() -> None:
    s = Script(300, BlockingIOError(11, "full"))
    with pytest.raises(BlockingIOError) as caught:
        write_all(s.write, DATA)
    assert caught.value.characters_written == 300


@pytest.mark.parametrize(
    ("result", "error", "words"),
    [
        (0, OSError, r"returned 0 .*no progress"),
        (-1, OSError, r"returned -1 .*no progress"),
        (Verbatim(len(DATA) + 1), OSError, "more than it was given"),
        ("4", TypeError, "returned str '4'"),
        (4.0, TypeError, "returned float 4.0"),
        (True, TypeError, "returned True"),
        (b"", TypeError, "returned bytes"),
    ],
)
def test_a_result_that_breaks_the_contract_raises_after_one_call(
    result: Any, error: type[Exception], words: str
) -> None:
    s = Script(result)
    with pytest.raises(error, match=words):
        write_all(s.write, DATA)
    assert s.calls == 1


def test_an_integer_of_another_type_is_a_count() -> None:
    s = Script(Verbatim(np.int64(100)))
    assert write_all(s.write, DATA) == len(DATA)
    assert bytes(s.taken) == DATA[100:]  # the rest, after the 100 said taken
    assert s.calls == 2


def test_counts_are_bytes_whatever_the_items() -> None:
    values = array("d", [1.0, -2.0, 3.5])
    s = Script(8, 8, 8)
    assert write_all(s.write, memoryview(values)) == 24
    assert bytes(s.taken) == values.tobytes()
    matrix = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = io.BytesIO()
    assert write_all(out.write, matrix) == 24
    assert out.getvalue() == matrix.tobytes()


def test_nothing_to_write_calls_nothing() -> None:
    s = Script()
    assert write_all(s.write, b"") == 0
    assert s.calls == 0


def test_pieces_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(short_writes, "MAX_WRITE", 100)
    seen: list[int] = []

    def write(piece: Any) -> int:
        seen.append(len(piece))
        return len(piece)

    assert write_all(write, DATA) == len(DATA)
    assert seen == [100] * 10 + [24]


def test_other_errors_pass_through() -> None:
    s = Script(OSError(28, "No space left on device"))
    with pytest.raises(OSError, match="No space"):
        write_all(s.write, DATA)


def test_a_large_piece_goes_whole() -> None:
    # Payloads are passed on as they are (no copy): only pieces over MAX_WRITE are cut.
    seen: list[int] = []

    def write(piece: Any) -> int:
        seen.append(len(piece))
        return len(piece)

    assert write_all(write, bytes(3 << 20)) == 3 << 20
    assert seen == [3 << 20]
