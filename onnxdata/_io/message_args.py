"""Every message class of ``onnx-ml.proto``, nested ones included, by protobuf's full name.

``MESSAGE_TYPES`` lists the data messages only (type detection iterates
it); the serializers and ``save_model`` take any message, so they find
classes here.  The model messages are imported on first use, keeping
``import onnxdata`` and the data-only paths as cheap as they were.
"""

from __future__ import annotations

from .._messages.catalog import all_message_types, by_full_name
from .._messages.convert import as_message
from .._messages.declarations import Message

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["all_message_types", "any_message", "by_full_name"]


def any_message(value: Any) -> Message:
    """``value`` as an onnxdata message: one of ours as it is, a protobuf message
    of an ONNX type converted through its bytes.

    Raises:
        TypeError: ``value`` is neither.
    """
    if isinstance(value, Message):
        return value
    return as_message(value, *all_message_types())
