"""``onnx.helper``'s printers (``printable_graph`` & co) and ``strip_doc_string``.

The text is onnx 1.23.2's, character for character: code compares it, logs
it, and tests pin it.  ``printable_graph`` is deprecated in onnx 1.19 (for
``onnx.printer.to_text``, which needs onnx's C++); it warns as onnx does.
"""

from __future__ import annotations

import warnings
from typing import Any

from .._core.schema import is_message, spec_of
from .._core.walk import Step, message_children, walk
from .._messages.convert import as_message
from .._messages.datatypes import DATA_TYPES
from .._messages.declarations import TensorProto
from .._messages.graphs import AttributeProto, GraphProto, NodeProto, ValueInfoProto
from .._messages.message import Message
from .._messages.types import TensorShapeProto, TypeProto

__all__ = [
    "printable_attribute",
    "printable_dim",
    "printable_graph",
    "printable_node",
    "printable_tensor_proto",
    "printable_type",
    "printable_value_info",
    "strip_doc_string",
    "tensor_type_name",
]

_ELLIPSIS_AFTER = 64


def _sanitize(s: Any) -> str:
    """At most 64 characters of ``s`` and a note of how many more, as onnx shortens strings."""
    if isinstance(s, str):
        text = s
    elif isinstance(s, bytes):
        text = s.decode("utf-8", errors="ignore")
    else:
        text = str(s)
    if len(text) < _ELLIPSIS_AFTER:
        return text
    return text[:_ELLIPSIS_AFTER] + f"...<+len={len(text) - _ELLIPSIS_AFTER}>"


def _float(f: float) -> str:
    return f"{f:.15g}"


def _scalar_tensor(t: TensorProto) -> str:
    info = DATA_TYPES.get(t.data_type)
    if info is None:  # onnx's table lookup
        raise KeyError(t.data_type)
    return f"<Scalar Tensor {getattr(t, info.storage)}>"


def _value(attr: AttributeProto, graphs: list[GraphProto]) -> str:
    """The value part of ``printable_attribute``, by the first field set, in onnx's order."""
    if attr.HasField("f"):
        return _float(attr.f)
    if attr.HasField("i"):
        return str(attr.i)
    if attr.HasField("s"):
        return repr(_sanitize(attr.s))
    if attr.HasField("t"):
        return "<Tensor>" if len(attr.t.dims) > 0 else _scalar_tensor(attr.t)
    if attr.HasField("g"):
        graphs.append(attr.g)
        return f"<graph {attr.g.name}>"
    if attr.HasField("tp"):
        return f"<Type Proto {attr.tp}>"
    if attr.HasField("sparse_tensor"):
        return "<Sparse Tensor>"
    if attr.floats:
        return "[" + ", ".join(map(_float, attr.floats)) + "]"
    if attr.ints:
        return "[" + ", ".join(map(str, attr.ints)) + "]"
    if attr.strings:
        return str(list(map(_sanitize, attr.strings)))
    if attr.tensors:
        return "[<Tensor>, ...]"
    if attr.sparse_tensors:
        return "[<Sparse Tensor>, ...]"
    if attr.type_protos:
        return " ".join(["[", ", ".join(f"<Type Proto {tp}>" for tp in attr.type_protos), "]"])
    if attr.graphs:
        graphs.extend(attr.graphs)
        return " ".join(["[", ", ".join(f"<graph {g.name}>" for g in attr.graphs), "]"])
    return "<Unknown>"


def _attribute(attr: AttributeProto) -> tuple[str, list[GraphProto]]:
    graphs: list[GraphProto] = []
    return f"{attr.name} = {_value(attr, graphs)}", graphs


def printable_attribute(
    attr: AttributeProto, subgraphs: bool = False
) -> str | tuple[str, list[GraphProto]]:
    """``name = value`` of an attribute; with ``subgraphs``, also the graphs it holds.

    Raises:
        KeyError: a scalar tensor value whose data type is unknown (as onnx).
    """
    text, graphs = _attribute(as_message(attr, AttributeProto))
    return (text, graphs) if subgraphs else text


def printable_dim(dim: TensorShapeProto.Dimension) -> str:
    """The dim's value or parameter; ``?`` for neither."""
    which = as_message(dim, TensorShapeProto.Dimension).WhichOneof("value")
    return "?" if which is None else str(getattr(dim, which))


def tensor_type_name(data_type: int) -> str:
    """``TensorProto.DataType.Name`` with protobuf's error for a value that is none.

    Raises:
        ValueError: ``data_type`` is no DataType.
    """
    name: str = TensorProto.DataType.Name(data_type)
    return name


def printable_type(t: TypeProto) -> str:
    """``FLOAT, 2xN`` for a tensor type, ``""`` for none, ``Unknown type <kind>`` otherwise.

    Raises:
        ValueError: a tensor ``elem_type`` that is no DataType (as onnx).
    """
    t = as_message(t, TypeProto)
    which = t.WhichOneof("value")
    if which == "tensor_type":
        s = tensor_type_name(t.tensor_type.elem_type)
        if t.tensor_type.HasField("shape"):
            dims = t.tensor_type.shape.dim
            s += ", " + "x".join(map(printable_dim, dims)) if len(dims) else ", scalar"
        return s
    if which is None:
        return ""
    return f"Unknown type {which}"


def printable_value_info(v: ValueInfoProto) -> str:
    """``%name[type]``.

    Raises:
        ValueError: see :func:`printable_type`.
    """
    v = as_message(v, ValueInfoProto)
    return f"%{v.name}[{printable_type(v.type)}]"


def printable_tensor_proto(t: TensorProto) -> str:
    """``%name[FLOAT, 2x3]`` (``, scalar`` for no dims).

    Raises:
        ValueError: ``data_type`` is no DataType (as onnx).
    """
    t = as_message(t, TensorProto)
    dims = list(t.dims)
    shape = "x".join(map(str, dims)) if dims else "scalar"
    return f"%{t.name}[{tensor_type_name(t.data_type)}, {shape}]"


def _node(node: NodeProto, prefix: str) -> tuple[str, list[GraphProto]]:
    content = []
    if len(node.output):
        content += [", ".join(f"%{name}" for name in node.output), "="]
    graphs: list[GraphProto] = []
    printed = []
    for attr in node.attribute:
        text, found = _attribute(attr)
        printed.append(text)
        graphs.extend(found)
    inputs = ", ".join(f"%{name}" for name in node.input)
    if node.attribute:
        content.append(f"{node.op_type}[{', '.join(sorted(printed))}]({inputs})")
    else:
        content.append(f"{node.op_type}({inputs})")
    return prefix + " ".join(content), graphs


def printable_node(
    node: NodeProto, prefix: str = "", subgraphs: bool = False
) -> str | tuple[str, list[GraphProto]]:
    """``%y = Op[attributes](%x)``; with ``subgraphs``, also the graphs its attributes hold.

    Raises:
        KeyError: see :func:`printable_attribute`.
    """
    text, graphs = _node(as_message(node, NodeProto), prefix)
    return (text, graphs) if subgraphs else text


def _header(graph: GraphProto, prefix: str, content: list[str]) -> list[str]:
    """Write the lines of the inputs and initializers; the header words left to write."""
    header = ["graph", graph.name]
    initializers = {t.name for t in graph.initializer}
    if not len(graph.input):
        return header
    header.append("(")
    required = [printable_value_info(i) for i in graph.input if i.name not in initializers]
    optional = [printable_value_info(i) for i in graph.input if i.name in initializers]
    if required:
        content.append(prefix + " ".join(header))
        header = []
        content.extend(prefix + "  " + line for line in required)
    header.append(")")
    if optional:
        header.append("optional inputs with matching initializers (")
        content.append(prefix + " ".join(header))
        header = []
        content.extend(prefix + "  " + line for line in optional)
        header.append(")")
    # from IR 4 an initializer need not be an input: list those too
    if len(optional) < len(initializers):
        inputs = {i.name for i in graph.input}
        header.append("initializers (")
        content.append(prefix + " ".join(header))
        header = []
        content.extend(
            prefix + "  " + printable_tensor_proto(t)
            for t in graph.initializer
            if t.name not in inputs
        )
        header.append(")")
    return header


def _graph(graph: GraphProto, prefix: str) -> tuple[str, list[GraphProto]]:
    """One graph's own lines, and the subgraphs its nodes hold."""
    content: list[str] = []
    indent = prefix + "  "
    header = _header(graph, prefix, content)
    header.append("{")
    content.append(prefix + " ".join(header))
    graphs: list[GraphProto] = []
    for node in graph.node:
        text, found = _node(node, indent)
        content.append(text)
        graphs.extend(found)
    tail = ["return"]
    if len(graph.output):
        tail.append(", ".join(f"%{out.name}" for out in graph.output))
    content.append(indent + " ".join(tail))
    content.append(prefix + "}")
    return "\n".join(content), graphs


def _graph_children(step: Step) -> list[tuple[str, GraphProto, None]]:
    """The subgraphs that printing ``step.obj`` prints after it (as ``_value`` finds
    them), with their paths."""
    found: list[tuple[str, GraphProto, None]] = []
    for n, node in enumerate(step.obj.node):
        for a, attr in enumerate(node.attribute):
            graphs: list[GraphProto] = []
            _value(attr, graphs)
            where = f"node[{n}].attribute[{a}]"
            if attr.HasField("g") and len(graphs) == 1 and graphs[0] is attr.g:
                found.append((f"{where}.g", attr.g, None))
            else:
                found.extend((f"{where}.graphs[{i}]", g, None) for i, g in enumerate(graphs))
    return found


def _graphs(graph: GraphProto, prefix: str) -> str:
    """``graph``, then each subgraph (without the prefix), depth first, as onnx's
    recursion prints them: a subgraph held twice is printed twice, as onnx
    prints its two copies.  No recursion; a graph that holds itself is found
    first, by the package's one walk, and refused.

    Raises:
        EncodeValueError: a graph holds itself.
    """
    for step in walk([("GraphProto", graph, None)], _graph_children):
        del step  # each graph once: only a cycle raises
    pieces: list[str] = []
    todo: list[tuple[GraphProto, str]] = [(graph, prefix)]
    while todo:
        g, indent = todo.pop()
        if pieces:  # onnx's warns once per graph printed, subgraphs too
            warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=3)
        text, subgraphs = _graph(g, indent)
        pieces.append(text)
        todo.extend((sub, "") for sub in reversed(subgraphs))
    return "\n\n".join(pieces)


_DEPRECATED = "Deprecated since 1.19. Consider using onnx.printer.to_text() instead."


def printable_graph(graph: GraphProto, prefix: str = "") -> str:
    """The graph as onnx's ``printable_graph`` writes it, its subgraphs after it.

    Deprecated in onnx 1.19 (a DeprecationWarning, as onnx's).

    Raises:
        EncodeValueError: (a ``ValueError``) a graph holds itself (built in
            Python: protobuf cannot), the error ``encode()`` raises for it.
        ValueError: a type or tensor whose data type is no DataType (as onnx).
        KeyError: see :func:`printable_attribute`.
    """
    warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=2)
    return _graphs(as_message(graph, GraphProto), prefix)


def strip_doc_string(proto: Message) -> None:
    """Unset every ``doc_string`` in ``proto`` and the messages it holds, in place.

    Each message is visited once, however many fields share it; the whole
    message is walked before any field is unset, so a message that holds
    itself is refused with nothing changed.

    Raises:
        TypeError: ``proto`` is not an onnxdata message (an onnx message
            cannot be changed in place by onnxdata).
        EncodeValueError: (a ``ValueError``) a message holds itself: the
            error ``encode()`` raises for it.
    """
    if not is_message(proto):
        raise TypeError(f"proto must be an instance of {Message}.")
    root = [(spec_of(type(proto)).name, proto, None)]
    for step in list(walk(root, message_children)):
        if "doc_string" in spec_of(type(step.obj)).by_name:
            step.obj.ClearField("doc_string")


printable_graph.__deprecated__ = _DEPRECATED  # type: ignore[attr-defined] # as typing's @deprecated
