"""protobuf's text format for the data messages, without protobuf.

The same functions, arguments and output as ``google.protobuf.text_format``
(protobuf 7, the version onnx 1.23.2 installs), for onnxdata's messages and for
onnx's own protobuf messages (taken through their bytes):

- :func:`MessageToString` gives exactly the text protobuf gives: fields in
  field-number order (``use_index_order`` for declaration order), float32
  values in their shortest round-tripping form (``0.1``, ``nan``, ``-inf``),
  strings and bytes with C escapes, ``data_location: EXTERNAL`` by name, and
  every option of protobuf's printer, unknown fields included.
- :func:`Parse` and :func:`Merge` accept exactly what protobuf's parser
  accepts (comments, ``<>`` or ``{}``, ``[1, 2]`` lists, concatenated strings,
  hexadecimal and octal integers, ``inf``/``nan``, ``1.5f``, enum names or
  numbers, optional ``:`` before a message, ``,`` or ``;`` between fields), and
  raise :class:`ParseError` with the same ``line:column`` and message where it
  refuses.  They fill the given message in place and return it.
- :func:`message_str` is what ``str()`` of a protobuf (upb) message gives: the
  same layout with upb's own number formatting (``3`` where text_format writes
  ``3.0``) and no unknown fields.

What differs from protobuf (each is in docs/compat.md): :class:`ParseError` is
also a ``ValueError``; text that is not UTF-8 is a :class:`ParseError` on any
line (protobuf raises ``UnicodeDecodeError`` past the first); nesting deeper
than Python can follow is a :class:`ParseError` rather than a
``RecursionError``; ``float_format`` and ``double_format`` (removed in
protobuf 6) are kept, with protobuf 5's meaning; ``PrintField`` and
``PrintFieldValue``, which take protobuf descriptors, are not provided.
"""

from __future__ import annotations

import io
import math
import re
import struct
import warnings

from ._core.schema import (
    BYTES,
    DOUBLE,
    ENUM,
    FLOAT,
    INT32,
    INT64,
    MESSAGE,
    PACKAGE,
    STRING,
    UINT64,
    is_boolean,
    is_message,
    spec_of,
)
from ._core.wire import own_bytes, own_utf8, shortest_float32, to_float32
from ._messages.convert import as_message
from ._messages.declarations import MESSAGE_TYPES, Message

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any, TextIO

    from ._core.schema import FieldSpec

__all__ = [
    "Error",
    "Merge",
    "MergeLines",
    "MessageToBytes",
    "MessageToString",
    "Parse",
    "ParseBool",
    "ParseError",
    "ParseFloat",
    "ParseInteger",
    "ParseLines",
    "PrintMessage",
    "Tokenizer",
    "message_str",
]

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_MASK64 = (1 << 64) - 1
_INT_RANGES = {
    INT32: (-(1 << 31), (1 << 31) - 1),
    INT64: (-(1 << 63), (1 << 63) - 1),
    UINT64: (0, _MASK64),
}


class Error(Exception):
    """Every error of this module, as ``text_format.Error``."""


class ParseError(Error, ValueError):
    """The text is not a valid text format of the message.

    ``str()`` is protobuf's: ``"line:column : message"``; :meth:`GetLine`
    and :meth:`GetColumn` give the place (1-based), or ``None``.
    """

    def __init__(
        self, message: str | None = None, line: int | None = None, column: int | None = None
    ) -> None:
        if message is not None and line is not None:
            where = str(line) if column is None else f"{line}:{column}"
            message = f"{where} : {message}"
        if message is None:
            super().__init__()
        else:
            super().__init__(message)
        self._line = line
        self._column = column

    def GetLine(self) -> int | None:  # noqa: N802 - protobuf's name
        """The line (1-based) of the error, if known."""
        return self._line

    def GetColumn(self) -> int | None:  # noqa: N802 - protobuf's name
        """The column (1-based) of the error, if known."""
        return self._column


# -- values as text ---------------------------------------------------------------


def _is_print(byte: int) -> bool:
    return 32 <= byte < 127


def _escape_table() -> tuple[dict[int, str], list[str]]:
    """C escapes: the one for each ASCII character (str.translate), and for each byte."""
    ascii_escapes = {i: f"\\{i:03o}" for i in range(128) if not _is_print(i)}
    ascii_escapes.update(
        {ord("\t"): "\\t", ord("\n"): "\\n", ord("\r"): "\\r"},
    )
    ascii_escapes.update({ord('"'): '\\"', ord("'"): "\\'", ord("\\"): "\\\\"})
    per_byte = [ascii_escapes.get(i, chr(i)) if i < 128 else f"\\{i:03o}" for i in range(256)]
    return ascii_escapes, per_byte


_ASCII_ESCAPES, _BYTE_ESCAPES = _escape_table()


def _escape(data: bytes, as_utf8: bool) -> str:
    """``data`` between quotes: every byte escaped, or (``as_utf8``) valid UTF-8 kept."""
    if not as_utf8:
        return "".join([_BYTE_ESCAPES[b] for b in data])
    out = []
    while data:
        try:
            out.append(data.decode("utf-8").translate(_ASCII_ESCAPES))
            break
        except UnicodeDecodeError as err:
            out.append(data[: err.start].decode("utf-8").translate(_ASCII_ESCAPES))
            out.append(_BYTE_ESCAPES[data[err.start]])
            data = data[err.start + 1 :]
    return "".join(out)


_HEX_ONE_DIGIT = re.compile(r"(\\+)x([0-9a-fA-F])(?![0-9a-fA-F])")


def _unescape(text: str) -> bytes:
    r"""The bytes a quoted text-format literal stands for (protobuf's ``CUnescape``).

    Python's escape codecs do the work, so the escapes are Python's:
    ``\n \t \\ \' \" \a \b \f \v``, octal ``\0``-``\377``, ``\xH`` and
    ``\xHH``, ``\uXXXX``, ``\UXXXXXXXX`` and ``\N{name}`` (as UTF-8).

    Raises:
        ValueError: an escape is malformed, or stands for no byte (``\777``).
    """

    def pad(match: re.Match[str]) -> str:
        if len(match.group(1)) % 2:  # an unescaped backslash: \xF -> \x0F
            return f"{match.group(1)}x0{match.group(2)}"
        return match.group(0)

    if "\\" not in text:
        return text.encode("utf-8")
    text = _HEX_ONE_DIGIT.sub(pad, text)
    text = text.encode("raw_unicode_escape").decode("raw_unicode_escape")
    with warnings.catch_warnings():  # "\q" and "\777": Python warns, protobuf reads on
        warnings.simplefilter("ignore", DeprecationWarning)
        return text.encode("utf-8").decode("unicode_escape").encode("latin-1")


def _strtof(text: str) -> float:
    """The float32 nearest the decimal ``text``, rounded once (C's ``strtof``)."""
    near = float(text)
    single = to_float32(near)
    if math.isinf(single) or math.isnan(single) or single == near:
        return single
    # Rounding to double first may land exactly between two float32s; decide exactly.
    below, above = sorted((single, _neighbour(single, near)))
    if near * 2 != below + above:  # both sides exact in double arithmetic
        return single
    from fractions import Fraction  # rare: only for a decimal exactly between two float32s

    middle = (Fraction(below) + Fraction(above)) / 2
    exact = Fraction(text)
    if exact != middle:
        return below if exact < middle else above
    return single  # a true tie: to even, as the double was


def _neighbour(single: float, toward: float) -> float:
    """The float32 next to ``single`` on the side of ``toward``."""
    bits = _U32.unpack(_F32.pack(single))[0]
    step = 1 if (toward > single) == (single >= 0) else -1
    if single == 0:
        return math.copysign(_F32.unpack(_U32.pack(1))[0], toward)
    result: float = _F32.unpack(_U32.pack(bits + step))[0]
    return result


def _upb_float(value: float) -> str:
    """upb's text for a float32: ``%.6g``, else ``%.9g`` (its round-trip rule)."""
    text = _c_g(value, 6)
    if math.isnan(value) or _strtof(text) != value:
        text = _c_g(value, 9)
    return text


def _upb_double(value: float) -> str:
    """upb's text for a double: ``%.15g``, else ``%.17g``."""
    text = _c_g(value, 15)
    if math.isnan(value) or float(text) != value:
        text = _c_g(value, 17)
    return text


def _c_g(value: float, digits: int) -> str:
    """C's ``printf("%.*g")`` as upb prints: Python's ``%g``, a NaN of either sign ``nan``."""
    return f"{value:.{digits}g}"


def _string_bytes(value: Any) -> bytes:
    """A string field's UTF-8 bytes (raw bytes carried as surrogate escapes included)."""
    if isinstance(value, str):
        return own_utf8(value)
    return _bytes_of(value)


def _bytes_of(value: Any) -> bytes:
    """A bytes field's bytes: a subclass's own, not what its methods say
    (as upb writes them); a view (``decode(copy=False)``) copied."""
    return bytes(own_bytes(value))  # bytes() of an exact bytes, bytearray or memoryview


# -- unknown fields --------------------------------------------------------------

_VARINT, _I64, _LEN, _SGROUP, _EGROUP, _I32 = 0, 1, 2, 3, 4, 5


class _Unknown:
    """One unknown field: its number, wire type and value (an int, bytes, or a group's fields)."""

    __slots__ = ("data", "number", "wire_type")

    def __init__(self, number: int, wire_type: int, data: Any) -> None:
        self.number = number
        self.wire_type = wire_type
        self.data = data


class _MalformedError(Exception):
    """Bytes that protobuf's unknown-field reader would not read."""


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise _MalformedError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result & _MASK64, pos
        shift += 7
        if shift >= 64:
            raise _MalformedError("varint too long")


def _read_fields(buf: bytes, pos: int, end: int, depth: int) -> tuple[list[_Unknown], int]:
    """Unknown fields from ``pos``, as protobuf's Python reader sees them: it stops
    at ``end`` or after any end-group tag, and returns where it stopped."""
    found: list[_Unknown] = []
    while pos < end:
        start = pos
        while pos < len(buf) and buf[pos] & 0x80:
            pos += 1
        pos += 1
        if pos > len(buf):
            raise _MalformedError("truncated tag")
        tag_bytes = buf[start:pos]
        tag, _ = _varint(tag_bytes, 0)
        number, wire_type = tag >> 3, tag & 7
        if wire_type == _EGROUP:
            break
        data, pos = _read_one(buf, pos, end, number, wire_type, depth)
        found.append(_Unknown(number, wire_type, data))
    return found, pos


def _read_one(
    buf: bytes, pos: int, end: int, number: int, wire_type: int, depth: int
) -> tuple[Any, int]:
    data: Any
    if wire_type == _VARINT:
        data, pos = _varint(buf, pos)
    elif wire_type in (_I64, _I32):
        width = 8 if wire_type == _I64 else 4
        chunk = buf[pos : pos + width]
        if len(chunk) != width:
            raise _MalformedError("truncated fixed-width value")
        data = int.from_bytes(chunk, "little")
        pos += width
    elif wire_type == _LEN:
        size, pos = _varint(buf, pos)
        data = bytes(buf[pos : pos + size])
        pos += size
    elif wire_type == _SGROUP:
        end_tag = _tag_bytes(number, _EGROUP)
        if depth + 1 >= 100:
            raise _MalformedError("too many levels of nesting")
        data, pos = _read_fields(buf, pos, end, depth + 1)
        if buf[max(pos - len(end_tag), 0) : pos] != end_tag:
            raise _MalformedError("missing group end tag")
    else:
        raise _MalformedError("wrong wire type")
    if pos > end:
        raise _MalformedError("truncated message")
    return data, pos


def _tag_bytes(number: int, wire_type: int) -> bytes:
    value = number << 3 | wire_type
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _unknown_fields(data: bytes) -> list[_Unknown]:
    """A message's unknown fields (as read when it was decoded: well formed).

    Raises:
        ValueError: ``unknown_fields`` holds bytes that are not protobuf fields.
    """
    try:
        found, pos = _read_fields(data, 0, len(data), 0)
    except _MalformedError as err:
        raise ValueError(f"unknown_fields are not valid protobuf fields: {err}") from None
    if pos != len(data) or any(f.number == 0 for f in found):
        raise ValueError("unknown_fields are not valid protobuf fields")
    return found


# -- printing --------------------------------------------------------------------


class _Printer:
    """protobuf's text printer, over the schema."""

    def __init__(
        self,
        out: TextIO,
        indent: int,
        as_utf8: bool,
        as_one_line: bool,
        use_short_repeated_primitives: bool,
        pointy_brackets: bool,
        use_index_order: bool,
        float_format: str | None,
        double_format: str | None,
        use_field_number: bool,
        message_formatter: Callable[[Any, int, bool], str | None] | None,
        print_unknown_fields: bool,
        force_colon: bool,
    ) -> None:
        self.out = out
        self.indent = _count(indent, "indent")
        self.as_utf8 = as_utf8
        self.as_one_line = as_one_line
        self.short = use_short_repeated_primitives
        self.open, self.close = ("<", ">") if pointy_brackets else ("{", "}")
        self.index_order = use_index_order
        self.float_format = float_format
        self.double_format = float_format if double_format is None else double_format
        self.field_number = use_field_number
        self.formatter = message_formatter
        self.unknown = print_unknown_fields
        self.force_colon = force_colon
        self.depth = 0

    def end(self) -> str:
        return " " if self.as_one_line else "\n"

    def message(self, message: Any) -> None:
        if self.formatter is not None:
            formatted = self.formatter(message, self.indent, self.as_one_line)
            if formatted is not None:
                self.out.write(" " * self.indent + formatted + self.end())
                return
        spec = spec_of(type(message))
        for f in spec.fields if self.index_order else spec.numbered:
            value = getattr(message, f.name)
            if f.repeated:
                if value is None or not len(value):
                    continue
                if self.short and f.kind not in (MESSAGE, STRING, BYTES):
                    self.name(f)
                    self.out.write(" [")
                    self.out.write(", ".join([self.scalar(f, v) for v in value]))
                    self.out.write("]" + self.end())
                else:
                    for item in value:
                        self.field(f, item)
            elif value is not None:
                self.field(f, value)
        if self.unknown and message.unknown_fields:
            self.unknown_set(_unknown_fields(bytes(message.unknown_fields)))

    def name(self, f: FieldSpec) -> None:
        self.out.write(" " * self.indent)
        self.out.write(str(f.number) if self.field_number else f.name)
        if self.force_colon or f.kind != MESSAGE:
            self.out.write(":")

    def field(self, f: FieldSpec, value: Any) -> None:
        self.name(f)
        self.out.write(" ")
        if f.kind == MESSAGE:
            self.sub_message(value)
        else:
            self.out.write(self.scalar(f, value))
        self.out.write(self.end())

    def sub_message(self, value: Any) -> None:
        if not is_message(value):
            raise TypeError(f"a message field holds {type(value).__name__}, not a message")
        self.depth += 1
        if self.depth > _MAX_PRINT_DEPTH:
            raise ValueError(
                f"messages nested more than {_MAX_PRINT_DEPTH} deep "
                "(a message that contains itself?)"
            )
        if self.as_one_line:
            self.out.write(self.open + " ")
            self.message(value)
            self.out.write(self.close)
        else:
            self.out.write(self.open + "\n")
            self.indent += 2
            self.message(value)
            self.indent -= 2
            self.out.write(" " * self.indent + self.close)
        self.depth -= 1

    def scalar(self, f: FieldSpec, value: Any) -> str:
        kind = f.kind
        if kind == ENUM:
            number = int(value)
            assert f.enum is not None
            try:
                return f.enum(number).name
            except ValueError:
                return str(number)
        if kind == STRING:
            return '"' + _escape(_string_bytes(value), self.as_utf8) + '"'
        if kind == BYTES:
            return '"' + _escape(_bytes_of(value), False) + '"'
        if kind == FLOAT:
            value = to_float32(float(value))
            if self.float_format is not None:
                return f"{value:{self.float_format}}"
            if math.isnan(value):
                return "nan"
            return str(shortest_float32(value))
        if kind == DOUBLE:
            value = float(value)
            if self.double_format is not None:
                return f"{value:{self.double_format}}"
            return str(value)
        return str(_checked_int(f, value))

    def unknown_set(self, fields: list[_Unknown]) -> None:
        out = self.out
        for f in fields:
            out.write(" " * self.indent + str(f.number))
            if f.wire_type == _SGROUP:
                self.unknown_group(f.data)
            elif f.wire_type == _LEN:
                try:
                    inner, pos = _read_fields(f.data, 0, len(f.data), 0)
                except (_MalformedError, RecursionError):
                    pos = -1
                if pos == len(f.data):
                    self.unknown_group(inner)
                else:
                    out.write(': "' + _escape(f.data, False) + '"' + self.end())
            else:
                out.write(f": {f.data}" + self.end())

    def unknown_group(self, fields: list[_Unknown]) -> None:
        if self.as_one_line:
            self.out.write(" { ")
            self.unknown_set(fields)
            self.out.write("} ")
        else:
            self.out.write(" {\n")
            self.indent += 2
            self.unknown_set(fields)
            self.indent -= 2
            self.out.write(" " * self.indent + "}\n")


_MAX_PRINT_DEPTH = 100


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    return value


def _checked_int(f: FieldSpec, value: Any) -> int:
    if is_boolean(value) or not hasattr(value, "__index__"):
        raise TypeError(f"{f.name} holds {value!r}, not an integer")
    number = int(value)
    lo, hi = _INT_RANGES[f.kind]
    if not lo <= number <= hi:
        raise ValueError(f"{f.name} holds {number}, out of range for {f.kind}")
    return number


def _printer(
    out: TextIO,
    message: Any,
    indent: int,
    as_utf8: bool,
    as_one_line: bool,
    use_short_repeated_primitives: bool,
    pointy_brackets: bool,
    use_index_order: bool,
    float_format: str | None,
    double_format: str | None,
    use_field_number: bool,
    descriptor_pool: Any,
    message_formatter: Any,
    print_unknown_fields: bool,
    force_colon: bool,
) -> tuple[_Printer, Message]:
    for name, fmt in (("float_format", float_format), ("double_format", double_format)):
        if fmt is not None and not isinstance(fmt, str):
            raise TypeError(f"{name} must be a format spec string, not {type(fmt).__name__}")
    if message_formatter is not None and not callable(message_formatter):
        raise TypeError("message_formatter must be callable")
    # descriptor_pool resolves google.protobuf.Any payloads; the data messages hold none,
    # so any pool (protobuf's included) prints the same.
    del descriptor_pool
    msg = message if is_message(message) else as_message(message, *MESSAGE_TYPES)
    printer = _Printer(
        out,
        indent,
        bool(as_utf8),
        bool(as_one_line),
        bool(use_short_repeated_primitives),
        bool(pointy_brackets),
        bool(use_index_order),
        float_format,
        double_format,
        bool(use_field_number),
        message_formatter,
        bool(print_unknown_fields),
        bool(force_colon),
    )
    return printer, msg


def MessageToString(  # noqa: N802 - protobuf's name
    message: Any,
    as_utf8: bool = True,
    as_one_line: bool = False,
    use_short_repeated_primitives: bool = False,
    pointy_brackets: bool = False,
    use_index_order: bool = False,
    use_field_number: bool = False,
    descriptor_pool: Any = None,
    indent: int = 0,
    message_formatter: Callable[[Any, int, bool], str | None] | None = None,
    print_unknown_fields: bool = False,
    force_colon: bool = False,
    *,
    float_format: str | None = None,
    double_format: str | None = None,
) -> str:
    """The message in protobuf's text format, as ``text_format.MessageToString`` gives it.

    ``message`` is an onnxdata message or onnx's protobuf message of the same
    type.  The options are protobuf's; ``float_format`` and ``double_format``
    (format specs such as ``".3g"``) are protobuf 5's, removed from protobuf 6.
    ``descriptor_pool`` only matters for ``google.protobuf.Any`` fields, which
    these messages do not have.  ``message_formatter(message, indent,
    as_one_line)`` receives onnxdata messages.

    Raises:
        TypeError: ``message`` is not a data message, an option has the wrong
            type, or a field holds a value of the wrong type.
        ValueError: a value is out of its field's range, messages are nested
            more than 100 deep, or ``unknown_fields`` (printed with
            ``print_unknown_fields``) are not protobuf fields.
    """
    out = io.StringIO()
    printer, msg = _printer(
        out,
        message,
        indent,
        as_utf8,
        as_one_line,
        use_short_repeated_primitives,
        pointy_brackets,
        use_index_order,
        float_format,
        double_format,
        use_field_number,
        descriptor_pool,
        message_formatter,
        print_unknown_fields,
        force_colon,
    )
    printer.message(msg)
    result = out.getvalue()
    return result.rstrip() if as_one_line else result


def MessageToBytes(message: Any, **kwargs: Any) -> bytes:  # noqa: N802 - protobuf's name
    """:func:`MessageToString`, encoded: UTF-8 with ``as_utf8`` (the default), else ASCII.

    Raises:
        TypeError, ValueError: as :func:`MessageToString`.
    """
    text = MessageToString(message, **kwargs)
    return text.encode("utf-8" if kwargs.get("as_utf8", True) else "ascii")


def PrintMessage(  # noqa: N802 - protobuf's name
    message: Any,
    out: TextIO,
    indent: int = 0,
    as_utf8: bool = True,
    as_one_line: bool = False,
    use_short_repeated_primitives: bool = False,
    pointy_brackets: bool = False,
    use_index_order: bool = False,
    use_field_number: bool = False,
    descriptor_pool: Any = None,
    message_formatter: Callable[[Any, int, bool], str | None] | None = None,
    print_unknown_fields: bool = False,
    force_colon: bool = False,
    *,
    float_format: str | None = None,
    double_format: str | None = None,
) -> None:
    """Write the message's text format to ``out`` (anything with ``write(str)``).

    Unlike :func:`MessageToString` with ``as_one_line``, the trailing space
    is kept, as protobuf's ``PrintMessage`` keeps it.

    Raises:
        TypeError, ValueError: as :func:`MessageToString`.
    """
    printer, msg = _printer(
        out,
        message,
        indent,
        as_utf8,
        as_one_line,
        use_short_repeated_primitives,
        pointy_brackets,
        use_index_order,
        float_format,
        double_format,
        use_field_number,
        descriptor_pool,
        message_formatter,
        print_unknown_fields,
        force_colon,
    )
    printer.message(msg)


def message_str(message: Any) -> str:
    """What ``str()`` of the protobuf (upb) message gives.

    upb prints the same fields in the same layout as :func:`MessageToString`,
    but formats numbers as C does: a float32 with ``%.6g`` (``%.9g`` when that
    would not read back), a double with ``%.15g`` or ``%.17g`` (so ``3``,
    ``1e+10`` and ``0.33333333333333331`` where text_format writes ``3.0``,
    ``10000000000.0`` and ``0.3333333333333333``), keeps valid UTF-8 in
    strings, and leaves unknown fields out.

    Raises:
        TypeError, ValueError: as :func:`MessageToString`.
    """
    out: list[str] = []
    msg = message if is_message(message) else as_message(message, *MESSAGE_TYPES)
    _upb_message(msg, out, 0)
    return "".join(out)


def _upb_message(message: Any, out: list[str], depth: int) -> None:
    spec = spec_of(type(message))
    if depth > _MAX_PRINT_DEPTH:
        raise ValueError(f"messages nested more than {_MAX_PRINT_DEPTH} deep")
    pad = "  " * depth
    for f in spec.numbered:
        value = getattr(message, f.name)
        if f.repeated:
            items = value if value is not None else ()
        elif value is None:
            continue
        else:
            items = (value,)
        for item in items:
            if f.kind == MESSAGE:
                if not is_message(item):
                    raise TypeError(f"a message field holds {type(item).__name__}")
                out.append(f"{pad}{f.name} {{\n")
                _upb_message(item, out, depth + 1)
                out.append(f"{pad}}}\n")
            else:
                out.append(f"{pad}{f.name}: {_upb_scalar(f, item)}\n")


def _upb_scalar(f: FieldSpec, value: Any) -> str:
    kind = f.kind
    if kind == FLOAT:
        return _upb_float(to_float32(float(value)))
    if kind == DOUBLE:
        return _upb_double(float(value))
    if kind == STRING:
        return '"' + _upb_string(_string_bytes(value)) + '"'
    if kind == BYTES:
        return '"' + "".join([_BYTE_ESCAPES[b] for b in _bytes_of(value)]) + '"'
    if kind == ENUM:
        assert f.enum is not None
        number = int(value)
        try:
            return f.enum(number).name
        except ValueError:
            return str(number)
    return str(_checked_int(f, value))


def _upb_string(data: bytes) -> str:
    """upb's escaping of a string field: valid UTF-8 kept, anything else as bytes."""
    out = []
    while data:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            out.append(data[: err.start].decode("utf-8").translate(_ASCII_ESCAPES))
            out.append(_BYTE_ESCAPES[data[err.start]])
            data = data[err.start + 1 :]
            continue
        out.append(text.translate(_ASCII_ESCAPES))
        break
    return "".join(out)


# -- reading ---------------------------------------------------------------------


_QUOTES = frozenset("'\"")


class Tokenizer:
    """protobuf's text-format tokenizer: identifiers, numbers, quoted strings,
    and single characters, over lines, skipping whitespace and ``#`` comments.
    """

    _WHITESPACE = re.compile(r"\s+")
    _WHITESPACE_OR_COMMENT = re.compile(r"(\s|(#.*$))+", re.MULTILINE)
    _TOKEN = re.compile(
        "|".join(
            [
                r"[a-zA-Z_][0-9a-zA-Z_+-]*",  # an identifier
                r"([0-9+-]|(\.[0-9]))[0-9a-zA-Z_.+-]*",  # a number
                *(  # a quoted string, to its quote or the end of the line
                    rf"{q}[^{q}\n\\]*((\\.)+[^{q}\n\\]*)*({q}|\\?$)" for q in ("'", '"')
                ),
            ]
        )
    )
    _IDENTIFIER = re.compile(r"[^\d\W]\w*")
    _IDENTIFIER_OR_NUMBER = re.compile(r"\w+")

    def __init__(self, lines: Iterable[str], skip_comments: bool = True) -> None:
        self._line = -1
        self._column = 0
        self.token = ""
        self._lines: Iterator[str] = iter(lines)
        self._current_line = ""
        self._previous_line = 0
        self._previous_column = 0
        self._more_lines = True
        self._whitespace = self._WHITESPACE_OR_COMMENT if skip_comments else self._WHITESPACE
        self._skip_whitespace()
        self.NextToken()

    def _pop_line(self) -> None:
        while len(self._current_line) <= self._column:
            try:
                self._current_line = next(self._lines)
            except StopIteration:
                self._current_line = ""
                self._more_lines = False
                return
            self._line += 1
            self._column = 0

    def _skip_whitespace(self) -> None:
        while True:
            self._pop_line()
            match = self._whitespace.match(self._current_line, self._column)
            if not match:
                break
            self._column += len(match.group(0))

    def LookingAt(self, token: str) -> bool:  # noqa: N802 - protobuf's name
        return self.token == token

    def AtEnd(self) -> bool:  # noqa: N802 - protobuf's name
        return not self.token

    def TryConsume(self, token: str) -> bool:  # noqa: N802 - protobuf's name
        if self.token == token:
            self.NextToken()
            return True
        return False

    def Consume(self, token: str) -> None:  # noqa: N802 - protobuf's name
        if not self.TryConsume(token):
            raise self.ParseError(f'Expected "{token}".')

    def ConsumeIdentifier(self) -> str:  # noqa: N802 - protobuf's name
        result = self.token
        if not self._IDENTIFIER.match(result):
            raise self.ParseError("Expected identifier.")
        self.NextToken()
        return result

    def TryConsumeIdentifier(self) -> bool:  # noqa: N802 - protobuf's name
        try:
            self.ConsumeIdentifier()
        except ParseError:
            return False
        return True

    def ConsumeIdentifierOrNumber(self) -> str:  # noqa: N802 - protobuf's name
        result = self.token
        if not self._IDENTIFIER_OR_NUMBER.match(result):
            raise self.ParseError(f"Expected identifier or number, got {result}.")
        self.NextToken()
        return result

    def ConsumeInteger(self) -> int:  # noqa: N802 - protobuf's name
        try:
            result = _parse_any_integer(self.token)
        except ValueError as err:
            raise self.ParseError(str(err)) from None
        self.NextToken()
        return result

    def ConsumeFloat(self) -> float:  # noqa: N802 - protobuf's name
        try:
            result = ParseFloat(self.token)
        except ValueError as err:
            raise self.ParseError(str(err)) from None
        self.NextToken()
        return result

    def TryConsumeFloat(self) -> bool:  # noqa: N802 - protobuf's name
        try:
            self.ConsumeFloat()
        except ParseError:
            return False
        return True

    def ConsumeBool(self) -> bool:  # noqa: N802 - protobuf's name
        try:
            result = ParseBool(self.token)
        except ValueError as err:
            raise self.ParseError(str(err)) from None
        self.NextToken()
        return result

    def ConsumeString(self) -> str:  # noqa: N802 - protobuf's name
        data = self.ConsumeByteString()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise self.ParseError(f"Couldn't parse string: {err}") from None

    def ConsumeByteString(self) -> bytes:  # noqa: N802 - protobuf's name
        parts = [self._consume_one_string()]
        while self.token and self.token[0] in _QUOTES:
            parts.append(self._consume_one_string())
        return b"".join(parts)

    def TryConsumeByteString(self) -> bool:  # noqa: N802 - protobuf's name
        try:
            self.ConsumeByteString()
        except ParseError:
            return False
        return True

    def _consume_one_string(self) -> bytes:
        text = self.token
        if len(text) < 1 or text[0] not in _QUOTES:
            raise self.ParseError(f"Expected string but found: {text!r}")
        if len(text) < 2 or text[-1] != text[0]:
            raise self.ParseError(f"String missing ending quote: {text!r}")
        try:
            result = _unescape(text[1:-1])
        except ValueError as err:
            raise self.ParseError(str(err)) from None
        self.NextToken()
        return result

    def ParseErrorPreviousToken(self, message: str) -> ParseError:  # noqa: N802
        """A :class:`ParseError` at the token just consumed (returned, not raised)."""
        return ParseError(message, self._previous_line + 1, self._previous_column + 1)

    def ParseError(self, message: str) -> ParseError:  # noqa: N802 - protobuf's name
        """A :class:`ParseError` at the current token (returned, not raised)."""
        return ParseError(f"'{self._current_line}': {message}", self._line + 1, self._column + 1)

    def NextToken(self) -> None:  # noqa: N802 - protobuf's name
        """Move to the next token."""
        self._previous_line = self._line
        self._previous_column = self._column
        self._column += len(self.token)
        self._skip_whitespace()
        if not self._more_lines:
            self.token = ""
            return
        match = self._TOKEN.match(self._current_line, self._column)
        self.token = match.group(0) if match else self._current_line[self._column]


def _parse_any_integer(text: str) -> int:
    """An integer in any of the text format's spellings (C octal ``017`` included)."""
    spelled = text
    octal = re.match(r"(-?)0(\d+)$", text)
    if octal:
        spelled = f"{octal.group(1)}0o{octal.group(2)}"
    try:
        return int(spelled, 0)
    except ValueError:
        raise ValueError(f"Couldn't parse integer: {text}") from None


def ParseInteger(text: str, is_signed: bool = False, is_long: bool = False) -> int:  # noqa: N802
    """An integer of text format, checked against int32/uint32/int64/uint64's range.

    Raises:
        ValueError: not an integer, or out of range.
    """
    result = _parse_any_integer(text)
    bits = 64 if is_long else 32
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if is_signed else (0, (1 << bits) - 1)
    if not lo <= result <= hi:
        raise ValueError(f"Value out of range: {result}")
    return result


_FLOAT_INFINITY = re.compile("-?inf(?:inity)?f?$", re.IGNORECASE)
_FLOAT_NAN = re.compile("nanf?$", re.IGNORECASE)
_FLOAT_OCTAL_PREFIX = re.compile("-?0[0-9]+")


def ParseFloat(text: str) -> float:  # noqa: N802 - protobuf's name
    """A float of text format: Python's spellings, ``inf``/``infinity``/``nan``
    in any case, and a trailing ``f``.

    Raises:
        ValueError: not a float, or a leading zero (``01.5``).
    """
    if _FLOAT_OCTAL_PREFIX.match(text):
        raise ValueError(f"Invalid octal float: {text}")
    try:
        return float(text)
    except ValueError:
        pass
    if _FLOAT_INFINITY.match(text):
        return -math.inf if text[0] == "-" else math.inf
    if _FLOAT_NAN.match(text):
        return math.nan
    try:
        return float(text.rstrip("fF"))
    except ValueError:
        raise ValueError(f"Couldn't parse float: {text}") from None


def ParseBool(text: str) -> bool:  # noqa: N802 - protobuf's name
    """``true``/``t``/``1``/``True`` or ``false``/``f``/``0``/``False``.

    Raises:
        ValueError: anything else.
    """
    if text in ("true", "t", "1", "True"):
        return True
    if text in ("false", "f", "0", "False"):
        return False
    raise ValueError('Expected "true" or "false".')


def _parse_enum(f: FieldSpec, text: str) -> int:
    enum = f.enum
    assert enum is not None
    full = f"{PACKAGE}{enum.__qualname__}"
    try:
        number = int(text, 0)
    except ValueError:
        member = enum.__members__.get(text)
        if member is None:
            raise ValueError(f'Enum type "{full}" has no value named {text}.') from None
        return int(member)
    try:
        return int(enum(number))
    except ValueError:
        raise ValueError(f'Enum type "{full}" has no value with number {number}.') from None


class _Parser:
    def __init__(
        self,
        allow_unknown_extension: bool,
        allow_field_number: bool,
        allow_unknown_field: bool,
        max_recursion_depth: int | None,
        merge: bool,
    ) -> None:
        self.allow_unknown_extension = allow_unknown_extension
        self.allow_field_number = allow_field_number
        self.allow_unknown_field = allow_unknown_field
        self.max_depth = max_recursion_depth
        self.merge = merge
        self.depth = 0

    def enter(self) -> None:
        self.depth += 1
        if self.max_depth is not None and self.depth > self.max_depth:
            raise ParseError(f"Message too deep. Max recursion depth is {self.max_depth}")

    def parse(self, lines: Iterable[str | bytes], message: Any) -> None:
        tokenizer = Tokenizer(_decoded(lines))
        self.enter()
        while not tokenizer.AtEnd():
            self.field(tokenizer, message)
        self.depth -= 1

    def sub_message(self, tokenizer: Tokenizer, message: Any, end_token: str) -> None:
        self.enter()
        while not tokenizer.TryConsume(end_token):
            if tokenizer.AtEnd():
                raise tokenizer.ParseErrorPreviousToken(f'Expected "{end_token}".')
            self.field(tokenizer, message)
        self.depth -= 1

    def field(self, tokenizer: Tokenizer, message: Any) -> None:
        spec = spec_of(type(message))
        full = spec.full_name
        if tokenizer.TryConsume("["):
            name = [tokenizer.ConsumeIdentifier()]
            while tokenizer.TryConsume("."):
                name.append(tokenizer.ConsumeIdentifier())
            raise tokenizer.ParseErrorPreviousToken(
                f'Message type "{full}" does not have extensions.'
            )
        name_text = tokenizer.ConsumeIdentifierOrNumber()
        f: FieldSpec | None
        if self.allow_field_number and name_text.isdigit():
            try:
                number = ParseInteger(name_text, True, True)
            except ValueError as err:
                raise tokenizer.ParseErrorPreviousToken(str(err)) from None
            f = spec.by_number.get(number)
        else:
            f = spec.by_name.get(name_text)
        if f is None:
            if not self.allow_unknown_field:
                raise tokenizer.ParseErrorPreviousToken(
                    f'Message type "{full}" has no field named "{name_text}".'
                )
            self.skip_contents(tokenizer)
        else:
            if f.kind == MESSAGE:
                tokenizer.TryConsume(":")
                merger = self.message_field
            else:
                tokenizer.Consume(":")
                merger = self.scalar_field
            if f.repeated and tokenizer.TryConsume("["):
                if not tokenizer.TryConsume("]"):
                    while True:
                        merger(tokenizer, message, f, full)
                        if tokenizer.TryConsume("]"):
                            break
                        tokenizer.Consume(",")
            else:
                merger(tokenizer, message, f, full)
        if not tokenizer.TryConsume(","):
            tokenizer.TryConsume(";")

    def message_field(self, tokenizer: Tokenizer, message: Any, f: FieldSpec, full: str) -> None:
        if tokenizer.TryConsume("<"):
            end_token = ">"
        else:
            tokenizer.Consume("{")
            end_token = "}"
        cls = f.message
        if f.repeated:
            sub = cls()
            _container(message, f).append(sub)
        else:
            sub = getattr(message, f.name)
            if sub is not None and not self.merge:
                raise tokenizer.ParseErrorPreviousToken(
                    f'Message type "{full}" should not have multiple "{f.name}" fields.'
                )
            if sub is None:
                sub = cls()
                setattr(message, f.name, sub)
        self.sub_message(tokenizer, sub, end_token)

    def scalar_field(self, tokenizer: Tokenizer, message: Any, f: FieldSpec, full: str) -> None:
        kind = f.kind
        value: Any
        if kind in _INT_RANGES:
            value = _consume_int(tokenizer, kind)
        elif kind == FLOAT:
            value = to_float32(tokenizer.ConsumeFloat())
        elif kind == DOUBLE:
            value = tokenizer.ConsumeFloat()
        elif kind == STRING:
            value = tokenizer.ConsumeString()
        elif kind == BYTES:
            value = tokenizer.ConsumeByteString()
        else:
            try:
                value = _parse_enum(f, tokenizer.token)
            except ValueError as err:
                raise tokenizer.ParseError(str(err)) from None
            tokenizer.NextToken()
        if f.repeated:
            _container(message, f).append(value)
        else:
            if not self.merge and getattr(message, f.name) is not None:
                raise tokenizer.ParseErrorPreviousToken(
                    f'Message type "{full}" should not have multiple "{f.name}" fields.'
                )
            setattr(message, f.name, value)

    # -- skipping unknown fields (allow_unknown_field) --

    def skip_contents(self, tokenizer: Tokenizer) -> None:
        if (
            tokenizer.TryConsume(":")
            and not tokenizer.LookingAt("{")
            and not tokenizer.LookingAt("<")
        ):
            if tokenizer.LookingAt("["):
                self.skip_list(tokenizer)
            else:
                _skip_value(tokenizer)
        else:
            self.skip_message(tokenizer)

    def skip_field(self, tokenizer: Tokenizer) -> None:
        if tokenizer.TryConsume("["):
            tokenizer.ConsumeIdentifier()
            count = 1
            while tokenizer.TryConsume("."):
                tokenizer.ConsumeIdentifier()
                count += 1
            if count == 3 and tokenizer.TryConsume("/"):
                tokenizer.ConsumeIdentifier()
                while tokenizer.TryConsume("."):
                    tokenizer.ConsumeIdentifier()
            tokenizer.Consume("]")
        else:
            tokenizer.ConsumeIdentifierOrNumber()
        self.skip_contents(tokenizer)
        if not tokenizer.TryConsume(","):
            tokenizer.TryConsume(";")

    def skip_message(self, tokenizer: Tokenizer) -> None:
        if tokenizer.TryConsume("<"):
            delimiter = ">"
        else:
            tokenizer.Consume("{")
            delimiter = "}"
        while not tokenizer.LookingAt(">") and not tokenizer.LookingAt("}"):
            self.skip_field(tokenizer)
        tokenizer.Consume(delimiter)

    def skip_list(self, tokenizer: Tokenizer) -> None:
        tokenizer.Consume("[")
        if not tokenizer.TryConsume("]"):
            while True:
                if tokenizer.LookingAt("<") or tokenizer.LookingAt("{"):
                    self.skip_message(tokenizer)
                else:
                    _skip_value(tokenizer)
                if tokenizer.TryConsume("]"):
                    break
                tokenizer.Consume(",")


def _skip_value(tokenizer: Tokenizer) -> None:
    if tokenizer.TryConsumeByteString() or tokenizer.TryConsumeIdentifier():
        return
    for kind in (INT64, UINT64):
        try:
            _consume_int(tokenizer, kind)
        except ParseError:
            continue
        return
    if not tokenizer.TryConsumeFloat():
        raise ParseError("Invalid field value: " + tokenizer.token)


def _consume_int(tokenizer: Tokenizer, kind: str) -> int:
    try:
        result = _parse_any_integer(tokenizer.token)
        lo, hi = _INT_RANGES[kind]
        if not lo <= result <= hi:
            raise ValueError(f"Value out of range: {result}")
    except ValueError as err:
        raise tokenizer.ParseError(str(err)) from None
    tokenizer.NextToken()
    return result


def _container(message: Any, f: FieldSpec) -> Any:
    """The repeated field's container, made if it was set to ``None`` or is read-only."""
    values = getattr(message, f.name)
    if values is None or not hasattr(values, "append"):
        # None, or a read-only view of a message decoded with copy=False: copy it out
        made = f.container()
        made.extend(values or ())
        setattr(message, f.name, made)
        return getattr(message, f.name)  # assigning stores a copy: the field's own
    return values


def _decoded(lines: Iterable[str | bytes]) -> Iterator[str]:
    for number, line in enumerate(lines, 1):
        if isinstance(line, str):
            yield line
            continue
        try:
            yield bytes(line).decode("utf-8")
        except UnicodeDecodeError as err:
            raise ParseError(f"not UTF-8: {err}", number, err.start + 1) from None


def _target(message: Any) -> Message:
    if is_message(message):
        target: Message = message
        return target
    raise TypeError(
        f"expected an onnxdata message to fill, got {type(message).__module__}."
        f"{type(message).__qualname__}"
    )


def _run(
    lines: Iterable[str | bytes],
    message: Any,
    allow_unknown_extension: bool,
    allow_field_number: bool,
    allow_unknown_field: bool,
    max_recursion_depth: int | None,
    merge: bool,
) -> Any:
    target = _target(message)
    if max_recursion_depth is not None:
        max_recursion_depth = _count(max_recursion_depth, "max_recursion_depth")
    parser = _Parser(
        bool(allow_unknown_extension),
        bool(allow_field_number),
        bool(allow_unknown_field),
        max_recursion_depth,
        merge,
    )
    try:
        parser.parse(lines, target)
    except RecursionError:
        raise ParseError("Message too deep: nested further than Python can follow") from None
    return target


def _lines(text: str | bytes) -> list[str] | list[bytes]:
    if isinstance(text, str):
        return text.split("\n")
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text).split(b"\n")
    raise TypeError(f"text must be str or bytes, not {type(text).__name__}")


def Parse(  # noqa: N802 - protobuf's name
    text: str | bytes,
    message: Any,
    allow_unknown_extension: bool = False,
    allow_field_number: bool = False,
    descriptor_pool: Any = None,
    allow_unknown_field: bool = False,
    max_recursion_depth: int | None = None,
) -> Any:
    """Read text format into ``message`` (an onnxdata message), in place, and return it.

    As protobuf's ``Parse``: the message is not cleared first; repeated fields
    are appended to; a singular field given twice (or already set) is an
    error.  ``descriptor_pool`` only matters for ``google.protobuf.Any``.

    Raises:
        ParseError: the text is not valid text format for the message; its
            line and column say where.
        TypeError: ``message`` is not an onnxdata message, or ``text`` is not
            str or bytes.
    """
    del descriptor_pool
    return _run(
        _lines(text),
        message,
        allow_unknown_extension,
        allow_field_number,
        allow_unknown_field,
        max_recursion_depth,
        merge=False,
    )


def Merge(  # noqa: N802 - protobuf's name
    text: str | bytes,
    message: Any,
    allow_unknown_extension: bool = False,
    allow_field_number: bool = False,
    descriptor_pool: Any = None,
    allow_unknown_field: bool = False,
    max_recursion_depth: int | None = None,
) -> Any:
    """Like :func:`Parse`, but a singular field given again takes the last value
    (and a message field given again is merged into).

    Raises:
        ParseError, TypeError: as :func:`Parse`.
    """
    del descriptor_pool
    return _run(
        _lines(text),
        message,
        allow_unknown_extension,
        allow_field_number,
        allow_unknown_field,
        max_recursion_depth,
        merge=True,
    )


def ParseLines(  # noqa: N802 - protobuf's name
    lines: Iterable[str | bytes],
    message: Any,
    allow_unknown_extension: bool = False,
    allow_field_number: bool = False,
    descriptor_pool: Any = None,
    allow_unknown_field: bool = False,
    max_recursion_depth: int | None = None,
) -> Any:
    """:func:`Parse` over an iterable of lines (without their newlines).

    Raises:
        ParseError, TypeError: as :func:`Parse`.
    """
    del descriptor_pool
    return _run(
        lines,
        message,
        allow_unknown_extension,
        allow_field_number,
        allow_unknown_field,
        max_recursion_depth,
        merge=False,
    )


def MergeLines(  # noqa: N802 - protobuf's name
    lines: Iterable[str | bytes],
    message: Any,
    allow_unknown_extension: bool = False,
    allow_field_number: bool = False,
    descriptor_pool: Any = None,
    allow_unknown_field: bool = False,
    max_recursion_depth: int | None = None,
) -> Any:
    """:func:`Merge` over an iterable of lines (without their newlines).

    Raises:
        ParseError, TypeError: as :func:`Parse`.
    """
    del descriptor_pool
    return _run(
        lines,
        message,
        allow_unknown_extension,
        allow_field_number,
        allow_unknown_field,
        max_recursion_depth,
        merge=True,
    )
