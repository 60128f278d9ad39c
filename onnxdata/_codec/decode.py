"""Bytes to messages: the decoder's entry points.

Each message has a decoder generated from the schema (``loop.py``: the
loop; ``blocks.py``: the code of each field; ``runs.py`` and ``tails.py``:
the fast paths the declarations ask for), which fills a message object in
place.  Decoding into an existing object is also how a singular message
field seen twice is merged: protobuf merges exactly as if both payloads had
been one, so decoding the second payload into the first's object is the
whole of merge semantics, in linear time.  Positions are absolute offsets
into the input, so every error can say where it happened; the field path is
added as the error climbs out.

``ONNXDATA_GENERAL_PATHS=1`` (``switches.GENERAL_PATHS``) makes every
decoder generated afterwards take the general paths only.
"""

from __future__ import annotations

from .._core import switches
from .._core.errors import DecodeError
from .._core.wire import MAX_DEPTH, Buf
from . import gcpause, loop
from .loop import CODECS, clear, decoders

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any, TypeVar

    from .._messages.declarations import Message

    _M = TypeVar("_M", bound=Message)
    # (buf, pos, end, message, depth left, messages whose unknown fields grew)
    Decoder = Callable[[Any, int, int, Any, int, list[Any]], None]

__all__ = [
    "as_byte_view",
    "as_read_only_view",
    "clear",
    "decode_message",
    "decode_part",
    "decoder",
    "settle",
    "source",
    "too_large",
]


def as_byte_view(data: Any) -> Buf:
    """``data`` itself if it is ``bytes``, else a flat byte view of it, without copying.

    Raises:
        TypeError: ``data`` is a ``str`` or not a buffer.
    """
    if type(data) is bytes:
        return data
    if isinstance(data, str):
        raise TypeError("decode() needs bytes, not str")
    view = memoryview(data)
    if view.format != "B" or view.ndim != 1:
        view = view.cast("B")
    return view


def as_read_only_view(data: Any) -> memoryview:
    """A flat, contiguous, read-only byte view of ``data``: what ``copy=False`` slices.

    Read-only, so that nothing reached through a decoded message can write
    into the caller's buffer.  A non-contiguous input is copied once first.

    Raises:
        TypeError: ``data`` is a ``str`` or not a buffer.
    """
    if isinstance(data, str):
        raise TypeError("decode() needs bytes, not str")
    view = memoryview(data)
    if not view.c_contiguous:
        view = memoryview(view.tobytes())
    elif view.format != "B" or view.ndim != 1:
        view = view.cast("B")
    return view if view.readonly else view.toreadonly()


def decode_message(cls: type[_M], data: Any, copy: bool = True, max_size: int | None = None) -> _M:
    """``cls.decode(data, copy=copy, max_size=max_size)``; see ``Message.decode``."""
    buf = as_byte_view(data) if copy else as_read_only_view(data)
    if max_size is not None and len(buf) > max_size:
        raise too_large(cls, len(buf), max_size)
    try:
        return decode_part(cls, buf, 0, len(buf), MAX_DEPTH, copy)
    except DecodeError as err:
        err.within(cls.__qualname__)
        raise


def too_large(cls: type[Message], size: int, max_size: int) -> DecodeError:
    """The error for an input over ``max_size`` bytes, raised before decoding."""
    err = DecodeError(f"{size} bytes is more than max_size={max_size}", max(max_size, 0))
    err.within(cls.__qualname__)
    return err


def decode_part(cls: type[_M], buf: Buf, pos: int, end: int, depth: int, copy: bool) -> _M:
    """Decode ``buf[pos:end]`` as a new ``cls`` with ``depth`` nesting levels left.

    ``buf`` comes from :func:`as_byte_view` (``copy=True``) or
    :func:`as_read_only_view` (``copy=False``).  Error offsets are offsets
    into ``buf``; the caller adds the outer part of the path.

    Raises:
        DecodeError: the bytes are not a valid encoding of ``cls``.
    """
    new, decode = CODECS[switches.GENERAL_PATHS][copy].get(cls) or decoders(cls, copy)
    msg = new()
    grown: list[Any] = []
    paused = end - pos >= gcpause.MIN_BYTES and gcpause.pause()
    try:
        decode(buf, pos, end, msg, depth, grown)
    finally:
        if paused:
            gcpause.resume()
        if grown:
            settle(grown)
    return msg  # type: ignore[no-any-return]


def decoder(cls: type[Message], copy: bool = True) -> tuple[Callable[[], Any], Decoder]:
    """``(make an empty cls, decode into it)`` for ``cls`` in one mode, generated on first use.

    The decode function takes ``(buf, pos, end, message, depth, grown)``:
    ``grown`` is a list the caller settles with :func:`settle` afterwards
    (:func:`decode_part` does both).

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    return CODECS[switches.GENERAL_PATHS][copy].get(cls) or decoders(cls, copy)


def source(cls: type[Message], copy: bool = True) -> str:
    """The source text of the decoder generated for ``cls``: to read, or to debug.

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    return loop.source(cls, copy)


def settle(grown: list[Any]) -> None:
    """Turn the ``unknown_fields`` that merging grew in place back into ``bytes``."""
    for msg in grown:
        msg.unknown_fields = bytes(msg.unknown_fields)
    grown.clear()
