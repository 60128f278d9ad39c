"""Packed varints a whole array at a time, when the caller has numpy loaded.

The core never imports numpy: it looks in ``sys.modules``, so a program that
already uses numpy gets vectorised varints for free and one that does not
pays nothing.  Results are identical to the pure-Python loops (the tests run
both); these functions only make large packed ``int32``/``int64``/``uint64``
fields cost a few numpy passes instead of a Python step per value.  Work is
done a window of the payload (decode) or a slice of the values (encode) at a
time, so temporaries stay small.

Its table of continuation bits (``_CONTINUED``), applied to a whole window at
once, is the one test of varint bytes outside ``_core/wire.py`` and
``_core/inline.py`` that no template can write: there is no byte-at-a-time
read to share.  What it earns: a million packed ``int64`` (``int64_1M``) decode
in 12 ms, against 102 ms by the big-integer lanes and 425 ms by the loop
(CPU time, best of 5, one process).
"""

from __future__ import annotations

import sys
from typing import NamedTuple

from .._core.wire import ends_varint

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
# bytes per payload byte at most) stay small: with megabytes of them glibc
# gives memory back and takes it again, and a large payload's decoding (its
# copy and output array too) then pays a page fault every 4 KiB on every call.
WINDOW = 1 << 17

# Bit-lane compaction, one step per entry: the lower half of each lane
# (``low``) is added ``times`` more times, which moves it up and closes the
# gap of the continuation bits above it; the groups end ``_SCALE`` bits up.
_STEPS = {
    4: [(0x00FF00FF, 1), (0x0000FFFF, 3)],
    8: [(0x00FF00FF00FF00FF, 1), (0x0000FFFF0000FFFF, 3), (0x00000000FFFFFFFF, 15)],
}
_SCALE = {4: 3, 8: 7}
_TOP_BITS = {4: 0x80808080, 8: 0x8080808080808080}  # each byte's continuation bit


class _Lane(NamedTuple):
    """A lane width's dtype and constants as numpy scalars, made once: a
    window's few dozen numpy calls then convert no Python ints."""

    dtype: Any
    top: Any  # each byte's continuation bit
    sevens: Any  # each byte's low 7 bits
    one: Any
    steps: list[tuple[Any, Any]]  # _STEPS, ``times`` None for 1
    scale: Any


_LANES: dict[int, _Lane] = {}


def _lane(np: Any, size: int) -> _Lane:
    """The constants of ``size``-byte lanes."""
    lane = _LANES.get(size)
    if lane is None:
        dtype = np.dtype(f"<u{size}")
        u = dtype.type
        top = _TOP_BITS[size]
        steps = [(u(low), u(times) if times != 1 else None) for low, times in _STEPS[size]]
        lane = _Lane(dtype, u(top), u((top >> 7) * 0x7F), u(1), steps, u(_SCALE[size]))
        _LANES[size] = lane
    return lane


def decode(np: Any, chunk: bytes, out: Any) -> bool:
    """Append the varints of a packed payload (a copy) to the ``array`` ``out``.

    ``out`` holds 64-bit values (``"q"``/``"Q"``) or 32-bit ones (the low 32
    bits of each value, as upb keeps for ``int32``).  A payload with a bad
    varint (cut off by the end, or longer than 10 bytes) returns False and
    leaves ``out`` as it was: the caller's loop then names the first bad
    one (``varints.py`` has the one wording of every varint error).

    Work is per value, not per byte: each varint's first bytes are read as
    one little-endian word, the bytes of the following varints are masked
    off, and the 7-bit groups are packed together by bit-lane steps.

    Varints of one length in a row (sorted values: a sparse tensor's
    indices, which ONNX requires sorted, are a run of each length) skip
    finding each varint's start: see :func:`_last_run`.
    """
    a = np.frombuffer(chunk, np.uint8)
    item = np.dtype(f"=u{out.itemsize}")
    if chunk.isascii():  # one-byte values only (BOOL, small ints): they are the bytes
        out.frombytes(memoryview(a.astype(item)).cast("B"))
        return True
    size0 = len(out)
    lo = 0
    try:
        while lo < len(a):
            lo += _decode_window(np, chunk, a, lo, item, out)
    except _BadVarintError:
        del out[size0:]
        return False
    return True


class _BadVarintError(Exception):
    """A varint of the payload is cut off or too long: the caller's loop says which."""


def _decode_window(np: Any, chunk: bytes, a: Any, lo: int, item: Any, out: Any) -> int:
    """Append the varints that end in a window of ``a`` from ``lo`` to ``out``;
    their byte count.  The window is the rest of the payload when
    less than two windows are left, and the whole of a payload of up to 4
    windows (a few megabytes of temporaries, where each window costs a
    fixed number of numpy calls), else ``WINDOW`` bytes."""
    rest = len(a) - lo
    window = a[lo:] if rest < 2 * WINDOW or len(a) <= 4 * WINDOW else a[lo : lo + WINDOW]
    run = _last_run(np, chunk, lo, len(window))
    if run is None:
        return _decode_mixed(np, chunk, a, lo, window, item, out)
    if run.start:  # ends with a varint's last byte: its byte count is run.start
        _decode_mixed(np, chunk, a, lo, window[: run.start], item, out)
    out.frombytes(memoryview(_compact(np, run.x, run.t, item)).cast("B"))
    return run.start + len(run.x) * run.length


# A window this long or longer is looked at for a run of one varint length.
RUN_BYTES = 1 << 12
# How many varints of the window's last run are compared in Python, and then
# in one small numpy pass, before the whole window is: a window of mixed
# lengths pays little for the look.
CHECK_ROWS = 16
PROBE_ROWS = 1 << 10
# 1 for a byte with its continuation bit set, 0 for a varint's last byte.
_CONTINUED = bytes(int(b >= 0x80) for b in range(256))


class _Run(NamedTuple):
    """The last run of a window: where it starts (from the window's start),
    its varints' length, their words holding only their 7-bit groups, and a
    scratch array like them."""

    start: int
    length: int
    x: Any
    t: Any


def _last_run(np: Any, chunk: bytes, lo: int, n: int) -> _Run | None:
    """The run of varints of one length ``k`` (at most 8) that ends with the
    last varint ending in the window ``chunk[lo : lo + n]``, if it holds its
    last ``PROBE_ROWS`` varints (or is the window's whole); else None.

    Such a run needs no search for each varint's start: it is rows of ``k``
    bytes, counted back from its end, each with its continuation bits on all
    bytes but the last.  Each row's first word is read at a stride of ``k``,
    and its test against those bits is one comparison per varint; the first
    row that fails, from the end, bounds the run.  Where the byte before
    that bound is not a varint's last, the row after it is the run's first
    whole varint.  Only the window's end is looked at first (the last
    ``CHECK_ROWS`` varints, then ``PROBE_ROWS``), so mixed lengths cost little.
    """
    if n < RUN_BYTES:
        return None
    hi = lo + n
    marks = bytes(chunk[hi - 20 : hi]).translate(_CONTINUED)
    last = marks.rfind(0)  # the last varint's last byte, and the one before it
    before = marks.rfind(0, 0, last)
    k = last - before
    if before < 0 or k > 8:
        return None
    end = hi - (len(marks) - 1 - last)  # just after the last varint ending in the window
    tested = bytes(chunk[end - CHECK_ROWS * k : end]).translate(_CONTINUED)
    if tested != (b"\1" * (k - 1) + b"\0") * CHECK_ROWS:
        return None
    size = 4 if k <= 4 else 8
    lane = _lane(np, size)
    top, continued, sevens = (lane.dtype.type(mask) for mask in _ROW_MASKS[k])
    m = (end - lo) // k  # the rows that fit in the window
    rows = min(m, PROBE_ROWS)
    words = _row_words(np, chunk, end, rows, k, lane.dtype)
    t = np.bitwise_and(words, top)
    if rows < m:
        if np.count_nonzero(t != continued):
            return None
        words = _row_words(np, chunk, end, m, k, lane.dtype)
        t = np.bitwise_and(words, top)
    fails = t != continued
    count = int(fails[::-1].argmax())  # the rows that pass, from the end
    if not fails[m - 1 - count]:
        count = m  # every row passes
    start = end - count * k
    if start > lo and not ends_varint(chunk, start):  # the first row ends a longer varint
        start += k
        count -= 1
    x = words[m - count :]
    x &= sevens
    return _Run(start - lo, k, x, t[:count])


# By varint length k: the continuation bits of a word's first k bytes, those
# of its first k - 1, and the 7-bit groups of its first k bytes.
_ROW_MASKS = {
    k: tuple(
        int.from_bytes(pattern, "little")
        for pattern in (b"\x80" * k, b"\x80" * (k - 1), b"\x7f" * k)
    )
    for k in range(1, 9)
}


def _row_words(np: Any, chunk: bytes, end: int, m: int, k: int, dtype: Any) -> Any:
    """The words of the ``m`` rows of ``k`` bytes that end at ``chunk[end]``,
    one at each row's first byte; the last rows' words from a zero-padded
    copy of the payload's end where they run past it."""
    first = end - m * k
    words = np.empty(m, dtype)
    inside = min(m, max(0, (len(chunk) - dtype.itemsize - first) // k + 1))
    if inside:
        words[:inside] = np.ndarray((inside,), dtype, chunk, first, (k,))
    if inside < m:
        tail = bytes(chunk[first + inside * k : end]) + bytes(dtype.itemsize)
        words[inside:] = np.ndarray((m - inside,), dtype, tail, 0, (k,))
    return words


def _decode_mixed(np: Any, chunk: bytes, a: Any, lo: int, window: Any, item: Any, out: Any) -> int:
    """:func:`_decode_window` where varints of any length mix: each one's start found."""
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
    x, t, long = _own_words(np, chunk, lo, used, starts)
    values = _compact(np, x, t, item)
    if long is not None:  # bits 56-63, but for int32 only the check of the 10th bytes
        _add_top_bits(np, a, lo, starts.take(long), long, values if item.itemsize == 8 else None)
    # The words array goes back first: ``out`` grows into memory just used.
    del t
    out.frombytes(memoryview(values).cast("B"))
    return used


def _compact(np: Any, x: Any, t: Any, item: Any) -> Any:
    """The values of words ``x`` that hold only their varint's 7-bit groups,
    as ``item``; ``t`` is scratch space like ``x``."""
    lane = _lane(np, x.itemsize)
    for low, times in lane.steps:
        np.bitwise_and(x, low, out=t)
        if times is not None:
            t *= times
        x += t
    # The last shift writes ``out``'s width: int32 keeps the low 32 bits,
    # 4-byte lanes widen for int64/uint64.
    values = x if x.dtype == item else np.empty(len(x), item)
    np.right_shift(x, lane.scale, out=values, casting="unsafe")
    return values


def _own_words(np: Any, chunk: bytes, lo: int, used: int, starts: Any) -> tuple[Any, Any, Any]:
    """The 8-byte words at ``starts``, holding only their varint's 7-bit
    groups, a scratch array like them, and the indices of the varints longer
    than 8 bytes (``None`` if none is)."""
    lane = _lane(np, 8)
    # The word at every byte (rows of one byte), made contiguous once: take()
    # from a strided array makes a whole contiguous copy on every call.
    words = _row_words(np, chunk, lo + used, used, 1, lane.dtype)
    x = words.take(starts, mode="wrap")  # "wrap": the indices are known good, skip the checks
    # Keep the 7-bit groups of each word's bytes up to its first byte below
    # 0x80.  With ``c`` the bits 7 of the bytes below 0x80, ``c - 1`` has
    # every bit below the lowest of them set (all bits if there is none).
    # Five in-place operations, where a mask table indexed by length costs a
    # ``take``.
    c = np.invert(x, out=words[: len(x)])
    c &= lane.top
    long = None
    if np.count_nonzero(c) < len(c):  # some varint is longer than the word
        long = (c == 0).nonzero()[0]
    c -= lane.one
    c &= lane.sevens
    x &= c
    return x, c, long


def _add_top_bits(np: Any, a: Any, lo: int, at: Any, long: Any, x: Any | None) -> None:
    """Bits 56-63 of the varints at ``a[lo + at]``, the ``long`` ones of ``x``
    (if given), from their 9th and 10th bytes; a varint longer than 10 bytes is bad."""
    bytes8 = a[lo + 8 :]
    ninth = bytes8.take(at)
    at += 1
    # Past the payload's end only after a last varint of 9 bytes, whose 10th
    # byte is not its own: ``ninth`` has no continuation bit then.
    tenth = bytes8.take(at, mode="clip")
    if int(np.maximum.reduce(ninth & tenth)) >= 0x80:  # a continued 10th byte
        raise _BadVarintError
    if x is None:
        return
    # The 10th byte keeps only bit 63, as upb: its other bits are dropped.
    tenth <<= 7
    tenth |= 0x7F
    ninth &= tenth
    top = np.left_shift(ninth, np.uint64(56), dtype=np.uint64)
    top |= x.take(long)
    x[long] = top


def encode(np: Any, values: Any, code: str) -> bytes:
    """The packed varint payload of an ``array`` of int32, int64 or uint64 values.

    Per value, not per byte: each value's 7-bit groups are spread over the
    bytes of a 64-bit word (bytes 0-7) and a second one (bytes 8-9), with
    their continuation bits; the payload, read as little-endian 64-bit words,
    is then the sum of those words shifted to their byte offsets (each value
    adds its own bytes only, so the sum is exact in any order).
    """
    if code == "Q":
        u = np.frombuffer(values, np.uint64)
    else:  # int32 and int64: negatives become 10-byte two's complement varints
        u = np.frombuffer(values, np.int32 if values.itemsize == 4 else np.int64)
        u = u.astype(np.int64).view(np.uint64)
    tables = _encode_tables(np)
    slices = [_encode_slice(np, u[lo : lo + SLICE], tables) for lo in range(0, len(u), SLICE)]
    return b"".join(slices)


def _encode_slice(np: Any, v: Any, tables: tuple[Any, Any]) -> Any:
    """The payload of the uint64 values ``v``, as a buffer."""
    u64 = np.uint64
    largest = int(v.max())
    if largest < 0x80:  # one-byte values only (flags, small ints): they are the bytes
        return memoryview(v.astype(np.uint8))
    sizes_by_exponent, cont_by_size = tables
    # Sizes from the bit length, read off the float64 exponent of the value
    # as an int64, shifted right by 3: exact below 2**56 (2**53 after the
    # shift); above, any rounding stays within size 9.  Negatives (and uint64
    # values from 2**63) are 10.
    t = np.right_shift(v.view(np.int64), 3).astype(np.float64).view(u64)
    t >>= u64(52)
    sizes = sizes_by_exponent.take(t.view(np.int64))
    starts = np.cumsum(sizes)
    total = int(starts[-1])
    starts -= sizes
    # Bytes 0-7: the 7-bit groups 0-7 spread one a byte, in three steps.
    lo = np.bitwise_and(v, u64(0x0FFFFFFF))
    np.bitwise_and(v, u64(0x00FFFFFFF0000000), out=t)
    t <<= u64(4)
    lo |= t
    for high, shift in _SPREAD:  # moving bits up by s adds them times 2**s - 1
        np.bitwise_and(lo, u64(high), out=t)
        t *= u64((1 << shift) - 1)
        lo += t
    lo |= cont_by_size.take(sizes)
    # Each value's bytes at its offset span up to three words: word
    # starts // 8 and the next two, shifted by 8 * (starts % 8) bits.
    words = np.zeros((total >> 3) + 3, u64)
    index = starts >> 3
    shift = starts.view(u64)
    shift &= u64(7)
    shift <<= u64(3)
    first = np.left_shift(lo, shift)
    back = np.subtract(u64(64), shift, out=sizes.view(u64))  # shifts of 64 give 0
    lo >>= back
    if largest >= 1 << 56:  # 9- and 10-byte varints
        # Bytes 8-9: bits 56-62, with bit 63 as both its continuation bit and byte 9.
        hi = np.right_shift(v, u64(56))
        np.bitwise_and(hi, u64(0x80), out=t)
        t <<= u64(1)
        hi += t
        np.right_shift(hi, back, out=t)  # byte 9 when it lands in the third word
        hi <<= shift
        lo |= hi
        third = np.flatnonzero(t != 0)  # 10-byte varints starting at byte 7 of a word
        if len(third):
            words[index.take(third) + 2] += t.take(third)
    _add_to_words(np, words, index, first, lo)
    if sys.byteorder == "big":  # pragma: no cover - exercised on big-endian hosts only
        words.byteswap(inplace=True)
    return memoryview(words.view(np.uint8)[:total])


def _add_to_words(np: Any, words: Any, index: Any, first: Any, second: Any) -> None:
    """``words[index] += first`` and ``words[index + 1] += second``, where
    ``index`` repeats (several values share a word) and never decreases."""
    if _fast_add_at(np):
        np.add.at(words, index, first)
        index += 1
        np.add.at(words, index, second)
        return
    # numpy before 1.25 runs ufunc.at per element: sum each word's run instead.
    runs = np.flatnonzero(index[1:] != index[:-1])
    runs += 1
    runs = np.concatenate((np.zeros(1, runs.dtype), runs))
    at = index.take(runs)
    words[at] += np.add.reduceat(first, runs)
    at += 1
    words[at] += np.add.reduceat(second, runs)


_FAST_ADD_AT: list[bool] = []


def _fast_add_at(np: Any) -> bool:
    """Whether ``ufunc.at`` has its fast loops (numpy 1.25 and later)."""
    if not _FAST_ADD_AT:
        try:
            major, minor = (int(part) for part in np.__version__.split(".")[:2])
        except ValueError:  # pragma: no cover - an unusual version string
            major, minor = 0, 0
        _FAST_ADD_AT.append((major, minor) >= (1, 25))
    return _FAST_ADD_AT[0]


# Spreading groups 0-3 and 4-7 (32 bits apart) into bytes of 7 bits: each
# step moves the upper half of every lane up by ``shift`` bits (the inverse
# of decode's ``_STEPS``).
_SPREAD = [(0x0FFFC0000FFFC000, 2), (0x3F803F803F803F80, 1)]
_TABLES: list[Any] = []


def _encode_tables(np: Any) -> tuple[Any, Any]:
    """Made once: varint size by float64 sign and exponent, and bytes 0-7's
    continuation bits by varint size."""
    if not _TABLES:
        sizes = np.empty(1 << 12, np.int64)
        for bits in range(1 << 12):
            if bits >= 1 << 11:  # negative
                sizes[bits] = 10
            else:  # 0 for 0.0, else a power of two: the value's bit length - 3
                length = bits - 1022 + 3 if bits else 0
                sizes[bits] = min(max(1, -(-length // 7)), 9)
        cont = np.array([0] + [(1 << 8 * min(size - 1, 8)) - 1 for size in range(1, 11)], np.uint64)
        cont &= np.uint64(_TOP_BITS[8])
        _TABLES.extend([sizes, cont])
    return _TABLES[0], _TABLES[1]
