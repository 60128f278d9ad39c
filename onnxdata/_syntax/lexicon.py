"""The words of ONNX's textual syntax, shared by its parser and its printer.

Element types by name (``float``, ``int64``... onnx's ``PrimitiveTypeNameMap``),
attribute types by name (``ints``, ``graph``... ``AttributeTypeNameMap``), the
keywords that start a type, and the keys of a model's and a function's header
(``KeyWordMap``).  The header keys are the field names they set, so this module
names ``doc_string`` and ``metadata_props`` on purpose.
"""

from __future__ import annotations

from .._messages.declarations import TensorProto
from .._messages.graphs import AttributeProto

__all__ = [
    "ATTRIBUTE_TYPES",
    "ELEMENT_TYPES",
    "FUNCTION_KEYS",
    "MODEL_KEYS",
    "STRING_KEYS",
    "TYPE_KEYWORDS",
]

ELEMENT_TYPES: dict[str, int] = {
    name: TensorProto.DataType.Value(name.upper())
    for name in (
        "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool",
        "float16", "double", "uint32", "uint64", "complex64", "complex128", "bfloat16",
        "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "float8e8m0",
        "uint4", "int4", "float4e2m1", "uint2", "int2",
    )
}  # fmt: skip
"""The element types by their name in the syntax (their enum name in lower case)."""

ATTRIBUTE_TYPES: dict[str, int] = {
    name: AttributeProto.AttributeType.Value(name.upper())
    for name in (
        "float", "int", "string", "tensor", "graph", "sparse_tensor", "type_proto",
        "floats", "ints", "strings", "tensors", "graphs", "sparse_tensors", "type_protos",
    )
}  # fmt: skip
"""The attribute types by their name in a ``: type`` annotation."""

TYPE_KEYWORDS = frozenset({"seq", "map", "optional", "sparse_tensor", "opaque"})
"""The keywords that start a type other than a tensor's."""

MODEL_KEYS = frozenset(
    {"ir_version", "opset_import", "producer_name", "producer_version", "domain",
     "model_version", "doc_string", "metadata_props"}
)  # fmt: skip
"""The keys of a model's ``<...>`` header: each is the field it sets."""

FUNCTION_KEYS = frozenset({"opset_import", "doc_string", "domain", "overload"})
"""The keys of a function's ``<...>`` header."""

STRING_KEYS = frozenset({"doc_string", "domain", "overload", "producer_name", "producer_version"})
"""The header keys whose value is a string literal."""
