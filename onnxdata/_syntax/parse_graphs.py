"""Nodes and graphs in ONNX's textual syntax.

A node is ``[name] outputs = domain.op_type:overload <attributes> (inputs)``
(the attributes may instead follow the inputs); a graph is
``name (inputs) => (outputs) <value infos and initializers> { nodes }``, where
an input or a value info followed by ``= tensor`` is also an initializer.
Names in lists may be empty: ``Op(, x)`` has an empty first input, and a
trailing comma adds nothing, as in onnx.
"""

from __future__ import annotations

from .._messages.declarations import TensorProto
from .._messages.graphs import GraphProto, NodeProto, ValueInfoProto
from .parse_attributes import parse_attribute_list
from .parse_fast import fast_nodes
from .parse_lexer import Lexer
from .parse_tensors import parse_tensor_data
from .parse_types import parse_value_info

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import MutableSequence

__all__ = ["parse_graph", "parse_ids", "parse_node", "parse_nodes", "parse_value_infos"]


def parse_ids(lx: Lexer, ids: MutableSequence[str]) -> None:
    """Comma-separated names, some maybe empty, into ``ids`` (``Parse(IdList&)``).

    Raises:
        StatusError: an unterminated quoted name.
    """
    del ids[:]
    while True:
        if lx.next_char() == '"':
            ids.append(lx.string())
        else:
            name = lx.optional_identifier()
            if not name and lx.next_char() != ",":
                return
            ids.append(name)
        if not lx.matches(","):
            return


def parse_node(lx: Lexer, node: NodeProto) -> None:
    """One node, into ``node`` (``Parse(NodeProto&)``).

    Raises:
        StatusError, FatalError: a malformed node or attribute.
    """
    if lx.matches("["):
        node.name = lx.optional_quotable_identifier()
        lx.match("]")
    parse_ids(lx, node.output)
    lx.match("=")
    domain = ""
    name = lx.optional_identifier()
    while lx.matches("."):
        domain = f"{domain}.{name}" if domain else name
        name = lx.identifier()
    node.domain = domain
    node.op_type = name
    if lx.matches(":"):
        node.overload = lx.identifier()
    parse_attribute_list(lx, node.attribute, parse_graph)
    lx.match("(")
    parse_ids(lx, node.input)
    lx.match(")")
    if not node.attribute:
        parse_attribute_list(lx, node.attribute, parse_graph)


def parse_nodes(lx: Lexer, nodes: MutableSequence[NodeProto]) -> None:
    """``{ node node ... }`` into ``nodes`` (``Parse(NodeList&)``).

    Raises:
        StatusError, FatalError: a malformed node; no ``{``.
    """
    del nodes[:]
    lx.match("{")
    while True:
        fast_nodes(lx, nodes)  # type: ignore[arg-type]
        if lx.matches("}"):
            return
        node = NodeProto()
        nodes.append(node)
        parse_node(lx, node)


def parse_value_infos(
    lx: Lexer, infos: MutableSequence[ValueInfoProto], opening: str, closing: str
) -> None:
    """``(type name, ...)`` (or between other brackets), appended to ``infos``.

    Raises:
        StatusError, FatalError: a malformed value info; a bracket missing.
    """
    lx.match(opening)
    if not lx.matches(closing):
        while True:
            info = ValueInfoProto()
            infos.append(info)
            parse_value_info(lx, info)
            if not lx.matches(","):
                break
        lx.match(closing)


def _initializer(lx: Lexer, info: ValueInfoProto, initializers: list[TensorProto]) -> None:
    """``= tensor`` after ``info``: an initializer of its name and type."""
    tensor = TensorProto()
    initializers.append(tensor)
    tensor.name = info.name
    parse_tensor_data(lx, tensor, info.type)


def _inputs(lx: Lexer, graph: GraphProto) -> None:
    """The graph's inputs (the parentheses optional), some with initializers."""
    inputs = graph.input
    del inputs[:]
    if lx.matches("(") and not lx.matches(")"):
        while True:
            info = ValueInfoProto()
            parse_value_info(lx, info)
            inputs.append(info)
            if lx.matches("="):
                _initializer(lx, info, graph.initializer)  # type: ignore[arg-type]
            if not lx.matches(","):
                break
        lx.match(")")


def _value_infos(lx: Lexer, graph: GraphProto) -> None:
    """``<value info or initializer, ...>`` after the outputs, if present."""
    infos = graph.value_info
    del infos[:]
    if lx.matches("<") and not lx.matches(">"):
        while True:
            info = ValueInfoProto()
            parse_value_info(lx, info)
            if lx.matches("="):
                _initializer(lx, info, graph.initializer)  # type: ignore[arg-type]
            else:
                infos.append(info)
            if not lx.matches(","):
                break
        lx.match(">")


def parse_graph(lx: Lexer, graph: GraphProto) -> None:
    """A (quotable) name and a graph, into ``graph`` (``Parse(GraphProto&)``).

    Raises:
        StatusError, FatalError: a malformed graph; nested deeper than the lexer allows.
    """
    graph.name = lx.quotable_identifier()
    del graph.initializer[:]
    _inputs(lx, graph)
    lx.match("=")
    lx.match(">", skip=False)
    del graph.output[:]
    parse_value_infos(lx, graph.output, "(", ")")
    _value_infos(lx, graph)
    parse_nodes(lx, graph.node)
