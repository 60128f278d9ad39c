"""The tensors of a model, in the order onnx's ``external_data_helper`` visits them.

A model's weights are its graph's initializers, the initializers of every
subgraph (the ``g`` and ``graphs`` of If, Loop and Scan attributes), and,
for ``convert_attribute``, the tensors held by attributes (``t`` and
``tensors``) of the nodes of every graph and function.  onnx walks them
recursively; these walkers take the package's one walk (``_core/walk.py``),
so a model nested deeper than Python's recursion limit (one built in
memory: decoding bounds the depth) is walked all the same, in the same
order.

A model built in Python may hold a graph or a tensor in several places
(protobuf copies what it is given, so onnx's models cannot): each is walked
once, and a tensor is listed once, at its first place, so its external data
is written once and every place then refers to it.  A graph that holds
itself (through a node's attribute, or a function's node that a subgraph
holds too) is refused with ``encode()``'s error for it, before the caller
has changed anything: the walkers return lists, made whole first.

Fields are read as held (``_core/access.py``: None while unset): by name an
unset sub-message reads as an empty stand-in, and an empty repeated field
makes its container, which is harmless here but would be made for every
attribute and graph visited.
"""

from __future__ import annotations

from functools import partial

from .._core.access import gather
from .._core.schema import spec_of
from .._core.walk import walk
from .._messages.declarations import TensorProto
from .._messages.graphs import AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    from .._core.walk import Child, Step

__all__ = ["all_tensors", "attribute_tensors", "initializer_tensors"]

_GRAPH = AttributeProto.GRAPH
_GRAPHS = AttributeProto.GRAPHS
# A tensor's path is never shown (a tensor cannot close a cycle): one constant
# part each, no text made per tensor.
_TENSOR = "tensor"
# What the walkers read, as held: one call per message.
_A = spec_of(AttributeProto).named
_G = spec_of(GraphProto).named
_attribute_fields = gather((_A.type, _A.g, _A.graphs, _A.t, _A.tensors))
_attribute_graphs = gather((_A.type, _A.g, _A.graphs))
_graph_fields = gather((_G.initializer, _G.node))
_held_node: dict[type, Callable[[Any], Any]] = {
    GraphProto: _G.node.held,
    FunctionProto: spec_of(FunctionProto).named.node.held,
}
_held_attribute = spec_of(NodeProto).named.attribute.held
_held_graph = spec_of(ModelProto).named.graph.held
_held_functions = spec_of(ModelProto).named.functions.held


def _subgraphs(kind: Any, g: Any, graphs: Any, where: str) -> list[Child]:
    """The subgraphs of an attribute of type ``kind`` holding ``g`` and
    ``graphs``, as onnx finds them: by its ``type``."""
    if kind == _GRAPH and g is not None:
        return [(f"{where}.g", g, None)]
    if kind == _GRAPHS:
        return [(f"{where}.graphs[{i}]", sub, None) for i, sub in enumerate(graphs or ())]
    return []


def _tensors(roots: Iterable[Child], items: Callable[[Any], Iterator[Child]]) -> list[TensorProto]:
    """Depth first through ``items(graph)``: a TensorProto is listed, anything
    else is a graph (or function) whose items come next, before the rest; each
    object once.

    Raises:
        EncodeValueError: a graph holds itself.
    """

    def children(step: Step) -> Iterable[Child]:
        return () if isinstance(step.obj, TensorProto) else items(step.obj)

    return [step.obj for step in walk(roots, children) if isinstance(step.obj, TensorProto)]


def _initializers(found: list[TensorProto], listed: set[int], step: Step) -> list[Child]:
    """List the initializers of the graph ``step.obj`` not listed yet; return its
    subgraphs.  The walk asks for them in its order (a graph, then its
    subgraphs, depth first), which is onnx's: a graph's initializers come before
    any of its subgraphs'."""
    initializer, nodes = _graph_fields(step.obj)
    for t in initializer or ():
        if id(t) not in listed:
            listed.add(id(t))
            found.append(t)
    children = []
    for n, node in enumerate(nodes or ()):
        for a, attribute in enumerate(_held_attribute(node) or ()):
            kind, g, graphs = _attribute_graphs(attribute)
            if g is not None or graphs:
                children += _subgraphs(kind, g, graphs, f"node[{n}].attribute[{a}]")
    return children


def _attribute_items(graph: Any) -> Iterator[Child]:
    """The tensors of a graph's (or a function's) attributes, and their subgraphs."""
    held_node = _held_node.get(type(graph))
    nodes = graph.node if held_node is None else held_node(graph)  # (a subclass: by name)
    for n, node in enumerate(nodes or ()):
        for a, attribute in enumerate(_held_attribute(node) or ()):
            kind, g, graphs, t, tensors = _attribute_fields(attribute)
            if t is not None:
                yield _TENSOR, t, None
            for each in tensors or ():
                yield _TENSOR, each, None
            if g is not None or graphs:
                yield from _subgraphs(kind, g, graphs, f"node[{n}].attribute[{a}]")


def _graph(model: Any) -> list[Child]:
    graph = _held_graph(model)
    return [] if graph is None else [("ModelProto.graph", graph, None)]


def initializer_tensors(model: Any) -> list[TensorProto]:
    """The initializers of the model's graph and of all its subgraphs (onnx's
    ``_get_initializer_tensors``), each once.

    Raises:
        EncodeValueError: a graph holds itself.
    """
    found: list[TensorProto] = []
    for _ in walk(_graph(model), partial(_initializers, found, set())):
        pass
    return found


def attribute_tensors(model: Any) -> list[TensorProto]:
    """The tensors held by node attributes, in the graph, its subgraphs and the
    model's functions (onnx's ``_get_attribute_tensors``), each once.

    Raises:
        EncodeValueError: a graph holds itself.
    """
    functions = [
        (f"ModelProto.functions[{i}]", f, None) for i, f in enumerate(_held_functions(model) or ())
    ]
    return _tensors([*_graph(model), *functions], _attribute_items)


def all_tensors(model: Any) -> list[TensorProto]:
    """Initializers, then attribute tensors (onnx's ``_get_all_tensors``), each once.

    Raises:
        EncodeValueError: a graph holds itself.
    """
    found = initializer_tensors(model)
    listed = {id(t) for t in found}
    found.extend(t for t in attribute_tensors(model) if id(t) not in listed)
    return found
