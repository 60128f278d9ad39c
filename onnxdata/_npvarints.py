"""Packed varints a whole array at a time, when the caller has numpy loaded.

The core never imports numpy: it looks in ``sys.modules``, so a program that
already uses numpy gets vectorised varints for free and one that does not
pays nothing.  Results are identical to the pure-Python loops (the tests run
both); these functions only make large packed ``int32``/``int64``/``uint64``
fields about thirty times faster.  Work is done per byte position (at most
ten passes), so temporaries stay a few arrays the size of the value count.
"""

from __future__ import annotations

import sys

from ._errors import DecodeError

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

# Below these sizes the numpy call overhead outweighs the Python loop.
MIN_BYTES = 2048
MIN_VALUES = 512


def numpy() -> Any:
    """The numpy module if the program has imported it, else ``None``."""
    return sys.modules.get("numpy")


# Work in slices of this many values, so temporaries stay a few megabytes.
SLICE = 1 << 16


def decode(np: Any, chunk: bytes, base: int, code: str) -> bytes:
    """The varints of a packed payload, as the machine bytes of an ``array(code)``.

    ``code`` is ``"q"``/``"Q"`` (64 bits) or the 32-bit int code (the low 32
    bits of each value, as upb keeps for ``int32``).

    Each byte's 7 bits are shifted by its position in its varint and the
    shifted bytes of each varint are OR-ed together with one ``reduceat``.

    Raises:
        DecodeError: a varint is cut off by the end, or longer than 10 bytes;
            ``base`` is the payload's offset in the input, for the message.
    """
    a = np.frombuffer(chunk, np.uint8)
    ends = np.flatnonzero(a < 0x80)
    if len(ends) == 0 or ends[-1] != len(a) - 1:
        at = base + (int(ends[-1]) + 1 if len(ends) else 0)
        left = len(a) - (at - base)
        raise DecodeError(
            f"packed varint at offset {at} runs past the end of the packed field "
            f"({left} byte{'s' if left != 1 else ''} left)",
            at,
        )
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    lengths = ends - starts + 1
    if int(lengths.max()) > 10:
        at = base + int(starts[np.argmax(lengths > 10)])
        raise DecodeError(f"varint at offset {at} is longer than 10 bytes", at)
    out = np.empty(len(starts), np.uint64)
    for lo in range(0, len(starts), SLICE):
        s = starts[lo : lo + SLICE]
        first, last = int(s[0]), int(ends[min(lo + SLICE, len(ends)) - 1]) + 1
        n = lengths[lo : lo + SLICE]
        shift = np.arange(first, last, dtype=np.int64) - np.repeat(s, n)
        shift *= 7
        bits = (a[first:last] & 0x7F).astype(np.uint64) << shift.astype(np.uint64)
        # The 10th byte keeps only bit 63, as upb: the shift drops the rest.
        out[lo : lo + SLICE] = np.bitwise_or.reduceat(bits, s - first)
    if code in ("q", "Q"):
        return bytes(out.tobytes())
    return bytes(out.astype(np.uint32).tobytes())  # int32: the low 32 bits


def encode(np: Any, values: Any, code: str) -> bytes:
    """The packed varint payload of an ``array`` of int32, int64 or uint64 values.

    Each value's 10 possible bytes go in a row of an (n, 10) table; keeping
    the bytes each value needs, row by row, is the payload.
    """
    if code == "Q":
        u = np.frombuffer(values, np.uint64)
    else:  # int32 and int64: negatives become 10-byte two's complement varints
        u = np.frombuffer(values, np.int32 if values.itemsize == 4 else np.int64)
        u = u.astype(np.int64).view(np.uint64)
    if sys.byteorder == "big":  # pragma: no cover - exercised on big-endian hosts only
        u = u.byteswap()
    parts = []
    column = np.arange(10)
    for lo in range(0, len(u), SLICE):
        v = u[lo : lo + SLICE]
        sizes = np.ones(len(v), np.int64)
        for k in range(1, 10):
            sizes += v >= np.uint64(1 << (7 * k))
        table = np.empty((len(v), 10), np.uint8)
        for k in range(10):
            table[:, k] = (v >> np.uint64(7 * k)).astype(np.uint8) | 0x80
        table[np.arange(len(v)), sizes - 1] &= 0x7F  # the last byte has no continuation bit
        parts.append(table[column < sizes[:, None]].tobytes())
    return b"".join(parts)
