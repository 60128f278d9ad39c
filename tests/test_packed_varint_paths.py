"""Packed varints in blocks with the standard library (onnxdata/_lanes.py).

Every case runs on the block path (``varint_path("python")``: numpy hidden,
thresholds at 1) and on the per-value loops (``"loop"``), and both must give
the oracle's bytes, values, and errors.  The values sit on the edges the bit
lanes care about: each varint length (127/128, 2**(7k) - 1 / 2**(7k)), the
int64/uint64/int32 extremes, zeros (written through a placeholder), and
block sizes around the powers of two and ``BLOCK``.
"""

from __future__ import annotations

from array import array

import onnx
import pytest
import wirekit as wk
from google.protobuf.message import DecodeError as OracleDecodeError
from oracle import to_oracle, varint_path

import onnxdata
from onnxdata import _lanes as lanes
from onnxdata._schema import KINDS

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
