"""Every message class of ``onnx-ml.proto``, nested ones included, in one list.

``MESSAGE_TYPES`` (``declarations.py``) lists the seven data messages, the
candidates of type detection; the serializers, the fuzzing toolkit and
anything else that takes any message find the classes here.  The model
messages' modules are imported on the first call, so that ``import
onnxdata`` and the data-only paths do not pay for them.
"""

from __future__ import annotations

from functools import cache

from .._core.schema import MessageSpec, spec_of
from .declarations import MESSAGE_TYPES, Message

__all__ = ["NAME_FIELD", "all_message_types", "by_full_name"]

NAME_FIELD = "name"
"""The field that names a message, the same in every message that has one
(``NodeProto.name``, ``GraphProto.name``, ``TensorProto.name``, ...): an outline
shows it first."""


def _is_class(value: object) -> bool:
    return isinstance(value, type) and isinstance(getattr(value, "_SPEC", None), MessageSpec)


def _with_nested(cls: type[Message]) -> list[type[Message]]:
    found = [cls]
    for value in vars(cls).values():
        if _is_class(value) and value.__qualname__.startswith(cls.__qualname__ + "."):
            found += _with_nested(value)
    return found


@cache
def all_message_types() -> tuple[type[Message], ...]:
    """Every message class: the seven data messages first, then each declaring
    module's messages, each followed by those nested in it."""
    from . import declarations, devices, graphs, types

    found: list[type[Message]] = list(MESSAGE_TYPES)
    for module in (graphs, types, devices, declarations):
        for name in module.__all__:
            value = getattr(module, name)
            if _is_class(value):
                found += (cls for cls in _with_nested(value) if cls not in found)
    return tuple(found)


@cache
def by_full_name() -> dict[str, type[Message]]:
    """Protobuf's full name (``"onnx.TypeProto.Tensor"``) -> the class."""
    return {spec_of(cls).full_name: cls for cls in all_message_types()}
