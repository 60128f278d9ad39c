"""A run of short entries of a repeated bytes field, made into ``bytes`` objects in one C call.

An entry shorter than 128 bytes is written as its tag byte, a one-byte length
and its data: the bytes of pickle's ``SHORT_BINBYTES`` opcode (``C``, a
one-byte length, the data) but for the first.  :func:`read_short_entries`
copies the run, overwrites each entry's tag with ``C`` as it walks the
lengths, and one ``pickle.loads`` makes every entry's ``bytes`` object and
the list of them in C.  A Python loop pays a slice and an ``append`` per
entry; this one pays a byte store, and the unpickler less than the two.

Safe by construction: what ``loads`` reads is ``(`` (MARK), one ``C`` per
entry walked, ``l`` (LIST) and ``.`` (STOP).  The copy is cut after the last
entry taken (one across its end is completed from the input first), so no
byte of any entry is read as an opcode, and nothing but ``bytes`` and one
list can be made; the tests read the opcodes of every pickle made with
``pickletools``.

The walk's table of steps (``_STEPS``, indexed by the length byte) is a
one-byte length read outside ``_core/inline.py`` kept for speed: it is a
lookup per entry, with no test, over a copy that ``pickle`` then reads, and
the template's read cannot step that copy.  What it earns: ``strings100k``
(100,000 short strings) decodes in 7.2 ms, against 11.0 ms by the loop
(CPU time, best of 5, one process).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

# The first copy of the run is this long, and each next one twice the last up
# to LAST_CHUNK: a run that stops early costs a small copy, a long one a few
# ``loads`` calls, and the copy never holds more than LAST_CHUNK bytes.
FIRST_CHUNK = 1 << 10
LAST_CHUNK = 1 << 18

# The walk's step by length byte: past the entry, or (128 and over, a longer
# varint) PAST beyond any copy, so that the next read fails and ends it: a
# table lookup per entry in place of a test and an addition.
PAST = 1 << 40
_STEPS = tuple(n + 2 if n < 0x80 else PAST for n in range(256))


def read_short_entries(
    buf: Any, pos: int, end: int, extend: Callable[[list[bytes]], None], tag: int
) -> int:
    """Read the entries of one bytes field (one-byte ``tag``) from ``pos``, a
    tag's offset, while their lengths are below 128 and their data end by
    ``end``; pass their ``bytes`` to ``extend``, a list at a time.

    Returns the offset after the last entry read: the caller's loop reads on
    from there (an entry of 128 bytes or more, another field, or an entry
    cut off by ``end``, whose error that loop reports).  Raises nothing of
    its own: a bad entry is left to the caller.
    """
    import pickle  # here, not above: an import most programs never need

    steps = _STEPS
    size = FIRST_CHUNK
    while True:
        stop = min(end, pos + size)
        run = bytearray(b"(")  # MARK
        run += memoryview(buf)[pos:stop]
        at = 1  # the walk's offset in ``run``: ``run[at]`` is ``buf[pos + at - 1]``
        length = memoryview(run)[1:]  # ``length[at]`` is ``run[at + 1]``: one addition less
        try:
            while run[at] == tag:
                run[at] = 0x43  # SHORT_BINBYTES (a literal: a global costs a lookup per entry)
                at += steps[length[at]]
        except IndexError:  # a read past the copy: its end, or an entry's PAST step
            pass
        finally:
            length.release()
        at, more = _walked(buf, pos, stop, end, run, at)
        del run[at:]  # the entry not taken, if any, and its ``C``
        run += b"l."  # LIST, STOP
        extend(pickle.loads(run))
        pos += at - 1
        if not more:
            return pos
        size = min(2 * size, LAST_CHUNK)


def _walked(buf: Any, pos: int, stop: int, end: int, run: bytearray, at: int) -> tuple[int, bool]:
    """Where the entries end that the walk of ``run`` (MARK, then the copy of
    ``buf[pos:stop]``) took, stopped at ``at``; and whether the field's run
    may go on past the copy.

    The walk writes ``C`` over each tag it passes before it reads the length
    byte, so an entry it does not take (a long one, a tag that is the copy's
    last byte) is cut off with what follows.  An entry whose data run past
    the copy is completed from ``buf`` (``run`` is extended) if it ends by
    ``end``, else is left to the caller, which reports it.
    """
    if at >= PAST:  # a length of 128 or more at ``at - PAST``: the caller's
        return at - PAST, False
    if at == len(run) or (at == len(run) - 1 and run[at] == 0x43):
        return at, stop < end  # the copy's end, or a tag as its last byte (no tag is C)
    if at < len(run):  # a byte not the tag
        return at, False
    taken = pos + at - 1  # the last entry's end in ``buf``, past the copy
    if taken <= end:
        run += memoryview(buf)[stop:taken]
        return at, taken < end
    last = 1  # cut off by ``end``: its start, found as the walk found it
    while last + run[last + 1] + 2 < at:
        last += run[last + 1] + 2
    return last, False
