"""Messages from the ``onnx`` package, recognised without importing it.

Code moving off ``onnx`` has both kinds of message for a while.  A protobuf
message is recognised by its ``DESCRIPTOR.full_name`` ("onnx.TensorProto"),
so ``onnx`` and ``protobuf`` are never imported; the conversion through the
bytes is ``_messages.convert.as_message``.

onnxdata's own messages have a ``DESCRIPTOR`` too (``descriptors.py``), as
protobuf's do: a class built from a schema (any copy of it) is never foreign,
whatever it has, so every test of foreignness goes through this module.
"""

from __future__ import annotations

from .schema import MessageSpec, is_message, spec_of

__all__ = ["describe", "foreign_class_name", "foreign_name"]


def foreign_class_name(cls: object) -> str | None:
    """The protobuf full name ("onnx.TensorProto") of a class that is not onnxdata's
    and has a ``DESCRIPTOR`` naming one, else ``None``."""
    if isinstance(getattr(cls, "_SPEC", None), MessageSpec):
        return None  # onnxdata's own (its DESCRIPTOR is made from the schema)
    name = getattr(getattr(cls, "DESCRIPTOR", None), "full_name", None)
    return name if isinstance(name, str) else None


def foreign_name(value: object) -> str | None:
    """The protobuf full name ("onnx.TensorProto") of a protobuf message, else ``None``
    (for onnxdata's own messages too)."""
    name = foreign_class_name(type(value))
    if name is not None and callable(getattr(value, "SerializeToString", None)):
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
