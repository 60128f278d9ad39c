"""Files, streams and external data (onnxdata._io)."""
