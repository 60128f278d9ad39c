"""Regular files only: a data file is opened without blocking and checked before a byte is read.

A FIFO, a socket, a device or a directory is refused before anything is read
from it: it is opened without blocking (``O_NONBLOCK``, so a FIFO with no
writer cannot hang the open) and checked with ``fstat``.  :func:`open_regular`
is that rule, for every reader of files in the package.
"""

from __future__ import annotations

import os
import stat

from .owned import Descriptor

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, BinaryIO

__all__ = ["OPEN_FLAGS", "not_regular", "open_regular"]

OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
"""The flags a data file is opened with: read-only, and never blocking in ``open``
(a FIFO with no writer would otherwise wait forever)."""

_KINDS_OF_FILES = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


def not_regular(st: os.stat_result) -> str | None:
    """None for a regular file; else what the file is ("a FIFO", "a directory", ...).

    A data file must be a regular file: anything else may never end
    (``/dev/zero``), block forever (a FIFO with no writer) or have no size to
    check a limit against.
    """
    if stat.S_ISREG(st.st_mode):
        return None
    for test, what in _KINDS_OF_FILES:
        if test(st.st_mode):
            return what
    return "not a regular file"  # pragma: no cover - e.g. a Solaris door


def open_regular(path: Any) -> BinaryIO:
    """Open the regular file at ``path`` for reading, refusing anything else first.

    The file is opened with :data:`OPEN_FLAGS` (which cannot block) and checked
    with ``fstat`` on the open descriptor, so nothing is read from a device, a
    FIFO, a socket or a directory.

    Raises:
        ValueError: ``path`` is not a regular file (the message says what it is).
        OSError: the file cannot be opened.
    """
    desc = Descriptor(path, OPEN_FLAGS)
    try:
        what = not_regular(os.fstat(desc.fd))
        if what is not None:
            raise ValueError(f"{os.fsdecode(path)!r} is {what}, not a regular file: refused")
        file: BinaryIO = desc.to_file("rb")
        return file
    finally:
        desc.close()  # nothing left to close once the file object owns it
