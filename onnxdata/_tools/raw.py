"""A schema-less dump of protobuf bytes, like ``protoc --decode_raw``.

Every field is shown with its offset, number, wire type and value; a
length-delimited payload that parses as a message is shown nested (a guess:
the wire format cannot tell a message from bytes), else as text or bytes.
Damaged input is the point: the dump goes as far as the bytes parse and
then says where and why they break, instead of failing with nothing shown.

Given the message type (``onnxdata raw --type model``), each field the
schema knows is named (``@0 1 ir_version: VARINT 8``), a payload is read as
its field's kind says (a sub-message as its message, a string as text)
instead of guessed, and fields the schema does not know are guessed as
without a type.

The input is read in place (a mapped file is not copied); a payload over
64 KiB is not decoded as text, only its first bytes are shown.
"""

from __future__ import annotations

import struct

from .._core.errors import DecodeError
from .._core.schema import BYTES, MESSAGE, STRING, spec_of
from .._core.wire import (
    EGROUP,
    I32,
    I64,
    MAX_DEPTH,
    SGROUP,
    VARINT,
    WIRE_TYPE_NAMES,
    Buf,
    read_field,
    read_varint,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["RawDump", "dump"]

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


def dump(data: Any, cls: type | None = None) -> RawDump:
    """Dump ``data`` (any bytes-like object) field by field; never raises for bad bytes.
    With ``cls`` (a message class), fields are named and read by the schema.

    Raises:
        TypeError: ``data`` is not bytes-like, or ``cls`` is not a message class.
    """
    if cls is not None:
        spec_of(cls)  # a message class, or TypeError
    if isinstance(data, str):
        raise TypeError("dump() needs bytes, not str")
    buf = data if type(data) is bytes else memoryview(data).cast("B")
    lines: list[str] = []
    try:
        _fields(buf, 0, len(buf), 0, lines, None, cls)
    except _StopError as stop:
        return RawDump(lines, stop.error, stop.good)
    return RawDump(lines, None, len(buf))


class _StopError(Exception):
    def __init__(self, error: DecodeError, good: int) -> None:
        super().__init__(str(error))
        self.error = error
        self.good = good


def _fields(buf: Buf, pos: int, end: int, depth: int, out: list[str], group: int | None,
            cls: Any = None) -> int:  # fmt: skip
    """Dump fields in ``[pos, end)``; return the position after them (or after an end-group).

    Fields are read by the wire toolkit's ``read_field``, so a damaged field is
    reported as the decoder reports it; groups are walked here, one level at a
    time, so that the fields of a broken group are shown up to the break.
    """
    pad = "  " * depth
    known = spec_of(cls).by_number if cls is not None else {}
    while pos < end:
        start = pos
        try:
            f = read_field(buf, pos, end, groups=False)
            pos = f.end
            field = known.get(f.number)
            name = f" {field.name}" if field is not None else ""
            head = f"{pad}@{start} {f.number}{name}: {WIRE_TYPE_NAMES[f.wire_type]}"
            if f.wire_type == EGROUP:
                if group != f.number:
                    raise DecodeError(
                        f"end-group {f.number} at offset {start} matches no start-group", start
                    )
                return pos
            if f.wire_type == SGROUP:
                out.append(f"{head} {{")
                if depth >= MAX_DEPTH:
                    raise DecodeError(f"groups nested too deep at offset {start}", start)
                pos = _fields(buf, pos, end, depth + 1, out, f.number)
                out.append(f"{pad}}}")
            else:
                _value(buf, f.wire_type, f.body_at, f.end, f.value, head, depth, out, field)
        except DecodeError as err:
            raise _StopError(err, start) from None
    if group is not None:
        raise _StopError(DecodeError(f"group {group} is not closed before offset {end}", end), end)
    return pos


def _value(buf: Buf, wire_type: int, at: int, end: int, value: int, head: str, depth: int,
           out: list[str], field: Any = None) -> None:  # fmt: skip
    """Append the line of a VARINT, I64, I32 or LEN field, and a payload's nested lines."""
    if wire_type == VARINT:
        signed = value - (1 << 64) if value >> 63 else value
        extra = f" (signed {signed})" if signed != value else ""
        out.append(f"{head} {value}{extra}")
    elif wire_type == I64:
        (d,) = struct.unpack_from("<d", buf, at)
        out.append(f"{head} {value:#018x} (double {d!r})")
    elif wire_type == I32:
        (x,) = struct.unpack_from("<f", buf, at)
        out.append(f"{head} {value:#010x} (float {x!r})")
    else:  # LEN
        nested: list[str] = []
        if field is not None and field.kind == MESSAGE:
            if depth >= MAX_DEPTH:
                raise DecodeError(f"messages nested deeper than {MAX_DEPTH} at offset {at}", at)
            out.append(f"{head}[{value}] {field.message.__qualname__}:")
            _fields(buf, at, end, depth + 1, out, None, field.message)
            return
        if field is not None and field.kind in (STRING, BYTES):
            out.append(f"{head}[{value}] {_bytes(buf[at:end], field.kind == STRING)}")
            return
        out.append(f"{head}[{value}] {_payload(buf, at, end, depth, nested)}")
        out.extend(nested)


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
    return _bytes(buf[pos:end], True)


def _bytes(data: Buf, as_text: bool) -> str:
    """A payload as text when it is printable UTF-8 (and ``as_text``), else as bytes."""
    text = _text(data) if as_text else None
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
