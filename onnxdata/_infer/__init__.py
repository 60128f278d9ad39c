"""onnx's shape and type inference, in Python: the graph walk, the rules of each operator."""
