"""The graphs and tensors of a model, found without recursion.

A model nests graphs inside node attributes (the branches of ``If``, the
bodies of ``Loop`` and ``Scan``) to any depth, and keeps more graphs in its
training information and more nodes in its functions.  ``show`` counts them,
``to-npy`` looks initializers up in them, and both need the same walk.  The
walk reads presence through ``HasField`` and each field once, and keeps an
explicit stack, so a deep model cannot exhaust Python's recursion, and a
message built in Python that contains itself is walked once.
"""

from __future__ import annotations

from collections import deque

from .._core.schema import spec_of
from .._messages.declarations import SparseTensorProto
from .._messages.graphs import AttributeProto, ModelProto, TrainingInfoProto

# Fields named through the schema: a rename in the declarations fails here, at import.
_ATTRIBUTE = spec_of(AttributeProto).named
_GRAPH = spec_of(ModelProto).named.graph.name
_TRAINING = spec_of(TrainingInfoProto).named
_TRAINING_GRAPHS = (_TRAINING.initialization.name, _TRAINING.algorithm.name)
_SPARSE = spec_of(SparseTensorProto).named
_SPARSE_PARTS = (_SPARSE.values.name, _SPARSE.indices.name)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator
    from typing import Any

__all__ = ["graphs", "initializer", "node_lists", "tensors"]


def _graphs_of_nodes(nodes: Any, path: str) -> Iterator[tuple[str, Any]]:
    """The graphs held directly by the attributes of ``nodes``."""
    for n, node in enumerate(nodes):
        for a, attr in enumerate(node.attribute):
            where = f"{path}.node[{n}].attribute[{a}]"
            if attr.HasField(_ATTRIBUTE.g.name):
                yield f"{where}.g", attr.g
            for i, graph in enumerate(attr.graphs):
                yield f"{where}.graphs[{i}]", graph


def node_lists(model: Any) -> Iterator[tuple[str, bool, Any]]:
    """``(path, in the main graph, nodes)`` for every graph of ``model`` (the main
    graph first, then subgraphs at any depth, training graphs) and every
    function body."""
    for path, graph in graphs(model):
        yield path, path == "graph", graph.node
    for i, function in enumerate(model.functions):
        yield f"functions[{i}]", False, function.node


def graphs(model: Any) -> Iterator[tuple[str, Any]]:
    """``(path, graph)`` for every graph of ``model``, breadth first: the main graph,
    the training graphs, then the subgraphs of their nodes and of the functions'
    nodes, at any depth.  Paths are relative to the model (``graph.node[3]...``)."""
    todo: deque[tuple[str, Any]] = deque()
    if model.HasField(_GRAPH):
        todo.append(("graph", model.graph))
    for i, info in enumerate(model.training_info):
        for name in _TRAINING_GRAPHS:
            if info.HasField(name):
                todo.append((f"training_info[{i}].{name}", getattr(info, name)))
    for i, function in enumerate(model.functions):
        todo.extend(_graphs_of_nodes(function.node, f"functions[{i}]"))
    seen: set[int] = set()
    while todo:
        path, graph = todo.popleft()
        if id(graph) in seen:
            continue
        seen.add(id(graph))
        yield path, graph
        todo.extend(_graphs_of_nodes(graph.node, path))


def tensors(model: Any) -> Iterator[tuple[str, Any]]:
    """``(path, TensorProto)`` for every tensor a model holds: initializers, the
    values and indices of sparse initializers, and the tensors of node attributes
    (``Constant`` values), in every graph and function."""
    seen_nodes: list[tuple[str, Any]] = []
    for path, graph in graphs(model):
        for i, t in enumerate(graph.initializer):
            yield f"{path}.initializer[{i}]", t
        for i, s in enumerate(graph.sparse_initializer):
            yield from _sparse(f"{path}.sparse_initializer[{i}]", s)
        seen_nodes.append((path, graph.node))
    seen_nodes.extend((f"functions[{i}]", f.node) for i, f in enumerate(model.functions))
    for path, nodes in seen_nodes:
        for n, node in enumerate(nodes):
            for a, attr in enumerate(node.attribute):
                where = f"{path}.node[{n}].attribute[{a}]"
                if attr.HasField(_ATTRIBUTE.t.name):
                    yield f"{where}.t", attr.t
                for i, t in enumerate(attr.tensors):
                    yield f"{where}.tensors[{i}]", t
                if attr.HasField(_ATTRIBUTE.sparse_tensor.name):
                    yield from _sparse(f"{where}.sparse_tensor", attr.sparse_tensor)
                for i, s in enumerate(attr.sparse_tensors):
                    yield from _sparse(f"{where}.sparse_tensors[{i}]", s)


def _sparse(path: str, sparse: Any) -> Iterator[tuple[str, Any]]:
    for name in _SPARSE_PARTS:
        if sparse.HasField(name):
            yield f"{path}.{name}", getattr(sparse, name)


def initializer(model: Any, name: str) -> Any:
    """The initializer (dense, or sparse by its values' name) called ``name``: in the
    main graph, else the first subgraph (breadth first) that has one.

    Raises:
        LookupError: there is none; the message lists the closest names.
    """
    import difflib

    names: list[str] = []
    for _, graph in graphs(model):
        for t in graph.initializer:
            if t.name == name:
                return t
            names.append(t.name)
        for sparse in graph.sparse_initializer:
            if sparse.values.name == name:
                return sparse
            names.append(sparse.values.name)
    close = difflib.get_close_matches(name, names, n=5)
    hint = (f"close names: {', '.join(map(repr, close))}" if close
            else f"the model has {len(names)} initializers")  # fmt: skip
    raise LookupError(f"no initializer named {name!r}; {hint}")
