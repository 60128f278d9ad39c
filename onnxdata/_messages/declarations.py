"""The ONNX data messages as plain dataclasses.

Field names, numbers and declaration order follow ``onnx-data.in.proto`` and
``onnx.proto`` (onnx 1.23.2) exactly, so code written against ``onnx.TensorProto``
reads the same.  They read as protobuf's generated classes read: a field never
set reads as its default (``""``, ``0``, an empty message) and is not written;
set to its default it is written, and ``HasField`` tells the two apart
(proto2 presence).  ``default=None`` below is what the constructor takes for
"unset".

The packed numeric fields (``float_data``, ``int32_data``, ``int64_data``,
``double_data``, ``uint64_data``) hold an ``array.array`` in the wire width: a
float32 keeps every bit (a signalling NaN included, which a Python ``float``
would quiet), an int64 costs 8 bytes instead of a 32-byte object, and numpy
reads the values in place.  Any sequence of numbers may be assigned.
``dims`` and ``keys``, unpacked on the wire, are lists.
"""

from __future__ import annotations

from .._core.classes import message
from .._core.schema import REPEATED, field, unknown
from .message import Message, ProtoEnum

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import MutableSequence
    from typing import ClassVar

__all__ = [
    "MESSAGE_TYPES",
    "MapProto",
    "Message",
    "OptionalProto",
    "ProtoEnum",
    "SequenceProto",
    "SparseTensorProto",
    "StringStringEntryProto",
    "TensorProto",
]


@message
class StringStringEntryProto(Message):
    """A key/value pair of strings (``external_data``, ``metadata_props``)."""

    key: str = field(1, "string", default=None)
    value: str = field(2, "string", default=None)
    unknown_fields: bytes = unknown(default=b"")


@message
class TensorProto(Message):
    """A tensor: ``dims``, ``data_type`` and its values in one storage field."""

    class DataType(ProtoEnum):
        UNDEFINED = 0
        FLOAT = 1
        UINT8 = 2
        INT8 = 3
        UINT16 = 4
        INT16 = 5
        INT32 = 6
        INT64 = 7
        STRING = 8
        BOOL = 9
        FLOAT16 = 10
        DOUBLE = 11
        UINT32 = 12
        UINT64 = 13
        COMPLEX64 = 14
        COMPLEX128 = 15
        BFLOAT16 = 16
        FLOAT8E4M3FN = 17
        FLOAT8E4M3FNUZ = 18
        FLOAT8E5M2 = 19
        FLOAT8E5M2FNUZ = 20
        UINT4 = 21
        INT4 = 22
        FLOAT4E2M1 = 23
        FLOAT8E8M0 = 24
        UINT2 = 25
        INT2 = 26
        FLOAT6E2M3 = 27
        FLOAT6E3M2 = 28

    class DataLocation(ProtoEnum):
        DEFAULT = 0
        EXTERNAL = 1

    @message
    class Segment(Message):
        """For very large tensors split into chunks: the slice ``[begin, end)``."""

        begin: int = field(1, "int64", default=None)
        end: int = field(2, "int64", default=None)
        unknown_fields: bytes = unknown(default=b"")

    UNDEFINED = DataType.UNDEFINED
    FLOAT = DataType.FLOAT
    UINT8 = DataType.UINT8
    INT8 = DataType.INT8
    UINT16 = DataType.UINT16
    INT16 = DataType.INT16
    INT32 = DataType.INT32
    INT64 = DataType.INT64
    STRING = DataType.STRING
    BOOL = DataType.BOOL
    FLOAT16 = DataType.FLOAT16
    DOUBLE = DataType.DOUBLE
    UINT32 = DataType.UINT32
    UINT64 = DataType.UINT64
    COMPLEX64 = DataType.COMPLEX64
    COMPLEX128 = DataType.COMPLEX128
    BFLOAT16 = DataType.BFLOAT16
    FLOAT8E4M3FN = DataType.FLOAT8E4M3FN
    FLOAT8E4M3FNUZ = DataType.FLOAT8E4M3FNUZ
    FLOAT8E5M2 = DataType.FLOAT8E5M2
    FLOAT8E5M2FNUZ = DataType.FLOAT8E5M2FNUZ
    UINT4 = DataType.UINT4
    INT4 = DataType.INT4
    FLOAT4E2M1 = DataType.FLOAT4E2M1
    FLOAT8E8M0 = DataType.FLOAT8E8M0
    UINT2 = DataType.UINT2
    INT2 = DataType.INT2
    FLOAT6E2M3 = DataType.FLOAT6E2M3
    FLOAT6E3M2 = DataType.FLOAT6E3M2
    DEFAULT = DataLocation.DEFAULT
    EXTERNAL = DataLocation.EXTERNAL
    # The constants ``import onnx`` reads, which protobuf's class then lists in
    # ``dir()`` (see ``MessageType``): every DataType but UNDEFINED.
    _LISTED_CONSTANTS: ClassVar[tuple[str, ...]] = tuple(DataType.keys()[1:])

    dims: MutableSequence[int] = field(1, "int64", default_factory=REPEATED)
    data_type: int = field(2, "int32", default=None)
    segment: TensorProto.Segment = field(3, "message", message="Segment", default=None)
    float_data: MutableSequence[float] = field(4, "float", packed=True, default_factory=REPEATED)
    int32_data: MutableSequence[int] = field(5, "int32", packed=True, default_factory=REPEATED)
    string_data: MutableSequence[bytes] = field(6, "bytes", default_factory=REPEATED)
    int64_data: MutableSequence[int] = field(7, "int64", packed=True, default_factory=REPEATED)
    name: str = field(8, "string", default=None)
    doc_string: str = field(12, "string", default=None)
    # A weight payload: decode(copy=False) and load leave it a view of the input.
    raw_data: bytes = field(9, "bytes", default=None, first=True, view=True)
    external_data: MutableSequence[StringStringEntryProto] = field(
        13, "message", message="StringStringEntryProto", default_factory=REPEATED
    )
    data_location: int = field(14, "enum", enum="DataLocation", default=None)
    double_data: MutableSequence[float] = field(10, "double", packed=True, default_factory=REPEATED)
    uint64_data: MutableSequence[int] = field(11, "uint64", packed=True, default_factory=REPEATED)
    metadata_props: MutableSequence[StringStringEntryProto] = field(
        16, "message", message="StringStringEntryProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class SparseTensorProto(Message):
    """A sparse tensor: non-zero ``values``, their ``indices``, the dense ``dims``."""

    values: TensorProto = field(1, "message", message="TensorProto", default=None)
    indices: TensorProto = field(2, "message", message="TensorProto", default=None)
    dims: MutableSequence[int] = field(3, "int64", default_factory=REPEATED)
    unknown_fields: bytes = unknown(default=b"")


@message
class SequenceProto(Message):
    """An ordered collection of elements of one type."""

    _PROTO_FILE: ClassVar[str] = "onnx/onnx-data.proto"  # its DESCRIPTOR.file

    class DataType(ProtoEnum):
        UNDEFINED = 0
        TENSOR = 1
        SPARSE_TENSOR = 2
        SEQUENCE = 3
        MAP = 4
        OPTIONAL = 5

    UNDEFINED = DataType.UNDEFINED
    TENSOR = DataType.TENSOR
    SPARSE_TENSOR = DataType.SPARSE_TENSOR
    SEQUENCE = DataType.SEQUENCE
    MAP = DataType.MAP
    OPTIONAL = DataType.OPTIONAL

    name: str = field(1, "string", default=None, last=True)
    elem_type: int = field(2, "int32", default=None)
    tensor_values: MutableSequence[TensorProto] = field(
        3,
        "message",
        message="TensorProto",
        default_factory=REPEATED,
        runs=("dims", "data_type", "raw_data"),  # as from_list writes them
    )
    sparse_tensor_values: MutableSequence[SparseTensorProto] = field(
        4, "message", message="SparseTensorProto", default_factory=REPEATED
    )
    sequence_values: MutableSequence[SequenceProto] = field(
        5, "message", message="SequenceProto", default_factory=REPEATED, runs="tail"
    )
    map_values: MutableSequence[MapProto] = field(
        6, "message", message="MapProto", default_factory=REPEATED
    )
    optional_values: MutableSequence[OptionalProto] = field(
        7, "message", message="OptionalProto", default_factory=REPEATED
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class MapProto(Message):
    """An associative table: integer ``keys`` or ``string_keys``, and ``values``."""

    _PROTO_FILE: ClassVar[str] = "onnx/onnx-data.proto"  # its DESCRIPTOR.file

    name: str = field(1, "string", default=None, last=True)
    key_type: int = field(2, "int32", default=None)
    keys: MutableSequence[int] = field(3, "int64", default_factory=REPEATED, runs="varints")
    string_keys: MutableSequence[bytes] = field(4, "bytes", default_factory=REPEATED)
    values: SequenceProto = field(5, "message", message="SequenceProto", default=None)
    unknown_fields: bytes = unknown(default=b"")


@message
class OptionalProto(Message):
    """A value that may be absent."""

    _PROTO_FILE: ClassVar[str] = "onnx/onnx-data.proto"  # its DESCRIPTOR.file

    class DataType(ProtoEnum):
        UNDEFINED = 0
        TENSOR = 1
        SPARSE_TENSOR = 2
        SEQUENCE = 3
        MAP = 4
        OPTIONAL = 5

    UNDEFINED = DataType.UNDEFINED
    TENSOR = DataType.TENSOR
    SPARSE_TENSOR = DataType.SPARSE_TENSOR
    SEQUENCE = DataType.SEQUENCE
    MAP = DataType.MAP
    OPTIONAL = DataType.OPTIONAL

    name: str = field(1, "string", default=None, last=True)
    elem_type: int = field(2, "int32", default=None)
    tensor_value: TensorProto = field(3, "message", message="TensorProto", default=None)
    sparse_tensor_value: SparseTensorProto = field(
        4, "message", message="SparseTensorProto", default=None
    )
    sequence_value: SequenceProto = field(5, "message", message="SequenceProto", default=None)
    map_value: MapProto = field(6, "message", message="MapProto", default=None)
    optional_value: OptionalProto = field(
        7, "message", message="OptionalProto", default=None, runs="tail"
    )
    unknown_fields: bytes = unknown(default=b"")


MESSAGE_TYPES: tuple[type[Message], ...] = (
    TensorProto,
    TensorProto.Segment,
    StringStringEntryProto,
    SparseTensorProto,
    SequenceProto,
    MapProto,
    OptionalProto,
)
