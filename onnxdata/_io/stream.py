"""Streaming: ``encode_to``, ``SequenceWriter`` and ``iter_sequence``.

``encode()`` gathers references to every payload in a list and joins them
once, so the whole encoding exists in memory at the end.  Streaming never
holds it.  The ordinary encoder runs twice, each time handed a *plan* in
place of its chunk list (a ``list`` subclass, which the encoder's
``_sub``/``_packed`` hand sub-messages and long packed fields to):

1. :class:`_Measure` drops every chunk and records the size of every
   sub-message, in the order the encoder meets them (a length prefix comes
   before its payload, so it must be known first): 8 bytes each, in an
   ``array``.  This pass also checks every value, so an invalid message
   raises before anything is written, with ``encode()``'s own error.
2. :class:`_Emit` passes every chunk to ``write`` as the encoder makes it:
   ``raw_data``, float fields and string entries of 128 bytes or more
   straight from their own buffers (shorter ones formatted 8,192 at a time),
   small chunks gathered first, each sub-message's length read back from the
   array.

Field order, checks and errors are therefore ``encode()``'s by construction.
A long packed integer field is the one payload that must be made rather than
referenced: it is varint-encoded ``PIECE`` values at a time.

Reading a sequence back one element at a time needs no second pass at all:
the wire reader steps from one element's tag to the next, and only the
element asked for is decoded.
"""

from __future__ import annotations

import os
from array import array

from .._codec.decode import decode_part
from .._codec.encode import Plan, attach, check_sub, encoder, length_delimited, too_large
from .._codec.varints import encode_packed
from .._core.errors import DecodeError, EncodeError
from .._core.schema import spec_of
from .._core.wire import LEN, MAX_DEPTH, encode_varint, read_length, read_tag, skip_field
from .._messages.declarations import Message, SequenceProto
from .atomic import AtomicFile

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterable, Iterator
    from types import TracebackType
    from typing import Any

PIECE = 1 << 16  # values of a long packed integer field encoded at a time
_DIRECT = 1 << 16  # chunks this long or longer go to write() as they are
_GATHER = 1 << 20  # smaller chunks are gathered up to this many bytes
_BATCH = 1024  # chunks handed over together are joined this many at a time
_MAX_WRITE = 1 << 30  # one write() call passes at most this much
_RELEASE = 16 << 20  # iter_sequence gives back the pages it has read, this many at a time


# -- the two passes -------------------------------------------------------------------


def _pieces(values: Any, lo: int, hi: int, code: str) -> Iterator[bytes]:
    """A long packed integer field's varints, ``PIECE`` values at a time.

    Checks values as ``encode()`` does; a bad one is named by its index in
    the whole field, not in the piece.
    """
    for i in range(0, len(values), PIECE):
        try:
            yield encode_packed(values[i : i + PIECE], lo, hi, code)
        except EncodeError as err:
            parts = err.parts
            if parts and parts[-1].startswith("["):
                parts[-1] = f"[{int(parts[-1][1:-1]) + i}]"
            raise


def _is_long(values: Any) -> bool:
    try:
        return len(values) > PIECE
    except TypeError:
        return False


class _Measure(Plan):
    """Pass 1: checks everything, writes nothing, records sub-message sizes."""

    __slots__ = ("sizes",)

    def __init__(self, sizes: array[int]) -> None:
        super().__init__()
        self.sizes = sizes

    def append(self, chunk: Any) -> None:
        pass

    def extend(self, chunks: Iterable[Any]) -> None:
        pass

    def sub(self, tag: bytes, msg: Any, cls: type[Message], depth: int) -> int:
        check_sub(msg, cls, depth)
        sizes = self.sizes
        slot = len(sizes)
        sizes.append(0)
        n = encoder(cls, True)(msg, self, depth - 1)
        sizes[slot] = n
        return len(tag) + len(encode_varint(n)) + n

    def packed(self, tag: bytes, values: Any, lo: int, hi: int, code: str) -> int:
        if not _is_long(values):
            return length_delimited(tag, encode_packed(values, lo, hi, code), self)
        n = sum(map(len, _pieces(values, lo, hi, code)))
        self.sizes.append(n)
        return len(tag) + len(encode_varint(n)) + n


class _Emit(Plan):
    """Pass 2: every chunk to the sink; sizes from pass 1, in the same order."""

    __slots__ = ("next_size", "sink")

    def __init__(self, sink: _Sink, next_size: Callable[[], int]) -> None:
        super().__init__()
        self.sink = sink
        self.next_size = next_size

    def append(self, chunk: Any) -> None:
        self.sink.put(chunk)

    def extend(self, chunks: Iterable[Any]) -> None:
        self.sink.put_all(chunks)

    def sub(self, tag: bytes, msg: Any, cls: type[Message], depth: int) -> int:
        head = tag + encode_varint(self.next_size())
        self.sink.put(head)
        return len(head) + encoder(cls, True)(msg, self, depth - 1)

    def packed(self, tag: bytes, values: Any, lo: int, hi: int, code: str) -> int:
        if not _is_long(values):
            return length_delimited(tag, encode_packed(values, lo, hi, code), self)
        head = tag + encode_varint(self.next_size())
        self.sink.put(head)
        n = 0
        for piece in _pieces(values, lo, hi, code):
            self.sink.put(piece)
            n += len(piece)
        return len(head) + n


class _Sink:
    """Chunks to ``write``: small ones gathered, large ones passed as they are."""

    __slots__ = ("_gathered", "_write", "written")

    def __init__(self, write: Callable[[Any], Any]) -> None:
        self._write = write
        self._gathered = bytearray()
        self.written = 0

    def put(self, chunk: Any) -> None:
        n = len(chunk)
        self.written += n
        if n < _DIRECT:
            gathered = self._gathered
            gathered += chunk
            if len(gathered) >= _GATHER:
                self.flush()
        else:
            self.flush()
            self._out(chunk)

    def put_all(self, chunks: Iterable[Any]) -> None:
        """:meth:`put` each of ``chunks``: ``_BATCH`` at a time in one join where
        they are that small together (a string field's heads and entries), not
        one Python call each."""
        if not isinstance(chunks, list):
            chunks = list(chunks)
        put = self.put
        for i in range(0, len(chunks), _BATCH):
            batch = chunks[i : i + _BATCH]
            if sum(map(len, batch)) < _DIRECT:
                put(b"".join(batch))
            else:
                for chunk in batch:
                    put(chunk)

    def flush(self) -> None:
        if self._gathered:
            gathered = self._gathered
            self._gathered = bytearray()  # write() may keep the old one: never reuse it
            self._out(gathered)

    def _out(self, data: Any) -> None:
        view = memoryview(data)
        total = len(view)
        pos = 0
        while pos < total:
            piece = view[pos : pos + _MAX_WRITE]
            n = self._write(piece)
            # A raw file may write less than asked; None means all (or a file
            # object that does not say).
            pos += len(piece) if n is None else n


def _writer_of(file: Any) -> Callable[[Any], Any]:
    write = getattr(file, "write", None)
    if not callable(write):
        raise TypeError(f"expected a file object with a write method, got {type(file).__name__}")
    return write  # type: ignore[no-any-return]


def _changed(written: int, measured: int) -> RuntimeError:
    return RuntimeError(
        f"the message changed while it was written: {written} bytes, {measured} measured"
    )


def encode_to(msg: Message, file: Any, max_size: int | None = None) -> int:
    """See :meth:`Message.encode_to`."""
    cls = type(msg)
    encode = encoder(cls, True)
    write = _writer_of(file)
    sizes: array[int] = array("q")
    try:
        total = encode(msg, _Measure(sizes), MAX_DEPTH)
        if max_size is not None and total > max_size:
            raise too_large(total, max_size)
    except EncodeError as err:
        err.within(cls.__qualname__)
        raise
    sink = _Sink(write)
    encode(msg, _Emit(sink, iter(sizes).__next__), MAX_DEPTH)
    sink.flush()
    if sink.written != total:  # pragma: no cover - another thread changed the message
        raise _changed(sink.written, total)
    return total


# -- SequenceWriter ------------------------------------------------------------------


# SequenceProto.DataType -> (tag, element class, field name)
def _element_kinds() -> dict[int, tuple[bytes, type[Message], str]]:
    """SequenceProto.DataType -> (tag, element class, field) of each element field.

    From the schema: the element field of a kind is named after it
    (``TENSOR`` -> ``tensor_values``), as in the .proto.
    """
    spec = spec_of(SequenceProto)
    kinds = {}
    for kind in SequenceProto.DataType:
        f = spec.by_name.get(f"{kind.name.lower()}_values")
        if f is not None:
            kinds[int(kind)] = (f.tag, f.message, f.name)
    return kinds


_KINDS = _element_kinds()
_KIND_OF_CLASS = {cls: kind for kind, (_, cls, _) in _KINDS.items()}


class SequenceWriter:
    """Write a ``SequenceProto`` one element at a time, in constant memory.

    ``target`` is a path or a binary file object.  A path is written
    atomically: to a temporary file in the same directory, renamed over
    ``target`` by :meth:`close` (or a clean exit from the ``with`` block), and
    removed instead if the block raises or :meth:`abort` is called, so that
    ``target`` is either its old self or the complete new sequence.  A file
    object is written in place and left open.

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
        header = SequenceProto(name=name, elem_type=kind).encode()  # fields 1 and 2 come first
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
        self._sink = _Sink(_writer_of(self._file))
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
            OSError: from writing; the writer is then broken: later calls raise
                ValueError, and a path's target is never replaced.
        """
        if self._closed:
            raise ValueError("append() on a closed SequenceWriter")
        self._refuse_if_failed()
        sizes: array[int] = array("q")
        try:
            n = _Measure(sizes).sub(self._tag, element, self._cls, MAX_DEPTH)
        except EncodeError as err:
            err.within(f"[{self.count}]")
            attach(err, self._field)
            err.within("SequenceProto")
            raise
        before = self._sink.written
        try:
            _Emit(self._sink, iter(sizes).__next__).sub(self._tag, element, self._cls, MAX_DEPTH)
            if self._sink.written - before != n:  # pragma: no cover - changed by another thread
                raise _changed(self._sink.written - before, n)
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

_ELEMENTS: dict[int, tuple[type[Message], str]] = {
    spec_of(SequenceProto).by_name[name].number: (cls, name) for _, cls, name in _KINDS.values()
}  # field number -> (class, field name)


def iter_sequence(path: Any, *, copy: bool = False, mmap: bool = True) -> Iterator[Message]:
    """The elements of the ``SequenceProto`` file at ``path``, one at a time.

    Each element is decoded when the loop reaches it; the wire reader steps
    over the rest of the file, which is memory-mapped, and gives the pages
    back as it goes, so memory stays flat however long the file is.  With
    ``copy=False`` (the default) elements hold views of the mapping (see
    ``Message.decode``), which stays open as long as any of them lives.
    Elements come in file order; ``name``, ``elem_type`` and unknown fields
    are skipped.

    Raises:
        DecodeError: at the first malformed part, with the path and offset
            ``SequenceProto.decode`` would report; elements before it have
            been yielded.
        OSError: the file cannot be opened.
    """
    from .files import open_buffer

    buf, mapping = open_buffer(path, mmap)
    try:
        yield from _elements(buf, copy, mapping)
    finally:
        _release(buf, mapping)


def _elements(buf: Any, copy: bool, mapping: Any) -> Iterator[Message]:
    """The elements of the sequence in ``buf``; see :func:`iter_sequence`.

    The loop of SequenceProto's decoder, one element per step: one-byte tags
    and lengths read inline, the element decoded by ``decode_part``.
    """
    pos, end = 0, len(buf)
    counts = dict.fromkeys(_ELEMENTS, 0)
    advise: Any = getattr(mapping, "madvise", None)
    dont_need = _DONTNEED if advise else None
    released = 0
    fnum = 0
    while pos < end:
        start = pos
        try:
            tag = buf[pos]
            pos += 1
            if tag >= 0x80:
                fnum = 0
                tag, pos = read_tag(buf, start, end)
            fnum = tag >> 3
            if tag & 7 != LEN or fnum not in _ELEMENTS:
                if tag != 0x0A and tag != 0x10:
                    fnum = 0  # an unknown field: no name in the path
                pos = skip_field(buf, start, pos, end, tag, MAX_DEPTH)
                continue
            n = buf[pos] if pos < end else 0x80
            if n < 0x80 and n < end - pos:
                pos += 1
            else:
                n, pos = read_length(buf, pos, end)
            element = decode_part(_ELEMENTS[fnum][0], buf, pos, pos + n, MAX_DEPTH - 1, copy)
            pos += n
            counts[fnum] += 1
        except DecodeError as err:
            if fnum in _ELEMENTS:
                err.within(f"{_ELEMENTS[fnum][1]}[{counts[fnum]}]")
            elif fnum:
                err.within("name" if fnum == 1 else "elem_type")
            err.within("SequenceProto")
            raise
        except (IndexError, OverflowError) as exc:  # pragma: no cover - as in _decode
            raise DecodeError(f"malformed input near offset {pos}: {exc!r}", pos) from exc
        yield element
        if dont_need is not None and pos - released >= _RELEASE:
            # Drop the pages read so far from this process (the file keeps them
            # in the page cache; a view touched again faults them back in).
            upto = pos - pos % _PAGE
            advise(dont_need, released, upto - released)
            released = upto


def _mmap_constants() -> tuple[int, int | None]:
    try:
        import mmap
    except ImportError:  # pragma: no cover - platforms without mmap
        return 4096, None
    return mmap.PAGESIZE, getattr(mmap, "MADV_DONTNEED", None)


_PAGE, _DONTNEED = _mmap_constants()


def _release(buf: Any, mapping: Any) -> None:
    """Unmap now if no element holds a view of the mapping; else when the last goes."""
    if mapping is None:
        return
    try:
        buf.release()
        mapping.close()
    except BufferError:
        pass
