"""_core.kinds says what protobuf accepts for each kind, checked against protobuf itself."""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np
import onnx
import pytest
from google.protobuf import json_format as pb_json
from google.protobuf import text_format as pb_text
from hypothesis import given
from hypothesis import strategies as st

from onnxdata._core import kinds

# A singular field of each integer kind in onnx's messages, and where it is.
FIELDS = {
    "int32": (onnx.TensorProto, "data_type"),
    "int64": (onnx.TensorProto.Segment, "begin"),
}
EDGES = [
    -(1 << 64),
    -(1 << 63) - 1,
    -(1 << 63),
    -(1 << 31) - 1,
    -(1 << 31),
    -1,
    0,
    (1 << 31) - 1,
    1 << 31,
    (1 << 32) - 1,
    1 << 32,
    (1 << 63) - 1,
    1 << 63,
    (1 << 64) - 1,
    1 << 64,
]


def protobuf_takes(kind: str, value: Any) -> bool:
    if kind == "uint64":
        try:
            onnx.TensorProto().uint64_data.append(value)
        except (TypeError, ValueError):
            return False
        return True
    cls, name = FIELDS[kind]
    try:
        setattr(cls(), name, value)
    except (TypeError, ValueError):
        return False
    return True


def kinds_take(kind: str, value: Any) -> bool:
    try:
        number = kinds.integer(value)
    except TypeError:
        return False
    return kinds.in_range(kind, number)


VALUES = [*EDGES, True, False, 1.0, np.int64(3), np.uint8(7), "1", None]


@pytest.mark.parametrize("kind", ["int32", "int64", "uint64"])
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_an_integer_kind_takes_what_protobuf_takes(kind: str, value: Any) -> None:
    assert kinds_take(kind, value) == protobuf_takes(kind, value)


@pytest.mark.parametrize("kind", ["int32", "int64", "uint64"])
def test_a_numpy_bool_is_refused_on_every_numpy(kind: str) -> None:
    """The documented difference (docs/robustness.md): protobuf takes ``numpy.bool_`` where
    numpy gives it an ``__index__`` (2.2, CPython 3.10's newest) and refuses it where numpy
    does not (2.3 on); onnxdata refuses it by its type on every numpy, as it refuses ``True``."""
    assert not kinds_take(kind, np.bool_(True))
    assert not kinds_take(kind, True)


@pytest.mark.parametrize("signed", [False, True])
@pytest.mark.parametrize("bits", [32, 64])
@pytest.mark.parametrize("number", EDGES)
def test_int_bounds_are_protobufs_parse_integer_ranges(
    signed: bool, bits: int, number: int
) -> None:
    lo, hi = kinds.int_bounds(signed, bits)
    try:
        pb_text.ParseInteger(str(number), signed, bits == 64)
    except ValueError:
        protobuf = False
    else:
        protobuf = True
    assert (lo <= number <= hi) == protobuf


def test_a_bool_is_refused_with_the_words_of_the_encoder() -> None:
    with pytest.raises(TypeError, match="expected an int, got a boolean"):
        kinds.integer(True)
    with pytest.raises(TypeError, match="expected an int, got float"):
        kinds.integer(1.0)
    assert kinds.is_boolean(np.bool_(False)) and not kinds.is_boolean(np.int8(0))


def test_float32_max_is_the_largest_float32() -> None:
    assert struct.unpack("<f", b"\xff\xff\x7f\x7f")[0] == kinds.FLOAT32_MAX


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_that_overflows_float32_is_one_protobufs_json_refuses(value: float) -> None:
    """protobuf refuses more (anything beyond FLT_MAX, docs/compat.md); never less."""
    overflows = kinds.float32_overflows(value)
    t = onnx.TensorProto()
    try:
        pb_json.ParseDict({"floatData": [value]}, t)
    except pb_json.ParseError:
        refused = True
    else:
        refused = False
    if overflows:
        assert refused
    if not refused:
        assert not overflows and abs(value) <= kinds.FLOAT32_MAX


@pytest.mark.parametrize(
    ("value", "overflows"),
    [
        (kinds.FLOAT32_MAX, False),
        (3.4028235e38, False),  # protobuf's own spelling of FLT_MAX: rounds down to it
        (3.4028235677973362e38, False),  # the last double that rounds to FLT_MAX
        (3.4028235677973366e38, True),  # the first double that rounds to infinity
        (-3.4028235677973366e38, True),
        (1e39, True),
        (math.inf, False),  # an infinity is no overflow: it is spelt "Infinity"
    ],
)
def test_float32_overflow_edges(value: float, overflows: bool) -> None:
    assert kinds.float32_overflows(value) == overflows


def test_text_and_bytes_values() -> None:
    assert kinds.is_text("a") and not kinds.is_text(b"a")
    assert all(map(kinds.is_bytes, [b"a", bytearray(b"a"), memoryview(b"a")]))
    assert not kinds.is_bytes("a")
