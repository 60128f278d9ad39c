"""Model files as onnx reads and writes them: ``load_model``, ``save_model`` and friends.

A model file named by a path is read into one buffer and decoded with
``copy=False`` (see ``files.py``): every initializer's ``raw_data`` is a
read-only ``memoryview`` of that buffer, which the model owns: one copy of
the file in memory, where onnx makes two, and no tie to the file, which the
caller may overwrite (``open(p, "wb")``, ``save_model(m, p)``) as with onnx.
External data is read too, as onnx reads it.  ``copy=True`` gives every
value its own ``bytes``.

``mmap=True`` maps the model file and its external data files instead
(``_core/mapped.py``, ``external.ExternalMaps``): opening a model then costs
the decoding of its graph, whatever the size of its weights, and a tensor's
bytes are read from disk when its values are first touched.  Such a model
depends on its files: they must keep their length while it lives (see
``files.load``).  The mappings are released when the last view of them is
gone.

Saving streams: each external tensor's bytes go to its file straight from
their buffer (a view of a mapping is never copied), and the model is
encoded into a temporary file renamed over the target when complete, so a
model with more weights than memory can be converted between one file and
external data, and a failed save leaves the old file in place.
"""

from __future__ import annotations

import os

from .._codec.stream import encode_to
from .._core.errors import EncodeValueError
from .._core.foreign import foreign_name
from .._core.schema import spec_of
from .._core.short_writes import write_all
from .._core.walk import refuse_cycles
from .._messages.declarations import TensorProto
from .._messages.graphs import ModelProto
from .atomic import AtomicFile
from .choosing import DEFAULT_FORMAT, choose_format, file_path, has_method, is_path, read_object
from .external import ExternalMaps, uses_external_data
from .external_marks import model_to_external, refuse_own_file, write_marked
from .file_buffers import open_buffer
from .files import load as load_file
from .formats import MAX_PROTOBUF, raise_if_too_large, registry
from .message_args import any_message
from .model_tensors import all_tensors
from .save_undo import SaveUndo

# Fields named through the schema: a rename in the declarations fails here, at import.
_RAW_DATA = spec_of(TensorProto).named.raw_data.name

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import IO, Any, Literal

    _SupportedFormat = Literal["protobuf", "textproto", "json", "onnxtxt"]

__all__ = [
    "attach_external_data",
    "load_from_string",
    "load_model",
    "load_model_from_string",
    "save_model",
    "write_model",
]


def attach_external_data(model: ModelProto, base_dir: str, mmap: bool = False) -> None:
    """Give every externally stored tensor of ``model`` its bytes, from below
    ``base_dir``: ``raw_data`` becomes the bytes read (with ``mmap``, a
    read-only view of the mapped file), ``data_location`` DEFAULT,
    ``external_data`` empty, as onnx's ``load_external_data_for_model``
    leaves them.

    Each file is opened with the reader's rules (a safe relative location, no
    symbolic link, a regular file with one link, a range inside the file),
    read, and closed (with ``mmap``, mapped once per file).  A tensor that
    fails leaves the tensors before it loaded, as in onnx.

    Raises:
        ValidationError: (a ``ValueError``) a refused location or file.
        ValueError: an offset or length that is not a non-negative integer
            or reaches past the end of the file.
        OSError: a file cannot be opened (``FileNotFoundError``).
    """
    maps = ExternalMaps(mmap)
    for tensor in all_tensors(model):
        if uses_external_data(tensor):
            data = maps.view(tensor, base_dir)
            tensor.raw_data = data
            tensor.data_location = tensor.DEFAULT
            del tensor.external_data[:]


def _deserialize(data: Any, fmt: str, copy: bool) -> ModelProto:
    if fmt != DEFAULT_FORMAT:
        model: ModelProto = registry.get(fmt).deserialize_proto(data, ModelProto())
        return model
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"Parameter 'serialized' must be bytes, but got type: {type(data)}")
    return ModelProto.decode(data, copy=copy)


def load_model(
    f: IO[bytes] | str | os.PathLike[str],
    format: _SupportedFormat | None = None,
    load_external_data: bool = True,
    *,
    mmap: bool = False,
    copy: bool = False,
    max_size: int | None = None,
) -> ModelProto:
    """Read a ModelProto from a path or a file object (anything with ``read``).

    ``format`` is ``"protobuf"``, ``"textproto"`` or ``"json"``; when None it
    comes from the file extension of a path or of a file object's ``name``
    (``.onnx``/``.pb`` protobuf, ``.txtpb``/``.textproto``/``.prototxt``/
    ``.pbtxt`` text format, ``.json``/``.onnxjson`` JSON), else protobuf.
    With ``load_external_data`` the tensors stored externally get their
    bytes from files below the model's directory (when the model's path is
    known), read as onnx reads them.

    A protobuf file is read into one buffer that the model owns, and decoded
    without copying its weights again: initializers' ``raw_data`` are
    read-only views of that buffer (``copy=True``: each its own ``bytes``).
    The file may then be overwritten, as with onnx.  ``mmap=True`` maps the
    file and the external data instead, for an O(metadata) load: the model
    then depends on its files, which must keep their length while it lives
    (the package's readers raise ``MappedFileError`` if one shrank; reading a
    view after that kills the process: see ``files.load``).  The file's size
    is checked against ``max_size`` before anything is read, and no more than
    that size is read or mapped (from a file object: no more than
    ``max_size + 1`` bytes are read).  ``max_size`` bounds the model's own
    file, not its external data, which is read as far as each tensor's
    ``length`` within its file's size.

    Raises:
        DecodeError: (a ``ValueError``) the bytes are not a valid ModelProto
            (onnx raises protobuf's ``DecodeError``), or more than ``max_size``.
        ValueError: an unknown ``format``; a path that is not a regular file;
            refused external data (``ValidationError``; see
            :func:`attach_external_data`).
        FileNotFoundError, OSError: the file (or an external file) cannot be read.
        TypeError: ``f`` is neither a path nor a file object, or its ``read``
            gives text for the protobuf format.
        UnicodeDecodeError: a text format that is not UTF-8.
        text_format.ParseError, json_format.ParseError: invalid text or JSON.
    """
    fmt = choose_format(format, f)
    if has_method(f, "read"):
        model = _deserialize(read_object(f, max_size, ModelProto), fmt, copy)
    elif is_path(f):
        if fmt == DEFAULT_FORMAT:
            model = load_file(f, ModelProto, mmap=mmap, copy=copy, max_size=max_size)
        else:
            data, _ = open_buffer(f, mmap=False, max_size=max_size, cls=ModelProto)
            model = _deserialize(data, fmt, copy)
    else:
        raise TypeError(f"load_model() takes a path or a file object, not {type(f).__name__}")
    if load_external_data:
        path = file_path(f)
        if path is not None:
            attach_external_data(model, os.path.dirname(path), mmap and not copy)
    return model


def load_model_from_string(
    s: bytes | str,
    format: _SupportedFormat = DEFAULT_FORMAT,  # type: ignore[assignment]
) -> ModelProto:
    """Read a ModelProto from ``s``: bytes for protobuf, bytes or str for text and JSON.

    Raises:
        DecodeError: (a ``ValueError``) not a valid ModelProto encoding.
        ValueError: an unknown ``format``.
        TypeError: ``s`` is not bytes (or str, for the text formats).
        text_format.ParseError, json_format.ParseError: invalid text or JSON.
    """
    model: ModelProto = registry.get(choose_format(format)).deserialize_proto(s, ModelProto())
    return model


load_from_string = load_model_from_string
"""onnx's other name for :func:`load_model_from_string`."""


def save_model(
    proto: ModelProto | bytes,
    f: IO[bytes] | str | os.PathLike[str],
    format: _SupportedFormat | None = None,
    *,
    save_as_external_data: bool = False,
    all_tensors_to_one_file: bool = True,
    location: str | None = None,
    size_threshold: int = 1024,
    convert_attribute: bool = False,
) -> None:
    """Write a model to a path or a file object (anything with ``write``), as onnx does.

    ``proto`` is a ModelProto (onnx's too) or its encoding.  With
    ``save_as_external_data`` the initializers (every tensor, with
    ``convert_attribute``) whose ``raw_data`` has at least
    ``size_threshold`` bytes are marked external first
    (``convert_model_to_external_data``).  Then, when the model's path is
    known, every tensor marked external that holds ``raw_data`` has it
    written to its file below the model's directory and dropped from the
    model, which is changed in place as onnx changes it.  The format is
    chosen as :func:`load_model` chooses it.

    Memory stays bounded: each tensor's bytes are written from their own
    buffer, and a path gets the model streamed into a temporary file that
    replaces it when complete.  A failure (a wrong-typed or out-of-range
    value found by the encoding, a refused location, an ``OSError``, a
    Ctrl-C) leaves the old file as it was, the caller's model exactly as it
    was given (every tensor's ``raw_data``, ``data_location`` and
    ``external_data`` put back; onnx leaves it without its weights), and the
    data files as they were (one this save created is removed; see
    ``save_undo.py``).  On success the model is changed as onnx changes it.  A file
    object receives the model in writes of at most a few MiB.  A path that
    is no regular file (``/dev/null``, a FIFO, ``/dev/stdout``) is written
    through, never replaced (see ``AtomicFile``).

    Every external file written, and the folders holding them, are synced
    before the model is renamed into place, so the model never reaches the
    disk before its weights.  Every location is judged before any byte is
    written: one that names the model's own file (by path, through a link,
    or as a hard link of it) is refused, as is one that names a folder
    (``w.data/``).

    Raises:
        ValueError: the encoding is over 2 GiB (onnx's message: use
            ``save_as_external_data``); a value out of range; an unknown
            ``format``; refused external data (``ValidationError``: a
            location that leaves the folder, names a folder, or names the
            model's own file; nothing is written then).
        FileExistsError: ``location`` exists (relative to the current
            directory, as onnx checks it).
        TypeError: ``proto`` is not a message or holds a value of the
            wrong type; ``f`` is neither a path nor a file object.
        AttributeError: ``proto`` is a message other than ModelProto, with
            ``save_as_external_data`` or a file named by a path (onnx's class;
            a file object without a name gets the message's bytes, as in onnx).
        EncodeValueError: (a ``ValueError``) a message of the model holds
            itself (built in Python), found before anything is changed or
            written when external data would be.
        OSError: a file cannot be written.
    """
    if isinstance(proto, bytes):
        proto = load_model_from_string(proto)
    model = any_message(proto)
    if not has_method(f, "write") and not is_path(f):
        raise TypeError(f"save_model() takes a path or a file object, not {type(f).__name__}")
    path = file_path(f)
    fmt = choose_format(format, path)
    if (save_as_external_data or path is not None) and not isinstance(model, ModelProto):
        raise AttributeError(  # onnx's class (its message: "graph"), before anything is written
            f"save_model() takes a ModelProto with save_as_external_data or a file with a "
            f"path, not {type(model).__name__} (a file object without a name takes any message)"
        )
    writes = path is not None and any(map(_to_write, all_tensors(model)))
    if not (save_as_external_data or writes):
        write_model(model, f, fmt)
        return
    refuse_cycles(model)  # before a tensor or a file is changed: encode() would refuse it
    with SaveUndo(all_tensors(model), os.path.dirname(path or "")) as undo:
        if save_as_external_data:
            model_to_external(
                model, all_tensors_to_one_file, location, size_threshold, convert_attribute
            )
        if path is not None:
            base = os.path.dirname(path)
            refuse_own_file(all_tensors(model), base, path, _identity(f, path))
            undo.note_files(all_tensors(model))
            write_marked(all_tensors(model), base, sync=True)  # durable before the model is
        write_model(model, f, fmt, placed=undo.keep)
    if model is not proto and foreign_name(proto) is not None and path is not None:
        proto.ParseFromString(model.encode())  # onnx changes the caller's model in place


def _identity(f: Any, path: str) -> os.stat_result | None:
    """The file the model goes to (a file object's own, else the path's), if it exists."""
    try:
        if has_method(f, "write") and has_method(f, "fileno"):
            return os.fstat(f.fileno())
        return os.stat(path)
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        return None


def _to_write(t: Any) -> bool:
    """Whether saving writes ``t``'s data to its external file (and drops it)."""
    return uses_external_data(t) and t.HasField(_RAW_DATA)


def write_model(model: Any, f: Any, fmt: str, placed: Callable[[], None] | None = None) -> None:
    """Write ``model`` in format ``fmt`` to ``f``: a path atomically, a file object
    with ``write`` (protobuf streamed, under protobuf's 2 GiB limit).

    ``placed`` is called if the commit of a path fails after the new file
    replaced the target (syncing its folder): the model is in place then, and
    what it refers to must stay.

    Raises:
        ValueError: over 2 GiB in protobuf format; as ``encode()``.
        TypeError: as ``encode()``.
        OSError: the file cannot be written.
    """
    if fmt != DEFAULT_FORMAT:
        data = registry.get(fmt).serialize_proto(model)
        if has_method(f, "write"):
            write_all(f.write, data)
            return
        target = AtomicFile(f)
        try:
            target.file.write(data)
        except BaseException:
            target.discard()
            raise
        _commit(target, placed)
        return
    if has_method(f, "write"):
        _encode_limited(model, f)
        return
    target = AtomicFile(f)
    try:
        _encode_limited(model, target.file)
    except BaseException:
        target.discard()
        raise
    _commit(target, placed)


def _commit(target: AtomicFile, placed: Callable[[], None] | None) -> None:
    try:
        target.commit()
    except BaseException:
        if placed is not None and target.replaced:
            placed()
        raise


def _encode_limited(model: Any, file: Any) -> None:
    try:
        encode_to(model, file, MAX_PROTOBUF)
    except EncodeValueError:
        raise_if_too_large(model)
        raise
