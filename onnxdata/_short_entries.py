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
entry whose length and data lie inside it, so no byte of any entry is read
as an opcode, and nothing but ``bytes`` and one list can be made; the tests
read the opcodes of every pickle made with ``pickletools``.
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
    import pickle  # here, not above: its import costs milliseconds most programs never spend

    size = FIRST_CHUNK
    while True:
        stop = min(end, pos + size)
        run = bytearray(b"(")  # MARK
        run += memoryview(buf)[pos:stop]
        at = 1  # the walk's offset in ``run``: ``run[at]`` is ``buf[pos + at - 1]``
        n = 0
        length = memoryview(run)[1:]  # ``length[at]`` is ``run[at + 1]``: one addition less
        try:
            while True:
                if run[at] != tag:
                    break
                n = length[at]
                if n >= 0x80:
                    break
                run[at] = 0x43  # SHORT_BINBYTES (a literal: a global costs a lookup per entry)
                at += n + 2
        except IndexError:  # a tag, or a tag and its length, past the copy's end
            pass
        finally:
            length.release()
        # The walk ran into the copy's end before the input's: copy more.
        more = at >= len(run) - 1 and stop < end
        if at > len(run):  # the last entry's data run past the copy: not taken
            at -= n + 2
        del run[at:]
        run += b"l."  # LIST, STOP
        extend(pickle.loads(run))
        pos += at - 1
        if not more:
            return pos
        size = min(2 * size, LAST_CHUNK)
