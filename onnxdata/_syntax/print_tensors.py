"""Tensor literals as onnx's printer writes them (``ProtoPrinter::print(TensorProto)``).

``float[2,3] name {1,2,3,4,5,6}``: the element type, the dims, the name, then the values
of the field onnx reads for that type.  ``raw_data`` is decoded little-endian and must
hold exactly the elements the dims count (else :class:`PrinterError`, where onnx raises
its ``InferenceError`` with the same text); the 16-bit floats and the float8 kinds print
their bit patterns as unsigned integers; a type onnx does not print (complex, the
4-, 2- and 6-bit kinds, a string tensor in ``raw_data``) prints ``...``; an external
tensor prints its ``external_data`` entries instead of values.  Nothing is elided for
size: onnx prints every element, and so does this.
"""

from __future__ import annotations

from array import array
from sys import byteorder

from .._core.schema import spec_of
from .._messages.declarations import StringStringEntryProto, TensorProto
from .lexicon import ELEMENT_TYPES, UNDEFINED, is_identifier
from .print_numbers import double_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterable
    from typing import Any

__all__ = [
    "PrinterError", "bytes_text", "element_type_name", "entries_text", "name_text", "quoted",
    "tensor_text",
]  # fmt: skip


class PrinterError(ValueError):
    """A tensor whose values cannot be printed: negative dims, a dims product past int64,
    or ``raw_data`` not exactly the size its dims and type say.

    onnx's printer raises ``InferenceError`` with the same text (``[ShapeInferenceError]
    Data size mismatch. Tensor: w has 8 bytes of raw_data for 3 elements of size 4``).
    """


_NAMES = {number: name for name, number in ELEMENT_TYPES.items()}


def element_type_name(number: int) -> str:
    """The syntax's name of data type ``number``; ``undefined`` for any other number."""
    return _NAMES.get(number, UNDEFINED)


def quoted(text: str) -> str:
    """``text`` in double quotes, ``\\`` and ``"`` escaped, nothing else (onnx's
    ``printQuoted``: a newline or a control character goes out as it is)."""
    if "\\" in text or '"' in text:
        text = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def name_text(text: str) -> str:
    """A name bare when it is an identifier, else quoted (onnx's ``printId``)."""
    return text if is_identifier(text) else quoted(text)


def bytes_text(data: bytes) -> str:
    """A bytes field quoted, its invalid UTF-8 carried as surrogate escapes: onnx hands
    the printed bytes to Python as UTF-8, so :func:`onnxdata.printer.to_text` raises
    ``UnicodeDecodeError`` at the end, at the same place, when one is left."""
    return quoted(bytes(data).decode("utf-8", "surrogateescape"))


def entries_text(entries: Iterable[StringStringEntryProto]) -> str:
    """``["key": "value", ...]``: metadata and external-data entries."""
    return "[" + ", ".join(f"{quoted(e.key)}: {quoted(e.value)}" for e in entries) + "]"


_DIMS = spec_of(TensorProto).named.dims.held
_NAME = spec_of(TensorProto).named.name.held
_RAW = spec_of(TensorProto).named.raw_data.held
_LOCATION = spec_of(TensorProto).named.data_location.held
_INT32 = spec_of(TensorProto).named.int32_data.held
_INT64 = spec_of(TensorProto).named.int64_data.held
_UINT64 = spec_of(TensorProto).named.uint64_data.held
_FLOAT = spec_of(TensorProto).named.float_data.held
_DOUBLE = spec_of(TensorProto).named.double_data.held
_STRING = spec_of(TensorProto).named.string_data.held

# raw_data's element type code (array's) and width, by data type: the 8- and 16-bit
# floats as their unsigned bit patterns, as onnx prints them.
_RAW_CODES: dict[int, str] = {
    3: "b", 2: "B", 9: "B", 17: "B", 18: "B", 19: "B", 20: "B", 24: "B",
    5: "h", 4: "H", 10: "H", 16: "H", 6: "i", 12: "I", 7: "q", 13: "Q", 1: "f", 11: "d",
}  # fmt: skip
_INT32_TYPES = frozenset((3, 5, 6, 2, 4, 9, 10, 16, 17, 18, 19, 20, 24))
_INT64_MAX = (1 << 63) - 1


def _element_count(tensor: TensorProto) -> int:
    """The dims' product, as onnx's ``safe_dim_product`` checks it.

    Raises:
        PrinterError: a negative dim, or a product past int64.
    """
    count = 1
    for dim in _DIMS(tensor) or ():
        if dim < 0:
            raise PrinterError(
                f"[ShapeInferenceError] Negative dimension value for tensor: {tensor.name}"
            )
        count *= dim
        if count > _INT64_MAX:
            raise PrinterError(
                f"[ShapeInferenceError] Tensor dimension product overflow for tensor: {tensor.name}"
            )
    return count


def _raw_values(tensor: TensorProto, code: str, raw: bytes) -> array[Any]:
    """``raw_data`` as elements of ``code``, little-endian, exactly as many as the dims say.

    Raises:
        PrinterError: the size does not fit, as onnx's ``ParseRawData(exact_fit)`` says.
    """
    values: array[Any] = array(code)
    width = values.itemsize
    required = _element_count(tensor)
    size = len(raw)
    if size // width != required or size % width:
        raise PrinterError(
            f"[ShapeInferenceError] Data size mismatch. Tensor: {tensor.name} has {size} bytes "
            f"of raw_data for {required} elements of size {width}"
        )
    values.frombytes(raw)
    if byteorder == "big":  # pragma: no cover - raw_data is little-endian by the spec
        values.byteswap()
    return values


def _numbers(values: Iterable[Any], text: Callable[[Any], str]) -> str:
    return " {" + ",".join(map(text, values)) + "}"


def _values_text(tensor: TensorProto, kind: int, floats: Callable[[float], str]) -> str:
    raw = _RAW(tensor)
    if raw is not None:
        code = _RAW_CODES.get(kind)
        if code is None:
            return "..."
        values = _raw_values(tensor, code, raw)
        if kind == 1:
            return _numbers(values, floats)
        return _numbers(values, double_text if kind == 11 else str)
    if kind in _INT32_TYPES:
        return _numbers(_INT32(tensor) or (), str)
    if kind == 7:
        return _numbers(_INT64(tensor) or (), str)
    if kind in (12, 13):
        return _numbers(_UINT64(tensor) or (), str)
    if kind == 1:
        return _numbers(_FLOAT(tensor) or (), floats)
    if kind == 11:
        return _numbers(_DOUBLE(tensor) or (), double_text)
    if kind == 8:  # no space before the brace, and an empty one has no opening brace
        texts = [bytes_text(s) for s in _STRING(tensor) or ()]
        return ("{" + ", ".join(texts) if texts else "") + "}"
    return "..."


def tensor_text(
    tensor: TensorProto, floats: Callable[[float], str], initializer: bool = False
) -> str:
    """One tensor as onnx prints it: in an attribute (``float[2] {1,2}``) or, with
    ``initializer``, as a graph's initializer (``float[2] w =  {1,2}``).

    ``floats`` writes a float32 (:class:`Float32Texts`, one per printing).

    Raises:
        PrinterError: ``raw_data`` that does not fit the dims (onnx's ``InferenceError``).
    """
    kind = tensor.data_type
    parts = [element_type_name(kind)]
    dims = _DIMS(tensor)
    if dims:
        parts.append("[" + ",".join(map(str, dims)) + "]")
    name = _NAME(tensor)
    if name:
        parts.append(" " + name_text(name))
    if initializer:
        parts.append(" = ")
    if _LOCATION(tensor) == TensorProto.EXTERNAL:
        parts.append(entries_text(tensor.external_data))
    else:
        parts.append(_values_text(tensor, kind, floats))
    return "".join(parts)
