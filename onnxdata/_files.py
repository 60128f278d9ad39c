"""Files: ``load`` (memory-mapped, zero-copy, type detection) and atomic ``save``.

A multi-GiB tensor file is mapped, not read: ``load`` costs the decoding of
the small fields, and the payload pages come from the page cache when (and
only if) the values are touched.  ``save`` streams the encoding into a
temporary file beside the target and renames it into place, so the target is
always either the old file or the complete new one.
"""

from __future__ import annotations

import builtins
import os
from typing import overload

from ._atomic import AtomicFile
from ._decode import as_byte_view, as_read_only_view, decode_part, too_large
from ._detect import CANDIDATES, misfit
from ._errors import DecodeError
from ._messages import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)
from ._stream import encode_to
from ._wire import LEN, MAX_DEPTH, read_length, read_tag, skip_field

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, TypeVar

    _M = TypeVar("_M", bound=Message)


def open_buffer(path: Any, mmap: bool = True) -> tuple[Any, Any]:
    """The bytes of the file at ``path``: a read-only byte view of a mapping
    (and the mapping), or, with ``mmap=False``, for an empty file, or where
    mapping is not available, the bytes read (and ``None``)."""
    with open(path, "rb") as f:
        if mmap:
            mapping = _map(f)
            if mapping is not None:
                return memoryview(mapping), mapping
        return f.read(), None


def _map(f: Any) -> Any:
    try:
        import mmap
    except ImportError:  # pragma: no cover - e.g. WebAssembly builds
        return None
    if os.fstat(f.fileno()).st_size == 0:
        return None  # an empty file cannot be mapped
    try:
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # pragma: no cover - a pipe, a special file
        return None


@overload
def load(
    path: Any,
    type: None = None,
    *,
    mmap: bool = True,
    copy: bool = False,
    max_size: int | None = None,
) -> Message: ...


@overload
def load(
    path: Any,
    type: type[_M],
    *,
    mmap: bool = True,
    copy: bool = False,
    max_size: int | None = None,
) -> _M: ...


def load(
    path: Any,
    type: type[_M] | None = None,
    *,
    mmap: bool = True,
    copy: bool = False,
    max_size: int | None = None,
) -> Message:
    """Read a message from the file at ``path``.

    The file is memory-mapped and decoded with ``copy=False``: ``raw_data``,
    string entries and float fields are views of the mapping, so opening a
    multi-GiB tensor takes milliseconds and little memory until values are
    read.  The mapping stays open as long as any view lives (see
    ``Message.decode`` for the lifetime rule); it is closed at once if
    nothing refers to it.  ``copy=True`` copies the values out and closes
    the mapping; ``mmap=False`` reads the file instead of mapping it.

    ``type`` is the message class; ``None`` detects it as ``onnxdata show``
    does: every type is tried, the best fit wins, and a tie goes to the first
    of TensorProto, SparseTensorProto, SequenceProto, MapProto, OptionalProto.
    Some bytes are truly ambiguous (an empty file; an ``OptionalProto``
    holding a tensor is byte for byte a one-element ``SequenceProto``): pass
    ``type`` whenever it is known.

    Raises:
        DecodeError: the file is not a valid encoding of ``type`` (of any
            type, when detecting: the error is the one for TensorProto), or
            is larger than ``max_size``.
        OSError: the file cannot be opened or mapped.
        TypeError: ``type`` is not a message class.
    """
    if type is not None and not (isinstance(type, builtins.type) and issubclass(type, Message)):
        raise TypeError(f"load() needs a message class or None, not {type!r}")
    buf, mapping = open_buffer(path, mmap)
    view = as_byte_view(buf) if copy else as_read_only_view(buf)
    try:
        if max_size is not None and len(view) > max_size:
            raise too_large(type or TensorProto, len(view), max_size)
        if type is None:
            return detect(view, copy)
        try:
            return decode_part(type, view, 0, len(view), MAX_DEPTH, copy)
        except DecodeError as err:
            err.within(type.__qualname__)
            raise
    finally:
        if mapping is not None:
            try:
                if isinstance(view, memoryview):
                    view.release()
                buf.release()
                mapping.close()  # refused while a decoded view refers to it
            except BufferError:
                pass


def save(message: Message, path: Any, *, max_size: int | None = None) -> int:
    """Write ``message`` to the file at ``path`` atomically; return the size.

    The encoding is streamed (``encode_to``) into a temporary file in the
    same directory, synced to disk, then renamed over ``path``: a crash or an
    error at any point leaves ``path`` as it was (or absent), never half
    written.  An existing file's permission bits are kept.  Saving over a
    file that ``load`` mapped is safe: the mapping keeps the old contents.

    Raises:
        TypeError, ValueError, OverflowError: as ``encode()`` (nothing is
            written then); ``max_size`` as ``encode_to``.
        OSError: the file cannot be written, synced or renamed.
    """
    target = AtomicFile(path)
    try:
        size = encode_to(message, target.file, max_size)
    except BaseException:
        target.discard()
        raise
    target.commit()
    return size


# -- type detection without copies ----------------------------------------------

# What each type reads, as "<number><wire type>[s][shape]" items: wire type v
# (varint), l (length-delimited), i (fixed32) or q (fixed64); s marks bytes,
# strings and packed floats (other length-delimited scalars are packed
# varints); shape "" for a field the encoder writes once, "*" for one it
# writes as a run of entries, "!" for a form it never writes (packed where it
# writes unpacked, or the reverse).  Anything else is an unknown field, which
# counts against the type.
_WIRE = {"v": 0, "q": 1, "l": LEN, "i": 5}
_ONCE, _RUN, _ODD = "", "*", "!"
_Segment, _Entry = TensorProto.Segment, StringStringEntryProto
_ELEMENT_FIELDS = "3l 4l 5l 6l 7l"
_ELEMENT_CLASSES = {
    3: TensorProto,
    4: SparseTensorProto,
    5: SequenceProto,
    6: MapProto,
    7: OptionalProto,
}


def _schema(
    spec: str, subs: dict[int, type[Message]]
) -> dict[tuple[int, int], tuple[type[Message] | None, str, bool]]:
    """``(number, wire type) -> (sub-message class or None, shape, packed varints)``.

    A length-delimited field that is not a sub-message, a string or bytes
    field (those are in ``subs`` or end with ``s``) holds packed varints.
    """
    out = {}
    for item in spec.split():
        shape = item[-1] if item[-1] in "*!" else ""
        item = item.rstrip("*!")
        text = item.endswith("s")
        item = item.rstrip("s")
        number, wire = int(item[:-1]), _WIRE[item[-1]]
        sub = subs.get(number) if wire == LEN else None
        packed = wire == LEN and sub is None and not text
        out[(number, wire)] = (sub, shape, packed)
    return out


_SCHEMA = {
    TensorProto: _schema(
        "1v* 1l! 2v 3l 4ls 4i! 5l 5v! 6ls* 7l 7v! 8ls 9ls 10ls 10q! 11l 11v! 12ls 13l* 14v 16l*",
        {3: _Segment, 13: _Entry, 16: _Entry},
    ),
    _Segment: _schema("1v 2v", {}),
    _Entry: _schema("1ls 2ls", {}),
    SparseTensorProto: _schema("1l 2l 3v* 3l!", {1: TensorProto, 2: TensorProto}),
    SequenceProto: _schema("1ls 2v " + _ELEMENT_FIELDS.replace("l", "l*"), _ELEMENT_CLASSES),
    MapProto: _schema("1ls 2v 3v* 3l! 4ls* 5l", {5: SequenceProto}),
    OptionalProto: _schema("1ls 2v " + _ELEMENT_FIELDS, _ELEMENT_CLASSES),
}
_SCAN_FIELDS = 64  # fields looked at per message
_SCAN_SUBS = 8  # sub-messages looked into per message


def _scan(view: Any, pos: int, end: int, cls: type[Message], levels: int) -> tuple[int, bool, int]:
    """A quick look at ``view[pos:end]`` read as ``cls``, decoding nothing.

    Returns the bytes of unknown fields seen (misfit counts each byte);
    whether the re-encoding is sure to differ from the input: a field out of
    field-number order or after an unknown field, one the encoder writes once
    seen twice, or a form it never writes; and the bytes of packed varints
    seen, the costliest thing to decode.  Only the first fields, and the
    first sub-messages down ``levels`` more levels, are looked at, so these
    are lower bounds, found in microseconds.
    """
    schema = _SCHEMA[cls]
    unknown = 0
    differs = False
    last = 0
    seen: set[int] = set()
    subs = 0
    varints = 0
    try:
        for _ in range(_SCAN_FIELDS):
            if pos >= end:
                break
            start = pos
            tag, after = read_tag(view, pos, end)
            pos = skip_field(view, start, after, end, tag, MAX_DEPTH)
            number = tag >> 3
            known = schema.get((number, tag & 7))
            if known is None:
                unknown += pos - start
                last = 1 << 32  # unknown fields are written last
                continue
            sub, shape, packed = known
            if number < last or shape == _ODD or (shape == _ONCE and number in seen):
                differs = True
            last = number
            seen.add(number)
            if packed:
                varints += pos - start
            if sub is not None and levels > 0 and subs < _SCAN_SUBS:
                subs += 1
                payload = read_length(view, after, pos)[1]
                more, sub_differs, more_varints = _scan(view, payload, pos, sub, levels - 1)
                unknown += more
                differs = differs or sub_differs
                varints += more_varints
    except DecodeError:
        pass  # malformed: decoding will say so
    return unknown, differs, varints


class _Fit:
    """A type the bytes decode as: its misfit, and whether it re-encodes to them."""

    __slots__ = ("canonical", "cls", "message", "misfit")

    def __init__(self, cls: type[Message], message: Message, misfit: int, differs: bool) -> None:
        self.cls = cls
        self.message = message
        self.misfit = misfit
        self.canonical: bool | None = False if differs else None  # None: not checked yet

    def most(self) -> int:
        """The score at most: misfit, plus 1 unless known to re-encode exactly."""
        return self.misfit + (self.canonical is not True)

    def score(self, view: Any) -> int:
        if self.canonical is None:
            self.canonical = _encodes_to(self.message, view)
        return self.misfit + (not self.canonical)


def detect(view: Any, copy: bool) -> Message:
    """The message ``_detect.detect`` would pick first, decoded from ``view``.

    ``_detect.detect`` decodes every type with copies and re-encodes each to
    compare (misfit, plus 1 for bytes that do not re-encode exactly); on a
    multi-GiB file that is several copies of it, and reading a GiB payload
    as packed varints costs ten.  Here a quick look (:func:`_scan`) gives each
    type a lower bound of its score, types are tried from the lowest bound,
    and a type is skipped as soon as its bound is above a score already
    reached, checking a re-encoding (chunk by chunk against the input, no
    copy) first when that is what it takes to skip one.
    """
    bound: dict[type[Message], int] = {}
    differs: dict[type[Message], bool] = {}
    risk: dict[type[Message], int] = {}
    for cls in CANDIDATES:
        unknown, differs[cls], varints = _scan(view, 0, len(view), cls, 1)
        bound[cls] = unknown + differs[cls]
        risk[cls] = unknown + varints  # bytes to copy or to turn into ints
    rank = {cls: i for i, cls in enumerate(CANDIDATES)}  # a tie goes to the first

    def beaten(cls: type[Message], fits: list[_Fit]) -> bool:
        """Whether a fit already decoded scores at most ``cls``'s bound, listed earlier
        on a tie: then ``cls`` cannot win, whatever its score."""
        return any((f.most(), rank[f.cls]) < (bound[cls], rank[cls]) for f in fits)

    fits: list[_Fit] = []
    errors: dict[type[Message], DecodeError] = {}
    for cls in sorted(CANDIDATES, key=lambda c: (bound[c], risk[c], rank[c])):
        if beaten(cls, fits):
            continue
        for fit in fits:  # an exact score may rule ``cls`` out without decoding it
            if fit.canonical is None and (fit.misfit, rank[fit.cls]) < (bound[cls], rank[cls]):
                fit.score(view)
                if beaten(cls, fits):
                    break
        if beaten(cls, fits):
            continue
        try:
            msg = decode_part(cls, view, 0, len(view), MAX_DEPTH, copy)
        except DecodeError as err:
            err.within(cls.__qualname__)
            errors[cls] = err
            continue
        fits.append(_Fit(cls, msg, misfit(msg), differs[cls]))
    if not fits:
        raise next(errors[cls] for cls in CANDIDATES if cls in errors)
    # The fits that can still be best, and their exact scores if it takes them.
    top = min((f.most(), rank[f.cls]) for f in fits)
    left = [f for f in fits if (f.misfit, rank[f.cls]) <= top]
    if len(left) == 1:
        return left[0].message
    return min(left, key=lambda f: (f.score(view), rank[f.cls])).message


class _DiffersError(Exception):
    pass


class _Compare:
    """A file object that checks what is written against ``view``."""

    def __init__(self, view: Any) -> None:
        self.view = view
        self.pos = 0

    def write(self, data: Any) -> int:
        n = len(data)
        if self.view[self.pos : self.pos + n] != data:
            raise _DiffersError
        self.pos += n
        return n


def _encodes_to(msg: Message, view: Any) -> bool:
    """``msg.encode() == view``, without making the encoding."""
    compare = _Compare(memoryview(view))
    try:
        encode_to(msg, compare)
    except _DiffersError:
        return False
    return compare.pos == len(view)
