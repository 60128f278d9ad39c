"""A repeated bytes field written a chunk of entries at a time: the encoder's
bytes-list fast path.

:func:`bytes_list` writes a chunk of entries that are all ``bytes`` with one
``%`` formatting call when all are shorter than 128; anything else
it hands to ``writing.each``, the general path, which writes one
entry at a time.  Both write the same bytes (the tests compare them on the
general paths, ``ONNXDATA_GENERAL_PATHS``).
"""

from __future__ import annotations

import operator

from .writing import each, to_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    Out = list[Any]

__all__ = ["BYTES_CHUNK", "bytes_list"]


# bytes_list writes this many entries at a time: the temporaries of one chunk
# (its types, lengths, template, argument tuple and result) are reused from
# the allocator's free lists instead of being mapped and faulted in anew, and
# an entry of another type costs its own chunk one-at-a-time writing, not the
# whole field's.
BYTES_CHUNK = 8192


def bytes_list(tag: bytes, values: Any, out: Out, start: int = 0) -> int:
    """A repeated bytes field (or ``BYTES_CHUNK`` of its entries, the first of them
    its ``start``-th), written in bulk where its entries are all ``bytes``.

    All shorter than 128 (the usual case): one ``%`` formatting call, from a
    template of four bytes per entry (the tag, the length, ``%b``) made with
    one strided store of the lengths.  No head object is made per entry, and
    the final join gets one piece instead of two per entry.  Entries of other
    types (``bytearray``, a subclass, a wrong one) or lengths, are written one
    at a time, an error naming the ``start`` + ``i``-th entry.
    """
    n = len(values)
    if n > BYTES_CHUNK:
        size = 0
        for i in range(0, n, BYTES_CHUNK):
            size += bytes_list(tag, values[i : i + BYTES_CHUNK], out, start + i)
        return size
    # ``type`` is exact: a subclass's ``len`` may say another length than ``%b``
    # writes.  From 16 entries, a list's ``count`` (a C loop over an array of
    # pointers) beats ``countOf``, which steps the ``map`` iterator per entry;
    # below, making the list costs more than it saves.
    types = map(type, values)
    if len(tag) != 1 or n != (
        operator.countOf(types, bytes) if n < 16 else list(types).count(bytes)
    ):
        return each(tag, values, to_bytes, out, start)
    lengths = _short_lengths(values)
    if lengths is None:  # some of 128 bytes or more: ``%`` would grow its result many times
        return each(tag, values, to_bytes, out, start)
    made = bytearray((tag + b"\0%b") * n)
    made[1::4] = lengths
    template = bytes(made)  # bytearray's % formats into bytes, then copies the result
    if 0x25 in lengths:
        b = _percent_lengths(tag, values, lengths, template)
    else:
        b = template % tuple(values)
    out.append(b)
    return len(b)


def _short_lengths(values: Any) -> bytearray | None:
    """The lengths of ``values`` if all are below 128, else None."""
    try:
        lengths = bytearray(map(len, values))
    except ValueError:  # a length above 255
        return None
    return lengths if lengths.isascii() else None


def _percent_lengths(tag: bytes, values: list[bytes], lengths: bytearray, template: bytes) -> bytes:
    """bytes_list's formatting when some lengths are 37, ``%``.

    Those entries' cells ``tag % % b`` must read ``tag %% %b`` (a literal
    ``%``).  A few of them (the usual case, for strings of varied lengths)
    are found in ``lengths`` with ``find``, and the template is cut before
    their length bytes and joined with ``%``: one cut costs far less than a
    search of the whole template.  Where more than one entry in 64 has that
    length, one ``replace`` does: no four bytes of the template but a cell's
    can read ``tag % % b``, as every cell ends in ``%b``.
    """
    if lengths.count(0x25) * 64 > len(lengths):
        return template.replace(tag + b"%%b", tag + b"%%%b") % tuple(values)
    pieces = []
    cut = 0
    i = lengths.find(0x25)
    while i >= 0:
        at = 4 * i + 1  # the length byte of entry i
        pieces.append(template[cut:at])
        cut = at
        i = lengths.find(0x25, i + 1)
    pieces.append(template[cut:])
    return b"%".join(pieces) % tuple(values)
