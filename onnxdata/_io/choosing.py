"""How onnx's file functions read their ``f`` and ``format`` arguments.

``f`` is a path (``str``, ``bytes`` or ``os.PathLike``) or a file object
(anything with ``read``/``write``); the format is the one named, else the
one the file extension (of the path, or of a file object's ``name``) says,
else protobuf: onnx's ``_get_serializer`` rule, shared by the tensor and
model functions.
"""

from __future__ import annotations

import os

from .._codec.decode import too_large
from .._core.errors import DecodeError
from .formats import registry

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .._messages.declarations import Message

__all__ = [
    "DEFAULT_FORMAT",
    "MODEL_EXTENSION",
    "TEXTUAL_EXTENSIONS",
    "choose_format",
    "file_path",
    "has_method",
    "is_path",
    "names_a_model",
    "read_object",
]

DEFAULT_FORMAT = "protobuf"
MODEL_EXTENSION = ".onnx"
TEXTUAL_EXTENSIONS = frozenset({".onnxtxt", ".onnxtext"})
"""onnx's textual syntax (``onnxdata.parser``), the ``onnxtxt`` format."""


def file_path(f: Any) -> str | None:
    """The absolute path ``f`` names (a path, or a file object's ``name``), else None."""
    if isinstance(f, (str, os.PathLike)):
        return os.path.abspath(f)
    name = getattr(f, "name", None)
    if isinstance(name, (str, os.PathLike)):
        return os.path.abspath(name)
    return None


def choose_format(fmt: str | None, f: Any = None) -> str:
    """``fmt``, else the format of ``f``'s file extension, else protobuf (as onnx chooses).

    Raises:
        ValueError: ``fmt`` is not a registered format.
    """
    if fmt is not None:
        registry.get(fmt)  # refuses an unknown name
        return fmt
    path = file_path(f)
    if path is not None:
        found = registry.get_format_from_file_extension(os.path.splitext(path)[1])
        if found is not None:
            return found
    return DEFAULT_FORMAT


def names_a_model(f: Any) -> bool:
    """Whether ``f`` (a path, or a file object with a ``name``) is a model by what it
    is called: ``.onnx``, or an extension of the text or JSON format (which onnx
    reads as a ModelProto).  Other names (``.pb``, none) say nothing of the type."""
    path = file_path(f)
    if path is None:
        return False
    return choose_format(None, path) != DEFAULT_FORMAT or os.path.splitext(path)[1] == (
        MODEL_EXTENSION
    )


def has_method(f: Any, method: str) -> bool:
    """Whether ``f`` has a callable ``method`` (``read``, ``write``): a file object."""
    return callable(getattr(f, method, None))


def is_path(f: Any) -> bool:
    """Whether ``f`` names a file: ``str``, ``bytes`` or ``os.PathLike``."""
    return isinstance(f, (str, bytes, os.PathLike))


def read_object(f: Any, max_size: int | None, cls: type[Message]) -> Any:
    """What the file object ``f`` holds (what its ``read`` gives), read no
    further than ``max_size + 1`` bytes: a ``max_size`` holds for a file
    object as for a path, instead of being dropped after the whole stream was
    read into memory.  A text stream's size is its UTF-8 length.  Something
    ``read`` gives that is neither bytes nor text is returned as it is, for
    the caller's ``TypeError``.

    Raises:
        DecodeError: (a ``ValueError``) more than ``max_size`` bytes, with the
            error ``cls.decode`` gives for too large an input.
        OSError: as ``f.read``.
    """
    if max_size is None:
        return f.read()
    want = max(max_size, 0) + 1
    data = f.read(want)
    if not isinstance(data, (bytes, bytearray, memoryview, str)):
        return data
    parts: list[Any] = [data]
    got = len(data)
    while 0 < got < want:  # a raw stream (a pipe, a socket) may give less than asked
        more = f.read(want - got)
        if not more:
            break
        parts.append(more)
        got += len(more)
    if len(parts) > 1:
        data = "".join(parts) if isinstance(data, str) else b"".join(parts)
    size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
    if size > max_size:
        err = too_large(cls, size, max_size)
        if len(data) >= want:  # read no further: the stream holds at least this much
            text = f"the file object holds more than max_size={max_size} bytes"
            err = DecodeError(text, err.offset)
            err.within(cls.__qualname__)
        raise err
    return data
