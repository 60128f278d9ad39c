"""Packed varints a block of values at a time, with the standard library only.

Without numpy (see npvarints.py), a Python loop over the values of a large
packed ``int32``/``int64``/``uint64`` field costs a Python step per value.  Here
each value gets a 16-byte record inside one big integer, and a fixed number
of big-int operations per block of records moves the bits of all its varints
at once; every other step is one C call per block too:

- decoding: ``re.findall`` splits the payload into varints, ``struct.pack``
  with ``16s`` zero-pads each into its record; four mask-and-shift steps move
  byte ``k`` of every varint down ``k`` bits, dropping the continuation bits
  and any bit past the 64th as upb does, and an ``array`` extended slice
  picks the low 8 (int32: 4) bytes of each record;
- encoding: an ``array`` extended-slice assignment puts each value in the low
  8 bytes of its record; four steps move value bit ``i`` up to ``i + i // 7``,
  a few shifts set each byte's continuation bit (is a higher byte of the
  record nonzero?), and deleting the zero bytes drops each record's padding.
  A zero value, whose varint is the byte 0, is written as ten 0x80 bytes
  meanwhile: no valid payload has more than nine in a row.  A field written
  unpacked (a map's keys) shifts every record up a byte for its tag.

Records are little-endian and ``array`` holds native order, hence the
byteswaps on big-endian hosts.  The results are those of the loops in
varints.py (the tests compare both).
"""

from __future__ import annotations

import re
import struct
from array import array
from typing import NamedTuple

from .._core.schema import INT64_TYPECODE
from .._core.wire import BIG_ENDIAN, CONTINUED_BYTE, LAST_BYTE

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator
    from typing import Any

# Below these sizes the loops are as fast (benchmarks/ measures the crossover).
MIN_BYTES = 32
MIN_VALUES = 8

BLOCK = 1024  # records per big integer (16 KiB): cache-sized; larger blocks are slower
_SECTION = 1 << 16  # payload bytes split by one findall call

_VARINT = re.compile(CONTINUED_BYTE + b"*" + LAST_BYTE)
_LAST = re.compile(LAST_BYTE)
_ZERO = b"\x80" * 10  # a zero value while encoding


def _steps(encode: bool, bits: int = 64) -> list[tuple[int, int, int]]:
    """The (keep, move, shift) bit masks of one record for the four steps between
    value bit ``i`` and varint bit ``i + i // 7``.  A step moves the bits of varint
    byte ``k`` where ``k & shift``: up by 8, 4, 2, 1 to encode, down by 1, 2, 4, 8 to
    decode.  Only the ``bits`` value bits are in the masks: decoding drops the rest.
    With 56 bits (8-byte records) no byte moves by 8, and that step is left out.
    """
    at = {i: i if encode else i + i // 7 for i in range(bits)}
    steps = []
    for s in (8, 4, 2, 1) if encode else (1, 2, 4, 8):
        if s > (bits - 1) // 7:
            continue
        keep = move = 0
        for i, b in at.items():
            if (i // 7) & s:
                move |= 1 << b
                at[i] = b + s if encode else b - s
            else:
                keep |= 1 << b
        steps.append((keep, move, s))
    assert all(b == (i + i // 7 if encode else i) for i, b in at.items())
    return steps


def _bytes_mask(byte: int, positions: range) -> int:
    return sum(byte << 8 * k for k in positions)


_DECODE = _steps(encode=False)
_ENCODE = _steps(encode=True)
_ENCODE56 = _steps(encode=True, bits=56)
_SEVENS = _bytes_mask(0x7F, range(10))  # added to a record: bit 7 of each nonzero byte
_HIGH = _bytes_mask(0x80, range(1, 10))  # those bits that matter: bytes 1 to 9
_HIGH9 = _bytes_mask(0x80, range(9, 10))
_HIGH0 = 0x80
_CONTINUED = _bytes_mask(0x80, range(9))  # bytes that may have a continuation bit
_PLACEHOLDER = _bytes_mask(0x80, range(10))
# The same for 8-byte records (values below 2**56, at most 8 varint bytes):
_TOP = _bytes_mask(0xFF, range(7, 8))  # a value's byte 7: nonzero if it needs the wide records
_SEVENS8 = _bytes_mask(0x7F, range(8))
_HIGH8 = _bytes_mask(0x80, range(1, 8))
_BELOW = [_bytes_mask(0x80, range(8 - d)) for d in (1, 2, 4)]  # bytes that may take from d up
_CONTINUED8 = _bytes_mask(0x80, range(7))
_PLACEHOLDER8 = _bytes_mask(0x80, range(8))
_ZERO8 = b"\x80" * 8  # a zero value in 8-byte records: valid output has at most 7 in a row


class _Block(NamedTuple):
    """What a block of ``count`` records needs: each mask repeated ``count`` times."""

    size: int  # records
    pack: struct.Struct  # ``size`` varints into zero-padded records
    down: list[tuple[int, int, int]]
    up: list[tuple[int, int, int]]
    high9: int  # bit 7 of byte 9 (decoding: a varint of 11 bytes or more)
    sevens: int
    high: int
    high0: int
    continued: int
    placeholder: int
    first: int  # byte 0 of every record set to 1: the tag bytes of unpacked fields
    # 8-byte records: the same masks, and ``below`` for the three continuation shifts
    top: int
    up8: list[tuple[int, int, int]]
    sevens8: int
    high8: int
    below: list[int]
    continued8: int
    placeholder8: int
    high0_8: int


_blocks: dict[int, _Block] = {}


def _block(count: int) -> _Block:
    """The ``_Block`` for ``count`` records (a power of two), made once."""
    block = _blocks.get(count)
    if block is None:

        def wide(pattern: int, size: int = 16) -> int:
            return int.from_bytes(pattern.to_bytes(size, "little") * count, "little")

        def narrow(pattern: int) -> int:
            return wide(pattern, 8)

        block = _Block(
            count,
            struct.Struct("16s" * count),
            [(wide(keep), wide(move), s) for keep, move, s in _DECODE],
            [(wide(keep), wide(move), s) for keep, move, s in _ENCODE],
            wide(_HIGH9),
            wide(_SEVENS),
            wide(_HIGH),
            wide(_HIGH0),
            wide(_CONTINUED),
            wide(_PLACEHOLDER),
            wide(1),
            narrow(_TOP),
            [(narrow(keep), narrow(move), s) for keep, move, s in _ENCODE56],
            narrow(_SEVENS8),
            narrow(_HIGH8),
            [narrow(mask) for mask in _BELOW],
            narrow(_CONTINUED8),
            narrow(_PLACEHOLDER8),
            narrow(_HIGH0),
        )
        _blocks[count] = block
    return block


def _split(items: Any) -> Iterator[tuple[Any, int, _Block]]:
    """``items`` in parts of ``BLOCK``, each with its length and the ``_Block`` for it
    (the next power of two: its masks may reach past the part).
    """
    for i in range(0, len(items), BLOCK):
        part = items[i : i + BLOCK]
        count = len(part)
        yield part, count, _block(BLOCK if count == BLOCK else 1 << (count - 1).bit_length())


def decode(chunk: bytes, out: Any) -> bool:
    """Append the varints of a packed payload to the int32/int64/uint64 ``array`` ``out``.

    The payload must end with a complete varint.  False (``out`` unchanged) if a
    varint is longer than 10 bytes: the caller's loop then names it.
    """
    code = out.typecode
    step = 16 // out.itemsize  # the record's low int32 or int64
    findall = _VARINT.findall
    after = _LAST.search
    from_bytes = int.from_bytes
    start = len(out)
    n = len(chunk)
    pos = 0
    while pos < n:
        last = after(chunk, pos + _SECTION - 1)
        stop = last.end() if last else n  # just after a varint
        pieces = findall(chunk, pos, stop)
        pos = stop
        for part, count, block in _split(pieces):
            if count < block.size:
                part += [b""] * (block.size - count)  # zero records, sliced off below
            x = from_bytes(block.pack.pack(*part), "little")
            if x & block.high9:  # a 10th byte with a continuation bit
                del out[start:]
                return False
            for keep, move, s in block.down:
                x = (x & keep) | ((x & move) >> s)
            records = array(code, x.to_bytes(16 * block.size, "little"))
            if BIG_ENDIAN:  # pragma: no cover - exercised on big-endian hosts only
                records.byteswap()
            out.extend(records[: step * count : step])
    return True


def encode(values: Any, tag: int = 0) -> bytes:
    """The packed payload of an int32/int64/uint64 ``array``; negatives as 10-byte
    two's complement varints.

    With a one-byte ``tag``, the field written unpacked instead: each varint
    preceded by the tag (a map's keys, a long shape).  The records have
    room for it: shifted up a byte, each varint leaves byte 0 to its tag.
    """
    if values.itemsize != 8:
        values = array(INT64_TYPECODE, values)  # int32: sign-extended to 64 bits
    code = values.typecode
    from_bytes = int.from_bytes
    chunks = []
    zeros = False
    for part, count, block in _split(values):
        if not tag:
            if BIG_ENDIAN:  # pragma: no cover - exercised on big-endian hosts only
                part = array(code, part)
                part.byteswap()
            x = from_bytes(part, "little")
            if not x & block.top:  # every value in 0..2**56 - 1: 8-byte records
                chunks.append(_narrow(x, count, block))
                continue
        records = array(code, bytes(16 * count))
        records[::2] = part
        if BIG_ENDIAN:  # pragma: no cover - exercised on big-endian hosts only
            records.byteswap()
        x = from_bytes(records, "little")
        for keep, move, s in block.up:
            x = (x & keep) | ((x & move) << s)
        nonzero = x + block.sevens  # no byte carries: each is at most 0x7f
        flags = nonzero & block.high
        # Byte k continues if one of bytes k+1..9 is nonzero: or-ing in shifts of 1, 2, 4 bytes
        # reaches k+8 (byte 0 of the next record, never flagged), then byte 9 for byte 0.
        more = flags >> 8
        more |= more >> 8
        more |= more >> 16
        more |= more >> 32
        more |= (flags & block.high9) >> 72
        x |= more & block.continued
        zero = ((more | nonzero) & block.high0) ^ block.high0  # byte 0 of each zero record
        if count < block.size:
            zero &= (1 << 128 * count) - 1  # the block's masks reach past the records
        if zero:
            zeros = True
            zero |= zero << 8
            zero |= zero << 16
            zero |= (zero << 32) | (zero << 64)
            x |= zero & block.placeholder
        if tag:
            first = block.first
            if count < block.size:
                first &= (1 << 128 * count) - 1
            x = (x << 8) | (first * tag)
        chunks.append(x.to_bytes(16 * count, "little").translate(None, b"\0"))
    payload = b"".join(chunks)
    return payload.replace(_ZERO, b"\0") if zeros else payload


def _narrow(x: int, count: int, block: _Block) -> bytes:
    """The varints of ``count`` values below 2**56, ``x`` holding each in 8 bytes.

    Half the bits of the 16-byte records, and no copy into them: ``x`` is the
    values' own bytes.  As there, but each continuation shift is masked to the
    bytes that may take a flag from inside their own record (8-byte records
    have no padding that would stop a flag at the record's end).  A zero is
    written as eight 0x80 bytes meanwhile: a varint of at most 8 bytes has at
    most seven in a row, and those of a placeholder come first in any run.
    """
    for keep, move, s in block.up8:
        x = (x & keep) | ((x & move) << s)
    nonzero = x + block.sevens8  # no byte carries: each is at most 0x7f
    flags = nonzero & block.high8
    one, two, four = block.below
    more = flags >> 8
    more |= (more >> 8) & one
    more |= (more >> 16) & two
    more |= (more >> 32) & four
    x |= more & block.continued8
    zero = ((more | nonzero) & block.high0_8) ^ block.high0_8  # byte 0 of each zero record
    if count < block.size:
        zero &= (1 << 64 * count) - 1
    if zero:
        zero |= zero << 8
        zero |= zero << 16
        zero |= zero << 32
        x |= zero & block.placeholder8
    b = x.to_bytes(8 * count, "little").translate(None, b"\0")
    return b.replace(_ZERO8, b"\0") if zero else b
