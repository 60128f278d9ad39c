"""Messages from the ``onnx`` package, taken through their bytes.

Code moving off ``onnx`` has both kinds of message for a while:
``numpy_helper.to_array(model.graph.initializer[0])`` hands an onnx
``TensorProto`` to onnxdata.  Every public function that takes a message
passes it through :func:`as_message`, which accepts onnxdata's own classes
as they are and a protobuf message of the same ONNX type by serializing it
and decoding the bytes.  ``onnx`` is never imported: a protobuf message is
recognised by its ``DESCRIPTOR.full_name`` ("onnx.TensorProto"), and matched
to a class by the full name its schema declares (``MessageSpec.full_name``),
so this module knows no declaration: ``Message`` itself converts through it.
"""

from __future__ import annotations

from .._core.foreign import describe, foreign_name

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, TypeVar

    from .message import Message

    _M = TypeVar("_M", bound=Message)

__all__ = ["as_message"]


def as_message(value: Any, *classes: type[_M]) -> _M:
    """``value`` as an instance of one of ``classes`` (onnxdata message classes).

    An instance of one of them (or of a subclass) is returned as it is.  A
    protobuf message of the same ONNX type (``onnx.TensorProto`` for
    :class:`TensorProto`) is converted through its bytes, so the result is a
    new onnxdata message equal to it field for field, unknown fields included.

    Raises:
        TypeError: ``value`` is neither; the message names what was expected
            and what was given.
        DecodeError: the protobuf message's bytes do not decode (it holds a
            value protobuf itself would not parse back, which cannot happen
            for a message protobuf serialized).
    """
    if isinstance(value, classes):
        return value
    name = foreign_name(value)
    if name is not None:
        for cls in classes:
            if cls._SPEC.full_name == name:  # the schema's name, as protobuf's descriptor gives it
                return cls.decode(value.SerializeToString())
    wanted = " or ".join(f"{c._SPEC.name}" for c in classes)
    raise TypeError(
        f"expected a {wanted} (onnxdata's, or onnx's protobuf class), got {describe(value)}"
    )
