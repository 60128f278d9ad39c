"""The wire cursor's one-byte fast path, as source for generated code.

``wire.py`` reads a varint or a length with a call; a generated loop reads
the usual one (one byte, or a length of two) inline first, and calls
``wire.py`` for everything longer or bad, so that every error is worded
there.  The statements here are that inline read, written once: every
generator that reads a tag, a varint or a length inline takes them from
here (the decode loop, the field blocks, the runs, the chains of tail
elements, the codec's string runs and its packed-varint reader).  They read
``buf`` from ``pos`` (or the position variable named by ``at``) up to
``end`` and leave the value in ``tag``, ``v`` (a varint) or ``n`` (a length),
the position after it; the names ``read_tag``, ``read_varint`` and
``read_length`` must be bound to ``wire.py``'s readers, unless ``otherwise``
replaces the call (a loop that stops, with ``break``, where the cursor
would have to look).
"""

from __future__ import annotations

__all__ = ["READ_LENGTH", "READ_TAG", "read_length_inline", "read_varint_inline"]

# A tag, its first byte known to be before ``end`` (the loop has just tested it).
READ_TAG = """\
start = pos
tag = buf[pos]
pos += 1
if tag >= 0x80:
    tag, pos = read_tag(buf, start, end)"""
"""Read a tag into ``tag`` from ``pos`` (below ``end``), keeping its offset in ``start``."""


def read_varint_inline(convert: str = "v", at: str = "pos", otherwise: str = "") -> str:
    """Read a varint into ``v``: a byte below 0x80 is the value itself, any
    other varint ``read_varint``'s, converted by the expression ``convert`` of ``v``
    (a one-byte value is the same in every integer kind); or ``otherwise``
    (the statement that replaces the call) where it is given."""
    longer = otherwise or f"v, {at} = read_varint(buf, {at}, end)\nv = {convert}"
    return (
        f"v = buf[{at}] if {at} < end else 0x80\n"
        "if v < 0x80:\n"
        f"    {at} += 1\n"
        "else:\n" + "\n".join("    " + line for line in longer.splitlines())
    )


def read_length_inline(at: str = "pos", otherwise: str = "") -> str:
    """Read a length into ``n``, checked against ``end`` as ``read_length``
    checks it: one or two bytes inline, anything else (and every error)
    ``read_length``'s, or ``otherwise`` where it is given."""
    longer = otherwise or f"n, {at} = read_length(buf, {at}, end)"
    return f"""\
n = buf[{at}] if {at} < end else 0x80
if n < 0x80 and n < end - {at}:
    {at} += 1
else:
    # (a one-byte length too long for what follows is longer still as a two-byte one)
    m = buf[{at} + 1] if {at} + 1 < end else 0x80
    if m < 0x80 and (k := n & 0x7F | m << 7) <= end - {at} - 2:
        n = k
        {at} += 2
    else:
        {longer}"""


# A length of one or two bytes is read inline (a nested message of 128 bytes to
# 16 KiB has two); anything else, and every error, is read_length's.
READ_LENGTH = read_length_inline()
"""Read a length into ``n``, checked against ``end`` as ``read_length`` checks it."""
