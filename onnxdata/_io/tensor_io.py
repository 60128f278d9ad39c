"""``load_tensor``, ``save_tensor`` and ``load_tensor_from_string``, as onnx has them.

A path is read with the package's own file reader (:func:`load` for the
protobuf format: regular files only, memory-mapped, then copied out) and
written atomically (:func:`save`, or :class:`AtomicFile` for the text
formats): a failed save leaves the old file as it was.  A file object is read
with ``read()`` and written with one ``write()`` of the complete encoding, so
a message that cannot be encoded writes nothing.
"""

from __future__ import annotations

import os

from .._core.short_writes import write_all
from .._messages.convert import as_message
from .._messages.declarations import TensorProto
from .atomic import AtomicFile
from .choosing import DEFAULT_FORMAT, choose_format, file_path, has_method
from .external import read_external_data, uses_external_data
from .file_buffers import open_buffer
from .files import load, save
from .formats import registry

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import IO, Any, Literal

    _SupportedFormat = Literal["protobuf", "textproto", "json"]

__all__ = ["load_tensor", "load_tensor_from_string", "save_tensor"]


def load_tensor(
    f: IO[bytes] | str | os.PathLike[str],
    format: _SupportedFormat | None = None,
    *,
    load_external_data: bool = False,
) -> TensorProto:
    """Read a TensorProto from a file object (anything with ``read``) or a path.

    ``format`` is ``"protobuf"``, ``"textproto"`` or ``"json"``; when it is
    None it comes from the file extension of a path (or of a file object's
    ``name``): ``.onnx``/``.pb`` protobuf, ``.txtpb``/``.textproto``/
    ``.prototxt``/``.pbtxt`` text format, ``.json``/``.onnxjson`` JSON, and
    protobuf for anything else.  Text formats are UTF-8.

    With ``load_external_data`` (not in onnx, whose ``load_tensor`` never
    reads external data), a tensor stored externally gets its data from the
    file it names, below the directory of the file read, as
    :func:`onnxdata.external_data_helper.load_external_data_for_tensor` does.

    Raises:
        DecodeError: (a ``ValueError``) the bytes are not a valid TensorProto.
        ValueError: an unknown ``format``; a path that is not a regular file;
            a refused external-data location.
        TypeError: ``f`` is neither a file object nor a path.
        OSError: the file cannot be read.
        UnicodeDecodeError: a text format that is not UTF-8.
        text_format.ParseError, json_format.ParseError: invalid text or JSON.
    """
    fmt = choose_format(format, f)
    if has_method(f, "read"):
        data: Any = f.read()  # type: ignore[union-attr]
        tensor = registry.get(fmt).deserialize_proto(data, TensorProto())
    elif isinstance(f, (str, bytes, os.PathLike)):
        if fmt == "protobuf":
            tensor = load(f, TensorProto, copy=True)
        else:
            data, _ = open_buffer(f, mmap=False)
            tensor = registry.get(fmt).deserialize_proto(data, TensorProto())
    else:
        raise TypeError(f"load_tensor() takes a path or a file object, not {type(f).__name__}")
    if load_external_data and uses_external_data(tensor):
        path = file_path(f)
        if path is not None:
            tensor.raw_data = bytes(read_external_data(tensor, os.path.dirname(path)))
            tensor.data_location = TensorProto.DEFAULT
            tensor.external_data = []
    result: TensorProto = tensor
    return result


def load_tensor_from_string(
    s: bytes | str,
    format: _SupportedFormat = DEFAULT_FORMAT,  # type: ignore[assignment]
) -> TensorProto:
    """Read a TensorProto from ``s``: bytes for protobuf, bytes or str for text and JSON.

    Raises:
        DecodeError: (a ``ValueError``) not a valid TensorProto encoding.
        ValueError: an unknown ``format``.
        TypeError: ``s`` is not bytes (or str, for the text formats).
        text_format.ParseError, json_format.ParseError: invalid text or JSON.
    """
    tensor: TensorProto = registry.get(choose_format(format)).deserialize_proto(s, TensorProto())
    return tensor


def save_tensor(
    proto: TensorProto,
    f: IO[bytes] | str | os.PathLike[str],
    format: _SupportedFormat | None = None,
) -> None:
    """Write ``proto`` to a file object (anything with ``write``) or a path.

    The format is chosen as :func:`load_tensor` chooses it.  A path is
    replaced atomically: the new contents go to a temporary file beside it,
    which is renamed over it when complete, so an error (a value that cannot
    be encoded, a full disk) leaves the old file as it was; a device, a FIFO
    or ``/dev/stdout`` is written through instead, never replaced.  ``proto``
    may be an onnx ``TensorProto`` too.

    Raises:
        TypeError: ``proto`` is not a TensorProto, or holds a value of the
            wrong type; ``f`` is neither a file object nor a path.
        ValueError: an unknown ``format``; a value out of range.
        OSError: the file cannot be written.
    """
    message = as_message(proto, TensorProto)
    fmt = choose_format(format, f)
    if has_method(f, "write"):
        write_all(f.write, registry.get(fmt).serialize_proto(message))  # type: ignore[union-attr]
        return
    if not isinstance(f, (str, bytes, os.PathLike)):
        raise TypeError(f"save_tensor() takes a path or a file object, not {type(f).__name__}")
    if fmt == "protobuf":
        save(message, f)
        return
    data = registry.get(fmt).serialize_proto(message)
    target = AtomicFile(f)
    try:
        target.file.write(data)
    except BaseException:
        target.discard()
        raise
    target.commit()
