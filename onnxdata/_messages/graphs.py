"""The model messages of ``onnx-ml.proto``: a model, its graph, nodes and attributes.

A ``ModelProto`` holds a ``GraphProto`` (and functions, training
information, device configurations); a graph holds nodes, initializers
(``TensorProto``) and the typed names of its inputs, outputs and
intermediate values (``ValueInfoProto``); a node holds attributes, which may
hold graphs again (the bodies of ``If``, ``Loop``, ``Scan``).  Names,
numbers and order follow the .proto exactly.

Every repeated numeric field here is unpacked on the wire, as proto2 writes
a field not declared ``packed`` (``AttributeProto.floats`` included); a
parser takes both forms.
"""

from __future__ import annotations

from .._core.classes import message
from .._core.schema import REPEATED, field, unknown
from .declarations import SparseTensorProto, StringStringEntryProto, TensorProto
from .devices import DeviceConfigurationProto, NodeDeviceConfigurationProto
from .message import Message, ProtoEnum
from .summaries import function_summary, graph_summary, model_summary
from .types import TypeProto

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, MutableSequence
    from typing import Any, ClassVar

__all__ = [
    "AttributeProto",
    "FunctionProto",
    "GraphProto",
    "ModelProto",
    "NodeProto",
    "OperatorSetIdProto",
    "TensorAnnotation",
    "TrainingInfoProto",
    "ValueInfoProto",
]

# Named here so that the schema finds them by name in this module.
_HELD = (
    DeviceConfigurationProto,
    NodeDeviceConfigurationProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
    TypeProto,
)


@message
class AttributeProto(Message):
    """A named attribute of a node: one value (or list of values) of the kind ``type`` says."""

    class AttributeType(ProtoEnum):
        UNDEFINED = 0
        FLOAT = 1
        INT = 2
        STRING = 3
        TENSOR = 4
        GRAPH = 5
        SPARSE_TENSOR = 11
        TYPE_PROTO = 13
        FLOATS = 6
        INTS = 7
        STRINGS = 8
        TENSORS = 9
        GRAPHS = 10
        SPARSE_TENSORS = 12
        TYPE_PROTOS = 14

    # ``import onnx`` reads the enum wrapper (not its constants), so protobuf's
    # dir() lists it (see ``MessageType.__dir__``).
    _LISTED_CONSTANTS: ClassVar[tuple[str, ...]] = ("AttributeType",)

    UNDEFINED = AttributeType.UNDEFINED
    FLOAT = AttributeType.FLOAT
    INT = AttributeType.INT
    STRING = AttributeType.STRING
    TENSOR = AttributeType.TENSOR
    GRAPH = AttributeType.GRAPH
    SPARSE_TENSOR = AttributeType.SPARSE_TENSOR
    TYPE_PROTO = AttributeType.TYPE_PROTO
    FLOATS = AttributeType.FLOATS
    INTS = AttributeType.INTS
    STRINGS = AttributeType.STRINGS
    TENSORS = AttributeType.TENSORS
    GRAPHS = AttributeType.GRAPHS
    SPARSE_TENSORS = AttributeType.SPARSE_TENSORS
    TYPE_PROTOS = AttributeType.TYPE_PROTOS

    name: str = field(1, "string", default=None, first=True)
    ref_attr_name: str = field(21, "string", default=None)
    doc_string: str = field(13, "string", default=None)
    # Tested first: every attribute has a type, and most values are one of these.
    type: int = field(20, "enum", enum="AttributeType", default=None, first=True)
    f: float = field(2, "float", default=None, first=True)
    i: int = field(3, "int64", default=None, first=True)
    s: bytes = field(4, "bytes", default=None, first=True)
    t: TensorProto = field(5, "message", message="TensorProto", default=None)
    g: GraphProto = field(6, "message", message="GraphProto", default=None)
    sparse_tensor: SparseTensorProto = field(
        22, "message", message="SparseTensorProto", default=None
    )
    tp: TypeProto = field(14, "message", message="TypeProto", default=None)
    floats: MutableSequence[float] = field(7, "float", default_factory=REPEATED)
    ints: MutableSequence[int] = field(8, "int64", default_factory=REPEATED, first=True)
    strings: MutableSequence[bytes] = field(9, "bytes", default_factory=REPEATED)
    tensors: MutableSequence[TensorProto] = field(
        10, "message", message="TensorProto", default_factory=REPEATED
    )
    graphs: MutableSequence[GraphProto] = field(
        11, "message", message="GraphProto", default_factory=REPEATED
    )
    sparse_tensors: MutableSequence[SparseTensorProto] = field(
        23, "message", message="SparseTensorProto", default_factory=REPEATED
    )
    type_protos: MutableSequence[TypeProto] = field(
        15, "message", message="TypeProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class ValueInfoProto(Message):
    """A named value of a graph and its type: an input, an output, an intermediate value."""

    name: str = field(1, "string", default=None)
    type: TypeProto = field(2, "message", message="TypeProto", default=None)
    doc_string: str = field(3, "string", default=None)
    metadata_props: MutableSequence[StringStringEntryProto] = field(
        4, "message", message="StringStringEntryProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class NodeProto(Message):
    """One operator call: its inputs and outputs by name, its operator, its attributes."""

    input: MutableSequence[str] = field(1, "string", default_factory=REPEATED)
    output: MutableSequence[str] = field(2, "string", default_factory=REPEATED)
    name: str = field(3, "string", default=None)
    op_type: str = field(4, "string", default=None)
    domain: str = field(7, "string", default=None)
    overload: str = field(8, "string", default=None)
    attribute: MutableSequence[AttributeProto] = field(
        5, "message", message="AttributeProto", default_factory=REPEATED
    )
    doc_string: str = field(6, "string", default=None)
    metadata_props: MutableSequence[StringStringEntryProto] = field(
        9, "message", message="StringStringEntryProto", default_factory=REPEATED
    )
    device_configurations: MutableSequence[NodeDeviceConfigurationProto] = field(
        10, "message", message="NodeDeviceConfigurationProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class TrainingInfoProto(Message):
    """How to train a model: an initialization step and an algorithm step, and their bindings."""

    initialization: GraphProto = field(1, "message", message="GraphProto", default=None)
    algorithm: GraphProto = field(2, "message", message="GraphProto", default=None)
    initialization_binding: MutableSequence[StringStringEntryProto] = field(
        3, "message", message="StringStringEntryProto", default_factory=REPEATED
    )
    update_binding: MutableSequence[StringStringEntryProto] = field(
        4, "message", message="StringStringEntryProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class ModelProto(Message):
    """An ONNX model: versions, operator sets, producer, the graph, functions, metadata."""

    # onnx's summary repr, not the dataclass repr (``summaries.py``)
    _REPR: ClassVar[Callable[[Any], str]] = model_summary

    ir_version: int = field(1, "int64", default=None)
    opset_import: MutableSequence[OperatorSetIdProto] = field(
        8, "message", message="OperatorSetIdProto", default_factory=REPEATED
    )
    producer_name: str = field(2, "string", default=None)
    producer_version: str = field(3, "string", default=None)
    domain: str = field(4, "string", default=None)
    model_version: int = field(5, "int64", default=None)
    doc_string: str = field(6, "string", default=None)
    graph: GraphProto = field(7, "message", message="GraphProto", default=None)
    metadata_props: MutableSequence[StringStringEntryProto] = field(
        14, "message", message="StringStringEntryProto", default_factory=REPEATED
    )
    training_info: MutableSequence[TrainingInfoProto] = field(
        20, "message", message="TrainingInfoProto", default_factory=REPEATED
    )
    functions: MutableSequence[FunctionProto] = field(
        25, "message", message="FunctionProto", default_factory=REPEATED
    )
    configuration: MutableSequence[DeviceConfigurationProto] = field(
        26, "message", message="DeviceConfigurationProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class TensorAnnotation(Message):
    """Quantization parameters of a tensor, by the names of the tensors that hold them."""

    tensor_name: str = field(1, "string", default=None)
    quant_parameter_tensor_names: MutableSequence[StringStringEntryProto] = field(
        2, "message", message="StringStringEntryProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class GraphProto(Message):
    """A graph: nodes in topological order, initializers, typed inputs, outputs and values."""

    # onnx's summary repr, not the dataclass repr (``summaries.py``)
    _REPR: ClassVar[Callable[[Any], str]] = graph_summary

    node: MutableSequence[NodeProto] = field(
        1, "message", message="NodeProto", default_factory=REPEATED
    )
    name: str = field(2, "string", default=None)
    initializer: MutableSequence[TensorProto] = field(
        5, "message", message="TensorProto", default_factory=REPEATED
    )
    sparse_initializer: MutableSequence[SparseTensorProto] = field(
        15, "message", message="SparseTensorProto", default_factory=REPEATED
    )
    doc_string: str = field(10, "string", default=None)
    input: MutableSequence[ValueInfoProto] = field(
        11, "message", message="ValueInfoProto", default_factory=REPEATED
    )
    output: MutableSequence[ValueInfoProto] = field(
        12, "message", message="ValueInfoProto", default_factory=REPEATED
    )
    value_info: MutableSequence[ValueInfoProto] = field(
        13, "message", message="ValueInfoProto", default_factory=REPEATED
    )
    quantization_annotation: MutableSequence[TensorAnnotation] = field(
        14, "message", message="TensorAnnotation", default_factory=REPEATED
    )
    metadata_props: MutableSequence[StringStringEntryProto] = field(
        16, "message", message="StringStringEntryProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class OperatorSetIdProto(Message):
    """An operator set a model imports: its domain and version."""

    domain: str = field(1, "string", default=None)
    version: int = field(2, "int64", default=None)
    unknown_fields: bytes = unknown(default=b"")


@message
class FunctionProto(Message):
    """A model-local function: a graph of nodes with named inputs, outputs and attributes."""

    # onnx's summary repr, not the dataclass repr (``summaries.py``)
    _REPR: ClassVar[Callable[[Any], str]] = function_summary

    name: str = field(1, "string", default=None)
    input: MutableSequence[str] = field(4, "string", default_factory=REPEATED)
    output: MutableSequence[str] = field(5, "string", default_factory=REPEATED)
    attribute: MutableSequence[str] = field(6, "string", default_factory=REPEATED)
    attribute_proto: MutableSequence[AttributeProto] = field(
        11, "message", message="AttributeProto", default_factory=REPEATED
    )
    node: MutableSequence[NodeProto] = field(
        7, "message", message="NodeProto", default_factory=REPEATED
    )
    doc_string: str = field(8, "string", default=None)
    opset_import: MutableSequence[OperatorSetIdProto] = field(
        9, "message", message="OperatorSetIdProto", default_factory=REPEATED
    )
    domain: str = field(10, "string", default=None)
    overload: str = field(13, "string", default=None)
    value_info: MutableSequence[ValueInfoProto] = field(
        12, "message", message="ValueInfoProto", default_factory=REPEATED
    )
    metadata_props: MutableSequence[StringStringEntryProto] = field(
        14, "message", message="StringStringEntryProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")
