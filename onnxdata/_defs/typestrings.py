"""Type strings of operator schemas (``tensor(float)``, ``seq(map(int64, tensor(float)))``).

onnx parses each allowed type and each formal parameter's literal type into a ``TypeProto`` and
prints it back (``DataTypeUtils::ToType``): what a schema's ``FormalParameter.types`` holds is
that canonical text, with no blanks.  A string that does not parse raises ``ValueError`` with
onnx's message, as building an ``OpSchema`` from Python does in onnx.
"""

from __future__ import annotations

from .._messages.declarations import TensorProto

# The element types of type strings: TensorProto.DataType's names in lower case (onnx's table).
ELEMENT_TYPES = frozenset(
    name.lower() for name, _ in TensorProto.DataType.items() if name != "UNDEFINED"
)
_MAX_DEPTH = 100


def _invalid(text: str) -> ValueError:
    return ValueError(
        f"DataTypeUtils::FromDataTypeString - Received invalid data type string '{text}'."
    )


def _parse(text: str, depth: int) -> str:
    """The canonical form of one type, or ValueError.

    A bare element type is a tensor of it (``float`` is ``tensor(float)``), as in onnx.
    """
    if text in ELEMENT_TYPES:
        return f"tensor({text})"
    if depth > _MAX_DEPTH or not text.endswith(")") or "(" not in text:
        raise _invalid(text)
    head, _, inner = text[:-1].partition("(")
    if head in ("tensor", "sparse_tensor"):
        if inner not in ELEMENT_TYPES:
            raise _invalid(inner)
        return f"{head}({inner})"
    if head in ("seq", "optional"):
        return f"{head}({_parse(inner, depth + 1)})"
    if head == "map":
        key, comma, value = inner.partition(",")
        if not comma or key not in ELEMENT_TYPES:
            raise _invalid(inner)
        return f"map({key},{_parse(value, depth + 1)})"
    raise _invalid(text)


def canonical(text: str) -> str:
    """``text`` as onnx prints the type it parses to: blanks removed, checked.

    Raises ValueError (onnx's message) when ``text`` names no type.
    """
    return _parse("".join(text.split()), 0)
