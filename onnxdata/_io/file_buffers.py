"""A regular file's bytes in one buffer of their own, or mapped on request, size checked first.

The file is read into one buffer that nothing else refers to, so the caller
may overwrite the file at once; a multi-GiB tensor file can instead be mapped
(``mmap=True``), and its pages come from the page cache only when touched.
Its declared size is compared with ``max_size`` before a byte is mapped or
read.  Only regular files are read (:func:`regular_files.open_regular`).
"""

from __future__ import annotations

import os

from .._codec.decode import too_large
from .._core.mapped import FileMapping, map_file
from .._messages.declarations import Message, TensorProto
from .regular_files import open_regular

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["open_buffer"]


def open_buffer(
    path: Any, mmap: bool = False, max_size: int | None = None, cls: type[Message] = TensorProto
) -> tuple[Any, FileMapping | None]:
    """The bytes of the regular file at ``path``, and the mapping they are a view of.

    By default the file is read into one buffer of its own (``bytes``, and
    ``None`` for the mapping): nothing refers to the file afterwards, so the
    caller may overwrite it.  With ``mmap=True`` it is mapped instead (see
    ``_core/mapped.py``): the bytes are a read-only view of the
    :class:`FileMapping` returned, valid only while the file keeps its length;
    an empty file, or a system that cannot map it, is read as by default.

    A file whose size is over ``max_size`` is refused before anything is
    mapped or read, with the error ``cls.decode`` gives.  Exactly the size
    checked is read or mapped: a file that grows meanwhile is read no further
    (a file whose ``fstat`` says 0 bytes, as ``/proc`` files do, is read to its
    end, at most ``max_size + 1`` bytes).

    Raises:
        DecodeError: the file is larger than ``max_size``.
        ValueError: ``path`` is not a regular file (see :func:`open_regular`).
        OSError: the file cannot be opened, read or mapped.
    """
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        if max_size is not None and size > max_size:
            raise too_large(cls, size, max_size)
        if mmap:
            mapping = map_file(f.fileno(), size, path)
            if mapping is not None:
                return mapping.view, mapping
        if size:
            return f.read(size), None  # one buffer, read in place: one copy of the file
        data = f.read() if max_size is None else f.read(max_size + 1)
        if max_size is not None and len(data) > max_size:
            raise too_large(cls, len(data), max_size)
        return data, None
