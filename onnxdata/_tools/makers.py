"""``onnx.helper``'s makers of nodes, graphs, functions and models (onnx 1.23.2).

Each builds the message onnx's builds, field for field and byte for byte,
and refuses what protobuf refuses, with the same error classes
(:mod:`.protovalues`).  Messages given are copied, as protobuf's
``extend`` and ``CopyFrom`` copy them, and may be onnx's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._messages.declarations import SparseTensorProto, StringStringEntryProto, TensorProto
from .._messages.graphs import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    TrainingInfoProto,
    ValueInfoProto,
)
from .._messages.versions import IR_VERSION
from .attributes import make_attribute
from .protovalues import copied, messages, scalar, scalars, set_scalar

__all__ = [
    "OP_SET_ID_VERSION_MAP",
    "VERSION_TABLE",
    "AssignmentBindingType",
    "VersionMapType",
    "VersionRowType",
    "VersionTableType",
    "create_op_set_id_version_map",
    "find_min_ir_version_for",
    "make_function",
    "make_graph",
    "make_model",
    "make_model_gen_version",
    "make_node",
    "make_operatorsetid",
    "make_opsetid",
    "make_training_info",
    "set_metadata_props",
    "set_model_props",
]

VersionRowType = tuple[str, int, int, int] | tuple[str, int, int, int, int]
VersionTableType = list[VersionRowType]
VersionMapType = dict[tuple[str, int], int]
AssignmentBindingType = list[tuple[str, str]]

# onnx's docs/Versioning.md "Released versions", as onnx 1.23.2 ships it: release,
# IR version, ai.onnx opset, ai.onnx.ml opset and (from 1.7) ai.onnx.training opset.
VERSION_TABLE: VersionTableType = [
    ("1.0", 3, 1, 1),
    ("1.1", 3, 5, 1),
    ("1.1.2", 3, 6, 1),
    ("1.2", 3, 7, 1),
    ("1.3", 3, 8, 1),
    ("1.4.1", 4, 9, 1),
    ("1.5.0", 5, 10, 1),
    ("1.6.0", 6, 11, 2),
    ("1.7.0", 7, 12, 2, 1),
    ("1.8.0", 7, 13, 2, 1),
    ("1.8.1", 7, 13, 2, 1),
    ("1.9.0", 7, 14, 2, 1),
    ("1.10.0", 8, 15, 2, 1),
    ("1.10.1", 8, 15, 2, 1),
    ("1.10.2", 8, 15, 2, 1),
    ("1.11.0", 8, 16, 3, 1),
    ("1.12.0", 8, 17, 3, 1),
    ("1.13.0", 8, 18, 3, 1),
    ("1.13.1", 8, 18, 3, 1),
    ("1.14.0", 9, 19, 3, 1),
    ("1.14.1", 9, 19, 3, 1),
    ("1.15.0", 9, 20, 4, 1),
    ("1.16.0", 10, 21, 5, 1),
    ("1.16.1", 10, 21, 5, 1),
    ("1.16.2", 10, 21, 5, 1),
    ("1.17.0", 10, 22, 5, 1),
    ("1.18.0", 11, 23, 5, 1),
    ("1.19.0", 12, 24, 5, 1),
    ("1.19.1", 12, 24, 5, 1),
    ("1.20.0", 13, 25, 5, 1),
    ("1.20.1", 13, 25, 5, 1),
    ("1.21.0", 13, 26, 5, 1),
    ("1.22.0", 13, 27, 5, 1),
    ("1.23.0", 14, 28, 5, 1),
]

# The newest ai.onnx opset onnx 1.23.2 knows (``onnx.defs.onnx_opset_version()``),
# which make_model imports when no opset is given: the table's last row.
ONNX_OPSET_VERSION = VERSION_TABLE[-1][2]

_DOMAINS = ("ai.onnx", "ai.onnx.ml", "ai.onnx.training")
# The preview domains share the version numbers of the domains they preview.
_PREVIEWS = {"ai.onnx": "ai.onnx.preview", "ai.onnx.training": "ai.onnx.preview.training"}


def create_op_set_id_version_map(table: VersionTableType) -> VersionMapType:
    """``{(domain, opset version): the first IR version that has it}`` from a version table."""
    result: VersionMapType = {}
    for row in table:
        ir_version = row[1]
        for domain, version in zip(_DOMAINS, row[2:], strict=False):
            if (domain, version) not in result:
                result[domain, version] = ir_version
                if domain in _PREVIEWS:
                    result[_PREVIEWS[domain], version] = ir_version
    return result


OP_SET_ID_VERSION_MAP = create_op_set_id_version_map(VERSION_TABLE)


def find_min_ir_version_for(
    opsetidlist: Sequence[OperatorSetIdProto], ignore_unknown: bool = False
) -> int:
    """The lowest IR version that has every opset of ``opsetidlist`` (3 for none).

    An empty domain is ai.onnx.  With ``ignore_unknown``, an opset the table
    does not know counts as 3.

    Raises:
        ValueError: an opset the table does not know ("Unsupported
            opset-version.", as onnx), unless ``ignore_unknown``.
    """
    default = 3

    def find_min(domain: str | None, version: int) -> int:
        key = (domain or "ai.onnx", version)
        if key in OP_SET_ID_VERSION_MAP:
            return OP_SET_ID_VERSION_MAP[key]
        if ignore_unknown:
            return default
        raise ValueError("Unsupported opset-version.")

    if opsetidlist:
        return max(find_min(x.domain, x.version) for x in opsetidlist)
    return default


def make_node(
    op_type: str,
    inputs: Sequence[str],
    outputs: Sequence[str],
    name: str | None = None,
    doc_string: str | None = None,
    domain: str | None = None,
    overload: str | None = None,
    **kwargs: Any,
) -> NodeProto:
    """A NodeProto; ``kwargs`` are its attributes (:func:`make_attribute`), sorted by name.

    A keyword whose value is None makes no attribute.  ``name`` and
    ``doc_string`` are set only when not empty, ``domain`` and ``overload``
    when not None (an empty domain is then written), as onnx.

    Raises:
        TypeError: a name that is not str (or UTF-8 bytes), inputs or outputs
            that are not an iterable of them, or an attribute value
            :func:`make_attribute` refuses.
        ValueError: see :func:`make_attribute`.
    """
    node = NodeProto()
    node.op_type = scalar(NodeProto, "op_type", op_type)
    node.input = scalars(NodeProto, "input", inputs)
    node.output = scalars(NodeProto, "output", outputs)
    if name:
        node.name = scalar(NodeProto, "name", name)
    if doc_string:
        node.doc_string = scalar(NodeProto, "doc_string", doc_string)
    if domain is not None:
        node.domain = scalar(NodeProto, "domain", domain)
    if overload is not None:
        node.overload = scalar(NodeProto, "overload", overload)
    if kwargs:
        node.attribute = [
            make_attribute(key, value) for key, value in sorted(kwargs.items()) if value is not None
        ]
    return node


def make_operatorsetid(domain: str, version: int) -> OperatorSetIdProto:
    """An OperatorSetIdProto (both fields set, an empty domain too).

    Raises:
        TypeError: ``domain`` is not str, or ``version`` is not an integer.
        ValueError: ``version`` is outside int64.
    """
    opset = OperatorSetIdProto()
    opset.domain = scalar(OperatorSetIdProto, "domain", domain)
    opset.version = scalar(OperatorSetIdProto, "version", version)
    return opset


make_opsetid = make_operatorsetid


def make_graph(
    nodes: Sequence[NodeProto],
    name: str,
    inputs: Sequence[ValueInfoProto],
    outputs: Sequence[ValueInfoProto],
    initializer: Sequence[TensorProto] | None = None,
    doc_string: str | None = None,
    value_info: Sequence[ValueInfoProto] | None = None,
    sparse_initializer: Sequence[SparseTensorProto] | None = None,
) -> GraphProto:
    """A GraphProto of copies of the messages given (``name`` always set).

    Raises:
        TypeError: a message of the wrong type, a list that is not iterable,
            or a name that is not str.
    """
    graph = GraphProto()
    graph.node = messages(nodes, NodeProto)
    graph.name = scalar(GraphProto, "name", name)
    graph.input = messages(inputs, ValueInfoProto)
    graph.output = messages(outputs, ValueInfoProto)
    graph.initializer = messages(initializer or [], TensorProto)
    graph.sparse_initializer = messages(sparse_initializer or [], SparseTensorProto)
    graph.value_info = messages(value_info or [], ValueInfoProto)
    if doc_string:
        graph.doc_string = scalar(GraphProto, "doc_string", doc_string)
    return graph


def make_function(
    domain: str,
    fname: str,
    inputs: Sequence[str],
    outputs: Sequence[str],
    nodes: Sequence[NodeProto],
    opset_imports: Sequence[OperatorSetIdProto],
    attributes: Sequence[str] | None = None,
    attribute_protos: Sequence[AttributeProto] | None = None,
    doc_string: str | None = None,
    overload: str | None = None,
    value_info: Sequence[ValueInfoProto] | None = None,
) -> FunctionProto:
    """A FunctionProto (``domain`` and ``name`` always set), of copies of the messages given.

    Raises:
        TypeError: a message of the wrong type, or a name that is not str.
    """
    f = FunctionProto()
    f.domain = scalar(FunctionProto, "domain", domain)
    f.name = scalar(FunctionProto, "name", fname)
    f.input = scalars(FunctionProto, "input", inputs)
    f.output = scalars(FunctionProto, "output", outputs)
    f.node = messages(nodes, NodeProto)
    f.opset_import = messages(opset_imports, OperatorSetIdProto)
    f.attribute = scalars(FunctionProto, "attribute", attributes or [])
    f.attribute_proto = messages(attribute_protos or [], AttributeProto)
    if doc_string:
        f.doc_string = scalar(FunctionProto, "doc_string", doc_string)
    if overload is not None:
        f.overload = scalar(FunctionProto, "overload", overload)
    f.value_info = messages(value_info or [], ValueInfoProto)
    return f


def make_model(graph: GraphProto, **kwargs: Any) -> ModelProto:
    """A ModelProto of a copy of ``graph``, at onnx 1.23.2's IR version (14).

    ``opset_imports`` (default: ai.onnx at opset 28, onnx 1.23.2's newest) and
    ``functions`` are lists of messages; any other keyword sets the scalar
    field of that name (``producer_name="x"``, ``ir_version=8``).

    Raises:
        TypeError: ``graph`` or a message is of the wrong type, or a field's
            value is (as protobuf).
        AttributeError: a keyword that is no field of ModelProto, or names a
            repeated or message field (protobuf's messages).
        ValueError: an integer out of range.
    """
    model = ModelProto()
    model.ir_version = IR_VERSION
    model.graph = copied(graph, GraphProto)
    opset_imports = kwargs.pop("opset_imports", None)
    if opset_imports is not None:
        model.opset_import = messages(opset_imports, OperatorSetIdProto)
    else:
        model.opset_import = [OperatorSetIdProto(version=ONNX_OPSET_VERSION)]
    functions = kwargs.pop("functions", None)
    if functions is not None:
        model.functions = messages(functions, FunctionProto)
    for key, value in kwargs.items():
        set_scalar(model, key, value)
    return model


def make_model_gen_version(graph: GraphProto, **kwargs: Any) -> ModelProto:
    """:func:`make_model` with, unless given, the lowest IR version that has its opsets.

    Raises:
        ValueError: an opset :func:`find_min_ir_version_for` does not know.
        TypeError, AttributeError: see :func:`make_model`.
    """
    if "ir_version" not in kwargs:
        kwargs["ir_version"] = find_min_ir_version_for(kwargs.get("opset_imports", []))
    return make_model(graph, **kwargs)


def _entries(pairs: Iterable[tuple[Any, Any]]) -> list[StringStringEntryProto]:
    return [
        StringStringEntryProto(
            key=scalar(StringStringEntryProto, "key", k),
            value=scalar(StringStringEntryProto, "value", v),
        )
        for k, v in pairs
    ]


def set_metadata_props(proto: Any, dict_value: dict[str, str]) -> None:
    """Replace ``proto.metadata_props`` by the entries of ``dict_value``, in its order.

    ``proto`` is a message with ``metadata_props`` (ModelProto, GraphProto,
    FunctionProto, NodeProto, TensorProto, ValueInfoProto...), onnxdata's or
    onnx's (changed in place either way).

    Raises:
        AttributeError: ``proto`` has no ``metadata_props``.
        TypeError: a key or value that is not str.
    """
    pairs = [(e.key, e.value) for e in _entries(dict_value.items())]
    del proto.metadata_props[:]
    for key, value in pairs:  # add(): protobuf's and onnxdata's containers both have it
        proto.metadata_props.add(key=key, value=value)


def set_model_props(model: ModelProto, dict_value: dict[str, str]) -> None:
    """:func:`set_metadata_props` of a model (onnx's older name).

    Raises:
        AttributeError, TypeError: see :func:`set_metadata_props`.
    """
    set_metadata_props(model, dict_value)


def make_training_info(
    algorithm: GraphProto,
    algorithm_bindings: AssignmentBindingType,
    initialization: GraphProto | None,
    initialization_bindings: AssignmentBindingType | None,
) -> TrainingInfoProto:
    """A TrainingInfoProto of copies of the graphs, with the (key, value) bindings.

    ``initialization`` and its bindings are set only when not empty, as onnx.

    Raises:
        TypeError: a graph of the wrong type, or a binding that is not a pair of str.
    """
    info = TrainingInfoProto()
    info.algorithm = copied(algorithm, GraphProto)
    info.update_binding = _entries(algorithm_bindings)
    if initialization:
        info.initialization = copied(initialization, GraphProto)
    if initialization_bindings:
        info.initialization_binding = _entries(initialization_bindings)
    return info
