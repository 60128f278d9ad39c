"""The rules of a whole model that need no operator schema.

onnx's checker (C++) enforces, besides each tensor's rules, a set of rules
about the structure of a model: versions and opsets, names, the static
single assignment of values, nodes in topological order, attributes with
one value of their declared type.  None of them needs an operator's schema,
so they are checked here in pure Python, with the messages' field paths,
and every break is reported (onnx stops at the first).  Each rule below
names the checker's message it corresponds to; ``docs/robustness.md``
lists them.  What needs the schemas (an operator exists in its opset, its
inputs, outputs and attributes fit, types infer) is left to onnx.

The rules depend on where a message sits (the model's IR version and
opsets, whether a graph is the main one, which names the enclosing graphs
define), so they run once, from the model, and walk its graphs with an
explicit stack of scopes.  Each sub-message is read through ``values(msg)``,
the walk's checked fields, and skipped when that is None: a value of the
wrong type is reported by the walk, and no rule reads it.
"""

from __future__ import annotations

from functools import partial

from .._core.schema import MESSAGE, spec_of
from .._core.walk import Step, walk
from .._messages.declarations import StringStringEntryProto
from .._messages.graphs import FunctionProto, GraphProto, ModelProto
from .._messages.types import TypeProto
from .._messages.versions import IR_VERSION

# The oneof of TypeProto (``value``), named through the schema.
_TYPE_ONEOF = spec_of(TypeProto).named.tensor_type.oneof

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    Bad = Callable[[str, str], None]
    Values = Callable[[Any], "dict[str, Any] | None"]

__all__ = ["MODEL_RULES", "PROPS"]

PROPS: str = next(
    f.name
    for f in spec_of(ModelProto).fields
    if f.kind == MESSAGE and f.message is StringStringEntryProto
)
"""The model's key-value metadata field, found in the schema: its one list of string pairs."""

_INT32_BOUNDS = (-(1 << 31), (1 << 31) - 1)
_AI_ONNX = "ai.onnx"

# Attribute value fields, the AttributeType each one needs, and whether it is a list.
_VALUE_FIELDS = (
    ("f", 1, False), ("i", 2, False), ("s", 3, False), ("t", 4, False), ("g", 5, False),
    ("tp", 13, False), ("sparse_tensor", 11, False), ("floats", 6, True), ("ints", 7, True),
    ("strings", 8, True), ("tensors", 9, True), ("graphs", 10, True),
    ("sparse_tensors", 12, True), ("type_protos", 14, True),
)  # fmt: skip
# The type of a value: the member of TypeProto's oneof, and the fields it must set.
_TP = spec_of(TypeProto).named
_OPAQUE = _TP.opaque_type.name
_GRAPH_VALUE_INFOS = (spec_of(GraphProto).named.input.name, spec_of(GraphProto).named.output.name)
_F = spec_of(FunctionProto).named
_FUNCTION_NAME_LISTS = (_F.input.name, _F.output.name, _F.attribute.name)  # names, each once
_OPAQUE_NAME = spec_of(TypeProto.Opaque).named.name.name
_TYPE_NEEDS = {
    member.name: tuple(f.name for f in needs)
    for member, needs in (
        (_TP.tensor_type, (spec_of(TypeProto.Tensor).named.elem_type,
                           spec_of(TypeProto.Tensor).named.shape)),
        (_TP.sparse_tensor_type, (spec_of(TypeProto.SparseTensor).named.elem_type,
                                  spec_of(TypeProto.SparseTensor).named.shape)),
        (_TP.sequence_type, (spec_of(TypeProto.Sequence).named.elem_type,)),
        (_TP.optional_type, (spec_of(TypeProto.Optional).named.elem_type,)),
        (_TP.map_type, (spec_of(TypeProto.Map).named.key_type,
                        spec_of(TypeProto.Map).named.value_type)),
    )
}  # fmt: skip


class _Scope:
    """The value names a graph (or function) defines, in order, and what it sees of
    the enclosing graph: the names that graph had defined before the node that
    holds this one (``limit`` of them), and so on outwards.  Seeing a prefix,
    not a copy, keeps many subgraphs in a big graph linear."""

    __slots__ = ("limit", "names", "parent")

    def __init__(self, parent: _Scope | None = None) -> None:
        self.parent = parent
        self.limit = 0 if parent is None else len(parent.names)
        self.names: dict[str, int] = {}

    def add(self, name: str) -> None:
        self.names.setdefault(name, len(self.names))

    def here_or_above(self, name: str) -> bool:
        if name in self.names:
            return True
        inner: _Scope = self
        scope = self.parent
        while scope is not None:
            if scope.names.get(name, inner.limit) < inner.limit:
                return True
            inner, scope = scope, scope.parent
        return False


class _Context:
    """What the rules of a graph need from the model: its IR version and opsets,
    and the graphs checked so far (shared by every walk of one model, so a graph
    held in several places, even by a function and a graph, is checked once)."""

    __slots__ = ("bad", "checked", "ir_version", "opsets", "values")

    def __init__(
        self,
        values: Values,
        bad: Bad,
        ir_version: int,
        opsets: set[str],
        checked: dict[int, Step] | None = None,
    ) -> None:
        self.values = values
        self.bad = bad
        self.ir_version = ir_version
        self.opsets = opsets
        self.checked: dict[int, Step] = {} if checked is None else checked


def _model(values: Values, msg: Any, m: dict[str, Any], bad: Bad) -> None:
    ir = m["ir_version"] or 0
    if not ir:
        bad("ir_version", "is not set (onnx: the model does not have an ir_version set properly)")
    elif ir > IR_VERSION:
        bad("ir_version", f"{ir} is higher than the highest IR version known ({IR_VERSION})")
    _unique_keys(values, m[PROPS], PROPS, bad)
    opsets = _opsets(values, m["opset_import"], "opset_import", bad)
    if ir >= 3 and not m["opset_import"]:
        bad("opset_import", f"is empty: a model of IR version {ir} (>= 3) must import an opset")
    elif ir < 3 and m["opset_import"]:
        bad("opset_import", f"must be empty in a model of IR version {ir} (< 3)")
    if ir < 3 and not m["opset_import"]:
        opsets.add("")  # the ONNX domain, version 1
    ctx = _Context(values, bad, ir, opsets)
    graph = m["graph"]
    if graph is None:
        bad("graph", "is not set: a model needs a graph")
    else:
        _graphs(ctx, graph, "graph")
    if ir >= 8:
        _functions(ctx, m["functions"])


def _unique_keys(values: Values, entries: Any, field: str, bad: Bad) -> None:
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        e = values(entry)
        if e is None:
            continue
        key = e["key"] or ""
        if key in seen:
            bad(f"{field}[{i}].key", f"{key!r} appears twice: keys must be unique")
        seen.add(key)


def _opsets(values: Values, imports: Any, field: str, bad: Bad) -> set[str]:
    """The imported domains; an out-of-range version is a violation."""
    domains: set[str] = set()
    for i, entry in enumerate(imports):
        e = values(entry)
        if e is None:
            continue
        version = e["version"] or 0
        if not _INT32_BOUNDS[0] <= version <= _INT32_BOUNDS[1]:
            bad(f"{field}[{i}].version", f"{version} is out of the supported range (int32)")
        domains.add(e["domain"] or "")
    return domains


def _graphs(ctx: _Context, root: Any, root_path: str, scope: _Scope | None = None) -> None:
    """Check the graph ``root`` and the subgraphs of its nodes, at any depth, by the
    package's one walk (``_core/walk.py``): each graph once, under the scope of
    the first place that holds it; ``scope`` is what ``root`` sees around it
    (None: the main graph).  A cycle is left to ``check()``'s own walk, which
    reports it once."""
    for _ in walk([(root_path, root, scope)], partial(_graph, ctx), _ignore, ctx.checked):
        pass


def _ignore(where: Step, first: Step) -> None:
    """A graph met inside itself: ``check()``'s walk of every message reports it."""


def _graph(ctx: _Context, step: Step) -> list[tuple[str, Any, _Scope | None]]:
    """Check one graph; return its subgraphs (path, graph, the scope each sees)."""
    graph, path, parent = step.obj, step.part, step.data
    g = ctx.values(graph)
    if g is None:
        return []
    bad, main = ctx.bad, parent is None
    if not g["name"]:
        bad(f"{path}.name", "is empty: a graph must be named")
    for field in _GRAPH_VALUE_INFOS:
        for i, value in enumerate(g[field]):
            _value_info(ctx, value, f"{path}.{field}[{i}]", main)
    scope = _Scope(parent)
    _inputs(ctx, g, path, scope)
    _initializers(ctx, g, path, scope)
    subgraphs: list[tuple[str, Any, _Scope | None]] = []
    for n, node in enumerate(g["node"]):
        where = f"{path}.node[{n}]"
        v = ctx.values(node)
        if v is None:
            continue
        for i, name in enumerate(v["input"]):
            if name and not scope.here_or_above(name):
                bad(f"{where}.input[{i}]", f"{name!r} is not a graph input, an initializer or "
                                           "an output of an earlier node (nodes must be in "
                                           "topological order)")  # fmt: skip
        _node(ctx, v, where, ctx.opsets, in_function=False)
        # A subgraph sees the names defined before its node, not the node's outputs.
        for a, attr in enumerate(v["attribute"]):
            subgraphs.extend(_subgraphs(ctx, attr, f"{where}.attribute[{a}]", scope))
        for i, name in enumerate(v["output"]):
            if name and scope.here_or_above(name):
                bad(f"{where}.output[{i}]", f"{name!r} is assigned twice (SSA form)")
            elif name:
                scope.add(name)
    _outputs(ctx, g, path, scope)
    return subgraphs


def _inputs(ctx: _Context, g: dict[str, Any], path: str, scope: _Scope) -> None:
    """Each graph input names a new value."""
    for i, value in enumerate(g["input"]):
        name = _name(ctx, value)
        if name is not None and name in scope.names:
            ctx.bad(f"{path}.input[{i}].name", f"{name!r} names two graph inputs (SSA form)")
        elif name is not None:
            scope.add(name)


def _outputs(ctx: _Context, g: dict[str, Any], path: str, scope: _Scope) -> None:
    """Each graph output is a value the graph itself defines."""
    for i, value in enumerate(g["output"]):
        name = _name(ctx, value)
        if name is not None and name not in scope.names:
            ctx.bad(f"{path}.output[{i}].name", f"{name!r} is not a graph input, an initializer "
                                                "or an output of a node of this graph")  # fmt: skip


def _subgraphs(
    ctx: _Context, attr: Any, path: str, scope: _Scope
) -> list[tuple[str, Any, _Scope | None]]:
    """The graphs of one attribute (each with its path from the model, the walk's
    part), each with a snapshot of the names defined so far."""
    a = ctx.values(attr)
    if a is None:
        return []
    seen = _Scope(scope)  # later outputs of the outer graph are not visible
    found: list[tuple[str, Any, _Scope | None]] = []
    if a["g"] is not None:
        found.append((f"{path}.g", a["g"], seen))
    found.extend((f"{path}.graphs[{i}]", g, seen) for i, g in enumerate(a["graphs"]))
    return found


def _name(ctx: _Context, value: Any) -> str | None:
    v = ctx.values(value)
    return None if v is None else v["name"] or ""


def _value_info(ctx: _Context, value: Any, path: str, main: bool) -> None:
    """A graph input or output: named; in the main graph, typed completely."""
    v = ctx.values(value)
    if v is None:
        return
    if not v["name"]:
        ctx.bad(f"{path}.name", "is empty: a graph input or output must be named")
    if not main:
        return  # subgraph inputs and outputs may leave their types to inference
    tp = v["type"]
    t = None if tp is None else ctx.values(tp)
    if t is None:
        if tp is None:
            ctx.bad(f"{path}.type", "is not set: an input or output of the main graph needs a type")
        return
    which = tp.WhichOneof(_TYPE_ONEOF)
    if which is None:
        ctx.bad(f"{path}.type", "sets no type (tensor, sequence, map, optional, sparse or opaque)")
        return
    inner = ctx.values(t[which])
    if inner is None:
        return
    if which == _OPAQUE:
        if not inner[_OPAQUE_NAME]:
            ctx.bad(f"{path}.type.opaque_type.name", "is empty: an opaque type must be named")
        return
    for field in _TYPE_NEEDS[which]:
        if inner[field] is None:
            ctx.bad(f"{path}.type.{which}.{field}", "is not set: the main graph's types are "
                                                    "complete")  # fmt: skip


def _initializers(ctx: _Context, g: dict[str, Any], path: str, scope: _Scope) -> None:
    """Initializers and sparse initializers: named, once each; by IR version 3, graph inputs."""
    bad = ctx.bad
    inputs = scope.names  # only the graph's inputs so far
    names: set[str] = set()
    for i, tensor in enumerate(g["initializer"]):
        name = _name(ctx, tensor)
        if name is None:
            continue
        where = f"{path}.initializer[{i}].name"
        if not name:
            bad(where, "is empty: an initializer must be named")
            continue
        if name in names:
            bad(where, f"{name!r} names two initializers")
        names.add(name)
        if ctx.ir_version <= 3 and name not in inputs:
            bad(where, f"{name!r} is not a graph input: by IR version 3, initializers must be")
        elif ctx.ir_version > 3:
            scope.add(name)
    for i, sparse in enumerate(g["sparse_initializer"]):
        s = ctx.values(sparse)
        values = None if s is None else s["values"]
        name = None if values is None else _name(ctx, values)
        if s is None or name is None:
            continue
        where = f"{path}.sparse_initializer[{i}].values.name"
        if not name:
            bad(where, "is empty: a sparse initializer must be named")
            continue
        if name in names:
            bad(where, f"{name!r} names two initializers (dense or sparse)")
        names.add(name)
        scope.add(name)


def _node(ctx: _Context, v: dict[str, Any], path: str, opsets: set[str], in_function: bool) -> None:
    bad = ctx.bad
    if not v["op_type"]:
        bad(f"{path}.op_type", "is empty: a node must name its operator")
    if not v["input"] and not v["output"]:
        bad(path, "has no input and no output")
    domain = v["domain"] or ""
    if domain not in opsets and not (domain == "" and _AI_ONNX in opsets):
        bad(f"{path}.domain", f"{domain!r} is not imported (opset_import)")
    names: set[str] = set()
    for a, attr in enumerate(v["attribute"]):
        at = ctx.values(attr)
        if at is None:
            continue
        name = at["name"] or ""
        if name in names:
            bad(f"{path}.attribute[{a}].name", f"{name!r} names two attributes of the node")
        names.add(name)
        _attribute(ctx, attr, at, f"{path}.attribute[{a}]", in_function)


def _attribute(ctx: _Context, attr: Any, at: dict[str, Any], path: str, in_function: bool) -> None:
    """Named; typed (from IR version 2); one value field, the one its type says."""
    bad = ctx.bad
    if not at["name"]:
        bad(f"{path}.name", "is empty: an attribute must be named")
    kind = at["type"]
    if kind is None and ctx.ir_version >= 2:
        bad(f"{path}.type", "is not set: an attribute must say its type")
    used = [field for field, _, many in _VALUE_FIELDS
            if (len(at[field]) if many else at[field] is not None)]  # fmt: skip
    if len(used) > 1:
        bad(path, f"holds more than one value: {', '.join(used)}")
    if kind is not None:
        for field, wanted, _ in _VALUE_FIELDS:
            if field in used and kind != wanted:
                bad(f"{path}.{field}", f"does not match the attribute's type {_kind(attr, kind)}")
    if in_function and at["ref_attr_name"] is not None and used:
        bad(path, "refers to an attribute of the calling node (ref_attr_name) and holds a "
                  "value too")  # fmt: skip


def _kind(attr: Any, kind: int) -> str:
    """An AttributeType value's name, or the number when the enum does not know it."""
    enum = type(attr).AttributeType
    return str(enum.Name(kind)) if kind in enum.values() else str(kind)


def _functions(ctx: _Context, functions: Any) -> None:
    """Local functions: named, in a domain, one of each id; their nodes in SSA form and order."""
    bad, values = ctx.bad, ctx.values
    ids: set[tuple[str, str, str]] = set()
    for k, function in enumerate(functions):
        f = values(function)
        if f is None:
            continue
        path = f"functions[{k}]"
        if not f["name"]:
            bad(f"{path}.name", "is empty: a function must be named")
        if f["domain"] is None:
            bad(f"{path}.domain", "is not set: a function must name its domain")
        key = (f["domain"] or "", f["name"] or "", f["overload"] or "")
        if key in ids:
            bad(path, f"{':'.join(key)!r} names two local functions")
        ids.add(key)
        for field in _FUNCTION_NAME_LISTS:
            seen: set[str] = set()
            for i, name in enumerate(f[field]):
                if name in seen:
                    bad(f"{path}.{field}[{i}]", f"{name!r} appears twice")
                seen.add(name)
        _function_nodes(ctx, f, path)


def _function_nodes(ctx: _Context, f: dict[str, Any], path: str) -> None:
    opsets = _opsets(ctx.values, f["opset_import"], f"{path}.opset_import", ctx.bad)
    inner = _Context(ctx.values, ctx.bad, ctx.ir_version, opsets, ctx.checked)
    defined = _Scope()
    for name in f["input"]:
        defined.add(name)
    for n, node in enumerate(f["node"]):
        where = f"{path}.node[{n}]"
        v = ctx.values(node)
        if v is None:
            continue
        for i, name in enumerate(v["input"]):
            if name and name not in defined.names:
                ctx.bad(f"{where}.input[{i}]", f"{name!r} is not a function input or an output "
                                               "of an earlier node (nodes must be in "
                                               "topological order)")  # fmt: skip
        _node(inner, v, where, opsets, in_function=True)
        for a, attr in enumerate(v["attribute"]):
            for at, graph, seen in _subgraphs(inner, attr, f"{where}.attribute[{a}]", defined):
                _graphs(inner, graph, at, seen)
        for i, name in enumerate(v["output"]):
            if name and name in defined.names:
                ctx.bad(f"{where}.output[{i}]", f"{name!r} is assigned twice (SSA form)")
            elif name:
                defined.add(name)


MODEL_RULES = {"ModelProto": _model}
"""The model rules, by schema name, in the form of ``rules.RULES``: they run
once, from the model, and cover its graphs and functions."""
