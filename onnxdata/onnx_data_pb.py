"""``onnx.onnx_data_pb``: what ``onnx_data_pb2`` has, under the name older code imports."""

from __future__ import annotations

from .onnx_data_pb2 import *  # noqa: F403 - the same names, as onnx's module
from .onnx_data_pb2 import __all__ as __all__
