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

import re

from .._core.access import gather
from .._core.schema import spec_of
from .._messages.graphs import AttributeProto, GraphProto, NodeProto
from .lexicon import ATTRIBUTE_TYPES, UNDEFINED
from .print_state import NameTexts, Printing
from .print_tensors import bytes_text, tensor_text
from .print_types import type_text, value_info_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable, Sequence
    from typing import Any

__all__ = ["attribute_text", "graph_text", "node_text", "nodes_text"]

_ATTRIBUTE_NAMES = {number: name for name, number in ATTRIBUTE_TYPES.items()}
# One C call reads all the fields a node's or an attribute's line needs, from their slots
# (``None`` where never set, a repeated field where never made).
_NODE = spec_of(NodeProto).named
_ATTRIBUTE = spec_of(AttributeProto).named
_GRAPH = spec_of(GraphProto).named
_NODE_FIELDS = gather(
    (_NODE.name, _NODE.output, _NODE.input, _NODE.op_type, _NODE.domain, _NODE.overload,
     _NODE.attribute),
)  # fmt: skip
_ATTRIBUTE_FIELDS = gather(
    (_ATTRIBUTE.name, _ATTRIBUTE.type, _ATTRIBUTE.ref_attr_name, _ATTRIBUTE.i, _ATTRIBUTE.f,
     _ATTRIBUTE.ints, _ATTRIBUTE.g, _ATTRIBUTE.graphs),
)  # fmt: skip
_HEADS = {number: f": {name} = " for number, name in _ATTRIBUTE_NAMES.items()}
_UNDEFINED_HEAD = f": {UNDEFINED} = "
_INITIALIZERS = _GRAPH.initializer.held
_VALUE_INFOS = _GRAPH.value_info.held
_GRAPH_NODES = _GRAPH.node.held


def _value_text(attr: AttributeProto, kind: int, printing: Printing, indent: int) -> str:
    """The value after ``=`` for the kinds :func:`_attribute` leaves to it, read from the
    field of ``kind`` whether set or not (onnx's ``attr.g()``); a kind onnx has no syntax
    for (sparse tensors, undefined) prints nothing."""
    if kind == 6:
        return "[" + ", ".join(map(printing.floats, attr.floats)) + "]"
    if kind == 3:
        return bytes_text(attr.s)
    if kind == 8:
        texts = [bytes_text(s) for s in attr.strings]  # onnx opens with the first one:
        return ("[" + ", ".join(texts) if texts else "") + "]"  # no strings print "]"
    if kind == 5:
        return graph_text(attr.g, printing, indent + 3)
    if kind == 10:
        return "[" + ", ".join(graph_text(g, printing, indent + 3) for g in attr.graphs) + "]"
    if kind == 4:
        return tensor_text(attr.t, printing.floats)
    if kind == 9:
        return "[" + ", ".join(tensor_text(t, printing.floats) for t in attr.tensors) + "]"
    if kind == 13:
        return type_text(attr.tp)
    if kind == 14:
        return "[" + ", ".join(map(type_text, attr.type_protos)) + "]"
    return ""


def _attribute(
    attr: AttributeProto, fields: tuple[Any, ...], printing: Printing, indent: int
) -> str:
    """``attr``'s text from ``fields``, what ``_ATTRIBUTE_FIELDS`` read of it: the
    commonest kinds written here from their slots (unset reads as onnx's default)."""
    name, kind, ref, i, f, ints, _, _ = fields
    head = f"{name or ''}{_HEADS.get(kind or 0, _UNDEFINED_HEAD)}"
    if ref is not None:
        return f"{head}@{ref}"
    if kind == 2:
        return f"{head}{0 if i is None else i}"
    if kind == 1:
        return head + printing.floats(0.0 if f is None else f)
    if kind == 7:
        return f"{head}[{', '.join(map(str, ints)) if ints else ''}]"
    return head + _value_text(attr, kind or 0, printing, indent)


def attribute_text(attr: AttributeProto, printing: Printing, indent: int = 3) -> str:
    """``name: kind = value``, or ``name: kind = @ref`` for a reference to a function's
    attribute; ``indent`` is that of the node holding it (its subgraphs go 3 deeper).

    Raises:
        PrinterError: a tensor whose ``raw_data`` does not fit its dims.
    """
    return _attribute(attr, _ATTRIBUTE_FIELDS(attr), printing, indent)


_ALL_IDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?: [A-Za-z_][A-Za-z0-9_]*)*", re.ASCII).fullmatch


def _ids(names: Sequence[str], texts: NameTexts) -> str:
    """Names joined by ``, ``, each bare or quoted."""
    return ", ".join(map(texts.__getitem__, names))


def _attributes_text(
    attributes: Sequence[AttributeProto], printing: Printing, indent: int
) -> tuple[str, bool]:
    """`` <a: int = 1, ...>``, and whether an attribute holds a graph (onnx then puts
    the list after the inputs), from one read of each attribute's fields."""
    texts = []
    nested = False
    for attr in attributes:
        fields = _ATTRIBUTE_FIELDS(attr)
        if fields[6] is not None or fields[7]:  # g, graphs: set whatever the type says
            nested = True
        texts.append(_attribute(attr, fields, printing, indent))
    return " <" + ", ".join(texts) + ">", nested


def node_text(node: NodeProto, printing: Printing, indent: int) -> str:
    """``node``'s line (its subgraphs' lines within), ``indent`` spaces in, ``\\n`` ended.

    Raises:
        PrinterError: a tensor whose ``raw_data`` does not fit its dims.
    """
    name, outputs, inputs, op, domain, overload, attributes = _NODE_FIELDS(node)
    outputs = outputs or ()
    inputs = inputs or ()
    # Most names are identifiers: one match over all of them (a space in a name is
    # told apart by the count of spaces) spares a look at each.
    probe = " ".join([*outputs, *inputs] if name is None else [name, *outputs, *inputs])
    spaces = len(outputs) + len(inputs) - (name is None)
    if _ALL_IDS(probe) is not None and probe.count(" ") == spaces:
        head = " " * indent if name is None else f"{' ' * indent}[{name}] "
        written = f"{head}{', '.join(outputs)} = "
        operands = f" ({', '.join(inputs)})"
    else:
        names = printing.names
        head = " " * indent if name is None else f"{' ' * indent}[{names[name]}] "
        written = f"{head}{_ids(outputs, names)} = "
        operands = f" ({_ids(inputs, names)})"
    op = op or ""
    if domain:
        op = f"{domain}.{op}"
    if overload:
        op = f"{op}:{overload}"
    if attributes:
        listed, nested = _attributes_text(attributes, printing, indent)
        operands = operands + listed if nested else listed + operands
    return f"{written}{op}{operands}\n"


def nodes_text(nodes: Iterable[NodeProto] | None, printing: Printing, indent: int) -> str:
    """``{``, a line per node, ``}`` indented to the enclosing node's level.

    Raises:
        PrinterError: a tensor whose ``raw_data`` does not fit its dims.
    """
    out = ["{\n"]
    out.extend([node_text(node, printing, indent) for node in nodes or ()])
    if indent > 3:
        out.append(" " * (indent - 3))
    out.append("}")
    return "".join(out)


def graph_text(graph: GraphProto, printing: Printing, indent: int = 3) -> str:
    """One graph, its nodes at ``indent``, as onnx prints it alone (indent 3) or in an
    attribute (the node's indent plus 3).

    Raises:
        PrinterError: a tensor whose ``raw_data`` does not fit its dims.
    """
    inputs = ", ".join(map(value_info_text, graph.input))
    outputs = ", ".join(map(value_info_text, graph.output))
    parts = [f"{printing.names[graph.name]} ({inputs}) => ({outputs}) "]
    initializers = _INITIALIZERS(graph)
    value_infos = _VALUE_INFOS(graph)
    if initializers or value_infos:
        listed = [tensor_text(t, printing.floats, True) for t in initializers or ()]
        listed.extend(map(value_info_text, value_infos or ()))
        parts.append("\n" + " " * indent + "<" + ", ".join(listed) + ">\n")
    parts.append(nodes_text(_GRAPH_NODES(graph), printing, indent))
    return "".join(parts)
