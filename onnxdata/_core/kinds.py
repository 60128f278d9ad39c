"""What a value of each field kind may be: one definition for every layer.

protobuf refuses the same values wherever they meet a field: a ``bool`` or a
``float`` for an integer field, an integer outside the kind's range, a
``str`` for a bytes field.  The encoder, the validator and the text and JSON
formats each word the refusal in their own vocabulary (an ``EncodeError``, a
line of a report, protobuf's ``ParseError`` text), but the rule itself is
here, once: the ranges in :data:`BOUNDS`, the tests in :func:`integer`,
:func:`in_range`, :func:`float32_overflows`, :func:`is_text` and
:func:`is_bytes`.

A kind is named as the ``.proto`` names its type (``"int32"``, ``"float"``),
the names the schema's fields carry.  Nothing here imports the schema, so the
schema can take these names and rules from here.
"""

from __future__ import annotations

import math
import operator

from .own_values import to_float32
from .wire import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, MASK32, MASK64

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = [
    "BOUNDS",
    "FLOAT32_MAX",
    "float32_overflows",
    "in_range",
    "int_bounds",
    "integer",
    "is_boolean",
    "is_boolean_type",
    "is_bytes",
    "is_text",
]

BOUNDS: dict[str, tuple[int, int]] = {
    "int32": (INT32_MIN, INT32_MAX),
    "int64": (INT64_MIN, INT64_MAX),
    "uint32": (0, MASK32),
    "uint64": (0, MASK64),
    "enum": (INT32_MIN, INT32_MAX),  # upb holds an enum value as an int32
}
"""The range of each integer kind, both ends included."""

FLOAT32_MAX = 3.4028234663852886e38
"""The largest finite float32, as a double (protobuf's ``type_checkers._FLOAT_MAX``)."""


def int_bounds(signed: bool, bits: int) -> tuple[int, int]:
    """The range of the integer kind of that sign and width (32 or 64 bits)."""
    return BOUNDS[f"{'int' if signed else 'uint'}{bits}"]


def in_range(kind: str, number: int) -> bool:
    """Whether ``number`` fits the integer kind ``kind`` (a key of :data:`BOUNDS`)."""
    lo, hi = BOUNDS[kind]
    return lo <= number <= hi


def integer(value: Any) -> int:
    """The integer ``value`` stands for, as protobuf takes it for an integer field.

    Anything with ``__index__`` is an integer (numpy's integers included); a
    ``bool`` is not, nor a ``float``, even a whole one: protobuf refuses both.

    Raises:
        TypeError: ``value`` is not an integer; the message names its type.
    """
    if type(value) is int:
        return value
    if is_boolean(value):
        raise TypeError("expected an int, got a boolean")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"expected an int, got {type(value).__name__}") from None


def float32_overflows(value: float) -> bool:
    """Whether the finite double ``value`` is beyond every float32 (it rounds to an infinity)."""
    return not math.isinf(value) and math.isinf(to_float32(value))


def is_text(value: Any) -> bool:
    """Whether ``value`` can be a string field's value: a ``str`` (or subclass)."""
    return isinstance(value, str)


def is_bytes(value: Any) -> bool:
    """Whether ``value`` can be a bytes field's value: ``bytes``, ``bytearray`` or a view."""
    return isinstance(value, (bytes, bytearray, memoryview))


def is_boolean(value: Any) -> bool:
    """Whether ``value`` is a Python or numpy bool: never an integer field's value.

    protobuf refuses ``True`` for an integer field.  numpy's bool has had an
    ``__index__`` in some versions and not in others (2.2 against 2.3), so a
    check by ``operator.index`` alone would accept it or not depending on the
    numpy installed; it is refused by its type instead, the same everywhere.
    numpy is not imported: the type is recognised by its module and name.
    """
    return is_boolean_type(type(value))


def is_boolean_type(cls: type) -> bool:
    """Whether values of ``cls`` are bools (see :func:`is_boolean`)."""
    return issubclass(cls, bool) or (
        getattr(cls, "__module__", None) == "numpy" and cls.__name__ in _NUMPY_BOOLS
    )


_NUMPY_BOOLS = frozenset({"bool", "bool_", "bool8"})
