"""Packing and unpacking of the sub-byte types (4-, 2- and 6-bit elements).

Layouts are those of ``onnx.proto`` (and of ``onnx.numpy_helper``'s private
``_pack_*``/``_unpack_*``): 4-bit pairs low nibble first, 2-bit quads from the
least significant bits up, 6-bit quads as a 24-bit LSB-first stream in 3 bytes.
Every function works on whole arrays; nothing loops over elements in Python.
Unpacked elements are ``uint8`` codes, one per byte (the low bits of the
byte, high bits zero), which is what onnx hands to ``ndarray.view``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

U8 = npt.NDArray[np.uint8]


def packed_size(count: int, bits: int) -> int:
    """Bytes that ``count`` elements of ``bits`` bits take in raw_data."""
    return -(-count * bits // 8)


def unpack(data: U8, count: int, bits: int) -> U8:
    """The first ``count`` codes of ``data``, one per byte.

    ``data`` must hold at least ``packed_size(count, bits)`` bytes; the caller
    checks the exact size first.
    """
    if bits == 4:
        out = np.empty(data.size * 2, dtype=np.uint8)
        np.bitwise_and(data, 0x0F, out=out[0::2])
        np.right_shift(data, 4, out=out[1::2])
        return out[:count]
    if bits == 2:
        out = np.empty(data.size * 4, dtype=np.uint8)
        np.bitwise_and(data, 0x03, out=out[0::4])
        for k in (1, 2, 3):
            lane = out[k::4]
            np.right_shift(data, 2 * k, out=lane)
            lane &= 0x03
        return out[:count]
    return _unpack6(data, count)


def _unpack6(data: U8, count: int) -> U8:
    groups = -(-count // 4)
    if data.size == 3 * groups:
        padded = data
    else:  # the last group is short: pad a copy with zero bytes
        padded = np.zeros(3 * groups, dtype=np.uint8)
        padded[: data.size] = data[: 3 * groups]
    b0, b1, b2 = padded[0::3], padded[1::3], padded[2::3]
    out = np.empty((groups, 4), dtype=np.uint8)
    out[:, 0] = b0 & 0x3F
    out[:, 1] = (b0 >> 6) | ((b1 & 0x0F) << 2)
    out[:, 2] = (b1 >> 4) | ((b2 & 0x03) << 4)
    out[:, 3] = b2 >> 2
    return out.reshape(-1)[:count]


def pack(array: npt.NDArray[Any], bits: int) -> bytes:
    """The raw_data bytes of ``array`` (any 1-byte dtype), packed ``bits`` per element.

    Only the low ``bits`` of each element's byte are kept, as onnx does.
    """
    codes = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    count = codes.size
    if bits == 4:
        pairs = np.zeros(-(-count // 2) * 2, dtype=np.uint8)
        np.bitwise_and(codes, 0x0F, out=pairs[:count])
        packed = pairs[0::2] | (pairs[1::2] << 4)
        return packed.tobytes()
    if bits == 2:
        quads = np.zeros(-(-count // 4) * 4, dtype=np.uint8)
        np.bitwise_and(codes, 0x03, out=quads[:count])
        packed = quads[0::4] | (quads[1::4] << 2) | (quads[2::4] << 4) | (quads[3::4] << 6)
        return packed.tobytes()
    quads = np.zeros(-(-count // 4) * 4, dtype=np.uint8)
    np.bitwise_and(codes, 0x3F, out=quads[:count])
    v0, v1, v2, v3 = quads[0::4], quads[1::4], quads[2::4], quads[3::4]
    out = np.empty((v0.size, 3), dtype=np.uint8)
    out[:, 0] = v0 | ((v1 & 0x03) << 6)
    out[:, 1] = (v1 >> 2) | ((v2 & 0x0F) << 4)
    out[:, 2] = (v2 >> 4) | (v3 << 2)
    return out.reshape(-1)[: packed_size(count, 6)].tobytes()
