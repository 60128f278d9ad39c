"""JSON values of each kind as protobuf's JSON parser reads them.

Integers as numbers or strings (``"1e3"``), floats as numbers or
``"NaN"``/``"Infinity"``/``"-Infinity"``, bytes as standard or URL-safe base64
with or without padding, enums by name or number.  Ranges are the kinds'
(``_core.kinds``); the words of a refusal are protobuf's.  One difference,
documented in docs/compat.md: a float32 field takes any JSON number that
rounds to a finite float32, so protobuf's own output for the largest float32
(``3.4028235e+38``, which protobuf refuses) reads back.
"""

from __future__ import annotations

import base64
import math
import re

from .._core.kinds import float32_overflows, in_range
from .._core.own_values import to_float32
from .._core.schema import BYTES, DOUBLE, FLOAT, INT32, INT64, PACKAGE, STRING, UINT64
from .json_errors import EnumStringValueParseError, ParseError

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .._core.schema import FieldSpec

__all__ = ["scalar"]

_INTEGERS = (INT32, INT64, UINT64)
_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_UNPAIRED_SURROGATE = re.compile(
    "[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]"
)


def scalar(f: FieldSpec, value: Any, path: str) -> Any:
    """The value of a scalar field (one element of a repeated one) that ``value`` spells.

    Raises:
        ParseError: protobuf would refuse the value; ``path`` ends the message.
        EnumStringValueParseError: an enum name the enum lacks.
        ValueError, TypeError, OverflowError: as protobuf's own conversions
            raise them; the caller words them as protobuf does.
    """
    kind = f.kind
    try:
        if kind in _INTEGERS:
            number = _int_in(value)
            if not in_range(kind, number):
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
        if kind == FLOAT and float32_overflows(value):
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
        enum.Name(number)
    except ValueError:
        raise ParseError(f"Invalid enum value {value} for enum type {full}") from None
    return number
