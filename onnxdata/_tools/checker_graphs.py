"""onnx's checks of a graph and what it holds: value infos, nodes, attributes.

onnx 1.23.2's ``check_value_info``, ``check_attribute``, ``check_node`` and
``check_graph`` (``checker.cc``), in its order and with its messages: the
first rule broken raises :class:`ValidationError`.  They call each other as
onnx's do (a node checks its attributes, an attribute its subgraphs, while
the enclosing graph's scope holds the names defined before that node), so a
subgraph sees exactly what onnx lets it see.  An error from a node of a graph
gets onnx's context line (``==> Context: Bad node spec for node...``), the
outermost node's, as in onnx.  ``err.path`` is the field path of the message
that broke the rule (``graph.node[3].attribute[0].g.node[1]``), added as the
error climbs out.

The operator schemas are asked for once per (op, version, domain) in a check
(:class:`.checker_schemas.SchemaCache`, shared by the contexts of one check).
"""

from __future__ import annotations

import sys

from .._core.access import gather
from .._core.errors import ValidationError
from .._core.schema import spec_of
from .._messages.declarations import TensorProto
from .._messages.graphs import AttributeProto, GraphProto, NodeProto, ValueInfoProto
from .._messages.types import TypeProto
from .checker_context import (
    CheckerContext,
    LexicalScopeContext,
    add_context,
    fail,
    within,
)
from .checker_schemas import SchemaCache
from .checker_tensors import check_sparse_tensor, check_tensor

# Fields named through the schema: a rename in the declarations fails here, at import.
_TYPE = spec_of(ValueInfoProto).named.type.name
_ATTRIBUTE = spec_of(AttributeProto).named
_NAME = spec_of(TensorProto).named.name.name

# The oneof of TypeProto (``value``), named through the schema.
_TYPE_ONEOF = spec_of(TypeProto).named.tensor_type.oneof

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = [
    "EXPERIMENTAL_OPS",
    "MAX_GRAPH_DEPTH",
    "PARSE_FAILED",
    "check_attribute",
    "check_graph",
    "check_node",
    "check_value_info",
    "schemas_of",
]

AI_ONNX = "ai.onnx"
BUILT_IN_DOMAINS = frozenset({"", AI_ONNX, "ai.onnx.ml", "ai.onnx.training"})
"""The domains where an operator without a schema is an error (onnx's
``check_node``; ``ai.onnx.preview.training`` is not among them)."""

EXPERIMENTAL_OPS = frozenset({
    "ATen", "Affine", "ConstantFill", "Crop", "DynamicSlice", "GRUUnit", "GivenTensorFill",
    "ImageScaler", "ParametricSoftplus", "Scale", "ScaledTanh",
})  # fmt: skip
"""onnx's experimental operators: named in the ONNX domain, they pass unchecked."""

# Graph nesting beyond which protobuf could not have parsed the model (its
# limit is 100 nested messages, three per level of graph).
MAX_GRAPH_DEPTH = 33
PARSE_FAILED = (
    "Unable to parse proto from the given bytes: data is malformed, truncated, or exceeds "
    "the size limit."
)

_ATTRIBUTE_TYPES = AttributeProto.AttributeType
_KNOWN_TYPES = frozenset(_ATTRIBUTE_TYPES.values())
_A = _ATTRIBUTE_TYPES
# The value fields of an attribute in onnx's order: the type each one needs,
# whether it is repeated, and whether what it holds is checked in turn.
_AT = spec_of(AttributeProto).named
_VALUE_FIELDS = (
    (_AT.f, _A.FLOAT, False, False), (_AT.i, _A.INT, False, False),
    (_AT.s, _A.STRING, False, False), (_AT.t, _A.TENSOR, False, True),
    (_AT.g, _A.GRAPH, False, True), (_AT.tp, _A.TYPE_PROTO, False, False),
    (_AT.sparse_tensor, _A.SPARSE_TENSOR, False, True), (_AT.floats, _A.FLOATS, True, False),
    (_AT.ints, _A.INTS, True, False), (_AT.strings, _A.STRINGS, True, False),
    (_AT.tensors, _A.TENSORS, True, True), (_AT.graphs, _A.GRAPHS, True, True),
    (_AT.sparse_tensors, _A.SPARSE_TENSORS, True, True),
    (_AT.type_protos, _A.TYPE_PROTOS, True, False),
)  # fmt: skip
_VALUE_KINDS = tuple((kind, repeated, deep) for _, kind, repeated, deep in _VALUE_FIELDS)
# Every value field's slot in one call (None: unset, or a repeated field never made).
_VALUES = gather(tuple(f[0] for f in _VALUE_FIELDS))
_ATTR_TYPE = _AT.type.held
_ATTR_REF = _AT.ref_attr_name.held
_NODE_ATTRIBUTES = spec_of(NodeProto).named.attribute.held

# A value info's type: the oneof member, and the fields onnx asks of it
# (has: presence; name: non-empty).
def _type_needs() -> dict[str, tuple[tuple[str, str], ...]]:
    tp, has, named = spec_of(TypeProto).named, "has", "name"
    tensor, sparse = spec_of(TypeProto.Tensor).named, spec_of(TypeProto.SparseTensor).named
    map_ = spec_of(TypeProto.Map).named
    return {
        tp.tensor_type.name: ((tensor.elem_type.name, has), (tensor.shape.name, has)),
        tp.optional_type.name: ((spec_of(TypeProto.Optional).named.elem_type.name, has),),
        tp.sequence_type.name: ((spec_of(TypeProto.Sequence).named.elem_type.name, has),),
        tp.map_type.name: ((map_.key_type.name, has), (map_.value_type.name, has)),
        tp.opaque_type.name: ((spec_of(TypeProto.Opaque).named.name.name, named),),
        tp.sparse_tensor_type.name: ((sparse.elem_type.name, has), (sparse.shape.name, has)),
    }


_TYPE_NEEDS = _type_needs()
_GRAPH_VALUE_INFOS = (spec_of(GraphProto).named.input.name, spec_of(GraphProto).named.output.name)


def schemas_of(ctx: CheckerContext) -> SchemaCache:
    """The schema cache of the check ``ctx`` belongs to (made on first use)."""
    cache = ctx.schemas
    if cache is None:
        cache = ctx.schemas = SchemaCache()
    assert isinstance(cache, SchemaCache)
    return cache


def check_value_info(value_info: Any, ctx: CheckerContext) -> None:
    """onnx's ``check_value_info``: named; in the main graph, with a complete type.

    Raises:
        ValidationError: the first rule broken, with onnx's text.
    """
    if not value_info.name:
        fail("Field 'name' of 'value_info' is required to be non-empty.")
    if not ctx.is_main_graph:
        return
    if not value_info.HasField(_TYPE):
        fail("Field 'type' of 'value_info' is required but missing.")
    tp = value_info.type
    which = tp.WhichOneof(_TYPE_ONEOF)
    needs = _TYPE_NEEDS.get(which or "")
    if needs is None:
        fail("Unrecognized type value case (value_info name: ", value_info.name, "): 0")
    inner = getattr(tp, which or "")
    for field, how in needs:
        if how == "has" and not inner.HasField(field):
            fail("Field '", field, "' of 'type' is required but missing.")
        if how == "name" and not inner.name:
            fail("Field 'name' of 'type' is required to be non-empty.")


def _attribute_type(attr: Any) -> int | None:
    """The attribute's type, None when unset (a number the enum does not know
    reads unset, as protobuf keeps it among the unknown fields)."""
    kind = _ATTR_TYPE(attr)
    return kind if kind in _KNOWN_TYPES else None


def check_attribute(attr: Any, ctx: CheckerContext, lex_ctx: LexicalScopeContext) -> None:
    """onnx's ``check_attribute``: the attribute's form, and the tensors and graphs
    it holds (a graph as a subgraph of the scope ``lex_ctx``).

    Raises:
        ValidationError: the first rule broken, with onnx's text.
    """
    name = attr.name
    if not name:
        fail("Field 'name' of 'attr' is required to be non-empty.")
    kind = _attribute_type(attr)
    if ctx.ir_version >= 2 and kind is None:
        fail("Field 'type' of 'attr' is required but missing.")
    used = 0
    nested = False
    for value, (wanted, repeated, deep) in zip(_VALUES(attr), _VALUE_KINDS, strict=True):
        if value is None or (repeated and not len(value)):
            continue
        used += 1
        nested = nested or deep
        if kind is not None and kind != wanted:
            fail("type field and data field mismatch in attribute ", name, ".")
    if used > 1:
        fail("Attribute (name: ", name, ") should not contain more than one value field.")
    if not ctx.is_main_graph and _ATTR_REF(attr) is not None and used:
        fail("Attribute (name: ", name, ") should refer to attribute in parent node.")
    if nested:
        _attribute_values(attr, ctx, lex_ctx)


def _attribute_values(attr: Any, ctx: CheckerContext, lex_ctx: LexicalScopeContext) -> None:
    """The tensors and graphs an attribute holds, in onnx's order."""
    field = ""
    try:
        if attr.HasField(_ATTRIBUTE.t.name):
            field = "t"
            check_tensor(attr.t, ctx)
        if attr.HasField(_ATTRIBUTE.sparse_tensor.name):
            field = "sparse_tensor"
            check_sparse_tensor(attr.sparse_tensor, ctx)
        if attr.HasField(_ATTRIBUTE.g.name):
            field = "g"
            check_graph(attr.g, _subgraph_context(ctx), lex_ctx)
        for i, tensor in enumerate(attr.tensors):
            field = f"tensors[{i}]"
            check_tensor(tensor, ctx)
        for i, sparse in enumerate(attr.sparse_tensors):
            field = f"sparse_tensors[{i}]"
            check_sparse_tensor(sparse, ctx)
        if len(attr.graphs):
            sub = _subgraph_context(ctx)
            for i, graph in enumerate(attr.graphs):
                field = f"graphs[{i}]"
                check_graph(graph, sub, lex_ctx)
    except ValidationError as err:
        within(err, field)
        raise


def _subgraph_context(ctx: CheckerContext) -> CheckerContext:
    if ctx.depth >= MAX_GRAPH_DEPTH:
        raise ValueError(PARSE_FAILED)
    sub = ctx.copy()
    sub.is_main_graph = False
    sub.depth = ctx.depth + 1
    return sub


def domain_version(node: Any, ctx: CheckerContext) -> int:
    """The opset version the node's domain is imported at (``""`` and ``ai.onnx``
    are one domain). Raises ValidationError when it is not imported."""
    domain = node.domain
    imports = ctx.opset_imports
    version = imports.get(domain)
    if version is None and domain == "":
        version = imports.get(AI_ONNX)
    if version is None:
        fail("No opset import for domain '", domain, "'")
    return version


def check_node(node: Any, ctx: CheckerContext, lex_ctx: LexicalScopeContext) -> None:
    """onnx's ``check_node``: the operator imported and known in its opset (not
    deprecated), its attributes well formed, and the node fitting the schema.

    Raises:
        ValidationError: the first rule broken, with onnx's text.
    """
    op_type = node.op_type
    if not op_type:
        fail("Field 'op_type' of 'node' is required to be non-empty.")
    inputs, outputs = node.input, node.output
    if not inputs and not outputs:
        fail("NodeProto (name: ", node.name, ", type: ", op_type, ") has zero input and zero "
             "output.")  # fmt: skip
    version = domain_version(node, ctx)
    attributes = _NODE_ATTRIBUTES(node)
    if attributes:
        _node_attributes(attributes, ctx, lex_ctx)
    domain = node.domain
    if op_type in EXPERIMENTAL_OPS and domain in ("", AI_ONNX):
        return
    verifier = schemas_of(ctx).get(op_type, version, domain)
    if verifier is None:
        if domain in BUILT_IN_DOMAINS or ctx.check_custom_domain:
            fail("No Op registered for ", op_type, " with domain_version of ", version)
    elif verifier.deprecated:
        fail("Op registered for ", op_type, " is deprecated in domain_version of ", version)
    else:
        verifier.verify(node, inputs, outputs, attributes or ())


def _node_attributes(attributes: Any, ctx: CheckerContext, lex_ctx: LexicalScopeContext) -> None:
    seen: set[str] = set()
    for a, attr in enumerate(attributes):
        try:
            name = attr.name
            if name in seen:
                fail("Attribute '", name, "' appeared multiple times.")
            seen.add(name)
            check_attribute(attr, ctx, lex_ctx)
        except ValidationError as err:
            within(err, f"attribute[{a}]")
            raise


def check_graph(graph: Any, ctx: CheckerContext, parent_lex: LexicalScopeContext) -> None:
    """onnx's ``check_graph``: named; its inputs, outputs, initializers and nodes
    checked; every value defined once (SSA) before it is used (topological
    order), seeing the names of the enclosing graphs through ``parent_lex``.

    Raises:
        ValidationError: the first rule broken, with onnx's text.
    """
    if not graph.name:
        fail("Field 'name' of 'graph' is required to be non-empty.")
    for field in _GRAPH_VALUE_INFOS:
        for i, value_info in enumerate(getattr(graph, field)):
            try:
                check_value_info(value_info, ctx)
            except ValidationError as err:
                within(err, f"{field}[{i}]")
                raise
    lex_ctx = LexicalScopeContext(parent_lex)
    for i, value_info in enumerate(graph.input):
        if value_info.name in lex_ctx.output_names:
            _at(f"input[{i}].name", "Graph must be in single static assignment (SSA) form, "
                "however '", value_info.name, "' has been used as graph input names multiple "
                "times.")  # fmt: skip
        lex_ctx.add(value_info.name)
    _initializers(graph, ctx, lex_ctx)
    experimental = _nodes(graph, ctx, lex_ctx)
    names = lex_ctx.output_names
    for i, value_info in enumerate(graph.output):
        if value_info.name not in names:
            _at(f"output[{i}].name", "Graph output '", value_info.name, "' is not an output of "
                "any node in graph.")  # fmt: skip
    warn_experimental(experimental)


def _at(path: str, *parts: object) -> None:
    """Fail with onnx's text, at ``path`` (relative to the message checked)."""
    try:
        fail(*parts)
    except ValidationError as err:
        within(err, path)
        raise


def _initializers(graph: Any, ctx: CheckerContext, lex_ctx: LexicalScopeContext) -> None:
    unique: set[str] = set()
    for i, init in enumerate(graph.initializer):
        where = f"initializer[{i}]"
        if not init.HasField(_NAME):
            _at(where, "Field 'name' of 'init' is required but missing.")
        name = init.name
        if not name:
            _at(where, "Tensor initializers must have a non-empty name")
        if name in unique:
            _at(where, name, " initializer name is not unique")
        unique.add(name)
        try:
            check_tensor(init, ctx)
        except ValidationError as err:
            within(err, where)
            raise
        if ctx.ir_version <= 3:
            if name not in lex_ctx.output_names:
                _at(where, name, " in initializer but not in graph input")
        else:
            lex_ctx.add(name)
    for i, sparse in enumerate(graph.sparse_initializer):
        where = f"sparse_initializer[{i}]"
        values = sparse.values
        if not values.HasField(_NAME):
            _at(where, "Field 'name' of 'values' is required but missing.")
        name = values.name
        if not name:
            _at(where, "Sparse tensor initializers must have a non-empty name")
        if name in unique:
            _at(where, name, " sparse initializer name is not unique across initializers and "
                "sparse_initializers")  # fmt: skip
        unique.add(name)
        try:
            check_sparse_tensor(sparse, ctx)
        except ValidationError as err:
            within(err, where)
            raise
        lex_ctx.add(name)


def _nodes(graph: Any, ctx: CheckerContext, lex_ctx: LexicalScopeContext) -> list[str]:
    """The nodes in order: inputs defined, the node itself, outputs defined once.
    The experimental operators met, in order."""
    experimental: list[str] = []
    names = lex_ctx.output_names
    has = lex_ctx.this_or_ancestor_graph_has
    for n, node in enumerate(graph.node):
        for name in node.input:
            if name and name not in names and not has(name):
                _at(f"node[{n}]", "Nodes in a graph must be topologically sorted, however input '",
                    name, "' of node: \nname: ", node.name, " OpType: ", node.op_type,
                    "\n is not output of any previous nodes.")  # fmt: skip
        op_type = node.op_type
        if op_type in EXPERIMENTAL_OPS and node.domain in ("", AI_ONNX):
            experimental.append(op_type)
        try:
            check_node(node, ctx, lex_ctx)
        except ValidationError as err:
            add_context(err, f"Bad node spec for node. Name: {node.name} OpType: {op_type}")
            within(err, f"node[{n}]")
            raise
        for name in node.output:
            if name and (name in names or has(name)):
                _at(f"node[{n}]", "Graph must be in single static assignment (SSA) form, however '",
                    name, "' has been used as output names multiple times.")  # fmt: skip
            if name:
                names.add(name)
    return experimental


def warn_experimental(ops: list[str]) -> None:
    """onnx's warning, printed on standard output, for the experimental operators used."""
    if ops:
        listed = ",".join(f" {op}" for op in dict.fromkeys(ops))
        sys.stdout.write(f"Warning: Model contains experimental ops:{listed}\n")
