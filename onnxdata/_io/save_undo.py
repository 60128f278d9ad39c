"""Undoing a failed save: the caller's tensors as they were, no data file left behind.

Saving with external data changes the caller's model in place before the
model is encoded and written (tensors are marked external, their bytes
appended to data files, their ``raw_data`` dropped), as onnx does, and onnx
keeps those changes on success.  Anything may fail after that point: a value
of the wrong type or out of range set in Python (found only by the encoding),
a refused location, an ``OSError`` writing a file, a Ctrl-C.  onnx then leaves
the model without its weights and the data files written; a caller who
catches the error would save, or use, a model that lost its data.

:class:`SaveUndo` records, before the first change, every field a save may
change in each tensor (``raw_data``, ``data_location``, ``external_data``,
with their presence) and, before the first write, each data file's length (or
that it did not exist).  On failure it puts the fields back (the same
objects: no copy of the weights) and cuts each data file back to its old
length, or removes it if the save created it.  A file is cut only when it
still ends where this save's last write to it ended: bytes another writer
appended after ours are never cut (ours then stay, unreferenced; the data
before them is untouched).
"""

from __future__ import annotations

import contextlib
import os

from .._core.schema import spec_of
from .._messages.declarations import TensorProto
from .external import ExternalDataInfo, uses_external_data
from .owned import deferred_interrupts

# Fields named through the schema: a rename in the declarations fails here, at import.
_RAW_DATA = spec_of(TensorProto).named.raw_data.name
_DATA_LOCATION = spec_of(TensorProto).named.data_location.name

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable
    from typing import Any

__all__ = ["SaveUndo"]

_FIELDS = (_RAW_DATA, _DATA_LOCATION)  # then external_data: the state _state records


class SaveUndo:
    """What a save may change in ``tensors`` and in the data files below ``base_dir``.

    Use as ``with SaveUndo(tensors, base) as undo:``, calling
    :meth:`note_files` before writing any data; an exception leaving the
    block (any ``BaseException``) restores everything, then propagates.
    """

    __slots__ = ("_base", "_files", "_kept", "_saved")

    def __init__(self, tensors: Iterable[TensorProto], base_dir: str = ".") -> None:
        self._saved = [(t, _state(t)) for t in tensors]
        self._base = base_dir or "."
        self._files: dict[str, int | None] = {}
        self._kept = False

    def keep(self) -> None:
        """Keep every change, whatever happens next: the model that refers to
        the data is in place (its folder's sync failed after the rename)."""
        self._kept = True

    def note_files(self, tensors: Iterable[TensorProto]) -> None:
        """Record the length of each data file the tensors about to be written
        go to (None: it does not exist).

        Raises:
            ValidationError: (a ``ValueError``) a refused location.
        """
        seen: set[str] = set()
        for t in tensors:
            if uses_external_data(t) and t.HasField(_RAW_DATA):
                location = ""
                for entry in t.external_data:  # the last one wins, as ExternalDataInfo reads it
                    if entry.key == "location":
                        location = entry.value or ""
                if location in seen:
                    continue
                seen.add(location)
                path = os.path.join(self._base, *ExternalDataInfo(t, warn=False).parts)
                if path not in self._files:
                    self._files[path] = _length(path)

    def __enter__(self) -> SaveUndo:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None and not self._kept:
            with deferred_interrupts():  # a second Ctrl-C does not stop the undo halfway
                self.undo()

    def undo(self) -> None:
        """Cut back or remove the data files, then restore the tensors' fields.
        Errors cutting a file are not raised: the save's own error is the one
        the caller sees."""
        ends = self._ends()
        for path, before in self._files.items():
            with contextlib.suppress(OSError):
                _cut_back(path, before, ends.get(path))
        for t, state in self._saved:
            _restore(t, state)

    def _ends(self) -> dict[str, int]:
        """Where this save's last write to each file ended, from the entries
        the writer recorded in the tensors (before they are restored)."""
        ends: dict[str, int] = {}
        for t, state in self._saved:
            if state[0] is _UNSET or not _entries_changed(t, state):
                continue  # not written by this save: the writer records where it wrote
            try:
                info = ExternalDataInfo(t, warn=False)
                path = os.path.join(self._base, *info.parts)
            except ValueError:
                continue
            if path in self._files and info.offset is not None and info.length is not None:
                ends[path] = max(ends.get(path, 0), info.offset + info.length)
        return ends


def _state(t: TensorProto) -> tuple[Any, ...]:
    return (
        t.raw_data if t.HasField(_RAW_DATA) else _UNSET,
        t.data_location if t.HasField(_DATA_LOCATION) else _UNSET,
        list(t.external_data),
    )


_UNSET: Any = object()


def _entries_changed(t: TensorProto, state: tuple[Any, ...]) -> bool:
    entries = state[len(_FIELDS)]
    now = list(t.external_data)
    return len(now) != len(entries) or any(a is not b for a, b in zip(now, entries, strict=True))


def _restore(t: TensorProto, state: tuple[Any, ...]) -> None:
    for name, value in zip(_FIELDS, state[: len(_FIELDS)], strict=True):
        if value is _UNSET:
            t.ClearField(name)
        else:
            setattr(t, name, value)
    if _entries_changed(t, state):
        entries = state[len(_FIELDS)]
        del t.external_data[:]
        t.external_data.extend(entries)


def _length(path: str) -> int | None:
    try:
        return os.lstat(path).st_size
    except FileNotFoundError:
        return None


def _cut_back(path: str, before: int | None, end: int | None) -> None:
    """Give ``path`` its length ``before`` again (remove it when None), if it
    ends where this save's writes ended (``end``; its old length when none
    was recorded: a write cut off, or none made)."""
    size = _length(path)
    if size is None or size != (end if end is not None else (before or 0)):
        return
    if before is None:
        os.unlink(path)
    elif size > before:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            os.ftruncate(fd, before)
        finally:
            os.close(fd)
