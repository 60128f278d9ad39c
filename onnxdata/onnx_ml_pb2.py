"""``onnx.onnx_ml_pb2``: the messages and enums of ``onnx-ml.proto`` that onnxdata has.

Code written against onnx imports them from here (``from onnx.onnx_ml_pb2
import TensorProto``); they are the same objects as ``onnxdata.TensorProto``.
The model messages (``ModelProto``, ``GraphProto``...) are not here yet.
"""

from __future__ import annotations

from ._messages import versions
from ._messages.declarations import SparseTensorProto, StringStringEntryProto, TensorProto
from ._messages.versions import *  # noqa: F403 - Version, OperatorStatus and their constants

_START_VERSION: int = versions.Version._START_VERSION  # the module has it, as protobuf's does

__all__ = ["SparseTensorProto", "StringStringEntryProto", "TensorProto", *versions.__all__]
