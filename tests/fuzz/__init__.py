"""The fuzzing toolkit, its seeds and atheris targets (onnxdata._fuzz, fuzz, strategies)."""
