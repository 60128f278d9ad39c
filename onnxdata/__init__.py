"""onnxdata: ONNX's data messages in pure Python, byte-identical to protobuf.

``TensorProto``, ``SparseTensorProto``, ``SequenceProto``, ``MapProto`` and
``OptionalProto`` as dataclasses, with an encoder and a decoder that need no
protobuf runtime.  Only the standard library is imported.
"""

from ._errors import (
    DecodeError,
    EncodeError,
    EncodeOverflowError,
    EncodeTypeError,
    EncodeValueError,
)
from ._messages import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)

__version__ = "0.1.0"

__all__ = [
    "DecodeError",
    "EncodeError",
    "EncodeOverflowError",
    "EncodeTypeError",
    "EncodeValueError",
    "MapProto",
    "Message",
    "OptionalProto",
    "SequenceProto",
    "SparseTensorProto",
    "StringStringEntryProto",
    "TensorProto",
    "__version__",
]
