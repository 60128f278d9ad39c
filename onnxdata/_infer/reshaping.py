"""Operators that rearrange dims: ``Transpose``, ``Concat``; ``Unsqueeze``, ``Squeeze`` and
``Gather`` from version 13; ``Reshape`` from version 14."""

from __future__ import annotations

from typing import Any

from . import fields
from .context import InferenceContext
from .failures import fail_shape, fail_type, unavailable
from .merging import case_of
from .propagation import (
    DataPropagationContext,
    parse_integers,
    propagate_from_input,
    register_propagator,
)
from .rulebook import register
from .shape_ops import int_attribute
from .shapes import (
    append_input_dim,
    has_input_shape,
    has_n_input_shapes,
    output_shape,
    propagate_elem_type,
    propagate_shape_from_input,
)


def _perm_text(perm: list[int], dims: list[int]) -> str:
    text = "Invalid attribute perm {" + ", ".join(str(p) for p in perm) + "}, input shape = {"
    if dims:
        text += ", ".join(str(d) for d in dims) + "}"
    return text


def transpose(ctx: InferenceContext) -> None:
    """``Transpose``-13 and later: the input's dims in ``perm``'s order (reversed without
    it); the output has a shape even when it has no dims."""
    _transpose(ctx, shaped=True)


def transpose_1(ctx: InferenceContext) -> None:
    """``Transpose``-1: the same, but a rank-0 result has no shape."""
    _transpose(ctx, shaped=False)


def _transpose(ctx: InferenceContext, *, shaped: bool) -> None:
    propagate_elem_type(ctx, 0, 0)
    if not has_n_input_shapes(ctx, 1):
        return
    dims = ctx.input_type(0).tensor_type.shape.dim
    attribute = ctx.attribute("perm")
    if attribute is None:
        perm = list(range(len(dims) - 1, -1, -1))
    else:
        perm = list(attribute.ints)
        seen: set[int] = set()
        for index in perm:
            if index < 0 or index >= len(dims):
                raise fail_type(_perm_text(perm, [d.dim_value for d in dims]))
            if index in seen:
                raise fail_type("Attribute perm for Transpose has repeated value: ", index)
            seen.add(index)
    if shaped:
        output_shape(ctx, 0)
    propagate_elem_type(ctx, 0, 0)
    for index in perm:
        append_input_dim(ctx, 0, 0, index)


register("", "Transpose", (1,), transpose_1)
register("", "Transpose", (13, 21, 23, 24, 25), transpose)


def _axes(ctx: InferenceContext, index: int) -> list[int] | None:
    """The int64 values of a constant input (onnx's ``ParseData<int64_t>``), or None when
    the input is not a constant."""
    tensor = ctx.input_data(index)
    if tensor is None:
        return None
    if tensor.data_type != 7:
        raise unavailable("a shape-inference input that is not an int64 tensor")
    return parse_integers(tensor)


def check_axes_range(axes: list[int], rank: int) -> None:
    """onnx's ``checkAxesRange``: every axis within [-rank, rank)."""
    for axis in axes:
        if axis < -rank or axis > rank - 1:
            raise fail_shape(
                "Unexpected axis value: ", axis, ". Expected range [", -rank, ", ", rank, ")"
            )


def check_duplicate_axes(axes: list[int], rank: int) -> None:
    """onnx's ``checkDuplicateAxes`` (on axes already in range)."""
    seen: set[int] = set()
    for axis in axes:
        actual = axis + rank if axis < 0 else axis
        if actual in seen:
            raise fail_shape("Axis ", axis, " is referred to more than once.")
        seen.add(actual)


def unsqueeze(ctx: InferenceContext) -> None:
    """``Unsqueeze``-13 and later: a dim of 1 at each axis of the constant input ``axes``."""
    propagate_elem_type(ctx, 0, 0)
    if not has_n_input_shapes(ctx, 1):
        return
    axes = _axes(ctx, 1)
    if axes is None:
        return
    target = ctx.output_type(0).tensor_type.shape
    target.SetInParent()
    dims = ctx.input_type(0).tensor_type.shape.dim
    rank = len(dims) + len(axes)
    check_axes_range(axes, rank)
    axes = [axis + rank if axis < 0 else axis for axis in axes]
    check_duplicate_axes(axes, rank)
    axes.sort()
    j = 0
    for dim in dims:
        while j < len(axes) and axes[j] == len(target.dim):
            target.dim.add().dim_value = 1
            j += 1
        target.dim.add().CopyFrom(dim)
    while j < len(axes) and axes[j] == len(target.dim):
        target.dim.add().dim_value = 1
        j += 1


def squeeze(ctx: InferenceContext) -> None:
    """``Squeeze``-13 and later: the dims at the constant input ``axes`` removed (each must
    be 1 when known), or every dim of 1 without ``axes``."""
    propagate_elem_type(ctx, 0, 0)
    if not has_n_input_shapes(ctx, 1):
        return
    given = ctx.num_inputs == 2 and ctx.input_type(1) is not None
    axes: list[int] = []
    if given:
        found = _axes(ctx, 1)
        if found is None:
            return
        axes = found
    dims = ctx.input_type(0).tensor_type.shape.dim
    rank = len(dims)
    check_axes_range(axes, rank)
    axes = [axis + rank if axis < 0 else axis for axis in axes]
    if not given and any(not dim.HasField(fields.DIM_VALUE) for dim in dims):
        return  # a symbolic dim may or may not be 1
    target = ctx.output_type(0).tensor_type.shape
    target.SetInParent()
    for i, dim in enumerate(dims):
        if not given and dim.dim_value == 1:
            continue
        if given and i in axes:
            if dim.HasField(fields.DIM_VALUE) and dim.dim_value != 1:
                raise fail_shape("Dimension of input ", i, " must be 1 instead of ", dim.dim_value)
        else:
            target.dim.add().CopyFrom(dim)


register("", "Unsqueeze", (13, 21, 23, 24, 25), unsqueeze)
register("", "Squeeze", (13, 21, 23, 24, 25), squeeze)
register_propagator("", "Squeeze", (13, 21, 23, 24, 25), propagate_from_input)
register_propagator("", "Unsqueeze", (13, 21, 23, 24, 25), propagate_from_input)


def merge_in_dim(source: Any, target: Any, index: int) -> None:
    """onnx's ``mergeInDimensionInfo``: a value over a symbol, the target's symbol kept."""
    if source.HasField(fields.DIM_VALUE):
        if target.HasField(fields.DIM_VALUE):
            if target.dim_value != source.dim_value:
                raise fail_shape(
                    "Can't merge shape info. Both inferred and declared dimension have values "
                    "but they differ. Inferred=", source.dim_value, " Declared=",
                    target.dim_value, " Dimension=", index,
                )  # fmt: skip
        else:
            target.dim_value = source.dim_value
    elif source.HasField(fields.DIM_PARAM) and not (
        target.HasField(fields.DIM_VALUE) or target.HasField(fields.DIM_PARAM)
    ):
        target.dim_param = source.dim_param


def concat(ctx: InferenceContext) -> None:
    """``Concat``-11 and -13: the inputs' dims merged, their lengths along ``axis`` summed."""
    propagate_elem_type(ctx, 0, 0)
    count = ctx.num_inputs
    if count < 1 or not has_n_input_shapes(ctx, count):
        return
    rank = len(ctx.input_type(0).tensor_type.shape.dim)
    attribute = ctx.attribute("axis")
    if attribute is None:
        raise fail_shape("Required attribute axis is missing")
    axis = _int32(attribute.i)
    if axis < -rank or axis >= rank:
        raise fail_shape("axis must be in [-rank, rank-1].")
    if axis < 0:
        axis += rank
    if count == 1:
        propagate_shape_from_input(ctx, 0, 0)
        return
    known, total = True, 0
    target = ctx.output_type(0).tensor_type.shape
    target.SetInParent()
    for _ in range(rank):
        target.dim.add()
    for i in range(count):
        dims = ctx.input_type(i).tensor_type.shape.dim
        if len(dims) != rank:
            raise fail_shape(
                "All inputs to Concat must have same rank. Input ", i, " has rank ", len(dims),
                " != ", rank,
            )  # fmt: skip
        for j, dim in enumerate(dims):
            if j != axis:
                merge_in_dim(dim, target.dim[j], j)
            elif dim.HasField(fields.DIM_VALUE):
                if dim.dim_value < 0:
                    raise fail_shape("Negative dimension value on Concat axis")
                total += dim.dim_value
                if total > _INT64_MAX:
                    raise fail_shape("Integer overflow computing Concat output length")
            else:
                known = False
    if known:
        target.dim[axis].dim_value = total


_INT64_MAX = (1 << 63) - 1


def _int32(value: int) -> int:
    """C++'s ``static_cast<int>`` of an int64: the low 32 bits, signed."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _along_first_axis(ctx: DataPropagationContext, axis: int) -> bool:
    """Whether ``axis`` is 0 once a negative one is counted from input 0's rank, as
    onnx's propagators read it (``False`` while that rank is unknown).

    Raises:
        InferenceError: a negative ``axis`` outside ``[-rank, rank-1]``.
    """
    if axis < 0:
        found = ctx.input_type(0)
        if found is None or not found.HasField(fields.TENSOR_TYPE):
            return False
        if not found.tensor_type.HasField(fields.SHAPE):
            return False
        rank = len(found.tensor_type.shape.dim)
        if axis < -rank or axis >= rank:
            raise fail_shape("axis must be in [-rank, rank-1].")
        axis += rank
    return axis == 0


def concat_values(ctx: DataPropagationContext) -> None:
    """``Concat``'s propagation along axis 0: the inputs' values one after another."""
    attribute = ctx.attribute("axis")
    if attribute is None:
        raise fail_shape("Required attribute axis is missing")
    if not _along_first_axis(ctx, _int32(attribute.i)):
        return
    from .._messages.types import TensorShapeProto

    values = TensorShapeProto()
    for i in range(ctx.num_inputs):
        found = ctx.input_data(i)
        if found is None:
            return
        for dim in found.dim:
            copied = TensorShapeProto.Dimension()
            copied.CopyFrom(dim)
            values.dim.append(copied)
    if values.dim:
        ctx.add_output_data(0, values)


register("", "Concat", (11, 13), concat)
register_propagator("", "Concat", (13,), concat_values)


def gather(ctx: InferenceContext) -> None:
    """``Gather``-13: the data's dims with those of ``indices`` in place of dim ``axis``."""
    propagate_elem_type(ctx, 0, 0)
    if not has_n_input_shapes(ctx, 2):
        return
    data = ctx.input_type(0).tensor_type.shape.dim
    indices = ctx.input_type(1).tensor_type.shape.dim
    r, q = len(data), len(indices)
    if r < 1:
        raise fail_shape("data tensor must have rank >= 1")
    found = ctx.attribute("axis")
    axis = _int32((found.i if found.HasField(fields.ATTR_I) else 0) if found is not None else 0)
    if axis < -r or axis >= r:
        raise fail_shape("axis must be in [-r, r-1]")
    if axis < 0:
        axis += r
    target = ctx.output_type(0).tensor_type.shape
    if q + r - 1 == 0:
        target.SetInParent()
    for i in range(q + r - 1):
        if i < axis:
            source = data[i]
        elif i < axis + q:
            source = indices[i - axis]
        else:
            source = data[i - q + 1]
        target.dim.add().CopyFrom(source)


def gather_values(ctx: DataPropagationContext) -> None:
    """onnx's ``GatherOp13DataPropagator``: along axis 0, the values at the indices' values."""
    found = ctx.attribute("axis")
    if found is not None and not _along_first_axis(ctx, _int32(found.i)):
        return
    data, indices = ctx.input_data(0), ctx.input_data(1)
    if data is None or indices is None:
        return
    from .._messages.types import TensorShapeProto

    values = TensorShapeProto()
    size = len(data.dim)
    for index in indices.dim:
        if not index.HasField(fields.DIM_VALUE):
            return
        at = index.dim_value
        if not -(1 << 31) <= at < 1 << 31:
            raise unavailable("data propagation through Gather with an index beyond int32")
        if at >= size or at < -size:
            raise fail_shape("indices must be in [-rank, rank-1].")
        copied = TensorShapeProto.Dimension()
        copied.CopyFrom(data.dim[at + size if at < 0 else at])
        values.dim.append(copied)
    if values.dim:
        ctx.add_output_data(0, values)


register("", "Gather", (13,), gather)
register_propagator("", "Gather", (13,), gather_values)


_MAX_UNKNOWN_RANK = 1024  # beyond it onnx's newest source declines; 1.23.2's is not known


def shape_input(ctx: InferenceContext, index: int) -> list[Any] | None:
    """onnx's ``getShapeInput``: the target shape's dims from a constant, a propagated value,
    or (its rank only) the input's length; None when none of them is known."""
    from .._messages.types import TensorShapeProto

    values = _axes(ctx, index)
    if values is not None:
        return [TensorShapeProto.Dimension(dim_value=v) for v in values]
    symbolic = ctx.symbolic_input(index)
    if symbolic is not None:
        return list(symbolic.dim)
    if not has_input_shape(ctx, index):
        return None
    found = ctx.input_type(index)
    if case_of(found) not in (fields.TENSOR_TYPE, fields.SPARSE_TENSOR_TYPE):
        raise fail_type(
            "Input ", index, "expected to be a tensor or a sparse tensor type in ",
            ctx.display_name, ".",
        )  # fmt: skip
    dims = getattr(found, case_of(found) or fields.TENSOR_TYPE).shape.dim
    if len(dims) != 1:
        raise fail_shape("shape input must be 1D tensor")
    if not dims[0].HasField(fields.DIM_VALUE):
        return None
    count = dims[0].dim_value
    if count < 0 or count > _MAX_UNKNOWN_RANK:
        raise unavailable(f"a Reshape target of {count} unknown dims")
    return [TensorShapeProto.Dimension() for _ in range(count)]


def _product(left: int, right: int) -> int:
    result = left * right
    if not -(1 << 63) <= result < 1 << 63:
        raise fail_shape("Dimension product overflow in Reshape")
    return result


def reshape(ctx: InferenceContext) -> None:
    """``Reshape``-14 and later: the target shape, 0 copying the data's dim (unless
    ``allowzero``), one -1 inferred from the data's element count when it is known."""
    propagate_elem_type(ctx, 0, 0)
    target = shape_input(ctx, 1)
    if target is None:
        return
    allowzero = _int32(int_attribute(ctx, "allowzero", 0))
    out = ctx.output_type(0).tensor_type.shape
    out.SetInParent()
    data = ctx.input_type(0).tensor_type
    data_dims = data.shape.dim
    unresolved = [False] * len(target)
    product, product_valid, negative_one = 1, True, None
    for i, wanted in enumerate(target):
        new = out.dim.add()
        if wanted.HasField(fields.DIM_PARAM):
            new.dim_param = wanted.dim_param
            product_valid = False
            continue
        if not wanted.HasField(fields.DIM_VALUE):
            product_valid = False
            continue
        value = wanted.dim_value
        if value == -1:
            if negative_one is not None:
                raise fail_shape("Target shape may not have multiple -1 dimensions.")
            negative_one = new
        elif value == 0 and allowzero == 0:
            unresolved[i] = True
            if data.HasField(fields.SHAPE):
                if i >= len(data_dims):
                    raise fail_shape("Invalid position of 0.")
                if data_dims[i].HasField(fields.DIM_VALUE):
                    new.dim_value = data_dims[i].dim_value
                    product = _product(product, data_dims[i].dim_value)
                    unresolved[i] = False
                elif data_dims[i].HasField(fields.DIM_PARAM):
                    new.dim_param = data_dims[i].dim_param
        elif value >= 0:
            new.dim_value = value
            product = _product(product, value)
        else:
            raise fail_shape("Invalid dimension value: ", value)
    if negative_one is not None and product_valid:
        _infer_negative_one(data, unresolved, product, negative_one)


def _infer_negative_one(data: Any, unresolved: list[bool], product: int, dim: Any) -> None:
    if not product:
        raise fail_shape(
            "Invalid Target shape product of 0. Product cannot be 0 in combination with -1"
        )
    if not data.HasField(fields.SHAPE):
        return
    total = 1
    for i, size in enumerate(data.shape.dim):
        if size.HasField(fields.DIM_VALUE):
            total = _product(total, size.dim_value)
        elif i >= len(unresolved) or not unresolved[i]:
            return
    quotient = abs(total) // abs(product) * (1 if (total >= 0) == (product >= 0) else -1)
    if total - quotient * product != 0:
        raise fail_shape("Dimension could not be inferred: incompatible shapes")
    dim.dim_value = quotient


register("", "Reshape", (14, 19, 21, 23, 24, 25), reshape)
