"""Marking tensors as stored externally, and writing their bytes out, on onnxdata messages.

The steps of onnx's ``convert_model_to_external_data`` and
``write_external_data_tensors``, for any iterable of tensors (a model's,
from ``model_tensors.py``, or a data message's).  ``external_data_helper``
wraps them for onnx's protobuf messages too.  Writing appends each tensor's
bytes to its file straight from ``raw_data`` (a view of a mapped file is
not copied), so memory stays bounded whatever the weights weigh.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import uuid

from .._core.errors import ValidationError
from .._core.schema import spec_of
from .._messages.declarations import StringStringEntryProto, TensorProto
from .external import (
    ExternalDataInfo,
    split_location,
    sync_external_files,
    uses_external_data,
    write_external_data,
)
from .model_tensors import all_tensors, initializer_tensors

# Fields named through the schema: a rename in the declarations fails here, at import.
_RAW_DATA = spec_of(TensorProto).named.raw_data.name

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable
    from typing import Any

__all__ = [
    "file_name_for",
    "location_is_free",
    "mark_external",
    "model_to_external",
    "one_file_name",
    "refuse_own_file",
    "save_tensor_data",
    "set_external",
    "unmark_external",
    "write_marked",
]

_VALID_FILENAME = re.compile(r'[^<>:;,?"*|/\\\0]+\Z')


def set_external(
    t: TensorProto,
    location: str,
    offset: int | None = None,
    length: int | None = None,
    checksum: str | None = None,
    basepath: str | None = None,
) -> None:
    """Mark ``t`` as stored at ``location`` (onnx's ``set_external_data``): its
    ``external_data`` becomes the given entries in onnx's order, the None ones
    left out, and ``data_location`` EXTERNAL; ``raw_data`` stays.

    Raises:
        ValueError: the tensor has no ``raw_data``.
        TypeError: ``offset``/``length`` are not integers.
    """
    if not t.HasField(_RAW_DATA):
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


def save_tensor_data(t: TensorProto, base_path: str) -> str:
    """Append ``t``'s ``raw_data`` to its external file below ``base_path`` and
    record where it went (onnx's ``save_external_data``); ``raw_data`` stays.
    Returns the location written.

    Raises:
        ValidationError: (a ``ValueError``) no ``raw_data``; a refused location
            or file; an offset before the end of the file or too far past it.
        ValueError: ``offset``/``length`` entries that are not integers.
        OSError: the file cannot be created or written.
    """
    info = ExternalDataInfo(t)
    if not t.HasField(_RAW_DATA):
        raise ValidationError("raw_data field doesn't exist.")
    offset, length = write_external_data(t, base_path, t.raw_data)
    set_external(t, info.location, offset, length)
    return info.location


def file_name_for(t: TensorProto) -> str:
    """The tensor's name as a file name, or a new unique one (as onnx chooses)."""
    name = t.name or ""
    if _VALID_FILENAME.match(name) and name not in (".", ".."):
        return name
    return str(uuid.uuid1())


def one_file_name(location: str | None) -> str:
    """The file all tensors go to: ``location``, or a new ``<uuid>.data``.

    Raises:
        ValidationError: (a ``ValueError``) ``location`` is absolute or leaves
            the base directory.
    """
    name = location or str(uuid.uuid1()) + ".data"
    split_location(name)  # refuses an absolute or escaping location now
    return name


def mark_external(tensors: Iterable[TensorProto], file_name: str | None, threshold: int) -> None:
    """Mark the tensors whose ``raw_data`` has at least ``threshold`` bytes as
    stored in ``file_name`` (each in a file of its own name, when None)."""
    for t in tensors:
        if t.HasField(_RAW_DATA) and len(memoryview(t.raw_data).cast("B")) >= threshold:
            set_external(t, file_name if file_name is not None else file_name_for(t))


def unmark_external(tensors: Iterable[TensorProto]) -> None:
    """Mark the externally stored tensors as holding their ``raw_data``.

    Raises:
        ValueError: an external tensor has no ``raw_data``.
    """
    for t in tensors:
        if uses_external_data(t):
            if not t.HasField(_RAW_DATA):
                raise ValueError("raw_data field doesn't exist.")
            del t.external_data[:]
            t.data_location = TensorProto.DEFAULT


def write_marked(
    tensors: Iterable[TensorProto], base_path: str, *, sync: bool = False
) -> list[str]:
    """Write every tensor marked external that holds ``raw_data`` to its file
    below ``base_path`` (:func:`save_tensor_data`), then drop its ``raw_data``;
    return the locations written, one per tensor.

    With ``sync`` every file written, and every folder holding one, is made
    durable once all are written (:func:`sync_external_files`): what a model
    saved next points at is on disk before the model is.

    Raises:
        as :func:`save_tensor_data`; OSError from syncing.
    """
    written: list[str] = []
    for t in tensors:
        if uses_external_data(t) and t.HasField(_RAW_DATA):
            written.append(save_tensor_data(t, base_path))
            t.ClearField(_RAW_DATA)
    if sync:
        sync_external_files(base_path, written)
    return written


def refuse_own_file(
    tensors: Iterable[TensorProto], base_path: str, model_path: str, model: os.stat_result | None
) -> None:
    """Refuse, before anything is written, a tensor whose external data would
    go into the model's own file (``model_path``, whose identity is ``model``
    when it exists): the data appended there would be overwritten by the
    model, which could then not be read back ("offset exceeds file size").

    The same file is found by its resolved path (symbolic links followed),
    by device and inode (a hard link, a link to the model, another spelling),
    and on the systems whose file names ignore case (macOS, Windows) by the
    name without its case.  Each location is judged once, however many
    tensors name it; locations that :func:`split_location` refuses are
    refused here too, before anything is written.

    Raises:
        ValidationError: (a ``ValueError``) a location naming the model's file,
            or one :func:`split_location` refuses.
    """
    own = _folded(os.path.realpath(model_path))
    judged: set[str] = set()
    for t in tensors:
        if not (uses_external_data(t) and t.HasField(_RAW_DATA)):
            continue
        # The entries as ExternalDataInfo reads them (the last location wins),
        # without its warning on unknown keys: the writer gives that one.
        location = ""
        for entry in t.external_data:
            if entry.key == "location":
                location = entry.value or ""
        if location in judged:
            continue
        judged.add(location)
        path = os.path.join(base_path, *split_location(location, t.name or ""))
        same = _folded(os.path.realpath(path)) == own
        if not same and model is not None:
            with contextlib.suppress(OSError):  # not there yet (or unreadable: the writer says)
                same = os.path.samestat(os.stat(path), model)
        if same:
            raise ValidationError(
                f"External data of tensor {t.name or ''!r} would be written into the model's "
                f"own file {model_path!r} (location {location!r}): the model would "
                "overwrite it; choose another location"
            )


def _folded(path: str) -> str:
    """``path`` as the file system compares names: without case on macOS and Windows."""
    return path.casefold() if sys.platform in ("darwin", "win32") else path


def location_is_free(location: str | None) -> None:
    """onnx's check before converting a model: ``location`` must not exist,
    relative to the current directory (where onnx looks).

    Raises:
        ValueError: ``location`` is absolute (onnx's message).
        FileExistsError: it exists.
    """
    if location:
        if os.path.isabs(location):
            raise ValueError("location must be a relative path that is relative to the model path.")
        if os.path.exists(location):
            raise FileExistsError(f"External data file exists in {location}.")


def model_to_external(
    model: Any,
    all_tensors_to_one_file: bool = True,
    location: str | None = None,
    size_threshold: int = 1024,
    convert_attribute: bool = False,
) -> None:
    """onnx's ``convert_model_to_external_data`` on an onnxdata ModelProto: mark
    its initializers (every tensor, with ``convert_attribute``) of at least
    ``size_threshold`` bytes of ``raw_data`` as external.

    Raises:
        ValueError: ``location`` is absolute; ``ValidationError`` when it
            leaves the base directory.
        FileExistsError: ``location`` exists (relative to the current directory).
    """
    tensors = all_tensors(model) if convert_attribute else initializer_tensors(model)
    file_name = None
    if all_tensors_to_one_file:
        location_is_free(location)
        file_name = one_file_name(location)
    mark_external(tensors, file_name, size_threshold)
