"""What ``str()`` of a protobuf (upb) message gives: the text format's layout with
upb's own number formatting (``3`` where text_format writes ``3.0``) and no
unknown fields.
"""

from __future__ import annotations

from .._core.mapped import LIVE, check_value
from .._core.own_values import to_float32
from .._core.schema import BYTES, DOUBLE, ENUM, FLOAT, MESSAGE, STRING, is_message, spec_of
from .escapes import escape, escape_bytes
from .numbers import upb_double, upb_float
from .text_printer import enum_text
from .values import MAX_PRINT_DEPTH, bytes_of, checked_int, string_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .._core.schema import FieldSpec

__all__ = ["upb_text"]


def upb_text(message: Any) -> str:
    """``str()`` of the protobuf message ``message`` (a message of a schema class) is.

    Raises:
        TypeError: a field holds a value of the wrong type.
        ValueError: a value is out of range, or messages nest more than 100 deep.
    """
    out: list[str] = []
    _message(message, out, 0)
    return "".join(out)


def _message(message: Any, out: list[str], depth: int) -> None:
    spec = spec_of(type(message))
    if depth > MAX_PRINT_DEPTH:
        raise ValueError(f"messages nested more than {MAX_PRINT_DEPTH} deep")
    pad = "  " * depth
    for f, value in zip(spec.numbered, spec.held_numbered(message)):  # noqa: B905 - see held_numbered
        # value: None while unset, what is present prints
        if LIVE:  # a view of a mapped file that shrank: an error, not SIGBUS
            check_value(value)
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
                _message(item, out, depth + 1)
                out.append(f"{pad}}}\n")
            else:
                out.append(f"{pad}{f.name}: {_scalar(f, item)}\n")


def _scalar(f: FieldSpec, value: Any) -> str:
    kind = f.kind
    if kind == FLOAT:
        return upb_float(to_float32(float(value)))
    if kind == DOUBLE:
        return upb_double(float(value))
    if kind == STRING:  # upb keeps valid UTF-8 and escapes the other bytes
        return '"' + escape(string_bytes(value), True) + '"'
    if kind == BYTES:
        return '"' + escape_bytes(bytes_of(value)) + '"'
    if kind == ENUM:
        return enum_text(f, value)
    return str(checked_int(f, value))
