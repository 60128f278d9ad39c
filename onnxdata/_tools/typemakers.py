"""``onnx.helper``'s makers of TypeProto and ValueInfoProto (onnx 1.23.2).

A shape is a sequence of dims, each an int (``dim_value``), a str
(``dim_param``) or None (a dim with neither); ``shape=None`` leaves the shape
unset, while ``shape=[]`` sets an empty one (a scalar): protobuf writes the
difference, so onnx's consumers see it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._messages.graphs import ValueInfoProto
from .._messages.types import TensorShapeProto, TypeProto
from .protovalues import copied, scalar

__all__ = [
    "make_empty_tensor_value_info",
    "make_map_type_proto",
    "make_optional_type_proto",
    "make_sequence_type_proto",
    "make_sparse_tensor_type_proto",
    "make_sparse_tensor_value_info",
    "make_tensor_sequence_value_info",
    "make_tensor_type_proto",
    "make_tensor_value_info",
    "make_value_info",
]

Shape = Sequence[str | int | None] | None
Dim = TensorShapeProto.Dimension


def _shape(shape: Sequence[Any], denotation: list[str] | None, what: str) -> TensorShapeProto:
    if denotation and len(denotation) != len(shape):
        raise ValueError("Invalid shape_denotation. Must be of the same length as shape.")
    dims = []
    for i, d in enumerate(shape):
        dim = Dim()
        if d is None:
            pass
        elif isinstance(d, int):
            dim.dim_value = scalar(Dim, "dim_value", d)
        elif isinstance(d, str):
            dim.dim_param = d
        else:
            raise ValueError(f"Invalid item in shape: {d}. Needs to be of int or {what}.")
        if denotation:
            dim.denotation = scalar(Dim, "denotation", denotation[i])
        dims.append(dim)
    return TensorShapeProto(dim=dims)


def make_tensor_type_proto(
    elem_type: int, shape: Shape, shape_denotation: list[str] | None = None
) -> TypeProto:
    """A tensor TypeProto of ``elem_type`` (any int32, as protobuf) and ``shape``.

    Raises:
        ValueError: a dim that is neither int, str nor None; a denotation list
            of another length than the shape; a number out of range.
        TypeError: ``elem_type`` or a denotation of the wrong type.
    """
    tensor = TypeProto.Tensor(elem_type=scalar(TypeProto.Tensor, "elem_type", elem_type))
    if shape is not None:
        tensor.shape = _shape(shape, shape_denotation, "str")
    return TypeProto(tensor_type=tensor)


def make_sparse_tensor_type_proto(
    elem_type: int, shape: Shape, shape_denotation: list[str] | None = None
) -> TypeProto:
    """A sparse tensor TypeProto of ``elem_type`` and ``shape``.

    Raises:
        ValueError, TypeError: see :func:`make_tensor_type_proto`.
    """
    cls = TypeProto.SparseTensor
    sparse = cls(elem_type=scalar(cls, "elem_type", elem_type))
    if shape is not None:
        sparse.shape = _shape(shape, shape_denotation, "text")
    return TypeProto(sparse_tensor_type=sparse)


def make_sequence_type_proto(inner_type_proto: TypeProto) -> TypeProto:
    """A sequence TypeProto of elements of a copy of ``inner_type_proto``.

    Raises:
        TypeError: ``inner_type_proto`` is not a TypeProto.
    """
    inner = copied(inner_type_proto, TypeProto)
    return TypeProto(sequence_type=TypeProto.Sequence(elem_type=inner))


def make_optional_type_proto(inner_type_proto: TypeProto) -> TypeProto:
    """An optional TypeProto of a copy of ``inner_type_proto``.

    Raises:
        TypeError: ``inner_type_proto`` is not a TypeProto.
    """
    inner = copied(inner_type_proto, TypeProto)
    return TypeProto(optional_type=TypeProto.Optional(elem_type=inner))


def make_map_type_proto(key_type: int, value_type: TypeProto) -> TypeProto:
    """A map TypeProto from ``key_type`` (a data type) to a copy of ``value_type``.

    Raises:
        TypeError: ``value_type`` is not a TypeProto, or ``key_type`` not an integer.
        ValueError: ``key_type`` is outside int32.
    """
    key = scalar(TypeProto.Map, "key_type", key_type)
    value = copied(value_type, TypeProto)
    return TypeProto(map_type=TypeProto.Map(key_type=key, value_type=value))


def _value_info(name: str, doc_string: str, type_proto: TypeProto | None) -> ValueInfoProto:
    info = ValueInfoProto(name=scalar(ValueInfoProto, "name", name))
    if doc_string:
        info.doc_string = scalar(ValueInfoProto, "doc_string", doc_string)
    if type_proto is not None:
        info.type = type_proto
    return info


def make_value_info(name: str, type_proto: TypeProto, doc_string: str = "") -> ValueInfoProto:
    """A ValueInfoProto named ``name`` with a copy of ``type_proto``.

    Raises:
        TypeError: ``type_proto`` is not a TypeProto, or a name is not str.
    """
    return _value_info(name, doc_string, copied(type_proto, TypeProto))


def make_empty_tensor_value_info(name: str) -> ValueInfoProto:
    """A ValueInfoProto with only a name (an optional input or output left out).

    Raises:
        TypeError: ``name`` is not str.
    """
    return _value_info(name, "", None)


def make_tensor_value_info(
    name: str,
    elem_type: int,
    shape: Shape,
    doc_string: str = "",
    shape_denotation: list[str] | None = None,
) -> ValueInfoProto:
    """A ValueInfoProto of a tensor type (see :func:`make_tensor_type_proto`).

    Raises:
        ValueError, TypeError: see :func:`make_tensor_type_proto`.
    """
    type_proto = make_tensor_type_proto(elem_type, shape, shape_denotation)
    return _value_info(name, doc_string, type_proto)


def make_sparse_tensor_value_info(
    name: str,
    elem_type: int,
    shape: Shape,
    doc_string: str = "",
    shape_denotation: list[str] | None = None,
) -> ValueInfoProto:
    """A ValueInfoProto of a sparse tensor type (see :func:`make_sparse_tensor_type_proto`).

    Raises:
        ValueError, TypeError: see :func:`make_tensor_type_proto`.
    """
    type_proto = make_sparse_tensor_type_proto(elem_type, shape, shape_denotation)
    return _value_info(name, doc_string, type_proto)


def make_tensor_sequence_value_info(
    name: str,
    elem_type: int,
    shape: Shape,
    doc_string: str = "",
    elem_shape_denotation: list[str] | None = None,
) -> ValueInfoProto:
    """A ValueInfoProto of a sequence of tensors of ``elem_type`` and ``shape``.

    Raises:
        ValueError, TypeError: see :func:`make_tensor_type_proto`.
    """
    tensor = make_tensor_type_proto(elem_type, shape, elem_shape_denotation)
    return _value_info(name, doc_string, make_sequence_type_proto(tensor))
