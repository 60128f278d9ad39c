"""protobuf's text-format printer (``MessageToString``, ``PrintMessage``), over the schema.

Fields print in field-number order (``use_index_order``: declaration order),
float32 values in their shortest round-tripping form, strings and bytes with C
escapes, enum values by name, and unknown fields (``print_unknown_fields``)
as protobuf's Python printer shows them.
"""

from __future__ import annotations

import io
import math

from .._core.mapped import LIVE, check_value
from .._core.own_values import shortest_float32, to_float32
from .._core.schema import BYTES, DOUBLE, ENUM, FLOAT, MESSAGE, STRING, is_message, spec_of
from .._core.wire import LEN, SGROUP
from .escapes import escape
from .unknown import split_fields, unknown_fields
from .values import MAX_PRINT_DEPTH, bytes_of, checked_int, count, string_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Sequence
    from typing import Any, TextIO

    from .._core.schema import FieldSpec
    from .unknown import RawField

    Formatter = Callable[[Any, int, bool], str | None]

__all__ = ["Printer", "enum_text", "to_text"]


class Printer:
    """protobuf's text printer, with protobuf's options (and defaults), writing to ``out``.

    Raises:
        TypeError: an option has the wrong type (``indent`` not an int, a
            format that is not a str, a formatter that is not callable).
    """

    def __init__(
        self,
        out: TextIO,
        *,
        indent: int = 0,
        as_utf8: bool = True,
        as_one_line: bool = False,
        use_short_repeated_primitives: bool = False,
        pointy_brackets: bool = False,
        use_index_order: bool = False,
        float_format: str | None = None,
        double_format: str | None = None,
        use_field_number: bool = False,
        message_formatter: Formatter | None = None,
        print_unknown_fields: bool = False,
        force_colon: bool = False,
    ) -> None:
        for name, fmt in (("float_format", float_format), ("double_format", double_format)):
            if fmt is not None and not isinstance(fmt, str):
                raise TypeError(f"{name} must be a format spec string, not {type(fmt).__name__}")
        if message_formatter is not None and not callable(message_formatter):
            raise TypeError("message_formatter must be callable")
        self.out = out
        self.indent = count(indent, "indent")
        self.as_utf8 = bool(as_utf8)
        self.as_one_line = bool(as_one_line)
        self.short = bool(use_short_repeated_primitives)
        self.open, self.close = ("<", ">") if pointy_brackets else ("{", "}")
        self.index_order = bool(use_index_order)
        self.float_format = float_format
        self.double_format = float_format if double_format is None else double_format
        self.field_number = bool(use_field_number)
        self.formatter = message_formatter
        self.unknown = bool(print_unknown_fields)
        self.force_colon = bool(force_colon)
        self.depth = 0

    def end(self) -> str:
        return " " if self.as_one_line else "\n"

    def message(self, message: Any) -> None:
        """Print ``message`` (a message of a schema class) at the current indent.

        Raises:
            TypeError: a field holds a value of the wrong type.
            ValueError: a value is out of range, messages nest more than 100
                deep, or ``unknown_fields`` (printed) are not protobuf fields.
        """
        if self.formatter is not None:
            formatted = self.formatter(message, self.indent, self.as_one_line)
            if formatted is not None:
                self.out.write(" " * self.indent + formatted + self.end())
                return
        spec = spec_of(type(message))
        # As held, not by the property: an unset field prints nothing (reading
        # it would give its default, or a stand-in that nests for ever).
        if self.index_order:
            held: Sequence[Any] = [f.held(message) for f in spec.fields]
            fields = spec.fields
        else:
            held, fields = spec.held_numbered(message), spec.numbered  # one C call
        for f, value in zip(fields, held):  # noqa: B905 - see held_numbered
            if LIVE:  # a view of a mapped file that shrank: an error, not SIGBUS
                check_value(value)
            if not f.repeated:
                if value is not None:
                    self.field(f, value)
            elif value is None or not len(value):
                continue
            elif self.short and f.kind not in (MESSAGE, STRING, BYTES):
                self.name(f)
                self.out.write(" [")
                self.out.write(", ".join([self.scalar(f, v) for v in value]))
                self.out.write("]" + self.end())
            else:
                for item in value:
                    self.field(f, item)
        if self.unknown and message.unknown_fields:
            check_value(message.unknown_fields)
            self.unknown_set(unknown_fields(bytes(message.unknown_fields)))

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
        if self.depth > MAX_PRINT_DEPTH:
            raise ValueError(
                f"messages nested more than {MAX_PRINT_DEPTH} deep "
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
            return enum_text(f, value)
        if kind == STRING:
            return '"' + escape(string_bytes(value), self.as_utf8) + '"'
        if kind == BYTES:
            return '"' + escape(bytes_of(value), False) + '"'
        if kind == FLOAT:
            return self.float32(to_float32(float(value)))
        if kind == DOUBLE:
            value = float(value)
            if self.double_format is not None:
                return f"{value:{self.double_format}}"
            return str(value)
        return str(checked_int(f, value))

    def float32(self, value: float) -> str:
        if self.float_format is not None:
            return f"{value:{self.float_format}}"
        if math.isnan(value):
            return "nan"
        return str(shortest_float32(value))

    def unknown_set(self, fields: list[RawField]) -> None:
        out = self.out
        for f in fields:
            out.write(" " * self.indent + str(f.number))
            if f.wire_type == SGROUP:
                self.unknown_group(f.data)
            elif f.wire_type == LEN:
                self.unknown_payload(f.data)
            else:
                out.write(f": {f.data}" + self.end())

    def unknown_payload(self, data: bytes) -> None:
        """A length-delimited field: as a message if it reads whole as fields, else bytes."""
        try:
            inner, pos = split_fields(data, 0, len(data))
        except (ValueError, RecursionError):  # DecodeError is a ValueError
            pos = -1
        if pos == len(data):
            self.unknown_group(inner)
        else:
            self.out.write(': "' + escape(data, False) + '"' + self.end())

    def unknown_group(self, fields: list[RawField]) -> None:
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


def enum_text(f: FieldSpec, value: Any) -> str:
    """An enum value by its name, or its number when the enum has no such value."""
    number = int(value)
    assert f.enum is not None
    try:
        return f.enum.Name(number)
    except ValueError:
        return str(number)


def to_text(message: Any) -> str:
    """``MessageToString(message)`` with every option at protobuf's default.

    Raises:
        TypeError, ValueError: as :meth:`Printer.message`.
    """
    out = io.StringIO()
    Printer(out).message(message)
    return out.getvalue()
