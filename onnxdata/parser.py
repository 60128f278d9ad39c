"""``onnx.parser``: ONNX's textual syntax read into models, graphs, functions and nodes.

::

    <ir_version: 8, opset_import: ["" : 18]>
    agraph (float[N, 128] X) => (float[N] Y) { Y = ReduceSum <keepdims = 0> (X) }

Each function gives the message onnx's C++ parser gives, byte for byte
(``SerializeToString``), and fails where it fails, with its message: a
:class:`ParseError` whose first argument is onnx's ``bytes`` message (the line
and column, the line of text, what was expected).  What differs from onnx:
where onnx lets a C++ exception escape (an integer out of range:
``IndexError('stoll')``; a float that overflows: ``RuntimeError``; a ``-``
followed by a space: ``ValueError``), and where its stack would overflow
(messages nested deeper than :data:`MAX_DEPTH`, protobuf's limit, which onnx's
Python side then cannot read: ``DecodeError``), onnxdata raises
:class:`ParseError`; a ``str`` holding a lone surrogate (onnx: ``TypeError``)
too.  The grammar, and the parser's limits, are in docs/api.md.
"""

from __future__ import annotations

from ._messages.graphs import FunctionProto, GraphProto, ModelProto, NodeProto
from ._syntax.parse_errors import ParseError
from ._syntax.parse_lexer import MAX_DEPTH
from ._syntax.parse_models import parse_text

__all__ = ["MAX_DEPTH", "ParseError", "parse_function", "parse_graph", "parse_model", "parse_node"]


def parse_model(model_text: str) -> ModelProto:
    """The model in ``model_text``: ``<header> graph`` and its local functions.

    Raises:
        ParseError: the text is not a model in the syntax (see the module).
        TypeError: ``model_text`` is not a ``str``.
    """
    return parse_text(model_text, ModelProto)


def parse_graph(graph_text: str) -> GraphProto:
    """The graph in ``graph_text``; text after the graph's ``}`` is not read.

    Raises:
        ParseError: the text is not a graph in the syntax.
        TypeError: ``graph_text`` is not a ``str``.
    """
    return parse_text(graph_text, GraphProto)


def parse_function(function_text: str) -> FunctionProto:
    """The function in ``function_text``; text after its ``}`` is not read.

    Raises:
        ParseError: the text is not a function in the syntax.
        TypeError: ``function_text`` is not a ``str``.
    """
    return parse_text(function_text, FunctionProto)


def parse_node(node_text: str) -> NodeProto:
    """The node in ``node_text``; text after it is not read.

    Raises:
        ParseError: the text is not a node in the syntax.
        TypeError: ``node_text`` is not a ``str``.
    """
    return parse_text(node_text, NodeProto)
