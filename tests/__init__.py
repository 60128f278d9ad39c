"""onnxdata's tests: one folder a layer of the package, shared helpers in ``support``."""
