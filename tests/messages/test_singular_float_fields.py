"""A singular ``float`` field (``AttributeProto.f``) holds what protobuf holds:
the float32 nearest to the number given, read back as a Python float."""

from __future__ import annotations

import math
from typing import Any

import onnx
import pytest

import onnxdata

_NUMBERS = [0.1, 1 / 3, 1e300, -1e300, 3.4028235677973366e38, 1e-50, -0.0, math.inf,
            16777217, 0, -5, 2**100, math.nan]  # fmt: skip


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (
        a == b and math.copysign(1, a) == math.copysign(1, b)
    )


@pytest.mark.parametrize("value", _NUMBERS, ids=repr)
@pytest.mark.parametrize("how", ["constructor", "assignment"])
def test_a_float_field_holds_the_nearest_float32_as_protobuf(value: Any, how: str) -> None:
    theirs = onnx.AttributeProto()
    theirs.f = value
    if how == "constructor":
        ours = onnxdata.AttributeProto(f=value)
    else:
        ours = onnxdata.AttributeProto()
        ours.f = value
    assert type(ours.f) is float
    assert _same(ours.f, theirs.f), (ours.f, theirs.f)
    assert ours.HasField("f")
    assert ours.encode() == theirs.SerializeToString()
    # what decoding gives equals what was built: the message compares equal
    assert onnxdata.AttributeProto.decode(ours.encode()) == ours or math.isnan(ours.f)


def test_a_number_no_float_holds_is_kept_for_encode_to_refuse() -> None:
    theirs = onnx.AttributeProto()
    with pytest.raises(OverflowError):
        theirs.f = 10**400
    ours = onnxdata.AttributeProto(f=10**400)
    with pytest.raises(onnxdata.EncodeError, match=r"AttributeProto\.f"):
        ours.encode()


_PAIRS = [(math.nan, math.nan), (0.0, -0.0), (0.0, None), (1.5, 1.5), (math.inf, 1e300),
          (0.1, 0.10000000149011612), (-math.nan, math.nan)]  # fmt: skip


@pytest.mark.parametrize("a, b", _PAIRS, ids=repr)
def test_float_fields_compare_as_protobufs_by_their_bits(a: Any, b: Any) -> None:
    def ours(v: Any) -> onnxdata.AttributeProto:
        return onnxdata.AttributeProto() if v is None else onnxdata.AttributeProto(f=v)

    def theirs(v: Any) -> Any:
        return onnx.AttributeProto() if v is None else onnx.AttributeProto(f=v)

    assert (ours(a) == ours(b)) == (theirs(a) == theirs(b))
    assert (ours(b) == ours(a)) == (theirs(b) == theirs(a))


_NAN_BITS = [0x7F800001, 0xFF800001, 0x7FA00000, 0x7FBFFFFF, 0x7FC00001, 0xFFC00000, 0x7FFFFFFF]


@pytest.mark.parametrize("bits", _NAN_BITS, ids=hex)
def test_a_decoded_nan_keeps_every_bit_as_upb(bits: int) -> None:
    # a signalling NaN too: converting a float32 to a double would quiet it
    import struct

    data = b"\x15" + struct.pack("<I", bits)
    for buf in (data, bytearray(data), memoryview(data)):
        ours = onnxdata.AttributeProto.decode(buf)
        assert ours.encode() == onnx.AttributeProto.FromString(data).SerializeToString() == data
        assert ours == onnxdata.AttributeProto.decode(data)
