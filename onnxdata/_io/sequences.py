"""Streams of elements: ``SequenceWriter`` and ``iter_sequence``.

A ``SequenceProto`` of many elements is written and read one element at a
time, in constant memory.  :class:`SequenceWriter` writes each element with
the streaming encoder's two passes (``_codec/stream.py``: measure, then
emit), so the bytes are exactly ``SequenceProto.encode()``'s and a bad
element raises before any of it is written.

Reading a sequence back one element at a time needs no second pass at all:
the wire reader steps from one element's tag to the next, and only the
element asked for is decoded.
"""

from __future__ import annotations

import os
from array import array

from .._codec.decode import decode_part
from .._codec.encode import attach
from .._codec.stream import Emit, Measure, Sink, changed, writer_of
from .._core.errors import DecodeError, EncodeError
from .._core.mapped import check_target
from .._core.schema import spec_of
from .._core.wire import LEN, MAX_DEPTH, fields, read_tag, split_tag
from .._messages.declarations import Message, SequenceProto
from .atomic import AtomicFile

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator
    from types import TracebackType
    from typing import Any

_RELEASE = 16 << 20  # iter_sequence gives back the pages it has read, this many at a time


# -- SequenceWriter ------------------------------------------------------------------


# SequenceProto.DataType -> (tag, element class, field name)
def _element_kinds() -> dict[int, tuple[bytes, type[Message], str]]:
    """SequenceProto.DataType -> (tag, element class, field) of each element field.

    From the schema: the element field of a kind is named after it
    (``TENSOR`` -> ``tensor_values``), as in the .proto.
    """
    spec = spec_of(SequenceProto)
    kinds = {}
    for name, number in SequenceProto.DataType.items():
        f = spec.by_name.get(f"{name.lower()}_values")
        if f is not None:
            kinds[number] = (f.tag, f.message, f.name)
    return kinds


_KINDS = _element_kinds()
_KIND_OF_CLASS = {cls: kind for kind, (_, cls, _) in _KINDS.items()}


class SequenceWriter:
    """Write a ``SequenceProto`` one element at a time, in constant memory.

    ``target`` is a path or a binary file object.  A path is written
    atomically: to a temporary file in the same directory, renamed over
    ``target`` by :meth:`close` (or a clean exit from the ``with`` block), and
    removed instead if the block raises or :meth:`abort` is called, so that
    ``target`` is either its old self or the complete new sequence.  A path
    that is a device, a FIFO or ``/dev/stdout`` is written through instead,
    never replaced.  A file object is written in place and left open.

    ``elem_type`` is a ``SequenceProto.DataType`` (``TENSOR``, ``MAP``, ...) or
    the element class; every element must be of that class.  The bytes are
    exactly ``SequenceProto(name=name, elem_type=elem_type, <kind>_values=[...]).encode()``.

    Raises:
        ValueError: ``elem_type`` is not one of the five element types.
        TypeError: ``name`` is not a ``str`` (an ``EncodeTypeError``).
        OSError: the file cannot be created or written.
    """

    def __init__(self, target: Any, elem_type: Any, *, name: str | None = None) -> None:
        kind = _KIND_OF_CLASS.get(elem_type) if isinstance(elem_type, type) else elem_type
        if type(kind) is bool or kind not in _KINDS:
            raise ValueError(
                f"elem_type must be a SequenceProto.DataType from TENSOR (1) to OPTIONAL (5) "
                f"or an element class, not {elem_type!r}"
            )
        self._tag, self._cls, self._field = _KINDS[kind]
        first = SequenceProto(elem_type=kind)
        if name is not None:  # None leaves the name unset: no field 1 is written
            first.name = name
        header = first.encode()  # fields 1 and 2 come first
        self.count = 0
        self._closed = False
        self._failed: BaseException | None = None  # the write that broke the stream
        self._file: Any = None
        self._atomic: AtomicFile | None = None
        if isinstance(target, (str, bytes, os.PathLike)):
            self._atomic = AtomicFile(target)
            self._file = self._atomic.file
        else:
            self._file = target
        self._sink = Sink(writer_of(self._file))
        try:
            self._sink.put(header)
        except BaseException:
            self.abort()
            raise

    def append(self, element: Message) -> None:
        """Write one element.

        The element is checked before any of it is written, so a bad element
        raises and leaves the writer as it was.

        Raises:
            TypeError: the element is not of the writer's ``elem_type``, or a
                field holds a value of the wrong type (an ``EncodeTypeError``).
            ValueError: as :meth:`Message.encode`; or the writer is closed, or
                an earlier append failed to write (the writer refuses to go on).
            OSError: from writing (``BlockingIOError`` for a non-blocking file
                that is full: its ``characters_written`` counts the bytes the
                file took since the writer was made); the writer is then
                broken: later calls raise ValueError, and a path's target is
                never replaced.  ``MappedFileError`` (an ``OSError``): the
                file written is one the package mapped (``mmap=True``) and
                not opened to append; nothing is written and the writer is
                as it was.
        """
        if self._closed:
            raise ValueError("append() on a closed SequenceWriter")
        self._refuse_if_failed()
        sizes: array[int] = array("q")
        try:
            n = Measure(sizes).sub(self._tag, element, self._cls, MAX_DEPTH)
        except EncodeError as err:
            err.within(f"[{self.count}]")
            attach(err, self._field)
            err.within("SequenceProto")
            raise
        check_target(self._file)  # an element mapped from the file being written
        before = self._sink.written
        try:
            Emit(self._sink, iter(sizes).__next__).sub(self._tag, element, self._cls, MAX_DEPTH)
            if self._sink.written - before != n:  # pragma: no cover - changed by another thread
                raise changed(self._sink.written - before, n)
        except BaseException as exc:
            # Part of the element may be written, or gathered: the stream is
            # broken.  A path's temporary goes at once; the target is kept.
            self._fail(exc)
            raise
        self.count += 1

    def _fail(self, exc: BaseException) -> None:
        self._failed = exc
        if self._atomic is not None:
            self._atomic.discard()

    def _refuse_if_failed(self) -> None:
        failed = self._failed
        if failed is not None:
            raise ValueError(
                f"the SequenceWriter failed to write element {self.count} "
                f"({type(failed).__name__}: {failed}): nothing more can be written, "
                "and the target was left as it was"
            ) from failed

    def __len__(self) -> int:
        return self.count

    def close(self) -> None:
        """Write out what is gathered; for a path, sync and rename into place.

        Raises:
            OSError: from writing, syncing or renaming (the temporary file is
                then removed and ``target`` left as it was).
            ValueError: an earlier :meth:`append` failed to write: the stream
                is incomplete, so a path's target is left as it was (and a
                file object holds a broken stream).
        """
        if self._closed:
            return
        self._closed = True
        self._refuse_if_failed()
        try:
            self._sink.flush()
            if self._atomic is not None:
                self._atomic.commit()
            else:
                flush = getattr(self._file, "flush", None)
                if flush is not None:
                    flush()
        except BaseException as exc:
            self._fail(exc)
            raise

    def abort(self) -> None:
        """Give up: for a path, remove the temporary file and leave ``target`` alone."""
        if self._closed:
            return
        self._closed = True
        if self._atomic is not None:
            self._atomic.discard()

    def __enter__(self) -> SequenceWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


# -- iter_sequence ------------------------------------------------------------------

_SEQUENCE = spec_of(SequenceProto)
# field number -> the class of its elements
_CLASSES: dict[int, type[Message]] = {
    _SEQUENCE.by_name[name].number: cls for _, cls, name in _KINDS.values()
}


def iter_sequence(path: Any, *, copy: bool = False, mmap: bool = False) -> Iterator[Message]:
    """The elements of the ``SequenceProto`` file at ``path``, one at a time.

    Each element is decoded when the loop reaches it.  The file is read into
    one buffer first, which the elements own (with ``copy=False``, the
    default, they hold views of it): nothing depends on the file afterwards.
    With ``mmap=True`` the file is mapped instead and the wire reader gives
    the pages back as it steps over them, so memory stays flat however long
    the file is; elements then hold views of the mapping (see
    ``Message.decode``), and the file must keep its length while they live
    (see ``files.load``).  Elements come in file order; ``name``,
    ``elem_type`` and unknown fields are skipped.

    Raises:
        DecodeError: at the first malformed part, with the path and offset
            ``SequenceProto.decode`` would report; elements before it have
            been yielded.
        OSError: the file cannot be opened.
    """
    from .file_buffers import open_buffer

    buf, mapping = open_buffer(path, mmap)
    if not copy and mapping is None:
        buf = memoryview(buf)  # elements hold views of the one buffer read, not copies
    try:
        yield from _elements(buf, copy, mapping)
    finally:
        _release(buf, mapping)


def _elements(buf: Any, copy: bool, mapping: Any) -> Iterator[Message]:
    """The elements of the sequence in ``buf``; see :func:`iter_sequence`.

    The loop of SequenceProto's decoder, one element per step: the wire
    cursor (``fields``) steps from tag to tag, the element is decoded by
    ``decode_part``.
    """
    pos, end = 0, len(buf)  # pos: where the field being read starts
    classes = _CLASSES
    advise: Any = None if mapping is None else mapping.dont_need
    released = 0
    try:
        for number, wire_type, body_at, after in fields(buf, 0, end):
            cls = classes.get(number)
            if cls is None or wire_type != LEN:
                pos = after
                continue  # name, elem_type or an unknown field
            element = decode_part(cls, buf, body_at, after, MAX_DEPTH - 1, copy)
            pos = after
            yield element
            if advise is not None and pos - released >= _RELEASE:
                # Drop the pages read so far from this process (the file keeps them
                # in the page cache; a view touched again faults them back in).
                upto = pos - pos % _PAGE
                advise(released, upto - released)
                released = upto
    except DecodeError as err:
        _within(err, buf, pos, end)
        raise
    except (IndexError, OverflowError) as exc:  # pragma: no cover - as in _codec/reading.py
        raise DecodeError(f"malformed input near offset {pos}: {exc!r}", pos) from exc


def _within(err: DecodeError, buf: Any, start: int, end: int) -> None:
    """Add to ``err`` the path ``SequenceProto.decode`` reports for the field whose tag
    is at ``start``: the element (``tensor_values[3]``), or the declared field
    (``name``), within ``SequenceProto``; no field for a bad tag or an unknown field.

    An element's index is counted here, on the error's path, by stepping
    over the fields before it again, so that the loop counts nothing.
    """
    try:
        tag = read_tag(buf, start, end)[0]
    except DecodeError:
        tag = 0
    number, wire_type = split_tag(tag)
    f = _SEQUENCE.by_number.get(number)
    if f is not None and f.wire_type == wire_type:
        if f.repeated:
            index = sum(
                1
                for number, wire_type, _, _ in fields(buf, 0, start)
                if number == f.number and wire_type == f.wire_type
            )
            err.within(f"{f.name}[{index}]")
        else:
            err.within(f.name)
    err.within("SequenceProto")


def _page_size() -> int:
    try:
        import mmap
    except ImportError:  # pragma: no cover - platforms without mmap
        return 4096
    return mmap.PAGESIZE


_PAGE = _page_size()


def _release(buf: Any, mapping: Any) -> None:
    """Unmap now if no element holds a view of the mapping; else when the last goes."""
    if mapping is not None:
        mapping.close()
