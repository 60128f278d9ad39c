"""Every message class of ``onnx-ml.proto``, nested ones included, for the fuzzing toolkit.

``MESSAGE_TYPES`` lists only the data messages (type detection iterates it);
the toolkit covers the model messages too, so it reads the declaring modules
(``__all__``) and each class's nested message classes.
"""

from __future__ import annotations

from .._messages.catalog import all_message_types, by_full_name
from .._messages.declarations import Message

ALL_MESSAGES: tuple[type[Message], ...] = all_message_types()
"""Every message class: the seven data messages first, then the model messages."""

BY_FULL_NAME: dict[str, type[Message]] = by_full_name()
"""Each class by protobuf's full name (``"onnx.TypeProto.Tensor"``)."""
