"""Attributes, nodes and graphs as onnx's printer writes them.

A node is one line, ``[name] out1, out2 = domain.Op:overload <attrs> (in1, in2)``, its
attributes after the inputs when one holds a graph; a graph is ``name (inputs) =>
(outputs)``, its initializers and value infos in ``<...>``, its nodes in braces.  A
subgraph's lines are indented three spaces more than its node's, so the indent travels
down the walk.  Names are bare when they are identifiers and quoted otherwise, except
where onnx writes them bare whatever they are (an attribute's name, an operator's type,
domain and overload).
"""

from __future__ import annotations

from .._core.access import held
from .._messages.graphs import AttributeProto, GraphProto, NodeProto
from .lexicon import ATTRIBUTE_TYPES, UNDEFINED, is_identifier
from .print_numbers import Float32Texts
from .print_tensors import bytes_text, name_text, quoted, tensor_text
from .print_types import type_text, value_info_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable

__all__ = ["attribute_text", "graph_text", "node_lines", "nodes_text"]

_ATTRIBUTE_NAMES = {number: name for name, number in ATTRIBUTE_TYPES.items()}
_REF = held(AttributeProto, "ref_attr_name")
_TYPE = held(AttributeProto, "type")
_G = held(AttributeProto, "g")
_GRAPHS = held(AttributeProto, "graphs")
_NODE_NAME = held(NodeProto, "name")
_NODE_DOMAIN = held(NodeProto, "domain")
_NODE_OVERLOAD = held(NodeProto, "overload")
_ATTRIBUTES = held(NodeProto, "attribute")
_INPUTS = held(NodeProto, "input")
_OUTPUTS = held(NodeProto, "output")
_INITIALIZERS = held(GraphProto, "initializer")
_VALUE_INFOS = held(GraphProto, "value_info")
_GRAPH_NODES = held(GraphProto, "node")


def _value_text(attr: AttributeProto, kind: int, floats: Float32Texts, indent: int) -> str:
    """The value after ``=``, read from the field of ``kind`` whether set or not (onnx's
    ``attr.i()``); a kind onnx has no syntax for (sparse tensors, undefined) prints nothing."""
    if kind == 2:
        return str(attr.i)
    if kind == 7:
        return "[" + ", ".join(map(str, attr.ints)) + "]"
    if kind == 1:
        return floats(attr.f)
    if kind == 6:
        return "[" + ", ".join(map(floats, attr.floats)) + "]"
    if kind == 3:
        return bytes_text(attr.s)
    if kind == 8:
        return "[" + ", ".join(map(bytes_text, attr.strings)) + "]"
    if kind == 5:
        return graph_text(attr.g, floats, indent + 3)
    if kind == 10:
        return "[" + ", ".join(graph_text(g, floats, indent + 3) for g in attr.graphs) + "]"
    if kind == 4:
        return tensor_text(attr.t, floats)
    if kind == 9:
        return "[" + ", ".join(tensor_text(t, floats) for t in attr.tensors) + "]"
    if kind == 13:
        return type_text(attr.tp)
    if kind == 14:
        return "[" + ", ".join(map(type_text, attr.type_protos)) + "]"
    return ""


def attribute_text(attr: AttributeProto, floats: Float32Texts, indent: int = 3) -> str:
    """``name: kind = value``, or ``name: kind = @ref`` for a reference to a function's
    attribute; ``indent`` is that of the node holding it (its subgraphs go 3 deeper).

    Raises:
        PrinterError: a tensor whose ``raw_data`` does not fit its dims.
    """
    kind = _TYPE(attr) or 0
    head = f"{attr.name}: {_ATTRIBUTE_NAMES.get(kind, UNDEFINED)} = "
    ref = _REF(attr)
    if ref is not None:
        return f"{head}@{ref}"
    return head + _value_text(attr, kind, floats, indent)


def _ids(names: Iterable[str]) -> str:
    return ", ".join([n if is_identifier(n) else quoted(n) for n in names])


def node_lines(node: NodeProto, floats: Float32Texts, indent: int, out: list[str]) -> None:
    """Append ``node``'s line (and its subgraphs' lines) to ``out``.

    Raises:
        PrinterError: a tensor whose ``raw_data`` does not fit its dims.
    """
    out.append(" " * indent)
    name = _NODE_NAME(node)
    if name is not None:
        out.append(f"[{name_text(name)}] ")
    outputs = _OUTPUTS(node)
    out.append(_ids(outputs) if outputs else "")
    out.append(" = ")
    domain = _NODE_DOMAIN(node)
    if domain:
        out.append(domain + ".")
    out.append(node.op_type)
    overload = _NODE_OVERLOAD(node)
    if overload:
        out.append(":" + overload)
    inputs = _INPUTS(node)
    attributes = _ATTRIBUTES(node)
    text = f" ({_ids(inputs)})" if inputs else " ()"
    if attributes:
        listed = " <" + ", ".join([attribute_text(a, floats, indent) for a in attributes]) + ">"
        nested = any(_G(a) is not None or _GRAPHS(a) for a in attributes)
        text = text + listed if nested else listed + text
    out.append(text)
    out.append("\n")


def nodes_text(nodes: Iterable[NodeProto] | None, floats: Float32Texts, indent: int) -> str:
    """``{``, a line per node, ``}`` indented to the enclosing node's level.

    Raises:
        PrinterError: a tensor whose ``raw_data`` does not fit its dims.
    """
    out = ["{\n"]
    for node in nodes or ():
        node_lines(node, floats, indent, out)
    if indent > 3:
        out.append(" " * (indent - 3))
    out.append("}")
    return "".join(out)


def graph_text(graph: GraphProto, floats: Float32Texts, indent: int = 3) -> str:
    """One graph, its nodes at ``indent``, as onnx prints it alone (indent 3) or in an
    attribute (the node's indent plus 3).

    Raises:
        PrinterError: a tensor whose ``raw_data`` does not fit its dims.
    """
    inputs = ", ".join(map(value_info_text, graph.input))
    outputs = ", ".join(map(value_info_text, graph.output))
    parts = [f"{name_text(graph.name)} ({inputs}) => ({outputs}) "]
    initializers = _INITIALIZERS(graph)
    value_infos = _VALUE_INFOS(graph)
    if initializers or value_infos:
        listed = [tensor_text(t, floats, True) for t in initializers or ()]
        listed.extend(map(value_info_text, value_infos or ()))
        parts.append("\n" + " " * indent + "<" + ", ".join(listed) + ">\n")
    parts.append(nodes_text(_GRAPH_NODES(graph), floats, indent))
    return "".join(parts)
