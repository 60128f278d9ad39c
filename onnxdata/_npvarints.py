"""Packed varints a whole array at a time, when the caller has numpy loaded.

The core never imports numpy: it looks in ``sys.modules``, so a program that
already uses numpy gets vectorised varints for free and one that does not
pays nothing.  Results are identical to the pure-Python loops (the tests run
both); these functions only make large packed ``int32``/``int64``/``uint64``
fields about a hundred times faster.  Work is done a window of the payload
(decode) or a slice of the values (encode) at a time, so temporaries stay small.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

# Below these sizes the numpy calls' fixed overhead outweighs the Python loop.
MIN_BYTES = 512
MIN_VALUES = 512


def numpy() -> Any:
    """The numpy module if the program has imported it, else ``None``."""
    return sys.modules.get("numpy")


# encode() works in slices of this many values, so temporaries stay a few megabytes.
SLICE = 1 << 16
# decode() works on this many payload bytes at a time, so its temporaries (8
# bytes per payload byte at most) stay in the CPU's cache; larger windows are slower.
WINDOW = 1 << 19

# Bit-lane compaction, one step per entry: the upper half of each lane
# (``high``) moves down by ``shift``, closing the gaps of the continuation bits.
_STEPS = {
    4: [(0xFF00FF00, 1), (0xFFFF0000, 2)],
    8: [(0xFF00FF00FF00FF00, 1), (0xFFFF0000FFFF0000, 2), (0xFFFFFFFF00000000, 4)],
}
_TOP_BITS = {4: 0x80808080, 8: 0x8080808080808080}  # each byte's continuation bit


def decode(np: Any, chunk: bytes, out: Any) -> bool:
    """Append the varints of a packed payload to the ``array`` ``out``.

    ``out`` holds 64-bit values (``"q"``/``"Q"``) or 32-bit ones (the low 32
    bits of each value, as upb keeps for ``int32``).  A payload with a bad
    varint (cut off by the end, or longer than 10 bytes) returns False and
    leaves ``out`` as it was: the caller's loop then names the first bad
    one (``_varints.py`` has the one wording of every varint error).

    Work is per value, not per byte: each varint's first bytes are read as
    one little-endian word, the bytes of the following varints are masked
    off, and the 7-bit groups are packed together by bit-lane steps.  Where
    no varint is longer than 4 bytes, 4-byte words and two steps do; they
    are tried first, and after a window that needed no more, without
    measuring lengths.
    """
    a = np.frombuffer(chunk, np.uint8)
    item = np.dtype(f"=u{out.itemsize}")
    if chunk.isascii():  # one-byte values only (BOOL, small ints): they are the bytes
        out.frombytes(memoryview(a.astype(item)).cast("B"))
        return True
    size0 = len(out)
    lo = 0
    size = 4  # the lane width of the last window, tried first
    try:
        while lo < len(a):
            used, size = _decode_window(np, chunk, a, lo, item, out, size)
            lo += used
    except _BadVarintError:
        del out[size0:]
        return False
    return True


class _BadVarintError(Exception):
    """A varint of the payload is cut off or too long: the caller's loop says which."""


def _decode_window(
    np: Any, chunk: bytes, a: Any, lo: int, item: Any, out: Any, size: int
) -> tuple[int, int]:
    """Append the varints that end in ``a[lo : lo + WINDOW]``; their byte count and lane width."""
    window = a[lo : lo + WINDOW]
    # Each varint's start, and the end of the last one: True before the first
    # byte and after each byte without a continuation bit.
    bounds = np.empty(len(window) + 1, bool)
    bounds[0] = True
    np.less(window, 0x80, out=bounds[1:])
    bounds = bounds.nonzero()[0]
    if len(bounds) == 1:  # no byte of the window ends the varint at lo
        raise _BadVarintError
    used = int(bounds[-1])
    starts = bounds[:-1]
    x = None
    if size == 4:  # no lengths needed if every 4-byte word holds a last byte
        words, x = _own_words(np, chunk, a, lo, used, starts, 4)
    if x is None:  # the lengths choose the lane width, and find the too long
        lengths = np.subtract(bounds[1:], starts)
        longest = int(np.maximum.reduce(lengths))
        if longest > 10:
            raise _BadVarintError
        size = 4 if longest <= 4 else 8
        words, x = _own_words(np, chunk, a, lo, used, starts, size)
    lane = x.dtype
    t = np.empty_like(x)
    (high, shift), *steps = _STEPS[size]
    np.bitwise_and(x, lane.type(high), out=t)  # the first step in 3 operations:
    t >>= lane.type(shift)  # hi * 256 - hi * 128 = hi * 128
    x -= t
    for high, shift in steps:
        np.bitwise_and(x, lane.type(high), out=t)
        x ^= t
        t >>= lane.type(shift)
        x |= t
    if size == 8 and longest > 8:
        _add_top_bits(np, words, starts, lengths, x)
    # int32 keeps the low 32 bits; 4-byte lanes widen for int64/uint64.
    out.frombytes(memoryview(x.astype(item, copy=False)).cast("B"))
    return used, size


def _own_words(
    np: Any, chunk: bytes, a: Any, lo: int, used: int, starts: Any, size: int
) -> tuple[Any, Any]:
    """The ``size``-byte words at every byte, and those at ``starts`` holding
    only their varint's 7-bit groups; with 4-byte words, ``None`` for the
    latter when a varint is longer than 4 bytes."""
    lane = np.dtype(f"<u{size}")
    # The word at every byte, made contiguous once: take() from a strided
    # array makes a whole contiguous copy on every call.  The last words of
    # the payload are read from a zero-padded copy of its end.
    words = np.empty(used, lane)
    inside = max(0, min(used, len(a) - lo - size + 1))
    if inside:
        words[:inside] = np.ndarray((inside,), lane, chunk, lo, (1,))
    if inside < used:
        tail = chunk[lo + inside : lo + used] + bytes(size)
        words[inside:] = np.ndarray((used - inside,), lane, tail, 0, (1,))
    x = words.take(starts, mode="wrap")  # "wrap": the indices are known good, skip the checks
    if not _keep_own_bytes(np, x, np.empty_like(x), size == 4):
        return words, None
    return words, x


def _keep_own_bytes(np: Any, x: Any, t: Any, check: bool = False) -> bool:
    """Keep the 7-bit groups of each word's bytes up to its first byte below 0x80.

    With ``c`` the bits 7 of the bytes below 0x80, ``c - 1`` has every bit
    below the lowest of them set (all bits if there is none).  Five in-place
    operations, where a mask table indexed by length costs a ``take``.
    ``check``: give up, returning False, if a word has no byte below 0x80.
    """
    lane = x.dtype.type
    top = _TOP_BITS[x.dtype.itemsize]
    np.invert(x, out=t)
    t &= lane(top)
    if check and np.count_nonzero(t) < len(t):
        return False
    t -= lane(1)
    t &= lane(top >> 7) * lane(0x7F)
    x &= t
    return True


def _add_top_bits(np: Any, words: Any, starts: Any, lengths: Any, x: Any) -> None:
    """Bits 56-63 of the 9- and 10-byte varints, from their 9th and 10th bytes."""
    long = np.flatnonzero(lengths > 8)
    top = words.take(starts.take(long) + 8)
    _keep_own_bytes(np, top, np.empty_like(top))
    top -= (top & np.uint64(0xFF00)) >> np.uint64(1)  # 9th | 10th << 7
    # The 10th byte keeps only bit 63, as upb: the shift drops its other bits.
    top <<= np.uint64(56)
    top |= x.take(long)
    x[long] = top


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
