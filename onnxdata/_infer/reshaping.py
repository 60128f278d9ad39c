"""Operators that rearrange dims: ``Transpose`` so far."""

from __future__ import annotations

from .context import InferenceContext
from .failures import fail_type
from .rulebook import register
from .shapes import append_input_dim, has_n_input_shapes, output_shape, propagate_elem_type


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
