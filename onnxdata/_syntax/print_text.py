"""``to_text`` and its kin: which printer a message takes, and the checks onnx's binding
makes of the text (UTF-8, nesting, cycles).

Here, below the files, so that the ``onnxtxt`` format of ``save`` prints with it; the public
face is ``onnxdata.printer``.
"""

from __future__ import annotations

from typing import Any

from .._core.walk import refuse_cycles
from .._messages.graphs import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    ValueInfoProto,
)
from .._messages.message import Message
from .print_graphs import attribute_text, graph_text, node_text
from .print_models import function_text, model_text
from .print_state import Printing
from .print_tensors import PrinterError
from .print_types import value_info_text

__all__ = ["PrinterError", "attribute_to_text", "to_text", "value_info_to_text"]


_PRINTERS: dict[type[Message], Any] = {
    ModelProto: model_text,
    FunctionProto: function_text,
    GraphProto: lambda graph: graph_text(graph, Printing()),
    NodeProto: lambda node: node_text(node, Printing(), 3),
}


def _own(proto: Any) -> Message:
    """One of our messages as it is; one of onnx's (protobuf's) read through its bytes."""
    if isinstance(proto, Message):
        return proto
    full_name = getattr(getattr(proto, "DESCRIPTOR", None), "full_name", None)
    serialize = getattr(proto, "SerializeToString", None)
    classes: tuple[type[Message], ...] = (*_PRINTERS, AttributeProto, ValueInfoProto)
    for cls in classes:
        if full_name == f"onnx.{cls.__name__}" and serialize is not None:
            made: Message = cls.decode(serialize())
            return made
    return proto  # type: ignore[no-any-return]


def to_text(proto: ModelProto | FunctionProto | GraphProto | NodeProto) -> str:
    """``proto`` in ONNX's textual syntax, as onnx's printer writes it.

    Raises:
        TypeError: ``Unsupported argument type.`` (onnx's words) for any other value.
        PrinterError: (a ``ValueError``) a tensor whose ``raw_data`` is not the size
            its dims and type say, or whose dims are negative or overflow; onnx raises
            its ``InferenceError`` with the same text.  Also: nested too deeply to
            print (deeper than protobuf's limit of 100 levels).
        UnicodeDecodeError: a string or bytes field that is not UTF-8, where onnx
            raises the same error at the same position of the text.
        onnxdata.DecodeError: one of onnx's messages whose bytes do not decode.
        UnicodeEncodeError: a name holding a lone surrogate, which no UTF-8 carries.
        onnxdata.EncodeError: (an ``EncodeValueError``) a message that holds itself,
            as ``encode()`` refuses it.
    """
    message = _own(proto)
    printer = _PRINTERS.get(type(message))
    if printer is None:
        raise TypeError("Unsupported argument type.")
    return _printed(printer, message)


def attribute_to_text(attr: AttributeProto) -> str:
    """One attribute, ``name: kind = value``, as onnx's C++ prints it (in a node, or by
    ``operator<<``); a graph in it is indented as under a top-level node.

    Raises:
        TypeError: ``attr`` is not an attribute.
        PrinterError: a tensor whose ``raw_data`` does not fit its dims.
        UnicodeDecodeError: a string or bytes field that is not UTF-8.
    """
    message = _own(attr)
    if not isinstance(message, AttributeProto):
        raise TypeError(f"an AttributeProto is needed, not {type(attr).__name__}")
    return _printed(lambda attr: attribute_text(attr, Printing()), message)


def value_info_to_text(value_info: ValueInfoProto) -> str:
    """One value info, ``type name`` (``float[N,3] x``), as onnx's C++ prints it.

    Raises:
        TypeError: ``value_info`` is not a value info.
        UnicodeDecodeError: a string field that is not UTF-8.
    """
    message = _own(value_info)
    if not isinstance(message, ValueInfoProto):
        raise TypeError(f"a ValueInfoProto is needed, not {type(value_info).__name__}")
    return _printed(value_info_text, message)


def _printed(printer: Any, message: Message) -> str:
    """``printer(message)``, checked as onnx's binding checks its output (decoded as UTF-8).

    Raises:
        PrinterError: nested too deeply to print.
        EncodeValueError: ``message`` holds itself.
        UnicodeDecodeError, UnicodeEncodeError: see :func:`to_text`.
    """
    try:
        text: str = printer(message)
    except RecursionError:
        # Built in Python, a message may hold itself, or nest deeper than protobuf's
        # limit of 100 (which onnx's parser stops at): name the cycle, or say so.
        refuse_cycles(message)
        raise PrinterError("nested too deeply to print") from None
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            # Invalid UTF-8 read from a field is held as surrogate escapes: back to
            # bytes, and decoded as onnx's binding decodes its output, error and all.
            text.encode("utf-8", "surrogateescape").decode("utf-8")
    return text
