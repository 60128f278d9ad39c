"""``dims`` -> numpy shape: the one place where a message's dims become a shape.

Every array the numpy bridge makes from a message takes its shape from
:func:`shape_of`: ``to_array`` (and so ``to_list``, ``to_dict``,
``to_optional`` and anything read with ``decode(copy=False)``, ``load`` or
``iter_sequence``; its raw_data fast path leaves a ``-1`` to it, numpy
refusing every other negative dim) and the dense shape of a sparse tensor;
``helper.make_tensor`` checks its dims with :func:`refuse_negative`.  Left to
numpy, ``dims = [-1]`` is a shape numpy *infers* (``numpy.ndarray`` and
``reshape`` both take ``-1`` as "whatever fits"), so a broken message would
read as an array of any size; onnx's checker rule ("Negative dimension
value") is checked here instead, before numpy sees the dims.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

# numpy's limits: NPY_MAXDIMS, and the largest byte count of one array.
MAX_RANK = 64
MAX_BYTES = int(np.iinfo(np.intp).max)


def shape_of(
    dims: Sequence[Any], itemsize: int, label: Callable[[], str]
) -> tuple[tuple[int, ...], int]:
    """``dims`` as a shape of Python ints, and its element count.

    ``itemsize`` is the bytes per element of the array to be made (1 for the
    packed 4-, 2- and 6-bit types, one byte a code once unpacked); ``label``
    names the message, called only for an error.

    Raises:
        TypeError: a dim is not an integer (a bool, a float), as protobuf
            refuses it in an int64 field.
        ValueError: a dim is negative, there are more than 64 dims (numpy's
            limit), or the shape is too large for one array (counting the
            non-zero dims, as numpy does, so ``[0, 2**62, 2**62]`` is refused
            too).
    """
    # The common case in a few builtin calls: positive integer dims that fit.
    try:
        count = math.prod(dims)
        if (
            type(count) is int
            and count > 0
            and count * itemsize <= MAX_BYTES
            and len(dims) <= MAX_RANK
            and (not dims or min(dims) > 0)
            and bool not in map(type, dims)
        ):
            return tuple(dims), count
    except TypeError:
        pass  # something that does not multiply: _checked names it
    return _checked(dims, itemsize, label)


def _checked(
    dims: Sequence[Any], itemsize: int, label: Callable[[], str]
) -> tuple[tuple[int, ...], int]:
    """shape_of for everything else: a zero or bad dim, numpy integers, no dims."""
    try:
        if any(isinstance(d, (bool, np.bool_)) for d in dims):
            raise TypeError("booleans are not integers here")
        shape = tuple(operator.index(d) for d in dims)
    except TypeError as exc:
        raise TypeError(f"{label()}: dims must be integers, got {list(dims)!r}: {exc}") from None
    refuse_negative(shape, label)
    if len(shape) > MAX_RANK:
        raise ValueError(f"{label()} has {len(shape)} dims; numpy arrays have at most {MAX_RANK}")
    # numpy refuses a shape whose non-zero dims multiply beyond its limit even
    # when another dim is 0 and the array would be empty.
    nonzero = math.prod(d for d in shape if d)
    if nonzero * max(itemsize, 1) > MAX_BYTES:
        raise ValueError(
            f"{label()}: dims {list(shape)} are too large for one array "
            f"({nonzero} elements of {itemsize} bytes exceed {MAX_BYTES} bytes)"
        )
    return shape, math.prod(shape)


def refuse_negative(dims: Sequence[int], label: Callable[[], str]) -> None:
    """onnx's checker rule "Negative dimension value", for integer ``dims``.

    Raises:
        ValueError: a dim is negative.
    """
    negative = [i for i, d in enumerate(dims) if d < 0]
    if negative:
        raise ValueError(
            f"{label()} has a negative dimension: dims={list(dims)} "
            f"(dims[{negative[0]}] = {dims[negative[0]]}; a dimension is a size, "
            "which numpy would infer from -1)"
        )
