"""The fields inference reads by name (``HasField``, ``WhichOneof``, the type's members),
taken from the schema: no field's name is spelled again here or in the rules."""

from __future__ import annotations

from .._core.schema import spec_of
from .._messages.declarations import TensorProto
from .._messages.graphs import AttributeProto, NodeProto, ValueInfoProto
from .._messages.types import TensorShapeProto, TypeProto

_TYPE = spec_of(TypeProto).named
VALUE = _TYPE.tensor_type.oneof or ""  # the oneof of a type's kinds
TENSOR_TYPE = _TYPE.tensor_type.name
SPARSE_TENSOR_TYPE = _TYPE.sparse_tensor_type.name
SEQUENCE_TYPE = _TYPE.sequence_type.name
MAP_TYPE = _TYPE.map_type.name
OPTIONAL_TYPE = _TYPE.optional_type.name
OPAQUE_TYPE = _TYPE.opaque_type.name
SHAPE = spec_of(TypeProto.Tensor).named.shape.name
ELEM_TYPE = spec_of(TypeProto.Sequence).named.elem_type.name
KEY_TYPE = spec_of(TypeProto.Map).named.key_type.name
VALUE_TYPE = spec_of(TypeProto.Map).named.value_type.name
OPAQUE_DOMAIN = spec_of(TypeProto.Opaque).named.domain.name
OPAQUE_NAME = spec_of(TypeProto.Opaque).named.name.name
DIM_VALUE = spec_of(TensorShapeProto.Dimension).named.dim_value.name
DIM_PARAM = spec_of(TensorShapeProto.Dimension).named.dim_param.name
_ATTRIBUTE = spec_of(AttributeProto).named
ATTR_I = _ATTRIBUTE.i.name
ATTR_T = _ATTRIBUTE.t.name
ATTR_G = _ATTRIBUTE.g.name
ATTR_SPARSE_TENSOR = _ATTRIBUTE.sparse_tensor.name
VALUE_INFO_TYPE = spec_of(ValueInfoProto).named.type.name
NODE_NAME = spec_of(NodeProto).named.name.name
RAW_DATA = spec_of(TensorProto).named.raw_data.name
DATA_LOCATION = spec_of(TensorProto).named.data_location.name

TENSORS = (TENSOR_TYPE, SPARSE_TENSOR_TYPE)
# onnx prints a type's kind by its field number (0 for none) in some messages
CASE_NUMBER: dict[str | None, int] = {
    None: 0,
    **{f.name: f.number for f in spec_of(TypeProto).oneofs[VALUE]},
}
ELEMENT_HOLDERS = (SEQUENCE_TYPE, OPTIONAL_TYPE)
