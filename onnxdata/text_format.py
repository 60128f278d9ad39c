"""protobuf's text format for every message of onnx-ml.proto, without protobuf.

The same functions, arguments and output as ``google.protobuf.text_format``
(protobuf 7, the version onnx 1.23.2 installs), for onnxdata's messages and for
onnx's own protobuf messages (taken through their bytes), models included:

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
  refuses.  They fill the given message in place and return it.  A oneof
  holds one member: ``Parse`` refuses a second one (even one set before the
  parse), ``Merge`` switches to the last one given.
- :func:`message_str` is what ``str()`` of a protobuf (upb) message gives: the
  same layout with upb's own number formatting (``3`` where text_format writes
  ``3.0``) and no unknown fields.

What differs from protobuf (each is in docs/compat.md): :class:`ParseError` is
also a ``ValueError``; text that is not UTF-8 is a :class:`ParseError` on any
line (protobuf raises ``UnicodeDecodeError`` past the first); text holding
more than 100 messages inside one another is a :class:`ParseError`, as the
codec bounds nesting (protobuf reads a few hundred levels, then raises
``RecursionError``), and a message nested deeper is not printed;
``float_format`` and ``double_format`` (removed in protobuf 6) are kept,
with protobuf 5's meaning; ``PrintField`` and ``PrintFieldValue``, which
take protobuf descriptors, are not provided.
"""

from __future__ import annotations

import io

from ._core.foreign import describe
from ._core.schema import is_message
from ._messages.catalog import all_message_types
from ._messages.convert import as_message
from ._text.numbers import ParseBool, ParseFloat, ParseInteger
from ._text.text_errors import Error, ParseError
from ._text.text_parser import lines_of, run
from ._text.text_printer import Printer
from ._text.tokenizer import Tokenizer
from ._text.upb_printer import upb_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterable
    from typing import Any, TextIO

    from ._messages.declarations import Message

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


def _data(message: Any) -> Message:
    """An onnxdata message as it is (any schema class), or onnx's converted.

    Raises:
        TypeError: ``message`` is neither an onnxdata message nor onnx's
            protobuf message of a type of onnx-ml.proto.
    """
    if is_message(message):
        mine: Message = message
        return mine
    try:
        return as_message(message, *all_message_types())
    except TypeError:  # as_message would list all 31 classes
        raise TypeError(
            "expected a message of onnx-ml.proto (onnxdata's, or onnx's protobuf class), "
            f"got {describe(message)}"
        ) from None


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
    PrintMessage(
        message,
        out,
        indent,
        as_utf8,
        as_one_line,
        use_short_repeated_primitives,
        pointy_brackets,
        use_index_order,
        use_field_number,
        descriptor_pool,
        message_formatter,
        print_unknown_fields,
        force_colon,
        float_format=float_format,
        double_format=double_format,
    )
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
    # descriptor_pool resolves google.protobuf.Any payloads; the data messages hold none,
    # so any pool (protobuf's included) prints the same.
    del descriptor_pool
    printer = Printer(
        out,
        indent=indent,
        as_utf8=as_utf8,
        as_one_line=as_one_line,
        use_short_repeated_primitives=use_short_repeated_primitives,
        pointy_brackets=pointy_brackets,
        use_index_order=use_index_order,
        float_format=float_format,
        double_format=double_format,
        use_field_number=use_field_number,
        message_formatter=message_formatter,
        print_unknown_fields=print_unknown_fields,
        force_colon=force_colon,
    )
    printer.message(_data(message))


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
    return upb_text(_data(message))


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
        ParseError: the text is not valid text format for the message (a
            second member of a oneof, more than 100 messages inside one
            another included); its line and column say where.
        TypeError: ``message`` is not an onnxdata message, or ``text`` is not
            str or bytes.
    """
    del descriptor_pool
    return run(
        lines_of(text),
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
    return run(
        lines_of(text),
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
    return run(
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
    return run(
        lines,
        message,
        allow_unknown_extension,
        allow_field_number,
        allow_unknown_field,
        max_recursion_depth,
        merge=True,
    )
