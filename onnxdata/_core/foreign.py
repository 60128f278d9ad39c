"""Messages from the ``onnx`` package, recognised without importing it.

Code moving off ``onnx`` has both kinds of message for a while.  A protobuf
message is recognised by its ``DESCRIPTOR.full_name`` ("onnx.TensorProto"),
so ``onnx`` and ``protobuf`` are never imported; the conversion through the
bytes is ``_messages.convert.as_message``.
"""

from __future__ import annotations

from .schema import is_message, spec_of

__all__ = ["describe", "foreign_name"]


def foreign_name(value: object) -> str | None:
    """The protobuf full name ("onnx.TensorProto") of a protobuf message, else ``None``."""
    descriptor = getattr(type(value), "DESCRIPTOR", None)
    name = getattr(descriptor, "full_name", None)
    if isinstance(name, str) and callable(getattr(value, "SerializeToString", None)):
        return name
    return None


def describe(value: object) -> str:
    """How an error message names ``value``: its protobuf type, or its Python type."""
    name = foreign_name(value)
    if name is not None:
        return f"a protobuf {name}"
    if is_message(value):
        return f"onnxdata.{spec_of(type(value)).name}"
    return f"{type(value).__module__}.{type(value).__qualname__}".removeprefix("builtins.")
