"""The protobuf message API of the ONNX messages (onnxdata._messages)."""
