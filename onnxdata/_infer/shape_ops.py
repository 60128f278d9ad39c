"""``Constant``, ``Shape`` and ``Size``: the operators whose outputs describe shapes, with
their data propagation (what ``Shape`` returns is the input's dims, which later rules read).
"""

from __future__ import annotations

from typing import Any

from . import fields
from .context import InferenceContext
from .failures import fail_shape
from .propagation import DataPropagationContext, register_propagator, shape_values
from .rulebook import register
from .shapes import has_n_input_shapes, update_output_elem_type

_INT64, _FLOAT, _STRING = 7, 1, 8


def _output_shape(ctx: InferenceContext) -> Any:
    """onnx's ``getOutputShape`` of output 0 (a tensor's): present, to append to."""
    shape = ctx.output_type(0).tensor_type.shape
    shape.SetInParent()
    return shape


def _from_tensor(ctx: InferenceContext, tensor: Any) -> None:
    update_output_elem_type(ctx, 0, tensor.data_type)
    shape = _output_shape(ctx)
    for size in tensor.dims:
        shape.dim.add().dim_value = size


def _from_sparse(ctx: InferenceContext, sparse: Any) -> None:
    update_output_elem_type(ctx, 0, sparse.values.data_type)
    shape = _output_shape(ctx)
    for size in sparse.dims:
        shape.dim.add().dim_value = size


def constant_1(ctx: InferenceContext) -> None:
    """``Constant``-1: the tensor's type and dims, nothing when ``value`` is absent."""
    value = ctx.attribute("value")
    if value is not None and value.HasField(fields.ATTR_T):
        _from_tensor(ctx, value.t)


def constant_9(ctx: InferenceContext) -> None:
    value = ctx.attribute("value")
    if value is None or not value.HasField(fields.ATTR_T):
        raise fail_shape("Attribute 'value' of Constant node must exist with 'Tensor' data.")
    _from_tensor(ctx, value.t)


def constant_11(ctx: InferenceContext) -> None:
    value, sparse = ctx.attribute("value"), ctx.attribute("sparse_value")
    if value is not None and sparse is not None:
        raise fail_shape(
            "Only one of the attributes 'value' or 'sparse_value' must be specified for a "
            "Constant node."
        )
    if value is not None:
        _from_tensor(ctx, value.t)
    elif sparse is not None:
        _from_sparse(ctx, sparse.sparse_tensor)
    else:
        raise fail_shape(
            "One of the attributes 'value' or 'sparse_value' must be specified for a Constant node."
        )


_VALUE_KINDS = (
    "value", "sparse_value", "value_int", "value_ints", "value_float", "value_floats",
    "value_string", "value_strings",
)  # fmt: skip
_SCALARS = {"value_int": ("i", _INT64, "an integer"), "value_float": ("f", _FLOAT, "a float"),
            "value_string": ("s", _STRING, "a string")}  # fmt: skip
_LISTS = {"value_ints": ("ints", _INT64), "value_floats": ("floats", _FLOAT),
          "value_strings": ("strings", _STRING)}  # fmt: skip


def constant(ctx: InferenceContext) -> None:
    """onnx's ``ConstantOpInference`` (``Constant``-12 and later): exactly one value."""
    given = {name: ctx.attribute(name) for name in _VALUE_KINDS}
    present = [name for name, found in given.items() if found is not None]
    if len(present) != 1:
        raise fail_shape(
            "One and only one of the attributes 'value', 'value_*' or 'sparse_value' must be "
            "specified for a Constant node."
        )
    name = present[0]
    found = given[name]
    if name == "value":
        _from_tensor(ctx, found.t)
    elif name == "sparse_value":
        _from_sparse(ctx, found.sparse_tensor)
    elif name in _SCALARS:
        field, elem_type, what = _SCALARS[name]
        if not found.HasField(field):
            raise fail_shape(f"Attribute '{name}' expect {what}.")
        update_output_elem_type(ctx, 0, elem_type)
        _output_shape(ctx)
    else:
        field, elem_type = _LISTS[name]
        update_output_elem_type(ctx, 0, elem_type)
        _output_shape(ctx).dim.add().dim_value = len(getattr(found, field))


def int_attribute(ctx: Any, name: str, default: int) -> int:
    """onnx's ``getAttribute(ctx, name, default)``: 0 for an attribute without ``i``."""
    found = ctx.attribute(name)
    if found is None:
        return default
    return int(found.i) if found.HasField(fields.ATTR_I) else 0


def _bounds(ctx: Any, rank: int) -> tuple[int, int]:
    """``Shape``-15's ``start`` and ``end``, clamped into [0, rank] as onnx clamps them."""
    start = int_attribute(ctx, "start", 0)
    if start < 0:
        start += rank
    start = min(max(start, 0), rank)
    end = int_attribute(ctx, "end", rank)
    if end < 0:
        end += rank
    end = min(max(end, 0), rank)
    return start, end


def shape_1(ctx: InferenceContext) -> None:
    """``Shape``-1 and -13: a 1-D int64 tensor whose length is the input's rank."""
    target = ctx.output_type(0).tensor_type
    target.elem_type = _INT64
    length = _output_shape(ctx).dim.add()
    if has_n_input_shapes(ctx, 1) and ctx.input_type(0).tensor_type.HasField(fields.SHAPE):
        length.dim_value = len(ctx.input_type(0).tensor_type.shape.dim)


def shape_15(ctx: InferenceContext) -> None:
    """``Shape``-15 and later: the length of the ``start``..``end`` slice of the dims."""
    target = ctx.output_type(0).tensor_type
    target.elem_type = _INT64
    length = _output_shape(ctx).dim.add()
    if not has_n_input_shapes(ctx, 1):
        return
    start, end = _bounds(ctx, len(ctx.input_type(0).tensor_type.shape.dim))
    length.dim_value = max(end - start, 0)


def _has_input_shape(ctx: DataPropagationContext) -> bool:
    from .shapes import has_shape

    if ctx.num_inputs <= 0:
        return False
    found = ctx.input_type(0)
    return found is not None and has_shape(found)


def shape_values_1(ctx: DataPropagationContext) -> None:
    """onnx's ``ShapeOp13DataPropagator``: the input's dims are the output's value."""
    if _has_input_shape(ctx) and ctx.input_type(0).tensor_type.HasField(fields.SHAPE):
        from .._messages.types import TensorShapeProto

        copied = TensorShapeProto()
        copied.CopyFrom(ctx.input_type(0).tensor_type.shape)
        ctx.add_output_data(0, copied)


def shape_values_15(ctx: DataPropagationContext) -> None:
    """``Shape``-15's propagation: the ``start``..``end`` slice of the input's dims."""
    if not _has_input_shape(ctx):
        return
    from .._messages.types import TensorShapeProto

    dims = ctx.input_type(0).tensor_type.shape.dim
    start, end = _bounds(ctx, len(dims))
    values = TensorShapeProto()
    for d in range(start, end):
        copied = TensorShapeProto.Dimension()
        copied.CopyFrom(dims[d])
        values.dim.append(copied)
    ctx.add_output_data(0, values)


def size(ctx: InferenceContext) -> None:
    """``Size``: an int64 scalar."""
    ctx.output_type(0).tensor_type.elem_type = _INT64
    _output_shape(ctx)


def size_values(ctx: DataPropagationContext) -> None:
    """``Size``'s propagation: how many values its input's value has."""
    found = ctx.input_data(0)
    if found is not None:
        ctx.add_output_data(0, shape_values([len(found.dim)]))


register("", "Constant", (1,), constant_1)
register("", "Constant", (9,), constant_9)
register("", "Constant", (11,), constant_11)
register("", "Constant", (12, 13, 19, 21, 23, 24, 25), constant)
register("", "Shape", (1, 13), shape_1)
register("", "Shape", (15, 19, 21, 23, 24, 25), shape_15)
register_propagator("", "Shape", (1, 13), shape_values_1)
register_propagator("", "Shape", (15, 19, 21, 23, 24, 25), shape_values_15)
register("", "Size", (1, 13, 19, 21, 23, 24, 25), size)
register_propagator("", "Size", (13, 19, 21, 23, 24, 25), size_values)
