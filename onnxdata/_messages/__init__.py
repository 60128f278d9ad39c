"""The ONNX messages: their declarations, the protobuf message API, the data types,
and onnx's own messages taken through their bytes.
"""
