"""Data files: ``load`` (read into one buffer, or mapped on request) and atomic ``save``.

``load`` reads the file into one buffer and decodes views of it: a message
owns its bytes and never depends on the file, which the caller may overwrite
at once.  A multi-GiB tensor file can instead be mapped (``mmap=True``):
``load`` then costs the decoding of the small fields, and the payload pages
come from the page cache when (and only if) the values are touched.
``save`` streams the encoding into a temporary file beside the target and
renames it into place, so the target is always either the old file or the
complete new one.

Only regular files are read, their size checked first (``file_buffers.py``,
``regular_files.py``); a file read without a type has it detected
(``type_detection.py``).
"""

from __future__ import annotations

import contextlib
from typing import overload

from .._codec.decode import as_byte_view, as_read_only_view, decode_part
from .._codec.stream import encode_to
from .._core.errors import DecodeError
from .._core.schema import spec_of
from .._core.wire import MAX_DEPTH
from .._messages.declarations import Message, TensorProto
from .atomic import AtomicFile
from .file_buffers import open_buffer
from .message_args import any_message
from .type_detection import detect

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, TypeVar

    _M = TypeVar("_M", bound=Message)

__all__ = ["load", "save"]


@overload
def load(
    path: Any,
    type: None = None,
    *,
    mmap: bool = False,
    copy: bool = False,
    max_size: int | None = None,
) -> Message: ...


@overload
def load(
    path: Any,
    type: type[_M],
    *,
    mmap: bool = False,
    copy: bool = False,
    max_size: int | None = None,
) -> _M: ...


def load(
    path: Any,
    type: type[_M] | None = None,
    *,
    mmap: bool = False,
    copy: bool = False,
    max_size: int | None = None,
) -> Message:
    """Read a message from the file at ``path``.

    The file is read into one buffer and decoded with ``copy=False``:
    ``raw_data`` and float fields are read-only views
    of that buffer, which the message owns, so the file may be overwritten
    at once (``open(path, "wb")``, as with onnx).  ``copy=True`` gives each
    value its own ``bytes``.  ``mmap=True`` maps the file instead: a
    multi-GiB tensor opens in milliseconds, but the message depends on the
    file, which must not shrink while a view lives (the package's readers
    raise ``MappedFileError`` then; a view read then is a SIGBUS, see
    docs/robustness.md).  The mapping holds no descriptor and goes with the
    last view (``Message.decode`` has the lifetime rule).

    ``type`` is the message class; ``None`` detects it as ``onnxdata show``
    does (see :func:`detect`): a file with a model's shape is a
    ``ModelProto``; otherwise every data type is tried, the best fit wins,
    and a tie goes to the first of TensorProto, SparseTensorProto,
    SequenceProto, MapProto, OptionalProto.  Some bytes are truly ambiguous
    (an empty file; an ``OptionalProto`` holding a tensor is byte for byte a
    one-element ``SequenceProto``): pass ``type`` whenever it is known.

    Only a regular file is read; its size is checked against ``max_size``
    before anything is read, so ``load("/dev/zero", max_size=...)`` or a FIFO
    fails at once instead of reading forever or blocking.

    Raises:
        DecodeError: the file is not a valid encoding of ``type`` (of any
            type, when detecting: the error is the one for TensorProto), or
            is larger than ``max_size``.
        ValueError: ``path`` is not a regular file (a directory, a FIFO, a
            socket or a device).
        OSError: the file cannot be opened, read or mapped
            (``MappedFileError``: it shrank as it was mapped).
        TypeError: ``type`` is not a message class.
    """
    if type is not None and not _is_message_class(type):
        raise TypeError(f"load() needs a message class or None, not {type!r}")
    buf, mapping = open_buffer(path, mmap, max_size, type or TensorProto)
    view = as_byte_view(buf) if copy else as_read_only_view(buf)
    try:
        if type is None:
            found: Message = detect(view, copy).result
            return found
        try:
            return decode_part(type, view, 0, len(view), MAX_DEPTH, copy)
        except DecodeError as err:
            err.within(type.__qualname__)
            raise
    finally:
        if isinstance(view, memoryview):
            with contextlib.suppress(BufferError):  # exported: it goes with its last user
                view.release()
        if mapping is not None:
            mapping.close()  # unmapped now unless a decoded view refers to it


def _is_message_class(cls: Any) -> bool:
    try:
        spec_of(cls)
    except TypeError:
        return False
    return isinstance(cls, type) and issubclass(cls, Message)


def save(message: Message, path: Any, *, max_size: int | None = None) -> int:
    """Write ``message`` to the file at ``path`` atomically; return the size.

    The encoding is streamed (``encode_to``) into a temporary file in the
    same directory, synced to disk, then renamed over ``path``: a crash or an
    error at any point leaves ``path`` as it was (or absent), never half
    written.  An existing file's permission bits are kept.  Saving over a
    file that ``load(..., mmap=True)`` mapped is safe: the rename leaves the
    mapped file as it was.  What a rename cannot rebuild (a device, a FIFO,
    ``/dev/stdout``) is written through instead, never replaced (see ``AtomicFile``).

    ``message`` may be any ONNX message, onnx's protobuf ones too (written
    through their bytes).

    Raises:
        TypeError, ValueError, OverflowError: as ``encode()`` (nothing is
            written then); ``max_size`` as ``encode_to``.  TypeError also
            when ``message`` is not an ONNX message.
        OSError: the file cannot be written, synced or renamed.
    """
    message = any_message(message)
    target = AtomicFile(path)
    try:
        size = encode_to(message, target.file, max_size)
    except BaseException:
        target.discard()
        raise
    target.commit()
    return size
