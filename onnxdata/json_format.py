"""protobuf's JSON mapping for every message of onnx-ml.proto, without protobuf.

The same functions, arguments and output as ``google.protobuf.json_format``
(protobuf 7, the version onnx 1.23.2 installs), for onnxdata's messages and
for onnx's own protobuf messages (taken through their bytes), models included:

- :func:`MessageToJson` and :func:`MessageToDict` give exactly protobuf's text
  and dict: fields in field-number order, lowerCamelCase names (or the
  ``.proto`` names), 64-bit integers as strings, bytes as base64, float32 in
  its shortest round-tripping form, ``"NaN"``/``"Infinity"``/``"-Infinity"``,
  enum fields such as ``data_location`` by name, unknown fields dropped.
- :func:`Parse` and :func:`ParseDict` accept what protobuf accepts: either name
  spelling, integers as numbers or strings (``"1e3"``), enums by name or
  number, standard or URL-safe base64 with or without padding, ``null`` for
  "not set", ``max_recursion_depth`` levels of messages.  They fill the given
  onnxdata message in place, as protobuf does (a repeated field given is
  replaced, a message field is merged into), and return it.  Two members of
  one oneof in an object are refused; a member given replaces the one set
  before; ``null`` unsets only the member it names.

Both walk the schema (``spec_of(cls).fields``), so they work for any message
class built with ``_core.classes.message``; the implementation is in
``_text`` (``json_writer``, ``json_reader``, ``json_values``).

What differs from protobuf (each is in docs/compat.md): a float32 field takes
any JSON number that rounds to a finite float32, so protobuf's own output for
the largest float32 (``3.4028235e+38``, which protobuf refuses) reads back;
every failure of :func:`ParseDict` is a :class:`ParseError` (protobuf lets a
``TypeError`` out of it for some non-object inputs), and text that is not UTF-8
too; :class:`ParseError` and :class:`SerializeToJsonError` are also
``ValueError``; ``float_precision`` (removed in protobuf 6) is kept with
protobuf 5's meaning; more than 100 messages inside one another are refused
whatever ``max_recursion_depth`` allows, as the codec bounds nesting (and
a message nested deeper is not written); a string holding raw non-UTF-8 bytes (read with
``surrogateescape``) is written with its escape characters, where protobuf
writes the ``repr`` of the bytes.
"""

from __future__ import annotations

from typing import Any

from ._core.foreign import describe
from ._core.schema import is_message
from ._messages.catalog import all_message_types
from ._messages.convert import as_message
from ._text.json_errors import (
    EnumStringValueParseError,
    Error,
    ParseError,
    SerializeToJsonError,
)
from ._text.json_reader import load, parse_dict, target
from ._text.json_writer import Printer, to_json

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from ._messages.declarations import Message

__all__ = [
    "EnumStringValueParseError",
    "Error",
    "MessageToDict",
    "MessageToJson",
    "Parse",
    "ParseDict",
    "ParseError",
    "SerializeToJsonError",
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


def MessageToDict(  # noqa: N802 - protobuf's name
    message: Any,
    always_print_fields_with_no_presence: bool = False,
    preserving_proto_field_name: bool = False,
    use_integers_for_enums: bool = False,
    descriptor_pool: Any = None,
    *,
    unquote_int64_if_possible: bool = False,
    float_precision: int | None = None,
) -> dict[str, Any]:
    """The message as the dict ``json_format.MessageToDict`` gives.

    ``message`` is an onnxdata message or onnx's protobuf message of the same
    type.  ``always_print_fields_with_no_presence`` adds every empty repeated
    field as ``[]`` (every singular field of these proto2 messages has
    presence).  ``float_precision`` (protobuf 5's, removed in protobuf 6)
    writes float32 values with that many significant digits.
    ``descriptor_pool`` only matters for ``google.protobuf.Any``.

    Raises:
        TypeError: ``message`` is not a data message, or a field holds a value
            of the wrong type.
        SerializeToJsonError: an enum field holds a number its enum lacks, a
            value is out of its field's range, or messages are nested more
            than 100 deep.
    """
    del descriptor_pool
    printer = Printer(
        preserving_proto_field_name,
        use_integers_for_enums,
        always_print_fields_with_no_presence,
        unquote_int64_if_possible,
        float_precision,
    )
    return printer.message(_data(message), 0)


def MessageToJson(  # noqa: N802 - protobuf's name
    message: Any,
    preserving_proto_field_name: bool = False,
    indent: int | str | None = 2,
    sort_keys: bool = False,
    use_integers_for_enums: bool = False,
    descriptor_pool: Any = None,
    ensure_ascii: bool = True,
    always_print_fields_with_no_presence: bool = False,
    *,
    unquote_int64_if_possible: bool = False,
    float_precision: int | None = None,
) -> str:
    """The message as the text ``json_format.MessageToJson`` gives, byte for byte.

    Raises:
        TypeError, SerializeToJsonError: as :func:`MessageToDict`.
    """
    del descriptor_pool
    printer = Printer(
        preserving_proto_field_name,
        use_integers_for_enums,
        always_print_fields_with_no_presence,
        unquote_int64_if_possible,
        float_precision,
    )
    obj = printer.message(_data(message), 0)
    return to_json(obj, indent, sort_keys, ensure_ascii)


def Parse(  # noqa: N802 - protobuf's name
    text: str | bytes,
    message: Any,
    ignore_unknown_fields: bool = False,
    descriptor_pool: Any = None,
    max_recursion_depth: int = 100,
) -> Any:
    """Read JSON text into ``message`` (an onnxdata message), in place, and return it.

    Raises:
        ParseError: the text is not JSON, or not a valid mapping of the
            message (two members of a oneof, more than 100 messages inside
            one another included).
        TypeError: ``message`` is not an onnxdata message.
    """
    target(message)
    js = load(text)
    return ParseDict(js, message, ignore_unknown_fields, descriptor_pool, max_recursion_depth)


def ParseDict(  # noqa: N802 - protobuf's name
    js_dict: Any,
    message: Any,
    ignore_unknown_fields: bool = False,
    descriptor_pool: Any = None,
    max_recursion_depth: int = 100,
) -> Any:
    """Read a parsed JSON value into ``message`` (an onnxdata message), in place.

    Raises:
        ParseError: ``js_dict`` is not a valid mapping of the message (as
            :func:`Parse`).
        TypeError: ``message`` is not an onnxdata message.
    """
    del descriptor_pool
    return parse_dict(js_dict, message, ignore_unknown_fields, max_recursion_depth)
