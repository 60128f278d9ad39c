"""The tensors of a model, in the order onnx's ``external_data_helper`` visits them.

A model's weights are its graph's initializers, the initializers of every
subgraph (the ``g`` and ``graphs`` of If, Loop and Scan attributes), and,
for ``convert_attribute``, the tensors held by attributes (``t`` and
``tensors``) of the nodes of every graph and function.  onnx walks them
recursively; these walkers keep their own stack, so a model nested deeper
than Python's recursion limit (one built in memory: decoding bounds the
depth) is walked all the same, in the same order.

Fields are read through their slots (None while unset): by name an unset
sub-message reads as an empty stand-in, which is harmless here but would be
made for every attribute visited.
"""

from __future__ import annotations

from itertools import chain

from .._messages.declarations import TensorProto

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

__all__ = ["all_tensors", "attribute_tensors", "initializer_tensors"]

_GRAPH = 5  # AttributeProto.GRAPH
_GRAPHS = 10  # AttributeProto.GRAPHS


def _subgraphs(attribute: Any) -> list[Any]:
    """The subgraphs of an attribute, as onnx finds them: by its ``type``."""
    kind = attribute._type
    if kind == _GRAPH and attribute._g is not None:
        return [attribute._g]
    if kind == _GRAPHS:
        return list(attribute._graphs or ())
    return []


def _walk(roots: Iterable[Any], items: Callable[[Any], Iterable[Any]]) -> Iterator[TensorProto]:
    """Depth first through ``items(graph)``: a TensorProto is yielded, anything
    else is a graph (or function) whose items come next, before the rest."""
    stack: list[Iterator[Any]] = [iter(roots)]
    while stack:
        for item in stack[-1]:
            if isinstance(item, TensorProto):
                yield item
            else:
                stack.append(iter(items(item)))
                break
        else:
            stack.pop()


def _initializer_items(graph: Any) -> Iterator[Any]:
    yield from graph._initializer or ()
    for node in graph._node or ():
        for attribute in node._attribute or ():
            yield from _subgraphs(attribute)


def _attribute_items(graph: Any) -> Iterator[Any]:
    for node in graph._node or ():
        for attribute in node._attribute or ():
            if attribute._t is not None:
                yield attribute._t
            yield from attribute._tensors or ()
            yield from _subgraphs(attribute)


def _graph(model: Any) -> list[Any]:
    return [] if model._graph is None else [model._graph]


def initializer_tensors(model: Any) -> Iterator[TensorProto]:
    """The initializers of the model's graph and of all its subgraphs (onnx's
    ``_get_initializer_tensors``)."""
    return _walk(_graph(model), _initializer_items)


def attribute_tensors(model: Any) -> Iterator[TensorProto]:
    """The tensors held by node attributes, in the graph, its subgraphs and the
    model's functions (onnx's ``_get_attribute_tensors``)."""
    return _walk([*_graph(model), *(model._functions or ())], _attribute_items)


def all_tensors(model: Any) -> Iterator[TensorProto]:
    """Initializers, then attribute tensors (onnx's ``_get_all_tensors``)."""
    return chain(initializer_tensors(model), attribute_tensors(model))
