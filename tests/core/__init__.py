"""The wire format and the schema (onnxdata._core)."""
