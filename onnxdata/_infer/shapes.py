"""The shape algebra every operator's rule shares: onnx's helpers of ``defs/shape_inference``
(``propagateElemTypeFromInputToOutput``, ``hasNInputShapes``, ``propagateShape``,
``updateOutputElemType``, ``multidirectionalBroadcastShapeInference``...), with its messages.

Types are ``TypeProto`` messages changed in place; where onnx reads a ``tensor_type`` of a
type that may be another kind, the empty default is read, as its C++ does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import fields
from .context import InferenceContext
from .failures import fail_shape, fail_type
from .merging import CASE_NUMBER, TENSORS, case_of

BOOL = 9


def has_shape(type_proto: Any) -> bool:
    """onnx's ``hasShape``: a tensor's shape, or that of a sequence's or optional's element."""
    while True:
        case = case_of(type_proto)
        if case in TENSORS:
            return bool(getattr(type_proto, case).HasField(fields.SHAPE))
        if case in (fields.SEQUENCE_TYPE, fields.OPTIONAL_TYPE):
            holder = getattr(type_proto, case)
            if not holder.HasField(fields.ELEM_TYPE):
                return False
            type_proto = holder.elem_type
        else:
            return False


def has_input_shape(ctx: InferenceContext, index: int) -> bool:
    if ctx.num_inputs <= index:
        return False
    found = ctx.input_type(index)
    return found is not None and has_shape(found)


def has_n_input_shapes(ctx: InferenceContext, count: int) -> bool:
    return all(has_input_shape(ctx, i) for i in range(count))


def tensor_shape(type_proto: Any) -> Any:
    """``type.tensor_type().shape()``: the empty default when it is not a tensor's."""
    return type_proto.tensor_type.shape


def _set_elem_type(elem_type: int, case: str, type_proto: Any) -> None:
    """onnx's ``setTensorElementType``."""
    if case in TENSORS:
        getattr(type_proto, case).elem_type = elem_type


def _from_tensor_input(ctx: InferenceContext, in_index: int, out_index: int) -> None:
    source = ctx.input_type(in_index)
    if source is None:
        raise fail_type("Input type was null")
    case = case_of(source)
    if case not in TENSORS:
        raise fail_type(
            "Input ",
            in_index,
            " expected to have tensor or sparse tensor type. Got: ",
            CASE_NUMBER[case],
        )
    elem_type = getattr(source, case).elem_type
    if elem_type == 0:
        raise fail_type("Element type of input ", in_index, " unknown")
    target = ctx.output_type(out_index)
    out_case = case_of(target)
    if out_case in TENSORS:
        _set_elem_type(elem_type, out_case, target)
    elif out_case is None:
        _set_elem_type(elem_type, case, target)
    else:
        raise fail_type(
            "Output ",
            out_index,
            " expected to have tensor or sparse tensor type. Got: ",
            CASE_NUMBER[out_case],
        )


def _copy_into(holder: Any, source: Any) -> None:
    holder.SetInParent()
    holder.CopyFrom(source)


def propagate_elem_type(ctx: InferenceContext, in_index: int, out_index: int) -> None:
    """onnx's ``propagateElemTypeFromInputToOutput``."""
    source = ctx.input_type(in_index)
    if source is None:
        raise fail_type("Input ", in_index, " expected to have type but instead is null")
    case = case_of(source)
    if case in TENSORS:
        _from_tensor_input(ctx, in_index, out_index)
    elif case in (fields.SEQUENCE_TYPE, fields.OPTIONAL_TYPE):
        word = "sequence" if case == fields.SEQUENCE_TYPE else "optional"
        holder = getattr(source, case)
        if not holder.HasField(fields.ELEM_TYPE):
            raise fail_type("Element type of ", word, " input ", in_index, " unknown")
        _copy_into(getattr(ctx.output_type(out_index), case).elem_type, holder.elem_type)
    elif case == fields.MAP_TYPE:
        holder = source.map_type
        if not holder.HasField(fields.KEY_TYPE):
            raise fail_type("Key type of map input ", in_index, " unknown")
        if not holder.HasField(fields.VALUE_TYPE):
            raise fail_type("Value type of map input ", in_index, " unknown")
        target = ctx.output_type(out_index).map_type
        target.key_type = holder.key_type
        _copy_into(target.value_type, holder.value_type)


def propagate_shape(source: Any, target: Any) -> None:
    """onnx's ``propagateShape``: the source's shape (if it has one) onto the target."""
    while True:
        case, target_case = case_of(source), case_of(target)
        if case != target_case:
            raise fail_shape(
                "Mismatch between inferred and declared type. Inferred=",
                CASE_NUMBER[case],
                " Declared=",
                CASE_NUMBER[target_case],
            )
        if case in TENSORS:
            if has_shape(source):
                _copy_into(getattr(target, case).shape, getattr(source, case).shape)
            return
        if case in (fields.SEQUENCE_TYPE, fields.OPTIONAL_TYPE):
            source, target = getattr(source, case).elem_type, getattr(target, case).elem_type
        elif case == fields.MAP_TYPE:
            source, target = source.map_type.value_type, target.map_type.value_type
        else:
            raise fail_shape("Unsupported Source/Target type=", CASE_NUMBER[case])


def propagate_shape_from_input(ctx: InferenceContext, in_index: int, out_index: int) -> None:
    """onnx's ``propagateShapeFromInputToOutput``."""
    target = ctx.output_type(out_index)
    propagate_shape(ctx.input_type(in_index), target)


def propagate_first_input(ctx: InferenceContext) -> None:
    """onnx's ``propagateShapeAndTypeFromFirstInput``."""
    propagate_elem_type(ctx, 0, 0)
    if has_n_input_shapes(ctx, 1):
        propagate_shape_from_input(ctx, 0, 0)


def update_output_elem_type(ctx: InferenceContext, index: int, elem_type: int) -> None:
    """onnx's ``updateOutputElemType`` for a tensor output."""
    target = ctx.output_type(index)
    case = case_of(target)
    if case not in (fields.TENSOR_TYPE, None):
        raise fail_type(
            "Output ",
            index,
            " expected to have tensor or sparse tensor type: 1 in ",
            ctx.display_name,
            ".",
        )
    target.tensor_type.elem_type = elem_type


def broadcast(shapes: Sequence[Any], result: Any) -> None:
    """onnx's ``multidirectionalBroadcastShapeInference``, appending to ``result``'s dims.

    A dim is the product of the known values (each 1 or the one value), else the one symbol
    all the unknown dims share, else unknown (an empty dim, named later by the walk).
    """
    result.SetInParent()
    rank = max((len(shape.dim) for shape in shapes), default=0)
    for i in range(rank):
        value = 1
        symbolic: Any = None
        symbols = 0
        for shape in shapes:
            dims = shape.dim
            if i < rank - len(dims):
                continue
            dim = dims[i - rank + len(dims)]
            if dim.HasField(fields.DIM_VALUE):
                if dim.dim_value != 1:
                    if value not in (dim.dim_value, 1):
                        raise fail_shape("Incompatible dimensions")
                    value = dim.dim_value
            elif symbols == 0:
                symbolic, symbols = dim, 1
            elif dim.dim_param != symbolic.dim_param:
                symbols += 1
        added = result.dim.add()
        if value != 1 or symbols == 0:
            added.dim_value = value
        elif symbols == 1:
            added.CopyFrom(symbolic)


def broadcast_inputs(ctx: InferenceContext, count: int) -> None:
    """The output 0 shape broadcast from the first ``count`` inputs' tensor shapes, when all
    have shapes (onnx's binary ops and ``Where``)."""
    if has_n_input_shapes(ctx, count):
        shapes = [tensor_shape(ctx.input_type(i)) for i in range(count)]
        broadcast(shapes, ctx.output_type(0).tensor_type.shape)


def output_shape(ctx: InferenceContext, index: int) -> Any:
    """onnx's ``getOutputShape``: the output's tensor shape, made present (its C++ takes the
    ``tensor_type`` even of a sparse output, which turns the output into a tensor)."""
    target = ctx.output_type(index)
    if case_of(target) not in (*TENSORS, None):
        raise fail_type(
            "Output ", index, " expected to have tensor type in ", ctx.display_name, "."
        )
    shape = target.tensor_type.shape
    shape.SetInParent()
    return shape


def append_input_dim(ctx: InferenceContext, in_index: int, out_index: int, dim: int) -> None:
    """onnx's ``appendSingleDimCopiedFromInputTypeToOutputType``."""
    target = ctx.output_type(out_index)
    source = ctx.input_type(in_index)
    if source is None:
        raise fail_type("Input: ", in_index, " is null.")
    case, out_case = case_of(source), case_of(target)
    if case != out_case:
        raise fail_type(
            "Input: ", in_index, " type: ", CASE_NUMBER[case], " does not match type of output: ",
            out_index, "type: ", CASE_NUMBER[out_case], " in ", ctx.display_name, ".",
        )  # fmt: skip
    if case not in TENSORS:
        raise fail_type(
            "Input ", in_index, " and Output ", out_index,
            " expected to have tensor or sparse tensor type in ", ctx.display_name, ".",
        )  # fmt: skip
    getattr(target, case).shape.dim.add().CopyFrom(getattr(source, case).shape.dim[dim])
