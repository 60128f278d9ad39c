"""Packed varints in blocks, with the standard library (onnxdata/_codec/lanes.py) and numpy.

Every case runs on the block path (``varint_path("python")``: numpy hidden,
thresholds at 1) and on the per-value loops (``"loop"``), and both must give
the oracle's bytes, values, and errors.  The values sit on the edges the bit
lanes care about: each varint length (127/128, 2**(7k) - 1 / 2**(7k)), the
int64/uint64/int32 extremes, zeros (written through a placeholder), and
block sizes around the powers of two and ``BLOCK``.

The numpy section compares ``npvarints.encode``/``decode`` with the loop's
bytes on the edges its arithmetic cares about (each length, the float64
rounding edges of its size computation, 10-byte varints at every offset in a
64-bit word), on slices and windows of every small size, and as hypothesis
properties, malformed payloads leaving the array as it was.
"""

from __future__ import annotations

from array import array

import numpy as np
import onnx
import pytest
from google.protobuf.message import DecodeError as OracleDecodeError
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata._codec import lanes as lanes
from onnxdata._core.schema import KINDS
from tests.support import wirekit as wk
from tests.support.message_strategies import scaled
from tests.support.oracle import to_oracle, varint_path

INT32 = KINDS["int32"].typecode

EDGES = sorted(
    {0, 1, 127, 128, 255, 300} | {(1 << 7 * k) + d for k in range(2, 10) for d in (-1, 0)}
)
INT64 = [v for v in EDGES if v < 1 << 63] + [2**63 - 1, -1, -2, -128, -(2**31), -(2**63)]
UINT64 = [v for v in EDGES if v < 1 << 64] + [2**63, 2**64 - 1]
INT32S = [v for v in EDGES if v < 1 << 31] + [2**31 - 1, -1, -(2**31)]

FIELDS = {"int64_data": ("q", INT64), "uint64_data": ("Q", UINT64), "int32_data": (INT32, INT32S)}
PATHS = ("python", "loop")


def _mix(values: list[int], n: int) -> list[int]:
    """``n`` values cycling through ``values`` with a stride, so every pair meets."""
    return [values[(i * 7 + i // len(values)) % len(values)] for i in range(n)]


def _both(make: object) -> list[bytes]:
    out = []
    for path in PATHS:
        with varint_path(path):
            out.append(make())  # type: ignore[operator]
    return out


@pytest.mark.parametrize("field", list(FIELDS))
@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 31, 33, 100, 1023, 1024, 1025, 2100])
def test_block_and_loop_agree_with_the_oracle(field: str, n: int) -> None:
    code, edges = FIELDS[field]
    values = _mix(edges, n)
    as_array, as_list = _both(lambda: onnxdata.TensorProto(**{field: array(code, values)}).encode())
    from_list = _both(lambda: onnxdata.TensorProto(**{field: list(values)}).encode())
    expected = to_oracle(onnxdata.TensorProto(**{field: array(code, values)})).SerializeToString()
    assert as_array == as_list == expected
    assert from_list == [expected, expected]
    for path in PATHS:
        with varint_path(path):
            assert getattr(onnxdata.TensorProto.decode(expected), field).tolist() == values


@pytest.mark.parametrize("values", [
    [0] * 50,  # every record a placeholder
    [0, 2**63 - 1, 0, -1, 0, 0, 2**56, 0] * 20,  # zeros next to 9- and 10-byte varints
    [-1] * 40 + [0] * 40 + [1] * 40,
    [2**56 - 1, 0] * 600,  # zeros crossing a block boundary
])  # fmt: skip
def test_zeros_next_to_long_varints(values: list[int]) -> None:
    outputs = _both(lambda: onnxdata.TensorProto(int64_data=array("q", values)).encode())
    expected = to_oracle(onnxdata.TensorProto(int64_data=array("q", values))).SerializeToString()
    assert outputs == [expected, expected]


def _decoded(number: int, payload: bytes, field: str) -> list[object]:
    data = wk.f_len(number, payload)
    oracle = list(getattr(onnx.TensorProto.FromString(data), field))
    results = []
    for path in PATHS:
        with varint_path(path):
            results.append(getattr(onnxdata.TensorProto.decode(data), field).tolist())
    return [oracle, *results]


def test_decode_drops_junk_in_the_tenth_byte() -> None:
    # a 10th byte may be anything below 0x80: upb keeps bit 63 and drops the rest
    payload = b"".join(bytes([0xFF] * 9 + [tenth]) for tenth in (0x01, 0x7F, 0x7E, 0x00, 0x55))
    payload += wk.varint(300) * 5
    for number, field in ((7, "int64_data"), (11, "uint64_data"), (5, "int32_data")):
        oracle, block, loop = _decoded(number, payload, field)
        assert block == loop == oracle


def test_decode_accepts_over_long_varints_up_to_ten_bytes() -> None:
    payload = b"".join(
        wk.varint(v, size) for v in (0, 1, 127, 2**40) for size in range(1, 11) if v < 1 << 7 * size
    )
    oracle, block, loop = _decoded(7, payload, "int64_data")
    assert block == loop == oracle


def test_decode_int32_keeps_the_low_32_bits() -> None:
    values = [2**32 + 5, 2**63 + 2**31, 2**64 - 1, 2**40 - 1, 2**31, 7] * 30
    payload = b"".join(wk.varint(v) for v in values)
    oracle, block, loop = _decoded(5, payload, "int32_data")
    assert block == loop == oracle
    assert block[:6] == [5, -(2**31), -1, -1, -(2**31), 7]


@pytest.mark.parametrize("payload", [
    wk.varint(300) * 5000 + b"\x80" * 10 + b"\x01",  # 11 bytes, after a few blocks
    wk.varint(300) * 3 + b"\x80" * 15 + b"\x01" + wk.varint(300) * 3000,  # 16 bytes, first block
    wk.varint(300) * 3 + b"\x80" * 40 + b"\x01",  # longer than a record
    wk.varint(300) * 3000 + b"\x80\x80",  # ends inside a varint
])  # fmt: skip
def test_decode_errors_are_the_loops(payload: bytes) -> None:
    data = wk.f_len(7, payload)
    errors = []
    for path in PATHS:
        with varint_path(path), pytest.raises(onnxdata.DecodeError) as info:
            onnxdata.TensorProto.decode(data)
        errors.append((str(info.value), info.value.offset))
    assert errors[0] == errors[1]
    with pytest.raises(OracleDecodeError):
        onnx.TensorProto.FromString(data)


def test_decode_rolls_back_what_it_appended() -> None:
    out = array("q", [42])
    bad = wk.varint(300) * 3000 + b"\x80" * 10 + b"\x01"
    assert lanes.decode(bad, out) is False
    assert out.tolist() == [42]


@pytest.mark.parametrize("field, values, error, path", [
    ("int64_data", [1] * 20 + [2**63], ValueError, "TensorProto.int64_data[20]"),
    ("int32_data", [5] * 20 + [-(2**31) - 1] + [5], ValueError, "TensorProto.int32_data[20]"),
    ("uint64_data", [300] * 20 + [-1], ValueError, "TensorProto.uint64_data[20]"),
    ("int64_data", [300] * 20 + [True], TypeError, "TensorProto.int64_data[20]"),
])  # fmt: skip
def test_encode_errors_in_lists_are_the_loops(
    field: str, values: list[int], error: type, path: str
) -> None:
    messages = []
    for kind in PATHS:
        with varint_path(kind), pytest.raises(error) as info:
            onnxdata.TensorProto(**{field: values}).encode()
        messages.append((type(info.value), str(info.value)))
        assert info.value.path == path  # type: ignore[attr-defined]
    assert messages[0] == messages[1]


# -- the numpy path (onnxdata/_codec/npvarints.py) against the per-value loop ------------------

# Every varint length's edges (2**(7k) and its neighbours), the float64
# rounding edges of the size computation (2**53.., 2**56 - 8.., 2**63 - 512..),
# and the extremes of each type.
NP_EDGES = sorted(
    {0, 1, 2, 126, 127, 128, 129}
    | {(1 << 7 * k) + d for k in range(2, 10) for d in (-2, -1, 0, 1)}
    | {(1 << 53) + d for d in (-1, 0, 1, 2, 3)}
    | {(1 << 56) - d for d in range(1, 10)}
    | {(1 << 63) - d for d in (1, 2, 255, 256, 257, 511, 512, 513, 1024)}
)
NP_FIELDS = {
    "q": [v for v in NP_EDGES if v < 1 << 63] + [-v for v in NP_EDGES if v <= 1 << 63],
    "Q": NP_EDGES + [(1 << 63) + d for d in (0, 1, 512)] + [2**64 - d for d in (1, 2, 129)],
    INT32: [v for v in NP_EDGES if v < 1 << 31] + [-v for v in NP_EDGES if v <= 1 << 31],
}


def _loop_payload(values: list[int]) -> bytes:
    return b"".join(wk.varint(v) for v in values)


def _np_encode(values: list[int], code: str) -> bytes:
    from onnxdata._codec import npvarints as npvarints

    return npvarints.encode(np, array(code, values), code)


@pytest.fixture(params=[True, False], ids=["ufunc.at", "reduceat"])
def add_at(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ways of adding the encoder's words: numpy 1.25+'s and older numpy's."""
    from onnxdata._codec import npvarints as npvarints

    monkeypatch.setattr(npvarints, "_FAST_ADD_AT", [request.param])


@pytest.mark.usefixtures("add_at")
@pytest.mark.parametrize("code", list(NP_FIELDS))
@pytest.mark.parametrize("slice_size", [1, 7, 8, 9, 64, 1 << 16])
def test_numpy_encode_is_the_loops_at_every_edge(
    code: str, slice_size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from onnxdata._codec import npvarints as npvarints

    monkeypatch.setattr(npvarints, "SLICE", slice_size)
    edges = NP_FIELDS[code]
    for values in (edges, _mix(edges, 3000), list(reversed(edges))):
        assert _np_encode(values, code) == _loop_payload(values)


@pytest.mark.usefixtures("add_at")
@pytest.mark.parametrize("before", range(16))
def test_numpy_encode_ten_byte_varints_at_every_word_offset(before: int) -> None:
    # The 10th byte of a varint starting at byte 7 of a 64-bit word lands two words on.
    for filler in (1, 300, 2**21, 2**56 - 1):
        values = [filler] * before + [-1, -(2**62), 2**63 - 1, -1] + [5] * 3
        assert _np_encode(values, "q") == _loop_payload(values)


def test_numpy_encode_one_byte_slices_next_to_long_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    from onnxdata._codec import npvarints as npvarints

    monkeypatch.setattr(npvarints, "SLICE", 16)
    values = [0, 127] * 24 + [-1] + [1] * 15 + [128] + [0] * 40
    assert _np_encode(values, "q") == _loop_payload(values)


_NP_VALUES = st.one_of(
    st.sampled_from(NP_FIELDS["q"]),
    st.integers(-(2**63), 2**63 - 1),
    st.integers(0, 127),
    st.integers(-(2**40), 2**40),
)


@settings(max_examples=scaled(0.4))
@given(values=st.lists(_NP_VALUES, min_size=1, max_size=300), slice_size=st.integers(1, 40))
def test_numpy_encode_property(values: list[int], slice_size: int) -> None:
    from onnxdata._codec import npvarints as npvarints

    saved = npvarints.SLICE
    npvarints.SLICE = slice_size
    try:
        assert _np_encode(values, "q") == _loop_payload(values)
        assert _np_encode([v & (2**64 - 1) for v in values], "Q") == _loop_payload(
            [v & (2**64 - 1) for v in values]
        )
    finally:
        npvarints.SLICE = saved


@settings(max_examples=scaled(0.4))
@given(
    values=st.lists(_NP_VALUES, min_size=1, max_size=300),
    pad=st.lists(st.integers(0, 9), min_size=1, max_size=300),
    window=st.integers(10, 64),  # a window holds at least one whole varint
    code=st.sampled_from(["q", "Q", INT32]),
)
def test_numpy_decode_property(values: list[int], pad: list[int], window: int, code: str) -> None:
    """Over-long varints too (padded with continuation bytes), in small windows."""
    from onnxdata._codec import npvarints as npvarints

    payload = b"".join(
        wk.varint(v, max(len(wk.varint(v)), min(10, len(wk.varint(v)) + pad[i % len(pad)])))
        for i, v in enumerate(values)
    )
    expected = array(code)
    with varint_path("loop"):
        _loop_decode_into(payload, expected)
    saved = npvarints.WINDOW
    npvarints.WINDOW = window
    try:
        out = array(code, [7])
        assert npvarints.decode(np, payload, out)
        assert out[1:] == expected
        # Malformed: cut inside the last varint, or an 11-byte varint at the end.
        for bad in (payload + b"\x80", payload + b"\xff" * 10 + b"\x01"):
            out = array(code, [7, 8])
            assert not npvarints.decode(np, bad, out)
            assert out == array(code, [7, 8])
    finally:
        npvarints.WINDOW = saved


def _loop_decode_into(payload: bytes, out: array[int]) -> None:
    """The loop's decoding of ``payload`` into ``out``, through the public decoder."""
    field = {"q": "int64_data", "Q": "uint64_data", INT32: "int32_data"}[out.typecode]
    number = {"int64_data": 7, "uint64_data": 11, "int32_data": 5}[field]
    out.extend(getattr(onnxdata.TensorProto.decode(wk.f_len(number, payload)), field))


@pytest.mark.parametrize("long_value", [2**28, 2**35, 2**56 - 1, 2**56, 2**63 - 1, -1])
@pytest.mark.parametrize("window", [16, 64, 1 << 19])
def test_numpy_decode_short_on_average_with_one_long_varint(
    long_value: int, window: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows of 4-byte lanes tried first (3 bytes a varint or fewer on
    average) that hold a longer varint, then windows that do not."""
    from onnxdata._codec import npvarints as npvarints

    monkeypatch.setattr(npvarints, "WINDOW", window)
    values = [1, 300, 5] * 40 + [long_value] + [7, 2**20] * 60 + [long_value] + [0] * 30
    expected = array("q")
    with varint_path("loop"):
        _loop_decode_into(_loop_payload(values), expected)
    out = array("q")
    assert npvarints.decode(np, _loop_payload(values), out)
    assert out == expected == array("q", [v if v < 2**63 else v - 2**64 for v in values])


@pytest.mark.parametrize("longer", [None, 2**28, 2**35, -1])
@pytest.mark.parametrize("code", ["q", "Q", INT32])
@pytest.mark.parametrize("window", [16, 64, 1 << 19])
def test_numpy_decode_four_bytes_on_average(
    longer: int | None, code: str, window: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between 3 and 4 bytes a varint on average, alone or beside longer
    ones, in windows of several sizes: the loop's values."""
    from onnxdata._codec import npvarints as npvarints

    monkeypatch.setattr(npvarints, "WINDOW", window)
    values = [2**21, 2**28 - 1, 2**21 + 12345, 2**27] * 50
    if longer is not None:
        values[77] = values[150] = longer if code != "Q" else longer % 2**64
    payload = _loop_payload(values)
    assert 3 * len(values) < len(payload) <= 4 * len(values) + 12
    expected = array(code)
    with varint_path("loop"):
        _loop_decode_into(payload, expected)
    out = array(code, [9])
    assert npvarints.decode(np, payload, out)
    assert out[1:] == expected
    # A varint of 11 bytes among them: False, and ``out`` as it was.
    bad = payload[:40] + b"\xff" * 10 + b"\x01" + payload[40:]
    out = array(code, [9])
    assert not npvarints.decode(np, bad, out)
    assert out == array(code, [9])


@pytest.mark.parametrize("copy", [True, False])
@pytest.mark.parametrize(
    "values",
    [[5] * 700, [0] * 100 + [300] + [1] * 600, [1, 300, -1, 2**40] * 200],
    ids=["one-byte values", "a longer one after the first 64 bytes", "mixed"],
)
def test_numpy_decode_inside_a_message_is_the_loops(values: list[int], copy: bool) -> None:
    """A payload inside a message's bytes, in both modes, followed by another
    field: the values, and the error of a cut varint, are the loop's."""
    payload = _loop_payload(values)
    for data in (
        wk.f_len(7, payload) + wk.f_len(8, b"name"),
        wk.f_len(7, payload[:-1] + b"\x80") + wk.f_len(8, b"name"),
    ):
        with varint_path("loop"):
            try:
                expected: object = onnxdata.TensorProto.decode(data)
            except onnxdata.DecodeError as err:
                expected = (str(err), err.offset, err.path)
        try:
            got: object = onnxdata.TensorProto.decode(data, copy=copy)
        except onnxdata.DecodeError as err:
            got = (str(err), err.offset, err.path)
        assert got == expected
    assert list(onnxdata.TensorProto.decode(wk.f_len(7, payload)).int64_data) == values
