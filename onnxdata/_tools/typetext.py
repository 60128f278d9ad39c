"""Short text for an ONNX ``TypeProto`` and a tensor's element type and shape.

``show`` prints a model's inputs and outputs with it, and the test-case
reader names declared types in its violations, so both say
``tensor(FLOAT)[N,3,224,224]`` the same way.  Shapes keep ``dim_param``
names; an unknown dimension is ``?``; a missing shape (any rank) is left
out.  TypeProto nests (a sequence of maps of optionals...), and a message
built in Python may even contain itself: the text stops at :data:`DEPTH`
levels with ``...`` instead of recursing without end.
"""

from __future__ import annotations

from .._core.schema import spec_of
from .._messages.datatypes import DATA_TYPES
from .._messages.types import TensorShapeProto, TypeProto

# Fields named through the schema: a rename in the declarations fails here, at import.
_SHAPE = spec_of(TypeProto.Tensor).named.shape.name

# The oneofs of TypeProto and of a dimension, named through the schema (both ``value``).
_TYPE_ONEOF = spec_of(TypeProto).named.tensor_type.oneof
_DIM_ONEOF = spec_of(TensorShapeProto.Dimension).named.dim_value.oneof
# The members of those oneofs (WhichOneof's answers), and the nested types' fields.
_DIM = spec_of(TensorShapeProto.Dimension).named
_DIM_VALUE, _DIM_PARAM = _DIM.dim_value.name, _DIM.dim_param.name
_TP = spec_of(TypeProto).named
_TENSOR, _SPARSE_TENSOR = _TP.tensor_type.name, _TP.sparse_tensor_type.name
_SEQUENCE, _OPTIONAL, _MAP = _TP.sequence_type.name, _TP.optional_type.name, _TP.map_type.name
_SEQUENCE_ELEMENT = spec_of(TypeProto.Sequence).named.elem_type.name
_OPTIONAL_ELEMENT = spec_of(TypeProto.Optional).named.elem_type.name
_MAP_VALUE = spec_of(TypeProto.Map).named.value_type.name

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["DEPTH", "dims_text", "elem_name", "shape_text", "type_text"]

DEPTH = 32  # nested types spelled out; deeper ones are "..."


def elem_name(elem_type: Any) -> str:
    """A ``TensorProto.DataType`` value's name; ``UNDEFINED`` for 0, the number for another."""
    if elem_type == 0:
        return "UNDEFINED"
    found = DATA_TYPES.get(elem_type) if isinstance(elem_type, int) else None
    return found.name if found is not None else str(elem_type)


def dims_text(dims: Any, limit: int | None = None) -> str:
    """``[2,3]`` for a tensor's ``dims`` (``[]``: a scalar); past ``limit`` dims,
    the first ``limit`` and the rank: ``[2,2,...(300 dims)]``."""
    if limit is not None and len(dims) > limit:
        shown = ",".join(str(d) for d in dims[:limit])
        return f"[{shown},...({len(dims)} dims)]"
    return "[" + ",".join(str(d) for d in dims) + "]"


def shape_text(shape: Any) -> str:
    """A ``TensorShapeProto`` as ``[N,3,?]``: each dim's value, its parameter name or ``?``."""
    parts = []
    for dim in shape.dim:
        which = dim.WhichOneof(_DIM_ONEOF)
        parts.append(str(dim.dim_value) if which == _DIM_VALUE else
                     dim.dim_param if which == _DIM_PARAM else "?")  # fmt: skip
    return "[" + ",".join(parts) + "]"


def type_text(tp: Any, depth: int = DEPTH) -> str:
    """``tp`` (a ``TypeProto``) as text: ``tensor(FLOAT)[N,3]``, ``seq(tensor(INT64))``,
    ``map(STRING,tensor(FLOAT))``, ``optional(...)``, ``sparse_tensor(FLOAT)[10,10]``,
    ``opaque(domain.name)``; ``unset`` when no member is set."""
    if depth <= 0:
        return "..."
    which = tp.WhichOneof(_TYPE_ONEOF)
    if which is None:
        return "unset"
    inner = getattr(tp, which)
    if which in (_TENSOR, _SPARSE_TENSOR):
        head = "tensor" if which == _TENSOR else "sparse_tensor"
        shape = shape_text(inner.shape) if inner.HasField(_SHAPE) else ""
        return f"{head}({elem_name(inner.elem_type)}){shape}"
    if which == _SEQUENCE:
        return f"seq({_nested(inner, _SEQUENCE_ELEMENT, depth)})"
    if which == _OPTIONAL:
        return f"optional({_nested(inner, _OPTIONAL_ELEMENT, depth)})"
    if which == _MAP:
        return f"map({elem_name(inner.key_type)},{_nested(inner, _MAP_VALUE, depth)})"
    name = ".".join(part for part in (inner.domain, inner.name) if part)
    return f"opaque({name})"


def _nested(msg: Any, field: str, depth: int) -> str:
    """The text of a nested TypeProto field; ``unset`` when it is (never a stand-in walked)."""
    if not msg.HasField(field):
        return "unset"
    return type_text(getattr(msg, field), depth - 1)
