"""External data: ``onnx.external_data_helper`` for models, and for data messages.

A tensor with ``data_location = EXTERNAL`` keeps its values in a file named by
its ``external_data`` entries (``location``, ``offset``, ``length``, ...).
This module reads them in (:func:`load_external_data_for_tensor`), writes
them out (:func:`save_external_data`), and marks and unmarks tensors
(:func:`set_external_data`, :func:`remove_external_data_field`).  For a
model it has onnx's functions under onnx's names
(:func:`load_external_data_for_model`, :func:`convert_model_to_external_data`,
:func:`convert_model_from_external_data`, :func:`write_external_data_tensors`,
and the tensor walkers :func:`get_all_tensors`,
:func:`get_initializer_tensors`, :func:`get_attribute_tensors`, also under
onnx's private names ``_get_all_tensors``...).  For data messages and plain
lists of tensors the same steps are:

* :func:`convert_tensors_to_external_data` for ``convert_model_to_external_data``,
* :func:`convert_tensors_from_external_data` for ``convert_model_from_external_data``,
* :func:`write_external_data_tensors` (a model, a data message or tensors),
* :func:`load_external_data_for_tensors` for ``load_external_data_for_model``.

:func:`load_external_data_for_model` maps the files instead of reading them:
``raw_data`` becomes a read-only view, read from disk when used.

Reading and writing refuse what onnx refuses, with the same errors: a location
that is absolute or leaves the base directory, a symbolic link on the path,
a file that is not regular or has several hard links
(``checker.ValidationError``, here also a ``ValueError``); an offset or
length past the end of the file (``ValueError``); an offset that would
overwrite data already in the file, or pad it with more than
``_MAX_EXTERNAL_DATA_PADDING`` zeros (``ValidationError``).

Every function also takes onnx's protobuf messages; the ones that change a
tensor change the protobuf message itself (through its bytes).  The
differences from onnx are listed in docs/compat.md: the size threshold counts the data's
bytes (onnx counts ``sys.getsizeof``, 33 bytes more); a tensor name that is
``.`` or ``..`` is not used as a file name; Windows drive and UNC locations
are refused on every system; ``remove_external_data_field``
removes every entry with the key (onnx skips one of two adjacent ones); a
failed write is cut off, leaving the file as it was.
"""

from __future__ import annotations

from ._core.foreign import foreign_name
from ._core.schema import spec_of
from ._core.walk import message_children, walk
from ._io.external import (
    ALLOWED_KEYS,
    MAX_PADDING,
    ExternalDataInfo,
    read_external_data,
    sync_external_files,
)
from ._io.external import uses_external_data as _uses
from ._io.external_marks import (
    mark_external,
    model_to_external,
    one_file_name,
    save_tensor_data,
    set_external,
    unmark_external,
    write_marked,
)
from ._io.message_args import all_message_types
from ._io.model_io import attach_external_data
from ._io.model_tensors import all_tensors, attribute_tensors, initializer_tensors
from ._io.save_undo import SaveUndo
from ._messages.convert import as_message
from ._messages.declarations import Message, TensorProto

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterator
    from typing import Any, TypeVar

    from ._core.walk import Child, Step

    _R = TypeVar("_R")

__all__ = [
    "ExternalDataInfo",
    "convert_model_from_external_data",
    "convert_model_to_external_data",
    "convert_tensors_from_external_data",
    "convert_tensors_to_external_data",
    "get_all_tensors",
    "get_attribute_tensors",
    "get_initializer_tensors",
    "load_external_data_for_model",
    "load_external_data_for_tensor",
    "load_external_data_for_tensors",
    "remove_external_data_field",
    "save_external_data",
    "set_external_data",
    "uses_external_data",
    "write_external_data_tensors",
]

_ALLOWED_EXTERNAL_DATA_KEYS = ALLOWED_KEYS
"""The keys an ``external_data`` entry may have (onnx's private name)."""
_MAX_EXTERNAL_DATA_PADDING = MAX_PADDING
"""The largest alignment gap written before a tensor's data (onnx's private name)."""


def _mutate(value: Any, change: Callable[[Any], _R], *classes: type[Message]) -> _R:
    """``change(message)`` on ``value`` as an onnxdata message; a protobuf message
    is converted, changed, and written back through its bytes."""
    message = as_message(value, *(classes or (TensorProto,)))
    result = change(message)
    if message is not value:
        value.ParseFromString(message.encode())
    return result


def uses_external_data(tensor: TensorProto) -> bool:
    """True when the tensor's values live in an external file (``data_location`` EXTERNAL).

    Raises:
        TypeError: ``tensor`` is not a TensorProto (onnxdata's or onnx's).
    """
    if foreign_name(tensor) == "onnx.TensorProto":  # one field: no need to copy the data
        return bool(tensor.data_location == TensorProto.EXTERNAL)
    return _uses(as_message(tensor, TensorProto))


def set_external_data(
    tensor: TensorProto,
    location: str,
    offset: int | None = None,
    length: int | None = None,
    checksum: str | None = None,
    basepath: str | None = None,
) -> None:
    """Mark ``tensor`` as stored externally at ``location`` (its ``raw_data`` stays).

    ``external_data`` is replaced by the given entries, in onnx's order
    (location, offset, length, checksum, basepath; the ``None`` ones left
    out), and ``data_location`` becomes EXTERNAL.

    Raises:
        ValueError: the tensor has no ``raw_data``.
        TypeError: ``tensor`` is not a TensorProto; ``offset``/``length``
            are not integers.
    """

    def change(t: TensorProto) -> None:
        set_external(t, location, offset, length, checksum, basepath)

    _mutate(tensor, change)


def load_external_data_for_tensor(tensor: TensorProto, base_dir: str) -> None:
    """Read ``tensor``'s external data into its ``raw_data``, from below ``base_dir``.

    Afterwards the tensor holds its values: ``data_location`` is DEFAULT and
    ``external_data`` is empty.  The file is opened with the reader's rules
    (see the module docstring).

    Raises:
        ValidationError: (a ``ValueError``) a refused location or file.
        ValueError: ``offset``/``length`` not non-negative integers, or past
            the end of the file.
        OSError: the file cannot be opened (``FileNotFoundError``).
        TypeError: ``tensor`` is not a TensorProto.
    """

    def change(t: TensorProto) -> None:
        t.raw_data = bytes(read_external_data(t, base_dir))
        t.data_location = TensorProto.DEFAULT
        del t.external_data[:]

    _mutate(tensor, change)


def save_external_data(tensor: TensorProto, base_path: str) -> None:
    """Write ``tensor``'s ``raw_data`` to its external file below ``base_path``.

    The data is appended to the file named by the tensor's ``location``
    (created if missing), at its ``offset`` if it has one, which must be at
    the end of the file or at most ``_MAX_EXTERNAL_DATA_PADDING`` bytes past
    it (the gap is filled with zeros).  The tensor's ``external_data`` then
    says where the data went (location, offset, length), as onnx writes it.
    The tensor keeps its ``raw_data``.  Threads and processes may save into
    one file at once: each finds the end and writes there as one step (a
    lock per file, and ``flock`` where the system has it), so no tensor
    overwrites another.

    Raises:
        ValidationError: (a ``ValueError``) the tensor has no ``raw_data``; a
            refused location or file; an offset before the end of the file
            or too far past it.  Nothing is written then.
        ValueError: ``offset``/``length`` entries that are not integers.
        OSError: the file cannot be created or written; a directory on the
            path does not exist.
        TypeError: ``tensor`` is not a TensorProto.
    """

    def change(t: TensorProto) -> None:
        save_tensor_data(t, base_path)

    _mutate(tensor, change)


def remove_external_data_field(tensor: TensorProto, field_key: str) -> None:
    """Remove every ``external_data`` entry whose key is ``field_key``.

    Raises:
        TypeError: ``tensor`` is not a TensorProto.
    """

    def change(t: TensorProto) -> None:
        kept = [e for e in t.external_data if e.key != field_key]
        del t.external_data[:]
        t.external_data.extend(kept)

    _mutate(tensor, change)


def get_all_tensors(message: Message) -> Iterator[TensorProto]:
    """Every TensorProto in a message, in field order, depth first.

    A ModelProto gives what onnx's ``_get_all_tensors`` gives: the
    initializers of its graph and subgraphs, then the tensors of node
    attributes (in the graphs and the functions).  A TensorProto gives
    itself; a SparseTensorProto its values and indices; a SequenceProto,
    MapProto or OptionalProto the tensors of its elements; any other
    message every tensor it holds, however deeply nested.  For an onnx
    protobuf message, the tensors are those of an onnxdata copy of it.

    Raises:
        TypeError: ``message`` is not an ONNX message.
    """
    root = as_message(message, *all_message_types())
    if spec_of(type(root)).full_name == "onnx.ModelProto":
        yield from all_tensors(root)
        return

    def children(step: Step) -> Iterator[Child]:
        return iter(()) if isinstance(step.obj, TensorProto) else message_children(step)

    found = walk([(spec_of(type(root)).name, root, None)], children)
    yield from [step.obj for step in found if isinstance(step.obj, TensorProto)]


def _each(tensors: Any, change: Callable[[TensorProto], None]) -> None:
    """``change`` every tensor of ``tensors``: a data message (changed in place, a
    protobuf one through its bytes) or an iterable of tensors."""
    if isinstance(tensors, Message) or foreign_name(tensors) is not None:

        def all_of(message: Message) -> None:
            for t in list(get_all_tensors(message)):
                change(t)

        _mutate(tensors, all_of, *all_message_types())
        return
    try:
        items = list(tensors)
    except TypeError:
        raise TypeError(
            f"expected a message or an iterable of TensorProto, got {type(tensors).__name__}"
        ) from None
    for t in items:
        _mutate(t, change)


def convert_tensors_to_external_data(
    tensors: Any,
    all_tensors_to_one_file: bool = True,
    location: str | None = None,
    size_threshold: int = 1024,
) -> None:
    """Mark the tensors whose ``raw_data`` has at least ``size_threshold`` bytes as
    stored externally; :func:`write_external_data_tensors` then writes them.

    ``tensors`` is a data message (every tensor inside it) or an iterable of
    TensorProto.  With ``all_tensors_to_one_file`` they all go to
    ``location`` (a relative path; a new ``<uuid>.data`` name if None),
    otherwise each to a file named after the tensor (or a new unique name if
    the tensor's name cannot be a file name).

    Raises:
        ValidationError: (a ``ValueError``) ``location`` is absolute or leaves
            the base directory.
        TypeError: ``tensors`` holds something that is not a TensorProto.
        EncodeValueError: (a ``ValueError``) a message holds itself (built in
            Python): the error ``encode()`` raises for it, before any tensor is
            changed.
    """
    file_name = one_file_name(location) if all_tensors_to_one_file else None
    _each(tensors, lambda t: mark_external([t], file_name, size_threshold))


def convert_tensors_from_external_data(tensors: Any) -> None:
    """Mark the externally stored tensors as holding their data (which they must
    have in ``raw_data``): ``external_data`` is cleared, ``data_location`` DEFAULT.

    Raises:
        ValueError: an external tensor has no ``raw_data``.
        TypeError: ``tensors`` holds something that is not a TensorProto.
        EncodeValueError: (a ``ValueError``) a message holds itself (built in
            Python): the error ``encode()`` raises for it, before any tensor is
            changed.
    """

    _each(tensors, lambda t: unmark_external([t]))


def write_external_data_tensors(tensors: Any, filepath: str) -> Any:
    """Write the data of every tensor marked external that holds ``raw_data``
    (see :func:`save_external_data`) below the directory ``filepath``, then
    drop its ``raw_data``; return ``tensors``.  The files written, and the
    folders holding them, are synced once all are written (onnx syncs
    nothing), so a model saved next never reaches the disk before them.

    A failure (an error or a Ctrl-C) leaves every tensor as it was given and
    every data file as it was (a file this call created is removed): the
    tensors written so far get their ``raw_data`` and entries back (onnx
    leaves them without their data).

    Raises:
        as :func:`save_external_data`; OSError from syncing; ``EncodeValueError``
        (a ``ValueError``) for a message that holds itself, before anything is written.
    """

    def write(items: list[TensorProto]) -> None:
        with SaveUndo(items, filepath) as undo:
            undo.note_files(items)
            sync_external_files(filepath, write_marked(items, filepath))

    if isinstance(tensors, Message) or foreign_name(tensors) is not None:
        _mutate(tensors, lambda m: write(list(get_all_tensors(m))), *all_message_types())
        return tensors
    try:
        items = list(tensors)
    except TypeError:
        raise TypeError(
            f"expected a message or an iterable of TensorProto, got {type(tensors).__name__}"
        ) from None
    ours = [as_message(t, TensorProto) for t in items]
    write(ours)  # all or nothing: a failure leaves every tensor and file as it was
    for value, message in zip(items, ours, strict=True):
        if message is not value:  # onnx's tensor: changed through its bytes, once all are written
            value.ParseFromString(message.encode())
    return tensors


def load_external_data_for_tensors(tensors: Any, base_dir: str) -> None:
    """:func:`load_external_data_for_tensor` for every externally stored tensor.

    Raises:
        as :func:`load_external_data_for_tensor`; ``EncodeValueError`` (a
        ``ValueError``) for a message that holds itself, before anything is read.
    """

    def change(t: TensorProto) -> None:
        if _uses(t):
            load_external_data_for_tensor(t, base_dir)

    _each(tensors, change)


# -- the model half of onnx's external_data_helper ----------------------------------


def load_external_data_for_model(model: Any, base_dir: str) -> None:
    """Give every externally stored tensor of ``model`` its data, from below ``base_dir``.

    As onnx: afterwards each such tensor holds its values in ``raw_data``,
    ``data_location`` is DEFAULT and ``external_data`` empty.  Unlike onnx,
    nothing is read yet: ``raw_data`` is a read-only view of the mapped
    file, whose pages are read when the values are used (each file is
    mapped once, and unmapped when no tensor refers to it).  An onnx
    protobuf model gets the bytes copied in.

    Raises:
        ValidationError: (a ``ValueError``) a refused location or file.
        ValueError: ``offset``/``length`` not non-negative integers, or past
            the end of the file.
        OSError: a file cannot be opened (``FileNotFoundError``).
        TypeError: ``model`` is not a ModelProto.
        EncodeValueError: (a ``ValueError``) a graph of the model holds itself
            (built in Python): the error ``encode()`` raises for it, before any
            tensor is changed.
    """
    _mutate(model, lambda m: attach_external_data(m, base_dir), _model_class())


def convert_model_to_external_data(
    model: Any,
    all_tensors_to_one_file: bool = True,
    location: str | None = None,
    size_threshold: int = 1024,
    convert_attribute: bool = False,
) -> None:
    """Mark the model's initializers (every tensor, with ``convert_attribute``)
    whose ``raw_data`` has at least ``size_threshold`` bytes as stored
    externally; ``save_model`` (or :func:`write_external_data_tensors`) then
    writes them, to ``location`` (a new ``<uuid>.data`` when None) or, without
    ``all_tensors_to_one_file``, each to a file named after the tensor.

    Raises:
        ValueError: ``location`` is absolute (``ValidationError`` when it has
            a ``..`` component, or is a drive or UNC path).
        FileExistsError: ``location`` exists, relative to the current
            directory (where onnx looks).
        TypeError: ``model`` is not a ModelProto.
        EncodeValueError: (a ``ValueError``) a graph of the model holds itself
            (built in Python): the error ``encode()`` raises for it, before any
            tensor is changed.
    """

    def change(m: Any) -> None:
        with SaveUndo(all_tensors(m)):  # a Ctrl-C halfway leaves no tensor marked
            model_to_external(
                m, all_tensors_to_one_file, location, size_threshold, convert_attribute
            )

    _mutate(model, change, _model_class())


def convert_model_from_external_data(model: Any) -> None:
    """Mark every externally stored tensor of the model as holding its data,
    which it must have in ``raw_data``; ``save_model`` then embeds it.

    Raises:
        ValueError: an external tensor has no ``raw_data``.
        TypeError: ``model`` is not a ModelProto.
        EncodeValueError: (a ``ValueError``) a graph of the model holds itself
            (built in Python): the error ``encode()`` raises for it, before any
            tensor is changed.
    """
    _mutate(model, lambda m: unmark_external(all_tensors(m)), _model_class())


def get_initializer_tensors(model: Any) -> Iterator[TensorProto]:
    """The initializers of the model's graph and subgraphs (onnx's
    ``_get_initializer_tensors``); of an onnxdata copy for an onnx model.

    Raises:
        TypeError: ``model`` is not a ModelProto.
        EncodeValueError: (a ``ValueError``) a graph of the model holds itself
            (built in Python): the error ``encode()`` raises for it, before any
            tensor is changed.
    """
    return iter(initializer_tensors(as_message(model, _model_class())))


def get_attribute_tensors(model: Any) -> Iterator[TensorProto]:
    """The tensors of node attributes, in the graphs and the functions of the
    model (onnx's ``_get_attribute_tensors``).

    Raises:
        TypeError: ``model`` is not a ModelProto.
        EncodeValueError: (a ``ValueError``) a graph of the model holds itself
            (built in Python): the error ``encode()`` raises for it, before any
            tensor is changed.
    """
    return iter(attribute_tensors(as_message(model, _model_class())))


def _model_class() -> type[Message]:
    from ._messages.graphs import ModelProto

    return ModelProto


_get_all_tensors = get_all_tensors
_get_initializer_tensors = get_initializer_tensors
_get_attribute_tensors = get_attribute_tensors
