"""``onnx.onnx_ml_pb2``: the messages and enums of ``onnx-ml.proto`` that onnxdata has.

Code written against onnx imports them from here (``from onnx.onnx_ml_pb2
import TensorProto``); they are the same objects as ``onnxdata.TensorProto``.
The model messages (``ModelProto``, ``GraphProto``...) are not here yet.
"""

from __future__ import annotations

from ._messages.declarations import SparseTensorProto, StringStringEntryProto, TensorProto
from ._messages.versions import (
    EXPERIMENTAL,
    IR_VERSION,
    IR_VERSION_2017_10_10,
    IR_VERSION_2017_10_30,
    IR_VERSION_2017_11_3,
    IR_VERSION_2019_1_22,
    IR_VERSION_2019_3_18,
    IR_VERSION_2019_9_19,
    IR_VERSION_2020_5_8,
    IR_VERSION_2021_7_30,
    IR_VERSION_2023_5_5,
    IR_VERSION_2024_3_25,
    IR_VERSION_2025_05_12,
    IR_VERSION_2025_08_26,
    IR_VERSION_2025_11_06,
    STABLE,
    OperatorStatus,
    Version,
)

_START_VERSION: int = Version._START_VERSION  # the module has it, as protobuf's does

__all__ = [
    "EXPERIMENTAL",
    "IR_VERSION",
    "IR_VERSION_2017_10_10",
    "IR_VERSION_2017_10_30",
    "IR_VERSION_2017_11_3",
    "IR_VERSION_2019_1_22",
    "IR_VERSION_2019_3_18",
    "IR_VERSION_2019_9_19",
    "IR_VERSION_2020_5_8",
    "IR_VERSION_2021_7_30",
    "IR_VERSION_2023_5_5",
    "IR_VERSION_2024_3_25",
    "IR_VERSION_2025_05_12",
    "IR_VERSION_2025_08_26",
    "IR_VERSION_2025_11_06",
    "STABLE",
    "OperatorStatus",
    "SparseTensorProto",
    "StringStringEntryProto",
    "TensorProto",
    "Version",
]
