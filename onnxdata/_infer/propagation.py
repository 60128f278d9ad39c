"""Data propagation (``data_prop=True``): onnx's partial evaluation of shape values.

Integer values that describe shapes (what ``Shape`` returns, what ``Add`` of two of them
gives) are kept per value name as a ``TensorShapeProto`` whose dims are the known values, a
symbol, or unknown; rules that take a shape input (``Reshape``...) read them.  An operator's
propagator sees onnx's ``DataPropagationContext``: an input's value is what an earlier node
propagated, else an ``int64``/``int32`` constant of rank 0 or 1, else (for a 1-D input of known
length) that many unknown values; each of the last two is remembered under the input's name,
as onnx remembers it.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._messages.types import TensorShapeProto
from . import fields
from .failures import ImmediateError, fail_shape, unavailable

_INT32, _INT64 = 6, 7
_FORMATS = {_INT32: "i", _INT64: "q"}
_EXTERNAL = 1  # TensorProto.DataLocation.EXTERNAL
# Dims materialised for a 1-D input of known length: beyond it onnx's C++ would allocate
# them all; onnxdata declines instead of exhausting memory.
MAX_UNKNOWN_VALUES = 1 << 20


class DataPropagationContext:
    """What a propagator sees of its node: input types and values, outputs' values to set."""

    __slots__ = ("_attributes", "_constants", "_generated", "_types", "node")

    def __init__(
        self,
        node: Any,
        types: Mapping[str, Any],
        constants: Mapping[str, Any],
        generated: dict[str, Any],
    ) -> None:
        self.node = node
        self._types = types
        self._constants = constants
        self._generated = generated
        self._attributes = {attribute.name: attribute for attribute in node.attribute}

    def attribute(self, name: str) -> Any:
        return self._attributes.get(name)

    @property
    def num_inputs(self) -> int:
        return len(self.node.input)

    def input_type(self, index: int) -> Any:
        if index >= len(self.node.input):
            raise ImmediateError(f"Input {index} is out of bounds.")
        return self._types.get(self.node.input[index])

    def input_data(self, index: int) -> Any:
        """onnx's ``getInputData``: the input's propagated value, or None."""
        if index >= len(self.node.input):
            raise ImmediateError(f"Input {index} is out of bounds.")
        name = self.node.input[index]
        found = self._generated.get(name)
        if found is not None:
            return found
        tensor = self._constants.get(name)
        if tensor is not None and len(tensor.dims) <= 1:
            if tensor.data_type not in _FORMATS:
                return None
            return self._generated.setdefault(name, shape_values(parse_integers(tensor)))
        return self._from_rank(name)

    def _from_rank(self, name: str) -> Any:
        found = self._types.get(name)
        if found is None or found.WhichOneof(fields.VALUE) != fields.TENSOR_TYPE:
            return None
        holder = found.tensor_type
        if not holder.HasField(fields.SHAPE):
            return None
        dims = holder.shape.dim
        if len(dims) != 1 or not dims[0].HasField(fields.DIM_VALUE):
            return None
        count = dims[0].dim_value
        if count > MAX_UNKNOWN_VALUES:
            raise unavailable(f"data propagation of {count} unknown values")
        return self._generated.setdefault(name, shape_values([None] * count))

    def add_output_data(self, index: int, values: Any) -> None:
        """onnx's ``addOutputData``: refuses a name that already has a value."""
        if index >= len(self.node.output):
            raise ImmediateError(f"Input {index} is out of bounds.")
        name = self.node.output[index]
        if name in self._generated:
            raise fail_shape(f"Data for input  {index} already exists.")
        self._generated[name] = values


def shape_values(values: Sequence[int | None]) -> TensorShapeProto:
    """Values as onnx keeps them: a dim per value, ``dim_value`` set where it is known."""
    dims = [
        TensorShapeProto.Dimension() if v is None else TensorShapeProto.Dimension(dim_value=v)
        for v in values
    ]
    return TensorShapeProto(dim=dims)


def parse_integers(tensor: Any) -> list[int]:
    """onnx's ``ParseData<int64_t|int32_t>`` for a well-formed tensor; a tensor that onnx
    would refuse (external, sizes that disagree) is not inferred yet."""
    count = 1
    for size in tensor.dims:
        count *= size
    if tensor.HasField(fields.DATA_LOCATION) and tensor.data_location == _EXTERNAL:
        raise unavailable("data propagation from an external tensor")
    if not tensor.HasField(fields.RAW_DATA):
        data = tensor.int64_data if tensor.data_type == _INT64 else tensor.int32_data
        if len(data) != count:
            raise unavailable("data propagation from a tensor whose data is not its size")
        return list(data)
    fmt = _FORMATS[tensor.data_type]
    raw = bytes(tensor.raw_data)
    if len(raw) != count * struct.calcsize(fmt):
        raise unavailable("data propagation from a tensor whose raw data is not its size")
    return list(struct.unpack(f"<{count}{fmt}", raw))


Propagator = Callable[[DataPropagationContext], None]

_PROPAGATORS: dict[tuple[str, str, int], Propagator] = {}


def register_propagator(
    domain: str, op_type: str, versions: tuple[int, ...], p: Propagator
) -> None:
    for version in versions:
        _PROPAGATORS[(domain, op_type, version)] = p


def propagator_for(domain: str, op_type: str, since_version: int) -> Propagator | None:
    return _PROPAGATORS.get((domain, op_type, since_version))


def propagate_from_input(ctx: DataPropagationContext, index: int = 0) -> None:
    """onnx's ``PropagateShapeDataFromInputToOutput``: input ``index``'s value, copied."""
    found = ctx.input_data(index)
    if found is not None:
        copied = TensorShapeProto()
        copied.CopyFrom(found)
        ctx.add_output_data(0, copied)
