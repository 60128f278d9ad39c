"""``onnx.printer``: models, graphs, functions and nodes in ONNX's textual syntax.

``to_text(model)`` gives onnx 1.23.2's text exactly, character for character (its C++
printer, ``onnx/defs/printer.cc``, redone in Python): the same layout, the same quoting
of names that are not identifiers, the same numbers (C++ ``std::to_chars``: the shortest
digits that read back, ``1e-07``, ``-0``, ``nan``), the same ``...`` where onnx has no
syntax for a tensor's values.  It takes onnxdata's messages and onnx's own (through their
bytes); attributes and value infos too, which onnx's Python function refuses (its C++
prints them: this prints them as it does).

    >>> from onnxdata import helper, printer
    >>> print(printer.to_text(helper.make_node("Relu", ["x"], ["y"])), end="")
       y = Relu (x)
"""

from __future__ import annotations

from typing import Any

from ._messages.graphs import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    ValueInfoProto,
)
from ._messages.message import Message
from ._syntax.print_graphs import attribute_text, graph_text, node_text
from ._syntax.print_models import function_text, model_text
from ._syntax.print_state import Printing
from ._syntax.print_tensors import PrinterError
from ._syntax.print_types import value_info_text

__all__ = ["PrinterError", "to_text"]


_PRINTERS: dict[type[Message], Any] = {
    ModelProto: model_text,
    FunctionProto: function_text,
    GraphProto: lambda graph: graph_text(graph, Printing()),
    NodeProto: lambda node: node_text(node, Printing(), 3),
    AttributeProto: lambda attr: attribute_text(attr, Printing()),
    ValueInfoProto: value_info_text,
}


def _own(proto: Any) -> Message:
    """One of our messages as it is; one of onnx's (protobuf's) read through its bytes."""
    if isinstance(proto, Message):
        return proto
    full_name = getattr(getattr(proto, "DESCRIPTOR", None), "full_name", None)
    serialize = getattr(proto, "SerializeToString", None)
    for cls in _PRINTERS:
        if full_name == f"onnx.{cls.__name__}" and serialize is not None:
            made: Message = cls.decode(serialize())
            return made
    return proto  # type: ignore[no-any-return]


def to_text(
    proto: ModelProto | FunctionProto | GraphProto | NodeProto | AttributeProto | ValueInfoProto,
) -> str:
    """``proto`` in ONNX's textual syntax, as onnx's printer writes it.

    Raises:
        TypeError: ``Unsupported argument type.`` (onnx's words) for any other value.
        PrinterError: (a ``ValueError``) a tensor whose ``raw_data`` is not the size
            its dims and type say, or whose dims are negative or overflow; onnx raises
            its ``InferenceError`` with the same text.
        UnicodeDecodeError: a string or bytes field that is not UTF-8, where onnx
            raises the same error at the same position of the text.
        onnxdata.DecodeError: one of onnx's messages whose bytes do not decode.
    """
    message = _own(proto)
    printer = _PRINTERS.get(type(message))
    if printer is None:
        raise TypeError("Unsupported argument type.")
    text: str = printer(message)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            # Invalid UTF-8 read from a field is held as surrogate escapes: back to
            # bytes, and decoded as onnx's binding decodes its output, error and all.
            text.encode("utf-8", "surrogateescape").decode("utf-8")
    return text
