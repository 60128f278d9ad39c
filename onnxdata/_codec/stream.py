"""Streaming encoding: ``encode_to`` writes a message to a file object in pieces.

``encode()`` gathers references to every payload in a list and joins them
once, so the whole encoding exists in memory at the end.  Streaming never
holds it.  The ordinary encoder runs twice, each time handed a *plan* in
place of its chunk list (``encode.Plan``, a ``list`` subclass, which the
encoder hands sub-messages and long packed fields to):

1. :class:`Measure` drops every chunk and records the size of every
   sub-message, in the order the encoder meets them (a length prefix comes
   before its payload, so it must be known first): 8 bytes each, in an
   ``array``.  This pass also checks every value, so an invalid message
   raises before anything is written, with ``encode()``'s own error.
2. :class:`Emit` passes every chunk to a :class:`Sink` as the encoder makes
   it: bytes fields, float fields and string entries of 128 bytes or more
   straight from their own buffers (shorter ones formatted 8,192 at a time),
   small chunks gathered first, each sub-message's length read back from the
   array.

Field order, checks and errors are therefore ``encode()``'s by construction.
A long packed integer field is the one payload that must be made rather than
referenced: it is varint-encoded ``PIECE`` values at a time.  The sink writes
through ``_core.short_writes.write_all``, which finishes short writes and refuses
to take a non-blocking file's ``None`` for success.

``_io/sequences.py``'s ``SequenceWriter`` writes each element with the same two
passes.
"""

from __future__ import annotations

from array import array

from .._core.errors import EncodeError
from .._core.mapped import check_target
from .._core.short_writes import write_all
from .._core.wire import MAX_DEPTH, encode_varint
from .encode import Plan, check_sub, encoder, length_delimited, too_large
from .varints import encode_packed

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    from .._messages.message import Message

__all__ = ["PIECE", "Emit", "Measure", "Sink", "changed", "encode_to", "measure", "writer_of"]

PIECE = 1 << 16  # values of a long packed integer field encoded at a time
_DIRECT = 1 << 16  # chunks this long or longer go to write() as they are
_GATHER = 1 << 20  # smaller chunks are gathered up to this many bytes
_BATCH = 1024  # chunks handed over together are joined this many at a time


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


class Measure(Plan):
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


class Emit(Plan):
    """Pass 2: every chunk to the sink; sizes from pass 1, in the same order."""

    __slots__ = ("next_size", "sink")

    def __init__(self, sink: Sink, next_size: Callable[[], int]) -> None:
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


class Sink:
    """Chunks to ``write``: small ones gathered, large ones passed as they are.

    ``written`` counts the bytes put; ``delivered`` those the file has taken.
    Every chunk goes out through ``write_all``, so a short write is finished
    and a non-blocking file that is full raises ``BlockingIOError``, whose
    ``characters_written`` is then ``delivered``: the bytes of the stream
    the file took since the sink was made.
    """

    __slots__ = ("_gathered", "_write", "delivered", "written")

    def __init__(self, write: Callable[[Any], Any]) -> None:
        self._write = write
        self._gathered = bytearray()
        self.written = 0
        self.delivered = 0

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
        try:
            self.delivered += write_all(self._write, data)
        except BlockingIOError as exc:
            self.delivered += exc.characters_written
            exc.characters_written = self.delivered
            raise


def writer_of(file: Any) -> Callable[[Any], Any]:
    write = getattr(file, "write", None)
    if not callable(write):
        raise TypeError(f"expected a file object with a write method, got {type(file).__name__}")
    return write  # type: ignore[no-any-return]


def changed(written: int, measured: int) -> RuntimeError:
    return RuntimeError(
        f"the message changed while it was written: {written} bytes, {measured} measured"
    )


def measure(msg: Message) -> int:
    """The length of ``msg``'s encoding, found without making it (``ByteSize``):
    the measuring pass of :func:`encode_to`, which reads no payload.

    Raises:
        EncodeError: as ``encode()``.
    """
    cls = type(msg)
    try:
        size: int = encoder(cls, True)(msg, Measure(array("q")), MAX_DEPTH)
    except EncodeError as err:
        err.within(cls.__qualname__)
        raise
    return size


def encode_to(msg: Message, file: Any, max_size: int | None = None) -> int:
    """Write ``msg``'s encoding to ``file``; see :meth:`Message.encode_to`.

    Raises:
        EncodeError: as ``encode()``, before anything is written.
        BlockingIOError: ``file`` is non-blocking and full (``characters_written``
            is the number of bytes it took).
        OSError, TypeError: ``file.write`` failed or broke the I/O contract
            (see ``_core/short_writes.py``); ``file`` has no ``write``.
        RuntimeError: the message changed while it was written.
        MappedFileError: (an ``OSError``) ``file`` is a file the package
            mapped (``mmap=True``): nothing is written (see
            ``_core/mapped.check_target``).
    """
    cls = type(msg)
    encode = encoder(cls, True)
    write = writer_of(file)
    check_target(file)
    sizes: array[int] = array("q")
    try:
        total = encode(msg, Measure(sizes), MAX_DEPTH)
        if max_size is not None and total > max_size:
            raise too_large(total, max_size)
    except EncodeError as err:
        err.within(cls.__qualname__)
        raise
    sink = Sink(write)
    encode(msg, Emit(sink, iter(sizes).__next__), MAX_DEPTH)
    sink.flush()
    if sink.written != total:  # pragma: no cover - another thread changed the message
        raise changed(sink.written, total)
    return total
