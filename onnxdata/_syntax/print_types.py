"""Types and value infos as onnx's printer writes them.

``float[N,3]``, ``seq(float[])``, ``map(int64, float)``, ``optional(...)``,
``sparse_tensor(float[2])``, ``opaque(domain,name)``.  onnx's quirks are kept: a tensor
type with no shape prints ``[]`` and one with a shape of no dims (a scalar) prints
nothing; a dim is its value, its name (quoted unless an identifier) or ``?``; a
``TypeProto`` with no member set prints nothing at all.
"""

from __future__ import annotations

from .._core.schema import spec_of
from .._messages.graphs import ValueInfoProto
from .._messages.types import TensorShapeProto, TypeProto
from .print_tensors import element_type_name, name_text

__all__ = ["type_text", "value_info_text"]

_DIM_VALUE = spec_of(TensorShapeProto.Dimension).named.dim_value.held
_DIM_PARAM = spec_of(TensorShapeProto.Dimension).named.dim_param.held
_DIMS = spec_of(TensorShapeProto).named.dim.held
_TENSOR = spec_of(TypeProto).named.tensor_type.held
_SEQUENCE = spec_of(TypeProto).named.sequence_type.held
_MAP = spec_of(TypeProto).named.map_type.held
_OPTIONAL = spec_of(TypeProto).named.optional_type.held
_SPARSE = spec_of(TypeProto).named.sparse_tensor_type.held
_OPAQUE = spec_of(TypeProto).named.opaque_type.held
_TENSOR_SHAPE = spec_of(TypeProto.Tensor).named.shape.held
_SPARSE_SHAPE = spec_of(TypeProto.SparseTensor).named.shape.held
_ELEMENT = spec_of(TypeProto.Sequence).named.elem_type.held
_OPTIONAL_ELEMENT = spec_of(TypeProto.Optional).named.elem_type.held
_MAP_VALUE = spec_of(TypeProto.Map).named.value_type.held
_VALUE_TYPE = spec_of(ValueInfoProto).named.type.held
_VALUE_NAME = spec_of(ValueInfoProto).named.name.held


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
