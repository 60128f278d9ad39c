"""Every message class the printers and parsers take, found through the schema.

``text_format`` and ``json_format`` accept onnx's protobuf messages too,
converted through their bytes to the onnxdata class of the same full name;
the classes a model can hold are those reachable from its root through
message fields (``MessageSpec.children``), nested classes included, so no
list of names is kept here.
"""

from __future__ import annotations

from .._core.schema import spec_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable

__all__ = ["reachable"]


def reachable(roots: Iterable[type]) -> tuple[type, ...]:
    """``roots`` and every message class their fields hold, at any depth, each once.

    Iterative, so a schema that nests deeply or refers to itself
    (``TypeProto.Sequence.elem_type``) costs one visit per class.
    """
    found: dict[type, None] = {}
    todo = list(roots)
    while todo:
        cls = todo.pop()
        if cls in found:
            continue
        found[cls] = None
        todo.extend(f.message for f in spec_of(cls).children())
    return tuple(found)
