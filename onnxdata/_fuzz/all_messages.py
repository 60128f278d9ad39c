"""Every message class of ``onnx-ml.proto``, nested ones included, for the fuzzing toolkit.

``MESSAGE_TYPES`` lists only the data messages (type detection iterates it);
the toolkit covers the model messages too, so it reads the declaring modules
(``__all__``) and each class's nested message classes.
"""

from __future__ import annotations

from .._core.schema import MessageSpec, spec_of
from .._messages import declarations, devices, graphs, types
from .._messages.declarations import MESSAGE_TYPES, Message


def _is_class(value: object) -> bool:
    return isinstance(value, type) and isinstance(getattr(value, "_SPEC", None), MessageSpec)


def _with_nested(cls: type[Message]) -> list[type[Message]]:
    found = [cls]
    for value in vars(cls).values():
        if _is_class(value) and value.__qualname__.startswith(cls.__qualname__ + "."):
            found += _with_nested(value)
    return found


def _collect() -> tuple[type[Message], ...]:
    found: list[type[Message]] = list(MESSAGE_TYPES)  # the data messages first, as before
    for module in (graphs, types, devices, declarations):
        for name in module.__all__:
            value = getattr(module, name)
            if _is_class(value):
                for cls in _with_nested(value):
                    if cls not in found:
                        found.append(cls)
    return tuple(found)


ALL_MESSAGES: tuple[type[Message], ...] = _collect()
"""Every message class: the seven data messages first, then the model messages."""

BY_FULL_NAME: dict[str, type[Message]] = {spec_of(cls).full_name: cls for cls in ALL_MESSAGES}
"""Each class by protobuf's full name (``"onnx.TypeProto.Tensor"``)."""
