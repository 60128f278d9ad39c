"""protobuf's text format and JSON mapping, over the schema: tokenizer, parsers, printers.

Between the codec and the messages: these modules know fields only through
``_core.schema`` (``spec_of``, ``FieldSpec.message``) and values only through
``_core.kinds``, so they take any message class built from a schema.  The
public faces (``text_format``, ``json_format``) convert onnx's protobuf
messages before calling in.
"""
