"""``onnx.onnx_ml_pb2``: every message and enum of ``onnx-ml.proto``.

Code written against onnx imports them from here (``from onnx.onnx_ml_pb2
import TensorProto``); they are the same objects as ``onnxdata.TensorProto``.
"""

from __future__ import annotations

from ._messages import versions
from ._messages.declarations import SparseTensorProto, StringStringEntryProto, TensorProto
from ._messages.devices import (
    DeviceConfigurationProto,
    IntIntListEntryProto,
    NodeDeviceConfigurationProto,
    ShardedDimProto,
    ShardingSpecProto,
    SimpleShardedDimProto,
)
from ._messages.graphs import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    TensorAnnotation,
    TrainingInfoProto,
    ValueInfoProto,
)
from ._messages.types import TensorShapeProto, TypeProto
from ._messages.versions import *  # noqa: F403 - Version, OperatorStatus and their constants

_START_VERSION: int = versions.Version._START_VERSION  # the module has it, as protobuf's does

__all__ = [
    "AttributeProto",
    "DeviceConfigurationProto",
    "FunctionProto",
    "GraphProto",
    "IntIntListEntryProto",
    "ModelProto",
    "NodeDeviceConfigurationProto",
    "NodeProto",
    "OperatorSetIdProto",
    "ShardedDimProto",
    "ShardingSpecProto",
    "SimpleShardedDimProto",
    "SparseTensorProto",
    "StringStringEntryProto",
    "TensorAnnotation",
    "TensorProto",
    "TensorShapeProto",
    "TrainingInfoProto",
    "TypeProto",
    "ValueInfoProto",
    *versions.__all__,
]
