"""What a call gives, as one value ``==`` compares: its result, or the exception it raised.

The tests compare two ways of doing one thing (onnxdata against the oracle, a fast path
against the general one) on inputs that may be refused, so the result and the error are
compared alike.  :func:`outcome` is the one shape they take: ``("value", ...)`` or
``("raised", ...)``; each test says what it compares of each (``value=``, ``error=``) and
which exceptions are an outcome (``catching``): any other propagates and fails the test as
itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from onnxdata import DecodeError

Catching = type[BaseException] | tuple[type[BaseException], ...]


def same(value: Any) -> Any:
    """The value itself."""
    return value


def named(exc: BaseException) -> tuple[str, str]:
    """An exception's class name and text: what most comparisons hold equal."""
    return (type(exc).__name__, str(exc))


def class_of_type_errors(exc: BaseException) -> tuple[str, str | None]:
    """:func:`named`, but a ``TypeError`` by its class alone: onnx's words for one are
    nanobind's listing of the arguments it takes."""
    return ("TypeError", None) if isinstance(exc, TypeError) else named(exc)


def outcome(
    call: Callable[[], Any],
    catching: Catching = Exception,
    *,
    value: Callable[[Any], Any] = same,
    error: Callable[[Any], Any] = named,
) -> tuple[str, Any]:
    """``("value", value(call()))``, or ``("raised", error(exc))`` when ``call`` raises an
    exception of ``catching``."""
    try:
        result = call()
    except catching as exc:
        return ("raised", error(exc))
    return ("value", value(result))


def where(err: DecodeError) -> tuple[str, int, str]:
    """A decode error's reason, offset and field path."""
    return (err.reason, err.offset, err.path)


def decoded(
    cls: Any, data: bytes, copy: bool, value: Callable[[Any], Any] = same
) -> tuple[str, Any]:
    """The :func:`outcome` of ``cls.decode(data, copy=copy)``: ``value`` of the message, or
    the :class:`DecodeError`'s reason, offset and path."""
    return outcome(lambda: cls.decode(data, copy=copy), DecodeError, value=value, error=where)
