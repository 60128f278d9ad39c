"""Element-wise operators: unary math, binary arithmetic and comparison with broadcasting,
variadic ``Max``/``Min``/``Sum``/``Mean``, ``Where``, ``Cast``, ``Identity``, the activations.

Each rule is onnx's inference function of those schema versions, and registered only for the
versions where onnx uses that function (versions without one in onnx need no rule: the walk
leaves their outputs untyped, as onnx does).
"""

from __future__ import annotations

from . import fields
from .context import InferenceContext
from .failures import fail_shape, fail_type
from .propagation import (
    DataPropagationContext,
    propagate_from_input,
    register_propagator,
    shape_values,
)
from .rulebook import register
from .shapes import (
    BOOL,
    broadcast,
    broadcast_inputs,
    has_input_shape,
    has_n_input_shapes,
    propagate_elem_type,
    propagate_first_input,
    propagate_shape_from_input,
    update_output_elem_type,
)


def binary_math(ctx: InferenceContext) -> None:
    """``Add``/``Pow``/``Mod``...: input 0's element type, the two shapes broadcast."""
    propagate_elem_type(ctx, 0, 0)
    broadcast_inputs(ctx, 2)


def binary_logical(ctx: InferenceContext) -> None:
    """``Equal``/``Less``/``And``...: bool, the two shapes broadcast."""
    update_output_elem_type(ctx, 0, BOOL)
    broadcast_inputs(ctx, 2)


def unary_logical(ctx: InferenceContext) -> None:
    """``Not``, ``IsNaN``, ``IsInf``, and the version-1 logical ops: bool, input 0's shape."""
    update_output_elem_type(ctx, 0, BOOL)
    if has_input_shape(ctx, 0):
        propagate_shape_from_input(ctx, 0, 0)


def variadic(ctx: InferenceContext) -> None:
    """``Max``/``Min``/``Sum``/``Mean`` from version 8: every input's tensor shape broadcast,
    when all are tensors with shapes."""
    propagate_elem_type(ctx, 0, 0)
    shapes = []
    for i in range(ctx.num_inputs):
        found = ctx.input_type(i)
        if found is None or not found.HasField(fields.TENSOR_TYPE):
            return
        if not found.tensor_type.HasField(fields.SHAPE):
            return
        shapes.append(found.tensor_type.shape)
    broadcast(shapes, ctx.output_type(0).tensor_type.shape)


def where(ctx: InferenceContext) -> None:
    """``Where``: input 1's element type, the three shapes broadcast."""
    propagate_elem_type(ctx, 1, 0)
    broadcast_inputs(ctx, 3)


def cast(ctx: InferenceContext) -> None:
    """``Cast``: the element type of attribute ``to``, input 0's shape."""
    attribute = ctx.attribute("to")
    if attribute is None:
        raise fail_type("Value of attribute to not specified in ", ctx.display_name, ".")
    if not attribute.HasField(fields.ATTR_I):
        raise fail_type(
            "Attribute to should be of integer type and specify a type in ", ctx.display_name, "."
        )
    if not _valid_data_type(attribute.i):
        raise fail_type("Attribute to does not specify a valid type in ", ctx.display_name, ".")
    update_output_elem_type(ctx, 0, attribute.i)
    if has_n_input_shapes(ctx, 1):
        propagate_shape_from_input(ctx, 0, 0)


def cast_like(ctx: InferenceContext) -> None:
    """``CastLike``: input 1's element type, input 0's shape."""
    propagate_elem_type(ctx, 1, 0)
    if has_n_input_shapes(ctx, 1):
        propagate_shape_from_input(ctx, 0, 0)


def _valid_data_type(value: int) -> bool:
    from .._messages.declarations import TensorProto

    try:
        TensorProto.DataType.Name(value)
    except ValueError:
        return False
    return True


_UNARY = {
    # operator: the versions whose inference is propagateShapeAndTypeFromFirstInput
    "Abs": (6, 13), "Neg": (6, 13), "Exp": (6, 13), "Log": (6, 13), "Sqrt": (6, 13),
    "Relu": (6, 13, 14), "Sigmoid": (6, 13), "Tanh": (6, 13), "Reciprocal": (6, 13),
    "Floor": (6, 13), "Ceil": (6, 13), "Sin": (7, 22), "Cos": (7, 22), "Tan": (7, 22),
    "Asin": (7, 22), "Acos": (7, 22), "Atan": (7, 22), "Sinh": (9, 22), "Cosh": (9, 22),
    "Asinh": (9, 22), "Acosh": (9, 22), "Atanh": (9, 22), "Erf": (9, 13), "Sign": (9, 13),
    "Softsign": (1, 22), "Softplus": (1, 22), "Round": (11, 22), "BitwiseNot": (18,),
    "Identity": (1, 13, 14, 16, 19, 21, 23, 24, 25),
    "Elu": (6, 22), "Selu": (6, 22), "LeakyRelu": (6, 16), "HardSigmoid": (6, 22),
    "HardSwish": (14, 22), "ThresholdedRelu": (10, 22), "Celu": (12, 28), "Gelu": (20,),
    "Mish": (18, 22), "Shrink": (9,), "Clip": (6, 11, 12, 13), "PRelu": (6, 7, 9, 16),
    "Add": (6,), "Sub": (6,), "Mul": (6,), "Div": (6,), "Pow": (1,),
    "Max": (6,), "Min": (6,), "Sum": (6,), "Mean": (6,),
}  # fmt: skip
_BINARY = {
    "Add": (7, 13, 14), "Sub": (7, 13, 14), "Mul": (7, 13, 14), "Div": (7, 13, 14),
    "Pow": (7, 12, 13, 15), "Mod": (10, 13, 28), "BitShift": (11, 28),
    "BitwiseAnd": (18,), "BitwiseOr": (18,), "BitwiseXor": (18,),
}  # fmt: skip
_LOGICAL = {
    "And": (7,), "Or": (7,), "Xor": (7,), "Equal": (7, 11, 13, 19), "Less": (7, 9, 13),
    "Greater": (7, 9, 13), "LessOrEqual": (16,), "GreaterOrEqual": (16,),
}  # fmt: skip
_UNARY_LOGICAL = {
    "Not": (1,), "IsNaN": (9, 13, 20), "IsInf": (10, 20),
    "And": (1,), "Or": (1,), "Xor": (1,), "Equal": (1,), "Less": (1,), "Greater": (1,),
}  # fmt: skip
_VARIADIC = {"Max": (8, 12, 13), "Min": (8, 12, 13), "Sum": (8, 13), "Mean": (8, 13)}

for _table, _rule in (
    (_UNARY, propagate_first_input),
    (_BINARY, binary_math),
    (_LOGICAL, binary_logical),
    (_UNARY_LOGICAL, unary_logical),
    (_VARIADIC, variadic),
):
    for _op, _versions in _table.items():
        register("", _op, _versions, _rule)
register("", "Where", (9, 16), where)
register("", "CastLike", (15, 19, 21, 23, 24, 25), cast_like)
register("", "Cast", (6, 9, 13, 19, 21, 23, 24, 25, 28), cast)


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_ARITHMETIC = {
    "Add": lambda a, b: a + b,
    "Sub": lambda a, b: a - b,
    "Mul": lambda a, b: a * b,
}


def math_values(ctx: DataPropagationContext) -> None:
    """onnx's ``MathOpDataPropagator`` (``Add``/``Sub``/``Mul``): the two inputs' values
    combined element by element, one of them broadcast when it has a single value."""
    left, right = ctx.input_data(0), ctx.input_data(1)
    if left is None or right is None:
        return
    op_type = ctx.node.op_type
    size_0, size_1 = len(left.dim), len(right.dim)
    if size_0 != size_1 and 1 not in (size_0, size_1):
        raise fail_shape(
            "Invalid rank for ", op_type, " broadcasting: (", size_0, ") vs (", size_1, ")."
        )
    values: list[int | None] = []
    for i in range(size_1 if size_0 == 1 else size_0):
        a = left.dim[0 if size_0 == 1 else i]
        b = right.dim[0 if size_1 == 1 else i]
        if a.HasField(fields.DIM_VALUE) and b.HasField(fields.DIM_VALUE):
            result = _ARITHMETIC[op_type](a.dim_value, b.dim_value)
            if not _INT64_MIN <= result <= _INT64_MAX:
                raise fail_shape("Integer overflow in ", op_type, " during data propagation")
            values.append(result)
        else:
            values.append(None)
    ctx.add_output_data(0, shape_values(values))


for _op in _ARITHMETIC:
    register_propagator("", _op, (14,), math_values)
register_propagator("", "Cast", (13, 19, 21, 23, 24, 25, 28), propagate_from_input)
