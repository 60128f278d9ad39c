"""Inferred types against the types a graph already declares: onnx's ``checkShapesAndTypes``,
``mergeShapesAndTypes`` and ``MaterializeSymbolicShape``.

Types are onnxdata's ``TypeProto`` messages, changed in place as onnx changes its pointers: a
merge writes into the declared type (a value info, an input, an output), and what a later node
reads is that merged type.
"""

from __future__ import annotations

from typing import Any

from .._messages.declarations import TensorProto
from .failures import fail_shape, fail_type
from .symbols import SymbolTable

# onnx's TypeProto value cases: the oneof's field numbers, printed as numbers in its messages.
CASE_NUMBER = {
    None: 0, "tensor_type": 1, "sequence_type": 4, "map_type": 5, "opaque_type": 7,
    "sparse_tensor_type": 8, "optional_type": 9,
}  # fmt: skip
TENSORS = ("tensor_type", "sparse_tensor_type")


def case_of(type_proto: Any) -> str | None:
    """The set member of a type's ``value`` oneof, or None."""
    case: str | None = type_proto.WhichOneof("value")
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
    if not inferred.HasField("shape") or not existing.HasField("shape"):
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
            left.HasField("dim_value")
            and right.HasField("dim_value")
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
        if left in ("sequence_type", "optional_type"):
            inferred = getattr(inferred, left).elem_type
            existing = getattr(existing, left).elem_type
        elif left == "map_type":
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
    if existing.HasField("domain") and inferred.HasField("domain"):
        normal = [("" if d == "ai.onnx" else d) for d in (existing.domain, inferred.domain)]
        if normal[0] != normal[1]:
            raise fail_type(
                "domain mismatch for opaque type: existing=",
                existing.domain,
                " inferred=",
                inferred.domain,
            )
    if existing.HasField("name") and inferred.HasField("name") and existing.name != inferred.name:
        raise fail_type(
            "name mismatch for opaque type: existing=", existing.name, " inferred=", inferred.name
        )


def _merge_tensors(inferred: Any, existing: Any) -> None:
    if existing.elem_type == 0:
        existing.elem_type = inferred.elem_type
    if not inferred.HasField("shape"):
        return
    if not existing.HasField("shape"):
        existing.shape.SetInParent()
        existing.shape.CopyFrom(inferred.shape)
        return
    existing_dims = existing.shape.dim
    for i, dim in enumerate(inferred.shape.dim):
        target = existing_dims[i]
        if dim.HasField("dim_value") or not (
            target.HasField("dim_value") or target.HasField("dim_param")
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
        if case in ("sequence_type", "optional_type"):
            inferred = getattr(inferred, case).elem_type
            existing = getattr(existing, case).elem_type
        elif case == "map_type":
            if existing.map_type.key_type == 0:
                existing.map_type.key_type = inferred.map_type.key_type
            inferred, existing = inferred.map_type.value_type, existing.map_type.value_type
        elif case == "opaque_type":
            into, source = existing.opaque_type, inferred.opaque_type
            if not into.HasField("domain") and source.HasField("domain"):
                into.domain = source.domain
            if not into.HasField("name") and source.HasField("name"):
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
            if holder.HasField("shape"):
                for dim in holder.shape.dim:
                    if not dim.HasField("dim_value") and not dim.HasField("dim_param"):
                        dim.dim_param = symbols.create()
            return
        if case in ("sequence_type", "optional_type"):
            type_proto = getattr(type_proto, case).elem_type
        elif case == "map_type":
            type_proto = type_proto.map_type.value_type
        else:
            return
