"""Writing a whole chunk to a file object: the one place a ``write()`` result is read.

Python's I/O contract (``io.RawIOBase.write``) lets ``write()`` take less than
it is given and say so: it returns the number of bytes written, which may be
short, or ``None`` when the file is non-blocking and nothing could be written
(a pipe or socket whose buffer is full).  Taking ``None`` as "all written", as
buffered files' ``write()`` would let one assume, silently drops the rest of
the chunk; taking 0 as progress loops forever.  So every writer of the
package (``encode_to``, ``SequenceWriter``) hands its chunks to
:func:`write_all`, which reads the result the way ``io.BufferedWriter`` does:

- a count short of the chunk: the rest is written, from where it stopped;
- ``None`` (the write would block): :class:`BlockingIOError`, its
  ``characters_written`` the bytes of the chunk the file took, never success;
- a ``BlockingIOError`` raised by ``write()`` itself (a buffered file over a
  non-blocking one): its ``characters_written`` counted from the chunk's start;
- 0, a negative count or more than was asked: :class:`OSError`, since the
  file broke the contract and going on could only loop or misreport;
- something that is not an integer: :class:`TypeError`.
"""

from __future__ import annotations

import errno
from operator import index

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

__all__ = ["MAX_WRITE", "write_all"]

MAX_WRITE = 1 << 30
"""One ``write()`` call is passed at most this many bytes: some platforms refuse
or truncate single writes of 2 GiB or more."""


def write_all(write: Callable[[Any], Any], data: Any) -> int:
    """Write every byte of ``data`` (any bytes-like object) with ``write``; return how many.

    ``write`` is a file object's ``write`` method.  A short write is followed
    by another for the rest; see the module docstring for the results that
    are refused.

    Raises:
        BlockingIOError: ``write`` returned ``None`` or raised it (a non-blocking
            file that is full); ``characters_written`` is the number of bytes
            of ``data`` the file took, the rest was not written.
        OSError: ``write`` returned 0, a negative number, or more than it was
            given; or raised it.
        TypeError: ``write`` returned something other than ``None`` or an integer.
    """
    view = memoryview(data)
    if view.itemsize != 1 or view.ndim != 1:
        view = view.cast("B")  # counts are in bytes, whatever the items
    total = len(view)
    pos = 0
    while pos < total:
        piece = view[pos : pos + MAX_WRITE]
        try:
            n = write(piece)
        except BlockingIOError as exc:
            exc.characters_written = pos + _taken(exc)
            raise
        if n is None:
            raise BlockingIOError(
                errno.EAGAIN,
                f"write() would block (it returned None) after {pos} of {total} bytes",
                pos,
            )
        pos += _count(n, len(piece))
    return total


def _taken(exc: BlockingIOError) -> int:
    """The bytes a ``BlockingIOError`` says were written (0 when it does not say)."""
    try:
        return exc.characters_written
    except AttributeError:  # raised without the count: nothing taken
        return 0


def _count(n: Any, asked: int) -> int:
    """``write()``'s result ``n`` for a piece of ``asked`` bytes, checked."""
    if isinstance(n, bool):
        raise TypeError(f"write() returned {n!r}, not a number of bytes")
    try:
        n = index(n)
    except TypeError:
        raise TypeError(
            f"write() returned {type(n).__name__} {n!r}, not a number of bytes"
        ) from None
    if not 0 < n <= asked:
        why = "no progress: the rest would never be written" if n <= 0 else "more than it was given"
        raise OSError(errno.EIO, f"write() returned {n} for a piece of {asked} bytes ({why})")
    counted: int = n
    return counted
