"""The type messages of ``onnx-ml.proto``: ``TypeProto`` and ``TensorShapeProto``.

A value's type in a graph (an input, an output, a ``value_info``, a
``TYPE_PROTO`` attribute) is a ``TypeProto``: one of a tensor, a sequence, a
map, an optional, a sparse tensor or an opaque type, in the ``oneof
value``; a tensor's shape is a list of dimensions, each a number or a
symbolic name (``oneof value`` again).  Names, numbers and order follow the
.proto exactly; setting one member of a oneof unsets the others.
"""

from __future__ import annotations

from .._core.classes import message
from .._core.schema import REPEATED, field, unknown
from .message import Message

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import MutableSequence

__all__ = ["TensorShapeProto", "TypeProto"]


@message
class TensorShapeProto(Message):
    """A tensor's shape: one ``Dimension`` per axis."""

    @message
    class Dimension(Message):
        """One axis: its size (``dim_value``), or a name for it (``dim_param``), or neither."""

        dim_value: int = field(1, "int64", default=None, oneof="value")
        dim_param: str = field(2, "string", default=None, oneof="value")
        denotation: str = field(3, "string", default=None)
        unknown_fields: bytes = unknown(default=b"")

    dim: MutableSequence[TensorShapeProto.Dimension] = field(
        1,
        "message",
        message="TensorShapeProto.Dimension",
        default_factory=REPEATED,
    )
    unknown_fields: bytes = unknown(default=b"")


@message
class TypeProto(Message):
    """A value's type: one of the members of ``value``, and a denotation."""

    @message
    class Tensor(Message):
        """A dense tensor's element type (a ``TensorProto.DataType``) and shape."""

        elem_type: int = field(1, "int32", default=None)
        shape: TensorShapeProto = field(2, "message", message="TensorShapeProto", default=None)
        unknown_fields: bytes = unknown(default=b"")

    @message
    class Sequence(Message):
        """A sequence of values of one type."""

        elem_type: TypeProto = field(1, "message", message="TypeProto", default=None)
        unknown_fields: bytes = unknown(default=b"")

    @message
    class Map(Message):
        """A map from an integer or string key type to values of one type."""

        key_type: int = field(1, "int32", default=None)
        value_type: TypeProto = field(2, "message", message="TypeProto", default=None)
        unknown_fields: bytes = unknown(default=b"")

    @message
    class Optional(Message):
        """A value of one type, or none."""

        elem_type: TypeProto = field(1, "message", message="TypeProto", default=None)
        unknown_fields: bytes = unknown(default=b"")

    @message
    class SparseTensor(Message):
        """A sparse tensor's element type and dense shape."""

        elem_type: int = field(1, "int32", default=None)
        shape: TensorShapeProto = field(2, "message", message="TensorShapeProto", default=None)
        unknown_fields: bytes = unknown(default=b"")

    @message
    class Opaque(Message):
        """A type known to a domain by name only."""

        domain: str = field(1, "string", default=None)
        name: str = field(2, "string", default=None)
        unknown_fields: bytes = unknown(default=b"")

    tensor_type: TypeProto.Tensor = field(
        1, "message", message="TypeProto.Tensor", default=None, oneof="value"
    )
    sequence_type: TypeProto.Sequence = field(
        4, "message", message="TypeProto.Sequence", default=None, oneof="value"
    )
    map_type: TypeProto.Map = field(
        5, "message", message="TypeProto.Map", default=None, oneof="value"
    )
    optional_type: TypeProto.Optional = field(
        9, "message", message="TypeProto.Optional", default=None, oneof="value"
    )
    sparse_tensor_type: TypeProto.SparseTensor = field(
        8, "message", message="TypeProto.SparseTensor", default=None, oneof="value"
    )
    opaque_type: TypeProto.Opaque = field(
        7, "message", message="TypeProto.Opaque", default=None, oneof="value"
    )
    denotation: str = field(6, "string", default=None)
    unknown_fields: bytes = unknown(default=b"")
