"""The validator, checker and the command line (onnxdata._tools, cli)."""
