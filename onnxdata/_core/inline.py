"""The wire cursor's one-byte fast path, as source for generated code.

``wire.py`` reads a varint or a length with a call; a generated loop reads
the usual one (one byte, or a length of two) inline first, and calls
``wire.py`` for everything longer or bad, so that every error is worded
there.  The statements here are that inline read, written once: every
generator that reads a tag, a varint or a length inline takes them from
here (the decode loop, the field blocks, the runs, the codec's string runs
and its packed-varint loop).  They read ``buf`` from ``pos`` up to ``end``
and leave the value in ``tag``, ``v`` (a varint) or ``n`` (a length),
``pos`` after it; the names ``read_tag``, ``read_varint`` and
``read_length`` must be bound to ``wire.py``'s readers.

One copy is kept by hand, measured: the chains of tail elements
(``_codec/tails.py``'s ``chain``), whose fixed byte-pattern test reads a
level's head value and tail length in one test; see its docstring.
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


def read_varint_inline(convert: str = "v", *, inside: bool = False) -> str:
    """Read a varint into ``v``: a byte below 0x80 is the value itself, any
    other varint ``read_varint``'s, converted by the expression ``convert`` of ``v``
    (a one-byte value is the same in every integer kind).  ``inside``: the
    caller knows that ``pos`` is before ``end``."""
    first = "buf[pos]" if inside else "buf[pos] if pos < end else 0x80"
    return (
        f"v = {first}\n"
        "if v < 0x80:\n"
        "    pos += 1\n"
        "else:\n"
        "    v, pos = read_varint(buf, pos, end)\n"
        f"    v = {convert}"
    )


def read_length_inline(at: str = "pos", *, inside: bool = False, later: bool = False) -> str:
    """Read a length into ``n`` from the position variable ``at``, checked
    against ``end`` as ``read_length`` checks it.  ``inside``: the caller
    knows that the position is before ``end``.  ``later``: a one-byte length
    is not checked against ``end`` here; the caller checks, after a run of
    them, that the last payload ends by ``end`` (a slice past it cannot
    raise), and reads that length again with ``read_length`` if not."""
    first = f"buf[{at}]" if inside else f"buf[{at}] if {at} < end else 0x80"
    fits = "" if later else f" and n < end - {at}"
    return f"""\
n = {first}
if n < 0x80{fits}:
    {at} += 1
else:
    # (a one-byte length too long for what follows is longer still as a two-byte one)
    m = buf[{at} + 1] if {at} + 1 < end else 0x80
    if m < 0x80 and (k := n & 0x7F | m << 7) <= end - {at} - 2:
        n = k
        {at} += 2
    else:
        n, {at} = read_length(buf, {at}, end)"""


# A length of one or two bytes is read inline (a nested message of 128 bytes to
# 16 KiB has two); anything else, and every error, is read_length's.
READ_LENGTH = read_length_inline()
"""Read a length into ``n``, checked against ``end`` as ``read_length`` checks it."""
