"""The words of ONNX's textual syntax, as onnx's ``parser.h`` defines them.

Printer and parser share them, so that what one writes the other reads: the identifier
rule (ASCII only, whatever the locale), the names of the element and attribute types,
and the model header's keywords, which are the model's field names.
"""

from __future__ import annotations

import re

__all__ = [
    "ATTRIBUTE_TYPES",
    "ELEMENT_TYPES",
    "FUNCTION_KEYS",
    "INTEGER_KEYS",
    "MODEL_KEYS",
    "MODEL_KEYWORDS",
    "STRING_KEYS",
    "TYPE_KEYWORDS",
    "UNDEFINED",
    "is_identifier",
]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII).fullmatch


def is_identifier(text: str) -> bool:
    """Whether ``text`` is written bare (onnx's ``IsValidIdentifier``): an ASCII letter
    or ``_``, then letters, digits and ``_``; anything else is written quoted."""
    return _IDENTIFIER(text) is not None


UNDEFINED = "undefined"
"""The name onnx prints for a type number its tables do not have."""

# TensorProto.DataType's numbers by the names the syntax gives them (parser.h's
# PrimitiveTypeNameMap): not the enum's names, and UNDEFINED is not among them.
ELEMENT_TYPES: dict[str, int] = {
    "float": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7,
    "string": 8, "bool": 9, "float16": 10, "double": 11, "uint32": 12, "uint64": 13,
    "complex64": 14, "complex128": 15, "bfloat16": 16, "float8e4m3fn": 17,
    "float8e4m3fnuz": 18, "float8e5m2": 19, "float8e5m2fnuz": 20, "uint4": 21, "int4": 22,
    "float4e2m1": 23, "float8e8m0": 24, "uint2": 25, "int2": 26, "float6e2m3": 27,
    "float6e3m2": 28,
}  # fmt: skip

# AttributeProto.AttributeType's numbers by their names in the syntax (AttributeTypeNameMap).
ATTRIBUTE_TYPES: dict[str, int] = {
    "float": 1, "int": 2, "string": 3, "tensor": 4, "graph": 5, "floats": 6, "ints": 7,
    "strings": 8, "tensors": 9, "graphs": 10, "sparse_tensor": 11, "sparse_tensors": 12,
    "type_proto": 13, "type_protos": 14,
}  # fmt: skip

# The model header's keys, in the order onnx prints them: each is the ModelProto field
# it stands for (KeyWordMap), which is why the grammar names these fields.
MODEL_KEYWORDS = (
    "ir_version", "opset_import", "producer_name", "producer_version", "domain",
    "model_version", "doc_string", "metadata_props",
)  # fmt: skip

# The parser's words besides (parser.h's KeyWordMap): what starts a type other than a
# tensor's, and the keys a function's header and a model's header take.
TYPE_KEYWORDS = frozenset({"seq", "map", "optional", "sparse_tensor", "opaque"})
MODEL_KEYS = frozenset(MODEL_KEYWORDS)
FUNCTION_KEYS = frozenset({"opset_import", "doc_string", "domain", "overload"})
STRING_KEYS = frozenset({"doc_string", "domain", "overload", "producer_name", "producer_version"})
"""The header keys whose value is a string literal."""
INTEGER_KEYS = frozenset({"ir_version", "model_version"})
"""The header keys whose value is an integer."""
