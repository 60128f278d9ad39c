"""The numpy bridge and onnx's helper functions (onnxdata._numpy, numpy_helper, helper)."""
