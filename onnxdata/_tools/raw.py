"""A schema-less dump of protobuf bytes, like ``protoc --decode_raw``.

Every field is shown with its offset, number, wire type and value; a
length-delimited payload that parses as a message is shown nested (a guess:
the wire format cannot tell a message from bytes), else as text or bytes.
Damaged input is the point: the dump goes as far as the bytes parse and
then says where and why they break, instead of failing with nothing shown.

The input is read in place (a mapped file is not copied); a payload over
64 KiB is not decoded as text, only its first bytes are shown.
"""

from __future__ import annotations

import struct

from .._core.errors import DecodeError
from .._core.wire import Buf, read_length, read_tag, read_varint

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["RawDump", "dump"]

_WIRE_NAMES = {0: "varint", 1: "i64", 2: "len", 3: "sgroup", 4: "egroup", 5: "i32"}
_MAX_GUESS_DEPTH = 32
_PREVIEW = 24
_TEXT_LIMIT = 1 << 16  # payloads up to this size are tried as text


class RawDump:
    """The dump: ``lines``, and ``error`` (None when every byte parsed)."""

    __slots__ = ("error", "lines", "parsed")

    def __init__(self, lines: list[str], error: DecodeError | None, parsed: int) -> None:
        self.lines = lines
        self.error = error
        self.parsed = parsed  # bytes parsed cleanly before the error (or all of them)


def dump(data: Any) -> RawDump:
    """Dump ``data`` (any bytes-like object) field by field; never raises for bad bytes.

    Raises:
        TypeError: ``data`` is not bytes-like.
    """
    if isinstance(data, str):
        raise TypeError("dump() needs bytes, not str")
    buf = data if type(data) is bytes else memoryview(data).cast("B")
    lines: list[str] = []
    try:
        _fields(buf, 0, len(buf), 0, lines, None)
    except _StopError as stop:
        return RawDump(lines, stop.error, stop.good)
    return RawDump(lines, None, len(buf))


class _StopError(Exception):
    def __init__(self, error: DecodeError, good: int) -> None:
        super().__init__(str(error))
        self.error = error
        self.good = good


def _fields(buf: Buf, pos: int, end: int, depth: int, out: list[str], group: int | None) -> int:
    """Dump fields in ``[pos, end)``; return the position after them (or after an end-group)."""
    pad = "  " * depth
    while pos < end:
        start = pos
        try:
            tag, pos = read_tag(buf, pos, end)
            number, wt = tag >> 3, tag & 7
            if number == 0:
                raise DecodeError(f"field number 0 at offset {start}", start)
            if wt in (6, 7):
                raise DecodeError(f"wire type {wt} at offset {start} does not exist", start)
            head = f"{pad}@{start} {number}: {_WIRE_NAMES[wt]}"
            if wt == 0:
                v, pos = read_varint(buf, pos, end)
                signed = v - (1 << 64) if v >> 63 else v
                extra = f" (signed {signed})" if signed != v else ""
                out.append(f"{head} {v}{extra}")
            elif wt == 1:
                if end - pos < 8:
                    raise DecodeError(f"fixed64 at offset {pos} runs past the end", pos)
                (i,) = struct.unpack_from("<Q", buf, pos)
                (d,) = struct.unpack_from("<d", buf, pos)
                out.append(f"{head} {i:#018x} (double {d!r})")
                pos += 8
            elif wt == 5:
                if end - pos < 4:
                    raise DecodeError(f"fixed32 at offset {pos} runs past the end", pos)
                (i,) = struct.unpack_from("<I", buf, pos)
                (f,) = struct.unpack_from("<f", buf, pos)
                out.append(f"{head} {i:#010x} (float {f!r})")
                pos += 4
            elif wt == 2:
                n, pos = read_length(buf, pos, end)
                nested: list[str] = []
                out.append(f"{head}[{n}] {_payload(buf, pos, pos + n, depth, nested)}")
                out.extend(nested)
                pos += n
            elif wt == 3:
                out.append(f"{head} {{")
                if depth >= 100:
                    raise DecodeError(f"groups nested too deep at offset {start}", start)
                pos = _fields(buf, pos, end, depth + 1, out, number)
                out.append(f"{pad}}}")
            else:
                if group != number:
                    raise DecodeError(
                        f"end-group {number} at offset {start} matches no start-group", start
                    )
                return pos
        except DecodeError as err:
            raise _StopError(err, start) from None
    if group is not None:
        raise _StopError(DecodeError(f"group {group} is not closed before offset {end}", end), end)
    return pos


def _payload(buf: Buf, pos: int, end: int, depth: int, out: list[str]) -> str:
    """Describe a length-delimited payload; a nested message is appended to ``out``."""
    if pos < end and depth < _MAX_GUESS_DEPTH:
        nested: list[str] = []
        try:
            _fields(buf, pos, end, depth + 1, nested, None)
        except _StopError:
            pass
        else:
            text = _text(buf[pos:end])
            if text is None or not text.isprintable():
                out.extend(nested)
                return "message:" if nested else ""
    data = buf[pos:end]
    text = _text(data)
    if text is not None and text.isprintable():
        return repr(text)
    preview = data[:_PREVIEW].hex(" ")
    more = f" ... ({len(data)} bytes)" if len(data) > _PREVIEW else ""
    guesses = _packed_guesses(data)
    return f"bytes {preview}{more}{guesses}"


def _text(data: Buf) -> str | None:
    if len(data) > _TEXT_LIMIT:
        return None
    try:
        return str(data, "utf-8")
    except UnicodeDecodeError:
        return None


def _packed_guesses(data: Buf) -> str:
    """Packed arrays the payload could be, when the size allows."""
    guesses = []
    if data and len(data) % 4 == 0 and len(data) <= 4096:
        floats = struct.unpack(f"<{len(data) // 4}f", data)[:6]
        guesses.append("floats " + ", ".join(f"{x:g}" for x in floats))
    try:
        values: list[int] = []
        p = 0
        while p < len(data) and len(values) < 6:
            v, p = read_varint(data, p, len(data))
            values.append(v)
        if values:
            guesses.append("varints " + ", ".join(map(str, values)))
    except DecodeError:
        pass
    return f"  [as packed: {'; '.join(guesses)}]" if guesses else ""
