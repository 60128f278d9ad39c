"""Every message class of ``onnx-ml.proto``, nested ones included, by protobuf's full name.

``MESSAGE_TYPES`` lists the data messages only (type detection iterates
it); the serializers and ``save_model`` take any message, so they find
classes here.  The model messages are imported on first use, keeping
``import onnxdata`` and the data-only paths as cheap as they were.
"""

from __future__ import annotations

from functools import cache

from .._core.schema import MESSAGE, spec_of
from .._messages.convert import as_message
from .._messages.declarations import MESSAGE_TYPES, Message

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["all_message_types", "any_message", "by_full_name"]


@cache
def all_message_types() -> tuple[type[Message], ...]:
    """Every message class: the top-level ones of each declaring module, then the
    messages their fields hold (``TypeProto.Tensor``, ``TensorProto.Segment``...)."""
    from .._messages import devices, graphs, types

    found: dict[type[Message], None] = dict.fromkeys(MESSAGE_TYPES)
    for module in (graphs, types, devices):
        found.update(dict.fromkeys(getattr(module, name) for name in module.__all__))
    pending = list(found)
    while pending:
        for f in spec_of(pending.pop()).fields:
            if f.kind == MESSAGE and f.message not in found:
                found[f.message] = None
                pending.append(f.message)
    return tuple(found)


@cache
def by_full_name() -> dict[str, type[Message]]:
    """Protobuf's full name ("onnx.ModelProto") -> the class."""
    return {spec_of(cls).full_name: cls for cls in all_message_types()}


def any_message(value: Any) -> Message:
    """``value`` as an onnxdata message: one of ours as it is, a protobuf message
    of an ONNX type converted through its bytes.

    Raises:
        TypeError: ``value`` is neither.
    """
    if isinstance(value, Message):
        return value
    return as_message(value, *all_message_types())
