"""``onnxdata.load`` and ``onnxdata.save``: onnx's ``load``/``save`` for models, and data files too.

In onnx, ``load`` is ``load_model`` and ``save`` is ``save_model``.  onnxdata
had them first for data files (a tensor, a sequence...), whose type it
detects.  Both uses keep working:

* ``load(f)`` gives a ModelProto for a model file (the bytes have a model's
  shape, see ``models.py``; or the file's extension is ``.onnx``; or a text
  or JSON format is named or implied by the extension), with its external
  data, exactly as ``load_model``; for any other file the data type is
  detected as before.  ``load(f, format)`` with a format name is
  ``load_model``; ``load(f, TensorProto)`` (a class, second or as
  ``type=``) decodes that type.
* ``save(proto, f, ...)`` is ``save_model`` for a ModelProto (onnx's too) or
  its bytes; any other message is written as before (a path atomically,
  protobuf format unless ``format`` is named), and the size is returned.
"""

from __future__ import annotations

import builtins
import os

from .._codec.decode import as_read_only_view
from .._codec.stream import encode_to
from .._core.foreign import foreign_name
from .._messages.declarations import Message, TensorProto
from .._messages.graphs import ModelProto
from .choosing import (
    DEFAULT_FORMAT,
    choose_format,
    file_path,
    has_method,
    is_path,
    names_a_model,
    read_object,
)
from .files import load as load_file
from .files import save as save_file
from .formats import registry
from .message_args import any_message
from .model_io import attach_external_data, load_model, save_model, write_model
from .type_detection import detect

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["load", "save"]


def _is_model_file(f: Any, format: str | None) -> bool:
    """Whether ``f`` is a model by what it is called: a format named, a text or
    JSON extension, or ``.onnx`` (``choosing.names_a_model``, the command's rule too)."""
    return format is not None or names_a_model(f)


def load(
    f: Any,
    format: Any = None,
    load_external_data: bool = True,
    *,
    type: builtins.type[Message] | None = None,
    mmap: bool = False,
    copy: bool = False,
    max_size: int | None = None,
) -> Any:
    """Read a message from a path or a file object: a model as ``load_model``
    reads it, any other file as the type it holds (see the module docstring).

    ``format`` is a format name (``"protobuf"``, ``"textproto"``,
    ``"json"``), or a message class (the same as ``type=``).  A path is
    read into one buffer the message owns and decoded without copying the
    bulk again; ``mmap=True`` maps it instead (``mmap``, ``copy``,
    ``max_size`` as in ``load_model``).

    Raises:
        DecodeError: (a ``ValueError``) not a valid encoding of the type (of
            any type, when detecting: the error is TensorProto's), or over
            ``max_size``.
        ValueError: an unknown format; a path that is not a regular file;
            refused external data.
        TypeError: ``type`` is not a message class; ``f`` is neither a path
            nor a file object.
        OSError: the file cannot be read.
        text_format.ParseError, json_format.ParseError: invalid text or JSON.
    """
    if format is not None and not isinstance(format, str):
        if type is not None:
            raise TypeError("load() got a message class both as format and as type")
        type, format = format, None
    wants_model = _is_subclass(type, ModelProto) if type is not None else _is_model_file(f, format)
    if wants_model:
        return load_model(f, format, load_external_data, mmap=mmap, copy=copy, max_size=max_size)
    if type is not None and format is not None:
        if has_method(f, "read"):
            data = read_object(f, max_size, type)
        else:
            data = _read_path(f, max_size, type)
        return registry.get(format).deserialize_proto(data, type())
    if has_method(f, "read"):
        data = read_object(f, max_size, TensorProto if type is None else type)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            kind = builtins.type(data)
            raise TypeError(f"Parameter 'serialized' must be bytes, but got type: {kind}")
        if type is not None:
            return type.decode(data, copy=copy, max_size=max_size)
        found = detect(as_read_only_view(data), copy).result
    elif is_path(f):
        found = load_file(f, type, mmap=mmap, copy=copy, max_size=max_size)
    else:
        raise TypeError(f"load() takes a path or a file object, not {builtins.type(f).__name__}")
    path = file_path(f)
    if isinstance(found, ModelProto) and load_external_data and path is not None:
        attach_external_data(found, os.path.dirname(path), mmap and not copy)
    return found


def _is_subclass(cls: Any, base: builtins.type) -> bool:
    """``issubclass`` that answers False for a non-class."""
    return isinstance(cls, builtins.type) and issubclass(cls, base)


def _read_path(f: Any, max_size: int | None, cls: builtins.type[Message]) -> bytes:
    """The bytes of the regular file at ``f`` (see ``file_buffers.open_buffer``)."""
    from .file_buffers import open_buffer

    data, _ = open_buffer(f, mmap=False, max_size=max_size, cls=cls)
    return bytes(data)


def save(
    proto: Any,
    f: Any,
    format: str | None = None,
    *,
    save_as_external_data: bool = False,
    all_tensors_to_one_file: bool = True,
    location: str | None = None,
    size_threshold: int = 1024,
    convert_attribute: bool = False,
    max_size: int | None = None,
) -> int | None:
    """Write a message to a path or a file object: a model as ``save_model``
    writes it (and None is returned), any other message in protobuf format
    (or the ``format`` named) with the size written returned (None for text).

    A path is replaced atomically (a device, a FIFO or ``/dev/stdout`` is
    written through, never replaced); ``max_size`` limits a data message's
    encoding (a model's is limited to protobuf's 2 GiB, as in onnx).

    Raises:
        TypeError, ValueError, OverflowError: as ``encode()`` (nothing is
            written then), or as ``save_model``; an unknown format.
        OSError: the file cannot be written.
    """
    if isinstance(proto, (bytes, ModelProto)) or foreign_name(proto) == "onnx.ModelProto":
        save_model(
            proto,
            f,
            format,  # type: ignore[arg-type]
            save_as_external_data=save_as_external_data,
            all_tensors_to_one_file=all_tensors_to_one_file,
            location=location,
            size_threshold=size_threshold,
            convert_attribute=convert_attribute,
        )
        return None
    message = any_message(proto)
    fmt = DEFAULT_FORMAT if format is None else choose_format(format)
    if fmt != DEFAULT_FORMAT:
        write_model(message, f, fmt)
        return None
    if has_method(f, "write"):
        return encode_to(message, f, max_size)
    if not is_path(f):
        raise TypeError(f"save() takes a path or a file object, not {builtins.type(f).__name__}")
    return save_file(message, f, max_size=max_size)
