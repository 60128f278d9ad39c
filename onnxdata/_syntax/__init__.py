"""ONNX's textual syntax (``onnx.parser``, ``onnx.printer``): the layer between the
operator schemas and the files, so that the serialization formats can read and
write it."""
