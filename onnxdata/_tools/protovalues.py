"""Values as protobuf's setters take them, for the model makers of ``helper``.

onnxdata's messages are plain data: assigning a field never raises, and
``encode()`` refuses a bad value later, naming the field.  ``onnx.helper``'s
makers assign through protobuf, which refuses a bad value at once, with the
error classes code written for onnx catches (``TypeError`` for a wrong type,
``ValueError`` for an integer out of range or an unknown enum value,
``UnicodeDecodeError`` for bytes that are not UTF-8 in a string field).  The
makers pass every value through :func:`scalar` or :func:`messages`, so they
raise where and as onnx's do, and the message they return is one protobuf
would have built.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from .._core.clones import make_cloner
from .._core.foreign import foreign_name
from .._core.kinds import BOUNDS, is_boolean
from .._core.mapped import check_view
from .._core.own_values import to_float32
from .._core.schema import FieldSpec, is_message, spec_of
from .._messages.convert import as_message
from .._messages.message import Message

__all__ = [
    "blob",
    "convert",
    "copied",
    "integer",
    "messages",
    "scalar",
    "scalars",
    "set_scalar",
    "text",
]

_M = TypeVar("_M", bound=Message)

# protobuf's words for a value of the wrong type in a string field
_BAD_ARGUMENT = "bad argument type for built-in operation"


def text(value: Any) -> str:
    """``value`` as a string field takes it: a str, or UTF-8 bytes (decoded).

    Raises:
        TypeError: neither (protobuf's message).
        UnicodeDecodeError: bytes that are not UTF-8.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8")
    raise TypeError(_BAD_ARGUMENT)


def blob(value: Any) -> bytes:
    """``value`` as a bytes field takes it: bytes only (a str is encoded by the callers).

    Raises:
        TypeError: not bytes (protobuf's message).
    """
    if isinstance(value, bytes):
        return value
    raise TypeError(f"expected bytes, {type(value).__name__} found")


def integer(value: Any, f: FieldSpec) -> int:
    """``value`` as the integer (or enum) field ``f`` takes it.

    Raises:
        TypeError: a bool, or no integer (``__index__``), as protobuf.
        ValueError: out of the field's range, or not a value of its enum.
    """
    if is_boolean(value):
        raise TypeError(
            f"Field {spec_of(f.owner).full_name}.{f.name}: Expected an int, got a boolean."
        )
    number = operator.index(value)
    lo, hi = BOUNDS["enum"] if f.kind == "enum" or f.bounds is None else f.bounds
    if not lo <= number <= hi:
        raise ValueError(f"Value out of range: {number}")
    if f.kind == "enum" and number not in f.enum_values:
        raise ValueError(f"invalid enumerator {number}")
    return number


def _real(value: Any) -> float:
    """``value`` as a float field takes it: anything ``float()`` takes but text."""
    if isinstance(value, (str, bytes, bytearray)):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    return float(value)


def convert(f: FieldSpec, value: Any) -> Any:
    """``value`` converted for the singular scalar field ``f``, as protobuf stores it.

    A float field holds the float32 the value rounds to (what protobuf reads back).

    Raises:
        TypeError, ValueError, UnicodeDecodeError: see :func:`text`,
            :func:`blob`, :func:`integer`.
    """
    if f.kind == "string":
        return text(value)
    if f.kind == "bytes":
        return blob(value)
    if f.kind == "float":
        return to_float32(_real(value))
    if f.kind == "double":
        return _real(value)
    if f.kind == "bool":
        return bool(value)
    return integer(value, f)


def set_scalar(message: Message, name: str, value: Any) -> None:
    """``message.<name> = value`` as protobuf's generated class does it.

    Raises:
        AttributeError: no such field, or a repeated or message field, which
            protobuf does not let be assigned (its messages).
        TypeError, ValueError, UnicodeDecodeError: see :func:`convert`.
    """
    spec = spec_of(type(message))
    f = spec.by_name.get(name)
    if f is None:
        raise AttributeError(f'Protocol message {spec.name} has no "{name}" field.')
    if f.repeated:
        raise AttributeError(
            f'Assignment not allowed to map, or repeated field "{name}" in protocol message object.'
        )
    if f.kind == "message":
        raise AttributeError(
            f'Assignment not allowed to message field "{name}" in protocol message object.'
        )
    setattr(message, name, convert(f, value))


def scalar(cls: type[Message], name: str, value: Any) -> Any:
    """``value`` converted for the scalar field ``name`` of ``cls`` (repeated or not).

    Raises:
        TypeError, ValueError, UnicodeDecodeError: see :func:`convert`.
    """
    return convert(spec_of(cls).by_name[name], value)


def scalars(cls: type[Message], name: str, values: Iterable[Any]) -> list[Any]:
    """Each of ``values`` converted for the repeated scalar field ``name`` of ``cls``.

    Raises:
        TypeError: ``values`` is not iterable ("must assign iterable", as
            protobuf's ``extend``), or see :func:`convert`.
        ValueError, UnicodeDecodeError: see :func:`convert`.
    """
    if values is None or not isinstance(values, Iterable):
        raise TypeError("must assign iterable")
    f = spec_of(cls).by_name[name]
    return [convert(f, v) for v in values]


_CLONERS: dict[type, Callable[[Any], Any]] = {}


def _view_copied(value: Any) -> Any:
    """``value``, a view copied out of its buffer; a view of a mapped file that
    shrank raises ``MappedFileError`` (copying it was a ``SIGBUS``)."""
    if type(value) is memoryview:
        check_view(value)
        return bytes(value)
    return value


def _container_copied(value: Any) -> Any:
    if hasattr(value, "__copy__"):  # the repeated containers, arrays
        return value.__copy__()
    return list(value) if isinstance(value, list) else value


def _cloner(cls: type) -> Callable[[Any], Any]:
    """The function that clones a message of ``cls`` (made by ``_core``, which
    knows the slots), cached by class."""
    spec = spec_of(cls)  # a stand-in's class shares its message's spec
    found = _CLONERS.get(spec.cls)
    if found is not None:
        return found
    made = make_cloner(
        spec.cls, view=_view_copied, container=_container_copied, element=_copy_element
    )
    _CLONERS[spec.cls] = made
    return made


def _clone(message: Any) -> Any:
    """A deep copy of an onnxdata message, slot by slot.

    Equal to ``decode(encode())`` (the tests check the bytes against onnx's)
    at a fraction of the cost: strings and numbers are immutable and shared,
    containers are copied, sub-messages cloned, and a ``raw_data`` (or any
    bytes) view is copied out of its buffer, so nothing is shared with a
    mapped file.  A value the field cannot hold is kept as it is, for
    ``encode()`` to refuse with its path, as in the original.
    """
    cloner = _CLONERS.get(type(message)) or _cloner(type(message))
    return cloner(message)


def _copy_element(value: Any, cls: type[Message]) -> Any:
    """A sub-message copied: cloned, converted from onnx's, or kept if it is no message."""
    cloner = _CLONERS.get(type(value))
    if cloner is not None:
        return cloner(value)
    if is_message(value):
        return _clone(value)
    if foreign_name(value) is not None:
        return as_message(value, cls)
    return value


def copied(value: Any, cls: type[_M]) -> _M:
    """A copy of the message ``value`` (onnxdata's or onnx's) as ``cls``, as ``CopyFrom`` makes.

    Nothing of the copy is shared with ``value`` but immutable values (a
    ``raw_data`` view over a mapped file is copied out).

    Raises:
        TypeError: ``value`` is not a ``cls``.
        EncodeError: ``value`` nests deeper than the codec allows (found when
            copying it through the codec, which checks the depth).
    """
    message = as_message(value, cls)
    if message is not value:  # converted from onnx's: already a new message
        return message
    try:
        made: _M = _clone(message)
    except RecursionError:  # beyond Python's stack: the codec raises its depth error
        return cls.decode(message.encode())
    return made


def messages(values: Iterable[Any], cls: type[_M]) -> list[_M]:
    """Copies of ``values`` as ``cls``, as protobuf's ``extend`` of a repeated message field.

    Raises:
        TypeError: ``values`` is not iterable, or an item is not a ``cls``.
        EncodeError: an item holds a value that cannot be encoded.
    """
    if values is None or not isinstance(values, Iterable):
        raise TypeError("must assign iterable")
    return [copied(v, cls) for v in values]
