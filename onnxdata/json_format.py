"""protobuf's JSON mapping for the data messages, without protobuf.

The same functions, arguments and output as ``google.protobuf.json_format``
(protobuf 7, the version onnx 1.23.2 installs), for onnxdata's messages and
for onnx's own protobuf messages (taken through their bytes):

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
  replaced, a message field is merged into), and return it.

Both walk the schema (``spec_of(cls).fields``), so they work for any message
class built with ``_schema.message``.

What differs from protobuf (each is in docs/compat.md): a float32 field takes
any JSON number that rounds to a finite float32, so protobuf's own output for
the largest float32 (``3.4028235e+38``, which protobuf refuses) reads back;
every failure of :func:`ParseDict` is a :class:`ParseError` (protobuf lets a
``TypeError`` out of it for some non-object inputs), and text that is not UTF-8
too; :class:`ParseError` and :class:`SerializeToJsonError` are also
``ValueError``; ``float_precision`` (removed in protobuf 6) is kept with
protobuf 5's meaning; a string holding raw non-UTF-8 bytes (read with
``surrogateescape``) is written with its escape characters, where protobuf
writes the ``repr`` of the bytes.
"""

from __future__ import annotations

import base64
import json
import math
import re
from typing import Any

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
    MessageSpec,
    is_boolean,
    is_message,
    spec_of,
)
from ._core.wire import MAX_DEPTH, own_bytes, shortest_float32, to_float32
from ._messages.convert import as_message
from ._messages.declarations import MESSAGE_TYPES, Message

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from ._core.schema import FieldSpec

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

_INT_RANGES = {
    INT32: (-(1 << 31), (1 << 31) - 1),
    INT64: (-(1 << 63), (1 << 63) - 1),
    UINT64: (0, (1 << 64) - 1),
}
_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_EXTENSION_NAME = re.compile(r"\[[a-zA-Z0-9\._]*\]$")
_UNPAIRED_SURROGATE = re.compile(
    "[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]"
)


class Error(Exception):
    """Every error of this module, as ``json_format.Error``."""


class SerializeToJsonError(Error, ValueError):
    """The message holds a value JSON cannot express (an enum number the enum lacks)."""


class ParseError(Error, ValueError):
    """The JSON is not a valid mapping of the message; the message says where."""


class EnumStringValueParseError(ParseError):
    """An enum name the enum lacks (skipped with ``ignore_unknown_fields``)."""


def _source(message: Any) -> Any:
    """An onnxdata message as it is (any schema class), or onnx's converted."""
    if is_message(message):
        return message
    return as_message(message, *MESSAGE_TYPES)


# -- writing ---------------------------------------------------------------------


class _Printer:
    def __init__(
        self,
        preserving_proto_field_name: bool,
        use_integers_for_enums: bool,
        always_print_fields_with_no_presence: bool,
        unquote_int64_if_possible: bool,
        float_precision: int | None,
    ) -> None:
        self.proto_names = preserving_proto_field_name
        self.enum_numbers = use_integers_for_enums
        self.always = always_print_fields_with_no_presence
        self.unquote = unquote_int64_if_possible
        if float_precision is not None and (
            isinstance(float_precision, bool) or not isinstance(float_precision, int)
        ):
            raise TypeError(f"float_precision must be an int, not {type(float_precision).__name__}")
        self.float_format = None if float_precision is None else f".{float_precision}g"

    def name(self, f: FieldSpec) -> str:
        return f.name if self.proto_names else f.json_name

    def message(self, message: Any, depth: int) -> dict[str, Any]:
        try:
            spec = spec_of(type(message))
        except TypeError:
            raise TypeError(f"not an onnxdata message: {type(message).__name__}") from None
        if depth > MAX_DEPTH:
            raise SerializeToJsonError(
                f"{spec.name}: messages nested more than {MAX_DEPTH} deep "
                "(a message that contains itself?)"
            )
        out: dict[str, Any] = {}
        for f in spec.numbered:
            value = getattr(message, f.name)
            try:
                if f.repeated:
                    if value is None or not len(value):
                        continue
                    if f.kind == MESSAGE:
                        out[self.name(f)] = [self.message(v, depth + 1) for v in value]
                    else:
                        out[self.name(f)] = [self.scalar(f, v) for v in value]
                elif value is not None:
                    out[self.name(f)] = (
                        self.message(value, depth + 1)
                        if f.kind == MESSAGE
                        else self.scalar(f, value)
                    )
            except SerializeToJsonError:
                raise
            except ValueError as err:
                raise SerializeToJsonError(f"Failed to serialize {f.name} field: {err}.") from err
        if self.always:
            for f in spec.fields:
                if f.repeated and self.name(f) not in out:
                    out[self.name(f)] = []
        return out

    def scalar(self, f: FieldSpec, value: Any) -> Any:
        kind = f.kind
        if kind == ENUM:
            number = _integer(f, value)
            if self.enum_numbers:
                return number
            assert f.enum is not None
            try:
                return f.enum(number).name
            except ValueError:
                raise SerializeToJsonError(
                    "Enum field contains an integer value which can not mapped to an enum value."
                ) from None
        if kind in (INT64, UINT64):
            number = _integer(f, value)
            if self.unquote and float(number) == number:
                return number
            return str(number)
        if kind == INT32:
            return _integer(f, value)
        if kind in (FLOAT, DOUBLE):
            real = float(value)
            if kind == FLOAT:
                real = to_float32(real)
            if math.isinf(real):
                return "-Infinity" if real < 0 else "Infinity"
            if math.isnan(real):
                return "NaN"
            if kind == FLOAT:
                if self.float_format is not None:
                    return float(format(real, self.float_format))
                return shortest_float32(real)
            return real
        if kind == BYTES:
            if not isinstance(value, (bytes, bytearray, memoryview)):
                raise TypeError(f"{f.name} holds {type(value).__name__}, not bytes")
            return base64.b64encode(own_bytes(value)).decode("ascii")
        if not isinstance(value, str):
            raise TypeError(f"{f.name} holds {type(value).__name__}, not str")
        return value


def _integer(f: FieldSpec, value: Any) -> int:
    if is_boolean(value) or not hasattr(value, "__index__"):
        raise TypeError(f"{f.name} holds {value!r}, not an integer")
    number = int(value)
    lo, hi = _INT_RANGES.get(f.kind, _INT_RANGES[INT32])
    if not lo <= number <= hi:
        raise ValueError(f"Value out of range: {number}")
    return number


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
    printer = _Printer(
        preserving_proto_field_name,
        use_integers_for_enums,
        always_print_fields_with_no_presence,
        unquote_int64_if_possible,
        float_precision,
    )
    return printer.message(_source(message), 0)


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
    printer = _Printer(
        preserving_proto_field_name,
        use_integers_for_enums,
        always_print_fields_with_no_presence,
        unquote_int64_if_possible,
        float_precision,
    )
    obj = printer.message(_source(message), 0)
    return json.dumps(obj, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii)


# -- reading ---------------------------------------------------------------------


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ParseError(f"Failed to load JSON: duplicate key {key}.")
        out[key] = value
    return out


def Parse(  # noqa: N802 - protobuf's name
    text: str | bytes,
    message: Any,
    ignore_unknown_fields: bool = False,
    descriptor_pool: Any = None,
    max_recursion_depth: int = 100,
) -> Any:
    """Read JSON text into ``message`` (an onnxdata message), in place, and return it.

    Raises:
        ParseError: the text is not JSON, or not a valid mapping of the message.
        TypeError: ``message`` is not an onnxdata message.
    """
    _target(message)
    if not isinstance(text, str):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as err:
            raise ParseError(f"Failed to load JSON: {err}.") from None
        except TypeError:
            raise TypeError(f"text must be str or bytes, not {type(text).__name__}") from None
    try:
        js = json.loads(text, object_pairs_hook=_no_duplicates)
    except (ValueError, RecursionError) as err:  # a duplicate key's ParseError too, as protobuf
        raise ParseError(f"Failed to load JSON: {err}.") from None
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
        ParseError: ``js_dict`` is not a valid mapping of the message.
        TypeError: ``message`` is not an onnxdata message.
    """
    del descriptor_pool
    target = _target(message)
    if isinstance(max_recursion_depth, bool) or not isinstance(max_recursion_depth, int):
        raise TypeError("max_recursion_depth must be an int")
    parser = _Parser(bool(ignore_unknown_fields), max_recursion_depth)
    try:
        parser.convert(js_dict, target, "")
    except ParseError:
        raise
    except RecursionError:
        raise ParseError("Failed to parse JSON: nested too deeply.") from None
    except (TypeError, ValueError, OverflowError) as err:
        raise ParseError(f"Failed to parse JSON: {type(err).__name__}: {err}.") from None
    return target


def _target(message: Any) -> Message:
    if is_message(message):
        target: Message = message
        return target
    raise TypeError(
        f"expected an onnxdata message to fill, got {type(message).__module__}."
        f"{type(message).__qualname__}"
    )


_NAMES: dict[MessageSpec, dict[str, FieldSpec]] = {}


def _names(spec: MessageSpec) -> dict[str, FieldSpec]:
    """Both spellings of every field name, the JSON name winning a clash."""
    names = _NAMES.get(spec)
    if names is None:
        names = {f.name: f for f in spec.fields}
        names.update((f.json_name, f) for f in spec.fields)
        _NAMES[spec] = names
    return names


class _Parser:
    def __init__(self, ignore_unknown_fields: bool, max_depth: int) -> None:
        self.ignore_unknown = ignore_unknown_fields
        self.max_depth = max_depth
        self.depth = 0

    def convert(self, js: Any, message: Any, path: str) -> None:
        self.depth += 1
        if self.depth > self.max_depth:
            raise ParseError(f"Message too deep. Max recursion depth is {self.max_depth}")
        spec = spec_of(type(message))
        path = path or spec.name.rpartition(".")[2]
        self.fields(js, message, spec, path)
        self.depth -= 1

    def fields(self, js: Any, message: Any, spec: MessageSpec, path: str) -> None:
        if isinstance(js, dict):
            keys: Any = js
        elif isinstance(js, (list, tuple, str)):
            keys = js  # protobuf iterates any iterable: [] and "" are empty messages
        else:
            raise TypeError(f"'{type(js).__name__}' object is not iterable")
        names = _names(spec)
        seen: list[Any] = []
        full = spec.full_name
        for name in keys:
            f = None
            try:
                f = names.get(name) if isinstance(name, str) else None
                if f is None:
                    _check_name(name)
                    if _EXTENSION_NAME.match(name):
                        raise ParseError(f"Message type {full} does not have extensions at {path}")
                    if self.ignore_unknown:
                        continue
                    known = [g.json_name for g in spec.fields]
                    raise ParseError(
                        f'Message type "{full}" has no field named "{name}" at "{path}".\n'
                        f' Available Fields(except extensions): "{known}"'
                    )
                if name in seen:
                    raise ParseError(
                        f'Message type "{full}" should not have multiple "{name}" fields '
                        f'at "{path}".'
                    )
                seen.append(name)
                value = js[name]
                self.field(message, f, name, value, path)
            except ParseError as err:
                if f is None:  # protobuf names the field only once it has found it
                    raise
                raise ParseError(f"Failed to parse {name} field: {err}.") from None
            except (ValueError, TypeError, OverflowError) as err:
                raise ParseError(f"Failed to parse {name} field: {err}.") from None

    def field(self, message: Any, f: FieldSpec, name: str, value: Any, path: str) -> None:
        at = f"{path}.{name}"
        if value is None:
            if f.repeated:
                _clear(message, f)
            else:
                setattr(message, f.name, None)
            return
        if f.repeated:
            container = _clear(message, f)
            if not isinstance(value, (list, tuple)):
                raise ParseError(f"repeated field {name} must be in [] which is {value} at {path}")
            for index, item in enumerate(value):
                where = f"{at}[{index}]"
                if item is None:
                    raise ParseError(
                        "null is not allowed to be used as an element in a repeated field "
                        f"at {where}"
                    )
                if f.kind == MESSAGE:
                    sub = f.message()
                    container.append(sub)
                    self.convert(item, sub, where)
                else:
                    try:
                        container.append(_scalar(f, item, where))
                    except EnumStringValueParseError:
                        if not self.ignore_unknown:
                            raise
            return
        if f.kind == MESSAGE:
            sub = getattr(message, f.name)
            if sub is None:
                sub = f.message()
                setattr(message, f.name, sub)
            self.convert(value, sub, at)
            return
        try:
            setattr(message, f.name, _scalar(f, value, at))
        except EnumStringValueParseError:
            if not self.ignore_unknown:
                raise


def _check_name(name: Any) -> None:
    """Refuse a name protobuf cannot even look up (it looks names up as UTF-8 text).

    Raises:
        TypeError: ``name`` is not a str.
        ValueError: ``name`` holds a lone surrogate.
    """
    if not isinstance(name, str):
        try:
            hash(name)
        except TypeError:
            raise TypeError(f"unhashable type: '{type(name).__name__}'") from None
        try:  # protobuf matches the name with a regular expression: its words, this Python's
            re.compile("").match(name)
        except TypeError as exc:
            raise TypeError(str(exc)) from None
        raise TypeError(f"expected string or bytes-like object, got '{type(name).__name__}'")
    name.encode("utf-8")


def _clear(message: Any, f: FieldSpec) -> Any:
    """Empty the repeated field ``f`` in place (or give it a new container) and return it."""
    container = getattr(message, f.name)
    if container is None:
        setattr(message, f.name, f.container())
        return getattr(message, f.name)  # assigning stores a copy: the field's own
    try:
        del container[:]
    except TypeError:  # a read-only view (a message decoded with copy=False)
        setattr(message, f.name, f.container())
        container = getattr(message, f.name)
    return container


def _scalar(f: FieldSpec, value: Any, path: str) -> Any:
    kind = f.kind
    try:
        if kind in _INT_RANGES:
            number = _int_in(value)
            lo, hi = _INT_RANGES[kind]
            if not lo <= number <= hi:
                raise ValueError(f"Value out of range: {number}")
            return number
        if kind in (FLOAT, DOUBLE):
            return _float_in(value, kind)
        if kind == BYTES:
            encoded = value.encode("utf-8") if isinstance(value, str) else value
            return base64.urlsafe_b64decode(encoded + b"=" * (4 - len(encoded) % 4))
        if kind == STRING:
            if _UNPAIRED_SURROGATE.search(value):
                raise ParseError("Unpaired surrogate")
            return value
        return _enum_in(f, value)
    except EnumStringValueParseError as err:
        raise EnumStringValueParseError(f"{err} at {path}") from None
    except ParseError as err:
        raise ParseError(f"{err} at {path}") from None


def _int_in(value: Any) -> int:
    if isinstance(value, float) and not value.is_integer():
        raise ParseError(f"Couldn't parse integer: {value}")
    if isinstance(value, str) and " " in value:
        raise ParseError(f'Couldn\'t parse integer: "{value}"')
    if isinstance(value, bool):
        raise ParseError(f"Bool value {value} is not acceptable for integer field")
    try:
        return int(value)
    except ValueError as err:
        try:
            as_float = float(value)
        except ValueError:
            raise err from None
        if not as_float.is_integer():
            raise ParseError(f'Couldn\'t parse non-integer string: "{value}"') from None
        return int(as_float)


def _float_in(value: Any, kind: str) -> float:
    if isinstance(value, float):
        if math.isnan(value):
            raise ParseError('Couldn\'t parse NaN, use quoted "NaN" instead')
        if math.isinf(value):
            if value > 0:
                raise ParseError(
                    'Couldn\'t parse Infinity or value too large, use quoted "Infinity" instead'
                )
            raise ParseError(
                'Couldn\'t parse -Infinity or value too small, use quoted "-Infinity" instead'
            )
        if kind == FLOAT and math.isinf(to_float32(value)):
            raise ParseError("Float value too large" if value > 0 else "Float value too small")
    if value == "nan":
        raise ParseError('Couldn\'t parse float "nan", use "NaN" instead')
    try:
        number = float(value)
    except ValueError:
        if isinstance(value, str) and value in _SPECIAL:
            number = _SPECIAL[value]
        else:
            raise ParseError(f"Couldn't parse float: {value}") from None
    return to_float32(number) if kind == FLOAT else number


def _enum_in(f: FieldSpec, value: Any) -> int:
    enum = f.enum
    assert enum is not None
    full = PACKAGE + enum.__qualname__
    if isinstance(value, str):
        value.encode("utf-8")  # protobuf looks names up as UTF-8: a lone surrogate fails
    member = enum.__members__.get(value) if isinstance(value, str) else None
    if member is not None:
        return int(member)
    if not isinstance(value, (str, int, float)):
        hash(value)  # an unhashable value is a TypeError, as protobuf's lookup gives
    try:
        number = int(value)
    except ValueError:
        raise EnumStringValueParseError(
            f"Invalid enum value {value} for enum type {full}"
        ) from None
    try:
        return int(enum(number))
    except ValueError:
        raise ParseError(f"Invalid enum value {value} for enum type {full}") from None
