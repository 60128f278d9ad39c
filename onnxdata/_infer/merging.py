"""Inferred types against the types a graph already declares: onnx's ``checkShapesAndTypes``,
``mergeShapesAndTypes`` and ``MaterializeSymbolicShape``.

Types are onnxdata's ``TypeProto`` messages, changed in place as onnx changes its pointers: a
merge writes into the declared type (a value info, an input, an output), and what a later node
reads is that merged type.
"""

from __future__ import annotations

from typing import Any

from .._messages.declarations import TensorProto
from . import fields
from .failures import fail_shape, fail_type
from .symbols import SymbolTable

CASE_NUMBER = fields.CASE_NUMBER
TENSORS = (fields.TENSOR_TYPE, fields.SPARSE_TENSOR_TYPE)


def case_of(type_proto: Any) -> str | None:
    """The set member of a type's ``value`` oneof, or None."""
    case: str | None = type_proto.WhichOneof(fields.VALUE)
    return case


def _case_text(case: str | None) -> str:
    return "NOT_SET" if case is None else case


def elem_type_text(elem_type: int) -> str:
    """``TensorProto::DataType_Name``, or the number when it names no data type."""
    try:
        name: str = TensorProto.DataType.Name(elem_type)
    except ValueError:
        return str(elem_type)
    return name


def _check_tensors(inferred: Any, existing: Any) -> None:
    if inferred.elem_type and existing.elem_type and existing.elem_type != inferred.elem_type:
        raise fail_type(
            "Inferred elem type differs from existing elem type: (",
            inferred.elem_type,  # onnx 1.23.2's build prints the numbers, not the names
            ") vs (",
            existing.elem_type,
            ")",
        )
    if not inferred.HasField(fields.SHAPE) or not existing.HasField(fields.SHAPE):
        return
    inferred_dims, existing_dims = inferred.shape.dim, existing.shape.dim
    if len(inferred_dims) != len(existing_dims):
        raise fail_shape(
            "Inferred shape and existing shape differ in rank: (",
            len(inferred_dims),
            ") vs (",
            len(existing_dims),
            ")",
        )
    for i, (left, right) in enumerate(zip(inferred_dims, existing_dims, strict=True)):
        if (
            left.HasField(fields.DIM_VALUE)
            and right.HasField(fields.DIM_VALUE)
            and left.dim_value != right.dim_value
        ):
            raise fail_shape(
                "Inferred shape and existing shape differ in dimension ",
                i,
                ": (",
                left.dim_value,
                ") vs (",
                right.dim_value,
                ")",
            )


def check_shapes_and_types(inferred: Any, existing: Any) -> None:
    """onnx's ``checkShapesAndTypes``: raises :class:`NodeError` where they disagree."""
    while True:
        left, right = case_of(inferred), case_of(existing)
        if left is None or right is None:
            return
        if left != right:
            raise fail_type(
                "type case mismatch. existing=", _case_text(right), " inferred=", _case_text(left)
            )
        if left in TENSORS:
            _check_tensors(getattr(inferred, left), getattr(existing, right))
            return
        if left in (fields.SEQUENCE_TYPE, fields.OPTIONAL_TYPE):
            inferred = getattr(inferred, left).elem_type
            existing = getattr(existing, left).elem_type
        elif left == fields.MAP_TYPE:
            if inferred.map_type.key_type != existing.map_type.key_type:
                raise fail_type(
                    "key type mismatch from MapProto. existing=",
                    _data_type_string(existing.map_type.key_type),
                    " inferred=",
                    _data_type_string(inferred.map_type.key_type),
                )
            inferred, existing = inferred.map_type.value_type, existing.map_type.value_type
        else:  # opaque
            _check_opaque(inferred.opaque_type, existing.opaque_type)
            return


def _data_type_string(elem_type: int) -> str:
    """onnx's ``DataTypeUtils::ToDataTypeString``: the type's name in lower case."""
    return elem_type_text(elem_type).lower()


def _check_opaque(inferred: Any, existing: Any) -> None:
    if existing.HasField(fields.OPAQUE_DOMAIN) and inferred.HasField(fields.OPAQUE_DOMAIN):
        normal = [("" if d == "ai.onnx" else d) for d in (existing.domain, inferred.domain)]
        if normal[0] != normal[1]:
            raise fail_type(
                "domain mismatch for opaque type: existing=",
                existing.domain,
                " inferred=",
                inferred.domain,
            )
    if (
        existing.HasField(fields.OPAQUE_NAME)
        and inferred.HasField(fields.OPAQUE_NAME)
        and existing.name != inferred.name
    ):
        raise fail_type(
            "name mismatch for opaque type: existing=", existing.name, " inferred=", inferred.name
        )


def _merge_tensors(inferred: Any, existing: Any) -> None:
    if existing.elem_type == 0:
        existing.elem_type = inferred.elem_type
    if not inferred.HasField(fields.SHAPE):
        return
    if not existing.HasField(fields.SHAPE):
        existing.shape.SetInParent()
        existing.shape.CopyFrom(inferred.shape)
        return
    existing_dims = existing.shape.dim
    for i, dim in enumerate(inferred.shape.dim):
        target = existing_dims[i]
        if dim.HasField(fields.DIM_VALUE) or not (
            target.HasField(fields.DIM_VALUE) or target.HasField(fields.DIM_PARAM)
        ):
            target.CopyFrom(dim)


def merge_shapes_and_types(inferred: Any, existing: Any) -> None:
    """onnx's ``mergeShapesAndTypes``: checked first, then the inferred facts written into
    ``existing`` (values over symbols; a declared symbol kept over an unnamed dim)."""
    check_shapes_and_types(inferred, existing)
    while True:
        case = case_of(inferred)
        if case in TENSORS:
            _merge_tensors(getattr(inferred, case), getattr(existing, case))
            return
        if case in (fields.SEQUENCE_TYPE, fields.OPTIONAL_TYPE):
            inferred = getattr(inferred, case).elem_type
            existing = getattr(existing, case).elem_type
        elif case == fields.MAP_TYPE:
            if existing.map_type.key_type == 0:
                existing.map_type.key_type = inferred.map_type.key_type
            inferred, existing = inferred.map_type.value_type, existing.map_type.value_type
        elif case == fields.OPAQUE_TYPE:
            into, source = existing.opaque_type, inferred.opaque_type
            if not into.HasField(fields.OPAQUE_DOMAIN) and source.HasField(fields.OPAQUE_DOMAIN):
                into.domain = source.domain
            if not into.HasField(fields.OPAQUE_NAME) and source.HasField(fields.OPAQUE_NAME):
                into.name = source.name
            return
        else:
            return


def materialize(type_proto: Any, symbols: SymbolTable) -> None:
    """onnx's ``MaterializeSymbolicShape``: every dim with neither value nor symbol named."""
    while True:
        case = case_of(type_proto)
        if case in TENSORS:
            holder = getattr(type_proto, case)
            if holder.HasField(fields.SHAPE):
                for dim in holder.shape.dim:
                    if not dim.HasField(fields.DIM_VALUE) and not dim.HasField(fields.DIM_PARAM):
                        dim.dim_param = symbols.create()
            return
        if case in (fields.SEQUENCE_TYPE, fields.OPTIONAL_TYPE):
            type_proto = getattr(type_proto, case).elem_type
        elif case == fields.MAP_TYPE:
            type_proto = type_proto.map_type.value_type
        else:
            return
