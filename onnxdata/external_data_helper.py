"""External data for tensors: the tensor half of ``onnx.external_data_helper``.

A tensor with ``data_location = EXTERNAL`` keeps its values in a file named by
its ``external_data`` entries (``location``, ``offset``, ``length``, ...).
This module reads them in (:func:`load_external_data_for_tensor`), writes
them out (:func:`save_external_data`), and marks and unmarks tensors
(:func:`set_external_data`, :func:`remove_external_data_field`).  Where onnx
works on a ``ModelProto``, the functions here take the tensors: a data message
(every tensor inside it, see :func:`get_all_tensors`) or any iterable of
``TensorProto``:

* :func:`convert_tensors_to_external_data` for ``convert_model_to_external_data``,
* :func:`convert_tensors_from_external_data` for ``convert_model_from_external_data``,
* :func:`write_external_data_tensors` (the same name as onnx's, tensors instead of a model),
* :func:`load_external_data_for_tensors` for ``load_external_data_for_model``.

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

import re
import uuid

from ._core.errors import ValidationError
from ._core.foreign import foreign_name
from ._core.schema import MESSAGE, spec_of
from ._io.external import (
    ALLOWED_KEYS,
    MAX_PADDING,
    ExternalDataInfo,
    read_external_data,
    split_location,
    write_external_data,
)
from ._io.external import uses_external_data as _uses
from ._messages.convert import as_message
from ._messages.declarations import MESSAGE_TYPES, Message, StringStringEntryProto, TensorProto

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterator
    from typing import Any, TypeVar

    _R = TypeVar("_R")

__all__ = [
    "ExternalDataInfo",
    "convert_tensors_from_external_data",
    "convert_tensors_to_external_data",
    "get_all_tensors",
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

_VALID_FILENAME = re.compile(r'[^<>:;,?"*|/\\\0]+\Z')


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
        if not t.HasField("raw_data"):
            raise ValueError(
                f"Tensor {t.name} does not have raw_data field. "
                "Cannot set external data for this tensor."
            )
        values = {
            "location": location,
            "offset": None if offset is None else int(offset),
            "length": None if length is None else int(length),
            "checksum": checksum,
            "basepath": basepath,
        }
        del t.external_data[:]
        t.data_location = TensorProto.EXTERNAL
        for key, value in values.items():
            if value is not None:
                t.external_data.append(StringStringEntryProto(key=key, value=str(value)))

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
        info = ExternalDataInfo(t)
        if not t.HasField("raw_data"):
            raise ValidationError("raw_data field doesn't exist.")
        offset, length = write_external_data(t, base_path, t.raw_data)
        set_external_data(t, info.location, offset, length)

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
    """Every TensorProto in a data message, in field order, depth first.

    A TensorProto gives itself; a SparseTensorProto its values and indices;
    a SequenceProto, MapProto or OptionalProto the tensors of its elements,
    however deeply nested.  For an onnx protobuf message, the tensors are
    those of an onnxdata copy of it.

    Raises:
        TypeError: ``message`` is not a data message.
    """
    root = as_message(message, *MESSAGE_TYPES)
    stack: list[Any] = [root]
    while stack:
        msg = stack.pop()
        if isinstance(msg, TensorProto):
            yield msg
            continue
        children: list[Any] = []
        for f in spec_of(type(msg)).fields:
            if f.kind != MESSAGE:
                continue
            # The slot, None while unset: by name, an unset sub-message reads as
            # an empty stand-in, and OptionalProto.optional_value gives one at
            # every level, forever.
            value = getattr(msg, f.slot)
            if f.repeated:
                children.extend(value or ())
            elif value is not None:
                children.append(value)
        stack.extend(reversed(children))


def _each(tensors: Any, change: Callable[[TensorProto], None]) -> None:
    """``change`` every tensor of ``tensors``: a data message (changed in place, a
    protobuf one through its bytes) or an iterable of tensors."""
    if isinstance(tensors, Message) or foreign_name(tensors) is not None:

        def all_of(message: Message) -> None:
            for t in list(get_all_tensors(message)):
                change(t)

        _mutate(tensors, all_of, *MESSAGE_TYPES)
        return
    try:
        items = list(tensors)
    except TypeError:
        raise TypeError(
            f"expected a data message or an iterable of TensorProto, got {type(tensors).__name__}"
        ) from None
    for t in items:
        _mutate(t, change)


def _file_name(tensor: TensorProto) -> str:
    """The tensor's name as a file name, or a new unique one (as onnx chooses)."""
    name = tensor.name or ""
    if _VALID_FILENAME.match(name) and name not in (".", ".."):
        return name
    return str(uuid.uuid1())


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
    """
    if all_tensors_to_one_file:
        file_name = location or str(uuid.uuid1()) + ".data"
        split_location(file_name)  # refuses an absolute or escaping location now

    def change(t: TensorProto) -> None:
        if t.HasField("raw_data") and len(memoryview(t.raw_data).cast("B")) >= size_threshold:
            set_external_data(t, file_name if all_tensors_to_one_file else _file_name(t))

    _each(tensors, change)


def convert_tensors_from_external_data(tensors: Any) -> None:
    """Mark the externally stored tensors as holding their data (which they must
    have in ``raw_data``): ``external_data`` is cleared, ``data_location`` DEFAULT.

    Raises:
        ValueError: an external tensor has no ``raw_data``.
        TypeError: ``tensors`` holds something that is not a TensorProto.
    """

    def change(t: TensorProto) -> None:
        if _uses(t):
            if not t.HasField("raw_data"):
                raise ValueError("raw_data field doesn't exist.")
            del t.external_data[:]
            t.data_location = TensorProto.DEFAULT

    _each(tensors, change)


def write_external_data_tensors(tensors: Any, filepath: str) -> Any:
    """Write the data of every tensor marked external that holds ``raw_data``
    (see :func:`save_external_data`) below the directory ``filepath``, then
    drop its ``raw_data``; return ``tensors``.

    Raises:
        as :func:`save_external_data`.
    """

    def change(t: TensorProto) -> None:
        if _uses(t) and t.HasField("raw_data"):
            save_external_data(t, filepath)
            t.ClearField("raw_data")

    _each(tensors, change)
    return tensors


def load_external_data_for_tensors(tensors: Any, base_dir: str) -> None:
    """:func:`load_external_data_for_tensor` for every externally stored tensor.

    Raises:
        as :func:`load_external_data_for_tensor`.
    """

    def change(t: TensorProto) -> None:
        if _uses(t):
            load_external_data_for_tensor(t, base_dir)

    _each(tensors, change)
