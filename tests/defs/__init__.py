"""onnx's operator schemas as data (onnxdata.defs, onnxdata._defs) against onnx.defs."""
