"""Hypothesis strategies of the model messages (``onnxdata.strategies``' model half).

:func:`of` draws any message class from its schema alone: each field set or
not, each oneof with at most one member set (sometimes at its default), the
data messages from their own valid strategies, sub-messages to a bounded
depth.  :func:`models`, :func:`graphs`, :func:`nodes`, :func:`attributes`
and :func:`type_protos` draw messages shaped as exporters write them (the
corpus's model seeds, ``model_samples``), through hypothesis' ``randoms()``:
nodes read only names defined before them, an attribute sets the one value
field its ``type`` names, ``If``/``Loop``/``Scan`` hold subgraphs.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .._core.foreign import foreign_class_name
from .._core.schema import BYTES, DOUBLE, ENUM, FLOAT, MESSAGE, STRING, FieldSpec, spec_of
from .._messages.declarations import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)
from .._messages.graphs import AttributeProto, GraphProto, ModelProto, NodeProto
from .._messages.types import TypeProto
from . import model_samples as ms
from .all_messages import ALL_MESSAGES, BY_FULL_NAME
from .samples import text
from .strategy_args import TEXT, depth_arg, flag_arg
from .valid_strategies import (
    entries,
    maps,
    optionals,
    sequences,
    sparse_tensors,
    tensors,
)
from .valid_strategies import messages as data_messages

_RANDOMS = st.randoms(use_true_random=False)


@st.composite
def _drawn(draw: st.DrawFn, build: Callable[[random.Random], Message]) -> Any:
    """A model-shaped message built from hypothesis' random choices (which shrink).

    Not ``st.builds``: hypothesis would record the call, to print the message as one."""
    return build(draw(_RANDOMS))


def models(max_depth: int = 2, *, external: bool | None = None) -> st.SearchStrategy[ModelProto]:
    """Model-shaped ``ModelProto`` messages: opset imports, a graph with typed inputs
    and outputs, initializers, nodes reading earlier names, subgraphs of
    ``If``/``Loop``/``Scan`` up to ``max_depth`` levels, sometimes functions and
    metadata.  ``external``: some initializers in external files (True), none
    (False), either (None).

    Raises:
        InvalidArgument: a negative ``max_depth``; ``external`` not a bool or None.
    """
    depth = depth_arg(max_depth)
    flag = flag_arg("external", external)
    return _drawn(lambda r: ms.model(r, depth, external=r.random() < 0.5 if flag is None else flag))


def graphs(max_depth: int = 2) -> st.SearchStrategy[GraphProto]:
    """Graphs as in :func:`models`, alone.

    Raises:
        InvalidArgument: a negative ``max_depth``.
    """
    depth = depth_arg(max_depth)
    return _drawn(lambda r: ms.graph(r, depth, []))


def nodes(max_depth: int = 1) -> st.SearchStrategy[NodeProto]:
    """Nodes as in :func:`models` (their inputs name nothing here), subgraphs to
    ``max_depth``.

    Raises:
        InvalidArgument: a negative ``max_depth``.
    """
    depth = depth_arg(max_depth)

    def one(r: random.Random) -> NodeProto:
        g = ms.graph(r, depth, [], nodes=1)
        return g.node[0]

    return _drawn(one)


def attributes(max_depth: int = 1) -> st.SearchStrategy[AttributeProto]:
    """Attributes whose ``type`` names the one value field that is set (``f`` for
    FLOAT, ``ints`` for INTS...), of every type; graphs to ``max_depth`` levels.

    Raises:
        InvalidArgument: a negative ``max_depth``.
    """
    depth = depth_arg(max_depth)
    kinds = [k for k in ms.ATTRIBUTE_FIELDS if depth or k not in (ms.AT.GRAPH, ms.AT.GRAPHS)]
    return _drawn(lambda r: ms.attribute(r, text(r), r.choice(kinds), depth))


def type_protos(max_depth: int = 2) -> st.SearchStrategy[TypeProto]:
    """``TypeProto`` messages with one member of ``value`` set (tensor, sparse tensor,
    opaque; sequence, map, optional nesting ``max_depth`` levels).

    Raises:
        InvalidArgument: a negative ``max_depth``.
    """
    depth = depth_arg(max_depth)
    return _drawn(lambda r: ms.type_proto(r, depth))


# -- any message, from its schema ---------------------------------------------------------


def _valid_data() -> dict[type[Message], Callable[[int], st.SearchStrategy[Any]]]:
    return {
        TensorProto: lambda d: tensors(),
        SparseTensorProto: lambda d: sparse_tensors(),
        SequenceProto: lambda d: sequences(max_depth=min(d, 1)),
        MapProto: lambda d: maps(max_depth=min(d, 1)),
        OptionalProto: lambda d: optionals(max_depth=min(d, 1)),
        StringStringEntryProto: lambda d: entries(),
    }


def _scalar(f: FieldSpec) -> st.SearchStrategy[Any]:
    if f.kind == ENUM:
        assert f.enum is not None
        return st.sampled_from(f.enum.values())
    if f.kind == STRING:
        return TEXT
    if f.kind == BYTES:
        return st.binary(max_size=8)
    if f.kind in (FLOAT, DOUBLE):
        return st.floats(width=32 if f.kind == FLOAT else 64)
    assert f.bounds is not None
    return st.integers(*f.bounds)


def _value(f: FieldSpec, depth: int) -> st.SearchStrategy[Any]:
    if f.kind == MESSAGE:
        one = of(f.message, depth - 1) if depth > 0 else st.builds(f.message)
        return st.lists(one, max_size=2) if f.repeated else one
    return st.lists(_scalar(f), max_size=3) if f.repeated else _scalar(f)


def of(cls: type[Message], max_depth: int = 2) -> st.SearchStrategy[Message]:
    """Messages of ``cls`` drawn from its schema: every field set or left unset, each
    oneof with no member or one (now and then at its default: set, and empty);
    the data messages from their valid strategies; sub-messages ``max_depth``
    levels deep at most (below, empty).  What protobuf accepts, not what ONNX's
    rules ask of a model: for that, :func:`models`.

    Raises:
        InvalidArgument: a negative ``max_depth``.
    """
    depth = depth_arg(max_depth)
    data = _valid_data().get(cls)
    if data is not None:
        return data(depth)
    return _of(cls, depth)


@st.composite
def _of(draw: st.DrawFn, cls: type[Message], depth: int) -> Message:
    spec = spec_of(cls)
    msg = cls()
    chosen = {m.name: False for ms_ in spec.oneofs.values() for m in ms_}
    for members in spec.oneofs.values():
        pick = draw(st.sampled_from([None, *members]))
        if pick is not None:
            chosen[pick.name] = True
    for f in spec.fields:
        if f.oneof is not None:
            if not chosen[f.name]:
                continue
            at_default = draw(st.integers(0, 4)) == 0
            value = (f.message() if f.kind == MESSAGE else f.zero) if at_default else None
            setattr(msg, f.name, draw(_value(f, depth)) if value is None else value)
        elif draw(st.booleans()):
            setattr(msg, f.name, draw(_value(f, depth)))
    return msg


MODEL_SHAPED: dict[type[Message], Callable[[int], st.SearchStrategy[Any]]] = {
    ModelProto: lambda d: models(d),
    GraphProto: lambda d: graphs(d),
    NodeProto: lambda d: nodes(min(d, 1)),
    AttributeProto: lambda d: attributes(min(d, 1)),
    TypeProto: lambda d: type_protos(d),
}
"""The classes :func:`onnxdata.strategies.messages` draws model-shaped."""


def _message_class(value: object) -> type[Message]:
    """One of onnxdata's message classes, given it or onnx's class of the same name."""
    if isinstance(value, type):
        if value in ALL_MESSAGES:
            return value
        full = foreign_class_name(value)
        found = BY_FULL_NAME.get(full) if full is not None else None
        if found is not None:
            return found
    raise InvalidArgument(f"{value!r} is not an ONNX message class (onnxdata's or onnx's)")


def messages(max_depth: int = 2, types: Any = None) -> st.SearchStrategy[Message]:
    """Any valid message: a tensor, sparse tensor, sequence, map or optional; or, with
    ``types``, of those classes (onnxdata's or onnx's, such as ``onnx.ModelProto``):
    any class of onnx-ml.proto.  Models, graphs, nodes, attributes and types are
    drawn model-shaped (:func:`models`...), every other class from its schema
    (:func:`of`); the messages are always onnxdata's.

    Raises:
        InvalidArgument: ``types`` is empty or names something else than a
            message class; a negative depth.
    """
    depth = depth_arg(max_depth)
    if types is None:
        return data_messages(depth)
    if isinstance(types, type) or not isinstance(types, Iterable):
        types = [types]
    chosen = list(dict.fromkeys(_message_class(t) for t in types))
    if not chosen:
        raise InvalidArgument("types is empty")
    found: list[st.SearchStrategy[Any]] = []
    for cls in chosen:
        shaped = MODEL_SHAPED.get(cls)
        if shaped is not None:
            found.append(shaped(depth))
        elif cls in _valid_data() or cls is TensorProto.Segment:
            found.append(data_messages(depth, types=[cls]))
        else:
            found.append(_of(cls, depth))
    return st.one_of(*found)
