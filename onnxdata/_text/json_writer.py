"""protobuf's JSON printer (``MessageToDict``, ``MessageToJson``), over the schema.

Fields in field-number order, lowerCamelCase names (or the ``.proto``
names), 64-bit integers as strings, bytes as base64, float32 in its shortest
round-tripping form, ``"NaN"``/``"Infinity"``/``"-Infinity"``, enum values by
name, unknown fields dropped.  What a value may be is the kinds'
(``_core.kinds``); the words of a refusal are protobuf's.
"""

from __future__ import annotations

import base64
import json
import math

from .._core.kinds import in_range, integer, is_bytes, is_text
from .._core.mapped import LIVE, check_value
from .._core.own_values import own_bytes, shortest_float32, to_float32
from .._core.schema import BYTES, DOUBLE, ENUM, FLOAT, INT32, INT64, MESSAGE, UINT64, spec_of
from .._core.wire import MAX_DEPTH
from .json_errors import SerializeToJsonError

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .._core.schema import FieldSpec

__all__ = ["Printer", "to_json"]


class Printer:
    """protobuf's JSON printer, with protobuf's options (and defaults): messages to dicts.

    Raises:
        TypeError: ``float_precision`` is not an int.
    """

    def __init__(
        self,
        preserving_proto_field_name: bool = False,
        use_integers_for_enums: bool = False,
        always_print_fields_with_no_presence: bool = False,
        unquote_int64_if_possible: bool = False,
        float_precision: int | None = None,
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
        """The dict of ``message`` (a message of a schema class), ``depth`` levels down.

        Raises:
            TypeError: ``message`` is not a message, or a field holds a value
                of the wrong type.
            SerializeToJsonError: a value JSON cannot express or out of
                range, or messages nested more than 100 deep.
        """
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
        for f, value in zip(spec.numbered, spec.held_numbered(message)):  # noqa: B905 - see held_numbered
            # value: None while unset, what is present prints
            if LIVE:  # a view of a mapped file that shrank: an error, not SIGBUS
                check_value(value)
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
                return f.enum.Name(number)
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
            return self.real(kind, value)
        if kind == BYTES:
            if not is_bytes(value):
                raise TypeError(f"{f.name} holds {type(value).__name__}, not bytes")
            return base64.b64encode(own_bytes(value)).decode("ascii")
        if not is_text(value):
            raise TypeError(f"{f.name} holds {type(value).__name__}, not str")
        return value

    def real(self, kind: str, value: Any) -> float | str:
        """A float or double: a JSON number, or the string of an infinity or a NaN."""
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


def _integer(f: FieldSpec, value: Any) -> int:
    """The integer an integer or enum field holds.

    Raises:
        TypeError: the value is not an integer (a bool is not one).
        ValueError: the value is out of the field's range (protobuf's words).
    """
    try:
        number = integer(value)
    except TypeError:
        raise TypeError(f"{f.name} holds {value!r}, not an integer") from None
    if not in_range(f.kind, number):
        raise ValueError(f"Value out of range: {number}")
    return number


def to_json(
    obj: dict[str, Any], indent: int | str | None, sort_keys: bool, ensure_ascii: bool
) -> str:
    """The text of a message's dict, as ``MessageToJson`` writes it."""
    return json.dumps(obj, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
