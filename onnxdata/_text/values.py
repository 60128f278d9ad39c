"""Field values as the printers take them: the bytes of strings and bytes, checked
integers, and the checks of the printers' own options.

What a kind accepts is :mod:`.._core.kinds`'s; the wording of a refusal is
the text format's (``dims holds True, not an integer``).
"""

from __future__ import annotations

from .._core.kinds import in_range, integer
from .._core.own_values import own_bytes, own_utf8

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .._core.schema import FieldSpec

__all__ = ["MAX_PRINT_DEPTH", "bytes_of", "checked_int", "count", "string_bytes"]

MAX_PRINT_DEPTH = 100
"""How deep the printers follow sub-messages: upb's limit, and a message that holds
itself is refused instead of looping."""


def string_bytes(value: Any) -> bytes:
    """A string field's UTF-8 bytes (raw bytes carried as surrogate escapes included)."""
    if isinstance(value, str):
        return own_utf8(value)
    return bytes_of(value)


def bytes_of(value: Any) -> bytes:
    """A bytes field's bytes: a subclass's own, not what its methods say
    (as upb writes them); a view (``decode(copy=False)``) copied."""
    return bytes(own_bytes(value))  # bytes() of an exact bytes, bytearray or memoryview


def checked_int(f: FieldSpec, value: Any) -> int:
    """The integer an integer field holds.

    Raises:
        TypeError: the value is not an integer (a bool is not one).
        ValueError: the value is out of the field's range.
    """
    try:
        number = integer(value)
    except TypeError:
        raise TypeError(f"{f.name} holds {value!r}, not an integer") from None
    if not in_range(f.kind, number):
        raise ValueError(f"{f.name} holds {number}, out of range for {f.kind}")
    return number


def count(value: Any, name: str) -> int:
    """An option that must be an int (``indent``, ``max_recursion_depth``).

    Raises:
        TypeError: ``value`` is not an int (a bool is not one).
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    return value
