"""Runs of varints of one length, read by ``npvarints._last_run`` without a search per varint.

Sorted values (a sparse tensor's indices, which ONNX requires sorted) are a
run of each varint length, and a window that ends in a long run is read as
rows of ``k`` bytes.  Every case here is compared with the per-value loop:
runs of every length 1-10 in any order, runs ending in over-long varints,
the row bound falling inside a longer varint, runs across windows, payloads
that end at the message's end (the last rows' words padded) or inside it,
and malformed payloads, which must leave the array as it was.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata._codec import npvarints as npvarints
from onnxdata._core.schema import KINDS
from tests.support import wirekit as wk
from tests.support.message_strategies import constants, scaled
from tests.support.oracle import to_oracle, varint_path

INT32 = KINDS["int32"].typecode
FIELD = {"q": ("int64_data", 7), "Q": ("uint64_data", 11), INT32: ("int32_data", 5)}


def _loop(payload: bytes, code: str) -> array[int]:
    """The per-value loop's values of ``payload``, through the public decoder."""
    field, number = FIELD[code]
    with varint_path("loop"):
        return array(code, getattr(onnxdata.TensorProto.decode(wk.f_len(number, payload)), field))


@contextmanager
def _spied() -> Iterator[list[Any]]:
    """The runs ``_last_run`` finds while the block runs."""
    found: list[Any] = []
    real = npvarints._last_run

    def spy(*args: Any) -> Any:
        run = real(*args)
        found.append(run)
        return run

    npvarints._last_run = spy  # type: ignore[assignment]
    try:
        yield found
    finally:
        npvarints._last_run = real  # type: ignore[assignment]


def _set(**values: int) -> AbstractContextManager[None]:
    """``npvarints``'s thresholds set for one hypothesis example."""
    return constants(npvarints, **values)


def _decode(chunk: bytes, code: str, first: int = 7) -> tuple[bool, array[int]]:
    out = array(code, [first])
    return npvarints.decode(np, chunk, out), out


def _values(length: int, count: int, seed: int) -> list[int]:
    """``count`` values whose minimal varints are ``length`` bytes long (10: negative)."""
    rng = np.random.default_rng(seed)
    if length == 10:
        return [-int(v) for v in rng.integers(1, 1 << 62, count)]
    low = 0 if length == 1 else 1 << 7 * (length - 1)
    return [int(v) for v in rng.integers(low, min(1 << 7 * length, 1 << 63), count)]


def _varints(length: int, count: int, seed: int) -> list[bytes]:
    return [wk.varint(v) for v in _values(length, count, seed)]


@pytest.mark.usefixtures("fast_paths")
def test_sorted_indices_are_read_as_runs() -> None:
    """Sparse indices at the default thresholds: the 3-byte run after the
    1- and 2-byte ones is read as rows; the values are the loop's and the
    oracle's."""
    rng = np.random.default_rng(3)
    indices = np.sort(rng.choice(1_000_000, 50_000, replace=False)).astype(np.int64)
    values = onnx.helper.make_tensor("v", onnx.TensorProto.FLOAT, [50_000], [1.0] * 50_000)
    sparse = onnx.helper.make_sparse_tensor(
        values, onnx.helper.make_tensor("i", onnx.TensorProto.INT64, [50_000], indices.tolist()),
        [1000, 1000],
    )  # fmt: skip
    data = sparse.SerializeToString()
    with _spied() as found:
        ours = onnxdata.SparseTensorProto.decode(data)
    run = next(r for r in found if r is not None)
    three = int(np.count_nonzero(indices >= 1 << 14))
    shorter = 2 * (50_000 - three) - int(np.count_nonzero(indices < 128))  # their bytes
    assert (run.length, len(run.x), run.start) == (3, three, shorter)
    assert list(ours.indices.int64_data) == indices.tolist()
    assert ours.encode() == data
    assert to_oracle(ours).SerializeToString() == data


@pytest.mark.parametrize("length", range(1, 11))
@pytest.mark.parametrize("code", ["q", "Q", INT32])
def test_one_length_after_another(length: int, code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of each length after varints of mixed lengths: lengths 1-8 are
    read as a run from the window's end, 9 and 10 are not."""
    monkeypatch.setattr(npvarints, "RUN_BYTES", 64)
    mixed = [wk.varint(v) for v in (1, 300, -1, 2**40, 2**21, 5, 2**56)] * 3
    payload = b"".join(mixed + _varints(length, 700, length))
    with _spied() as found:
        ok, out = _decode(payload, code)
    assert ok and out[1:] == _loop(payload, code)
    run = found[0]
    if length > 8:
        assert run is None
    else:
        assert run is not None and run.length == length
        # A one-byte run can take in the mixed varints' last ones.
        assert len(run.x) >= 700 if length == 1 else len(run.x) == 700


@pytest.mark.parametrize("longer", [2**21, 2**28, 2**35, 2**63 - 1, -1])
def test_row_bound_inside_a_longer_varint(longer: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows of 3 counted back from the end pass into a longer varint's last
    bytes (continued, continued, last): the run starts after it."""
    monkeypatch.setattr(npvarints, "RUN_BYTES", 64)
    for lead in (b"", wk.varint(5), wk.varint(300) * 2):
        payload = lead + wk.varint(longer) + b"".join(_varints(3, 500, 1))
        with _spied() as found:
            ok, out = _decode(payload, "q")
        assert ok and out[1:] == _loop(payload, "q")
        run = found[0]
        assert run is not None and len(run.x) == 500
        assert run.start == len(payload) - 1500


def _payload(segments: list[tuple[int, int, int]], pad: int) -> bytes:
    """Runs of (length, count, over-long padding): ``pad`` continuation bytes
    more on every ``pad``-th varint of a run with padding."""
    out = []
    for i, (length, count, extra) in enumerate(segments):
        for j, value in enumerate(_values(length, count, i)):
            size = length + extra if extra and j % pad == 0 and length + extra <= 10 else 0
            out.append(wk.varint(value, size))
    return b"".join(out)


_SEGMENTS = st.lists(
    st.tuples(st.integers(1, 10), st.integers(1, 300), st.sampled_from([0, 0, 0, 1, 2])),
    min_size=1,
    max_size=6,
)


@settings(max_examples=scaled(0.5))
@given(
    segments=_SEGMENTS,
    pad=st.integers(1, 50),
    window=st.integers(11, 3000),
    run_bytes=st.integers(20, 400),
    probe=st.integers(1, 200),
    code=st.sampled_from(["q", "Q", INT32]),
)
def test_runs_property(
    segments: list[tuple[int, int, int]],
    pad: int,
    window: int,
    run_bytes: int,
    probe: int,
    code: str,
) -> None:
    """Runs of any lengths, counts and over-long padding, in windows of any
    size, with any thresholds: the loop's values, from a copy and from a view
    that ends at the message's end or before it; malformed endings refused."""
    payload = _payload(segments, pad)
    expected = _loop(payload, code)
    with _set(WINDOW=window, RUN_BYTES=run_bytes, PROBE_ROWS=probe, CHECK_ROWS=min(probe, 16)):
        _check_runs(payload, expected, code)


def _check_runs(payload: bytes, expected: array[int], code: str) -> None:
    ok, out = _decode(payload, code)
    assert ok and out[1:] == expected
    empty = array(code)
    assert npvarints.decode(np, payload, empty) and empty == expected
    for bad in (payload + b"\x80", payload + b"\xff" * 10 + b"\x01", b"\xff" * 11 + payload):
        ok, out = _decode(bad, code, 9)
        assert not ok and out == array(code, [9])
        empty = array(code)
        assert not npvarints.decode(np, bad, empty) and empty == array(code)


@pytest.mark.slow
@settings(max_examples=scaled(0.3))
@given(
    indices=st.lists(st.integers(0, 2**40), min_size=600, max_size=3000, unique=True),
    window=st.sampled_from([256, 1000, 1 << 17]),
)
def test_sorted_int64_data_property(indices: list[int], window: int) -> None:
    """Sorted values through the public decoder: the oracle's values, and
    the same bytes written back."""
    indices.sort()
    tensor = onnx.TensorProto(dims=[len(indices)], data_type=7, int64_data=indices)
    data = tensor.SerializeToString()
    with varint_path("numpy"), _set(WINDOW=window, RUN_BYTES=128):
        ours = onnxdata.TensorProto.decode(data)
    assert list(ours.int64_data) == indices
    assert ours.encode() == data


@pytest.mark.slow
@pytest.mark.parametrize("code", ["q", "Q", INT32])
@pytest.mark.parametrize(
    "tail",
    [b"", b"\x80", b"\xff" * 10 + b"\x01", b"\x80" * 3],
    ids=["good", "cut", "eleven bytes", "cut after three"],
)
def test_several_windows_into_an_empty_array(code: str, tail: bytes) -> None:
    """A payload of several windows into an empty array and into one that
    holds a value: the same values, or False with the array as it was."""
    values = [v for i in range(200_000) for v in ((i * 7919) % 300, -i, 2**40 + i)][:400_000]
    payload = b"".join(wk.varint(v) for v in values) + tail
    assert len(payload) > 4 * npvarints.WINDOW
    expected = _loop(payload, code) if not tail else None
    empty, held = array(code), array(code, [5])
    assert npvarints.decode(np, payload, empty) is (expected is not None)
    assert npvarints.decode(np, payload, held) is (expected is not None)
    if expected is None:
        assert (empty, held) == (array(code), array(code, [5]))
    else:
        assert empty == expected and held[1:] == expected and held[0] == 5
    empty.append(1)  # no view of its buffer is left behind
