"""The standard library's packed-varint encoder on blocks of small values.

A block whose values all lie in 0..2**56 - 1 (indices, dims, most int64
data) is encoded in 8-byte records taken straight from the values' bytes;
any other block in 16-byte records (onnxdata/_codec/lanes.py).  The two kinds
meet in one payload, and each has its own placeholder for zeros.  Both must
give protobuf's bytes, whatever the mix.
"""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata._codec import lanes as lanes
from tests.support.message_strategies import scaled
from tests.support.oracle import to_oracle, varint_path

NARROW_TOP = (1 << 56) - 1
# Each varint length's first and last value, zero, and the largest narrow value.
NARROW_EDGES = sorted({0, 1, NARROW_TOP} | {(1 << 7 * k) + d for k in range(1, 9) for d in (-1, 0)})
NARROW_EDGES = [v for v in NARROW_EDGES if v <= NARROW_TOP]
WIDE = [1 << 56, (1 << 63) - 1, -1, -(1 << 63), -128]

narrow_values = st.one_of(st.sampled_from(NARROW_EDGES), st.integers(0, NARROW_TOP))
any_values = st.one_of(narrow_values, st.sampled_from(WIDE), st.integers(-(1 << 63), (1 << 63) - 1))


def _encoded(field: str, code: str, values: list[int]) -> tuple[bytes, bytes]:
    with varint_path("python"):
        ours = onnxdata.TensorProto(**{field: array(code, values)}).encode()
    expected = to_oracle(onnxdata.TensorProto(**{field: array(code, values)})).SerializeToString()
    return ours, expected


@given(values=st.lists(narrow_values, min_size=1, max_size=3 * lanes.BLOCK + 5))
@settings(max_examples=scaled(0.3))
def test_narrow_blocks_give_protobufs_bytes(values: list[int]) -> None:
    ours, expected = _encoded("int64_data", "q", values)
    assert ours == expected


@pytest.mark.slow
@given(
    blocks=st.lists(st.tuples(st.booleans(), st.integers(1, lanes.BLOCK)), min_size=2, max_size=4),
    data=st.data(),
)
@settings(max_examples=scaled(0.3))
def test_narrow_and_wide_blocks_meet_in_one_payload(
    blocks: list[tuple[bool, int]], data: st.DataObject
) -> None:
    """Blocks of either kind side by side, zeros among them: each kind's
    placeholder is replaced in its own block only (a wide block's 9-byte varint
    holds eight 0x80 bytes in a row, the narrow placeholder)."""
    values: list[int] = []
    for wide, size in blocks:
        part = data.draw(st.lists(narrow_values | st.just(0), min_size=size, max_size=size))
        if wide:
            part[data.draw(st.integers(0, size - 1))] = data.draw(st.sampled_from(WIDE))
        values += part
    # Block boundaries fall every BLOCK values: pad each drawn block to a whole one.
    ours, expected = _encoded("int64_data", "q", values)
    assert ours == expected


@pytest.mark.parametrize(
    "values",
    [
        [0] * (lanes.BLOCK + 3),  # every record a placeholder, across a block boundary
        [NARROW_TOP, 0] * lanes.BLOCK,  # 8-byte varints next to zeros
        [0] * lanes.BLOCK + [1 << 56] + [0] * 5,  # a narrow block of zeros, then a wide one
        [1 << 56, 0] * 3 + [0] * (lanes.BLOCK - 6) + [127, 128, 0],  # wide, then narrow
    ],
    ids=["zeros", "longest-narrow-and-zeros", "narrow-then-wide", "wide-then-narrow"],
)
def test_zeros_and_the_longest_narrow_varints(values: list[int]) -> None:
    ours, expected = _encoded("int64_data", "q", values)
    assert ours == expected


@given(values=st.lists(any_values, min_size=1, max_size=2 * lanes.BLOCK + 3))
@settings(max_examples=scaled(0.2))
def test_uint64_and_int32_fields_take_the_same_blocks(values: list[int]) -> None:
    unsigned = [v % (1 << 64) for v in values]
    ours, expected = _encoded("uint64_data", "Q", unsigned)
    assert ours == expected
    small = [(v + (1 << 31)) % (1 << 32) - (1 << 31) for v in values]
    ours, expected = _encoded("int32_data", "i", small)
    assert ours == expected
