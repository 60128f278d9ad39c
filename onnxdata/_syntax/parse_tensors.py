"""Tensor literals in ONNX's textual syntax: ``float[2] {1.5, -2}``, and external
tensors ``float[2] ["location": "w.bin", ...]``.

A value is converted by its element type, as onnx's parser does: the types
stored in ``int32_data`` (the small integers, bool, the 16-, 8-, 4- and 2-bit
floats) take an integer literal within int32's range, unchecked against the
type's own range (as onnx; the 6-bit floats too, which onnx 1.23.2 takes
as it takes the others); ``int64`` an int64; ``uint32`` and ``uint64`` an
integer as ``stoull`` reads it (``-1`` is ``2**64 - 1``); ``float`` and
``complex64`` a float32 per literal, ``double`` and ``complex128`` a double;
``string`` a string literal.  The dimensions must all be numbers; the values
are not counted against them (onnx does not either).
"""

from __future__ import annotations

from .._core.schema import spec_of
from .._messages.declarations import StringStringEntryProto, TensorProto
from .._messages.types import TensorShapeProto, TypeProto
from .parse_fast import DOUBLES, FLOATS, INT32, INTEGERS, fast_values
from .parse_lexer import Lexer

# The fields a tensor literal's type must have set, named through the schema.
_TENSOR_TYPE = spec_of(TypeProto).named.tensor_type
_TYPE_ONEOF = str(_TENSOR_TYPE.oneof)  # TypeProto's ``value``
_SHAPE = spec_of(TypeProto.Tensor).named.shape.name
_DIM_VALUE = spec_of(TensorShapeProto.Dimension).named.dim_value.name

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, MutableSequence
    from typing import Any

__all__ = ["parse_string_pairs", "parse_tensor_data"]

_D = TensorProto.DataType
_INT32_KINDS = frozenset(
    {
        _D.INT2, _D.INT4, _D.INT8, _D.INT16, _D.INT32, _D.UINT2, _D.UINT4, _D.UINT8, _D.UINT16,
        _D.FLOAT16, _D.BFLOAT16, _D.FLOAT8E4M3FN, _D.FLOAT8E4M3FNUZ, _D.FLOAT8E5M2,
        _D.FLOAT8E5M2FNUZ, _D.FLOAT8E8M0, _D.BOOL, _D.FLOAT4E2M1, _D.FLOAT6E2M3, _D.FLOAT6E3M2,
    }
)  # fmt: skip
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_FAST = {
    **dict.fromkeys(_INT32_KINDS, ("int32_data", INT32)),
    _D.INT64: ("int64_data", INTEGERS),
    _D.FLOAT: ("float_data", FLOATS),
    _D.COMPLEX64: ("float_data", FLOATS),
    _D.DOUBLE: ("double_data", DOUBLES),
    _D.COMPLEX128: ("double_data", DOUBLES),
}
"""The field and the way of reading of the element types the fast path reads."""


def parse_string_pairs(lx: Lexer, pairs: MutableSequence[StringStringEntryProto]) -> None:
    """``"key": "value", ...`` into ``pairs`` (``Parse(StringStringList&)``).

    Raises:
        StatusError: a key or value is not a string literal; a ``:`` is missing.
    """
    while True:
        entry = StringStringEntryProto()
        pairs.append(entry)
        entry.key = lx.string()
        lx.match(":")
        entry.value = lx.string()
        if not lx.matches(","):
            return


def parse_tensor_data(lx: Lexer, tensor: TensorProto, kind: TypeProto) -> None:
    """The type's element type and dimensions, then ``{values}`` or
    ``[external data]`` or nothing, into ``tensor`` (``Parse(TensorProto&, const
    TypeProto&)``).

    Raises:
        StatusError: the type is not a tensor's with numeric dimensions; a value does
            not fit the element type.
        FatalError: a number out of range or overflowing.
    """
    if kind.WhichOneof(_TYPE_ONEOF) != _TENSOR_TYPE.name:
        raise lx.fault("Error parsing TensorProto (expected a tensor type).")
    elem_type = kind.tensor_type.elem_type
    tensor.data_type = elem_type
    if not kind.tensor_type.HasField(_SHAPE):
        raise lx.fault("Error parsing TensorProto (expected a tensor shape).")
    for dim in kind.tensor_type.shape.dim:
        if not dim.HasField(_DIM_VALUE):
            raise lx.fault("Error parsing TensorProto shape (expected numeric dimension).")
        tensor.dims.append(dim.dim_value)
    if lx.matches("{"):
        if not lx.matches("}"):
            _values(lx, tensor, elem_type)
            lx.match("}")
    elif lx.matches("["):
        tensor.data_location = TensorProto.EXTERNAL
        parse_string_pairs(lx, tensor.external_data)
        lx.match("]")


def _values(lx: Lexer, tensor: TensorProto, elem_type: int) -> None:
    """Comma-separated values of ``elem_type``, appended to their field."""
    fast = _FAST.get(elem_type)
    if fast is not None and fast_values(lx, getattr(tensor, fast[0]), fast[1]):
        return
    if elem_type in _INT32_KINDS:
        target = tensor.int32_data
        while True:
            value = lx.int64()
            if not _INT32_MIN <= value <= _INT32_MAX:
                raise lx.fault(f"Mismatch between data type and value: %d, %d{elem_type}{value}")
            target.append(value)
            if not lx.matches(","):
                return
    read, target = _reader(lx, tensor, elem_type)
    while True:
        target.append(read())
        if not lx.matches(","):
            return


def _reader(lx: Lexer, tensor: TensorProto, elem_type: int) -> tuple[Callable[[], Any], Any]:
    """How one value of ``elem_type`` is read, and the field it goes to."""
    if elem_type == _D.INT64:
        return lx.int64, tensor.int64_data
    if elem_type in (_D.UINT32, _D.UINT64):
        return lx.uint64, tensor.uint64_data
    if elem_type in (_D.FLOAT, _D.COMPLEX64):
        return (lambda: lx.number(False)), tensor.float_data
    if elem_type in (_D.DOUBLE, _D.COMPLEX128):
        return (lambda: lx.number(True)), tensor.double_data
    if elem_type == _D.STRING:
        return (lambda: lx.string().encode("utf-8", "surrogatepass")), tensor.string_data
    raise lx.fault(f"Unhandled type: %d{elem_type}")
