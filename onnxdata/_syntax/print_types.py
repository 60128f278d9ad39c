"""Types and value infos as onnx's printer writes them.

``float[N,3]``, ``seq(float[])``, ``map(int64, float)``, ``optional(...)``,
``sparse_tensor(float[2])``, ``opaque(domain,name)``.  onnx's quirks are kept: a tensor
type with no shape prints ``[]`` and one with a shape of no dims (a scalar) prints
nothing; a dim is its value, its name (quoted unless an identifier) or ``?``; a
``TypeProto`` with no member set prints nothing at all.
"""

from __future__ import annotations

from .._core.access import held
from .._messages.graphs import ValueInfoProto
from .._messages.types import TensorShapeProto, TypeProto
from .print_tensors import element_type_name, name_text

__all__ = ["type_text", "value_info_text"]

_DIM_VALUE = held(TensorShapeProto.Dimension, "dim_value")
_DIM_PARAM = held(TensorShapeProto.Dimension, "dim_param")
_DIMS = held(TensorShapeProto, "dim")
_TENSOR = held(TypeProto, "tensor_type")
_SEQUENCE = held(TypeProto, "sequence_type")
_MAP = held(TypeProto, "map_type")
_OPTIONAL = held(TypeProto, "optional_type")
_SPARSE = held(TypeProto, "sparse_tensor_type")
_OPAQUE = held(TypeProto, "opaque_type")
_TENSOR_SHAPE = held(TypeProto.Tensor, "shape")
_SPARSE_SHAPE = held(TypeProto.SparseTensor, "shape")
_ELEMENT = held(TypeProto.Sequence, "elem_type")
_OPTIONAL_ELEMENT = held(TypeProto.Optional, "elem_type")
_MAP_VALUE = held(TypeProto.Map, "value_type")
_VALUE_TYPE = held(ValueInfoProto, "type")
_VALUE_NAME = held(ValueInfoProto, "name")


def _dim_text(dim: TensorShapeProto.Dimension) -> str:
    value = _DIM_VALUE(dim)
    if value is not None:
        return str(value)
    param = _DIM_PARAM(dim)
    return "?" if param is None else name_text(param)


def _shape_text(shape: TensorShapeProto | None) -> str:
    """``[d,...]``; nothing for a shape of no dims; ``[]`` for no shape (onnx's way)."""
    if shape is None:
        return "[]"
    dims = _DIMS(shape)
    return "[" + ",".join(map(_dim_text, dims)) + "]" if dims else ""


def _inner(held_type: TypeProto | None) -> str:
    return "" if held_type is None else type_text(held_type)


def type_text(tp: TypeProto) -> str:
    """One type as onnx prints it; the empty string for a type with nothing set."""
    tensor = _TENSOR(tp)
    if tensor is not None:
        return element_type_name(tensor.elem_type) + _shape_text(_TENSOR_SHAPE(tensor))
    sequence = _SEQUENCE(tp)
    if sequence is not None:
        return f"seq({_inner(_ELEMENT(sequence))})"
    mapped = _MAP(tp)
    if mapped is not None:
        key = element_type_name(mapped.key_type)
        return f"map({key}, {_inner(_MAP_VALUE(mapped))})"
    optional = _OPTIONAL(tp)
    if optional is not None:
        return f"optional({_inner(_OPTIONAL_ELEMENT(optional))})"
    sparse = _SPARSE(tp)
    if sparse is not None:
        shape = _shape_text(_SPARSE_SHAPE(sparse))
        return f"sparse_tensor({element_type_name(sparse.elem_type)}{shape})"
    opaque = _OPAQUE(tp)
    if opaque is not None:  # domain and name bare, as onnx writes them
        domain = f"{opaque.domain}," if opaque.domain else ""
        return f"opaque({domain}{opaque.name})"
    return ""


def value_info_text(value_info: ValueInfoProto) -> str:
    """``type name``, the name quoted unless it is an identifier."""
    tp = _VALUE_TYPE(value_info)
    name = _VALUE_NAME(value_info)
    return f"{_inner(tp)} {name_text(name or '')}"
