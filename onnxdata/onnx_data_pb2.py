"""``onnx.onnx_data_pb2``: the messages of ``onnx-data.proto``, as onnx names their module.

The same objects as ``onnxdata.SequenceProto``, ``MapProto`` and ``OptionalProto``.
"""

from __future__ import annotations

from ._messages.declarations import MapProto, OptionalProto, SequenceProto

__all__ = ["MapProto", "OptionalProto", "SequenceProto"]
