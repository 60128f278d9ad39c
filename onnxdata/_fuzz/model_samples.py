"""Model-shaped messages drawn from a ``random.Random``: the corpus's model seeds and the
``models()`` strategy (which draws them through hypothesis' ``randoms()``).

A model here looks like one an exporter writes: opset imports, a graph whose
inputs and outputs are typed (``TypeProto``), whose nodes read only names
defined before them (graph inputs, initializers, earlier outputs), whose
attributes each set the one value field their ``type`` names, and whose
``If``/``Loop``/``Scan`` nodes hold subgraphs, to a bounded depth.  Some
initializers keep their values in external files (``location`` and friends).
"""

from __future__ import annotations

import random

from .._core.schema import spec_of
from .._messages.datatypes import DATA_TYPES
from .._messages.declarations import Message, TensorProto
from .._messages.graphs import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    ValueInfoProto,
)
from .._messages.types import TensorShapeProto, TypeProto
from .samples import annotate, dims, floats, integer, sparse, tensor, text

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

AT = AttributeProto.AttributeType
# The value field each attribute type sets (onnx.helper's rule).
_A = spec_of(AttributeProto).named
ATTRIBUTE_FIELDS: dict[int, str] = {
    AT.FLOAT: _A.f.name, AT.INT: _A.i.name, AT.STRING: _A.s.name, AT.TENSOR: _A.t.name,
    AT.GRAPH: _A.g.name, AT.SPARSE_TENSOR: _A.sparse_tensor.name, AT.TYPE_PROTO: _A.tp.name,
    AT.FLOATS: _A.floats.name, AT.INTS: _A.ints.name, AT.STRINGS: _A.strings.name,
    AT.TENSORS: _A.tensors.name, AT.GRAPHS: _A.graphs.name,
    AT.SPARSE_TENSORS: _A.sparse_tensors.name, AT.TYPE_PROTOS: _A.type_protos.name,
}  # fmt: skip
_PLAIN_OPS = ("Add", "Mul", "Relu", "MatMul", "Sigmoid", "Identity", "Transpose", "Concat")
_SUBGRAPH_OPS = {"If": ("then_branch", "else_branch"), "Loop": ("body",), "Scan": ("body",)}
_ELEM_TYPES = sorted(DATA_TYPES)


def _name(rng: random.Random, prefix: str) -> str:
    return f"{prefix}{rng.randrange(10_000)}"


# -- types -----------------------------------------------------------------------------


def shape(rng: random.Random) -> TensorShapeProto:
    """A shape whose dimensions are numbers, symbols, or unknown (neither member set)."""
    out = TensorShapeProto()
    for _ in range(rng.randint(0, 3)):
        d = TensorShapeProto.Dimension()
        r = rng.randrange(5)
        if r < 2:
            d.dim_value = rng.choice((0, 1, 3, 224, (1 << 63) - 1, -1))
        elif r < 4:
            d.dim_param = rng.choice(("N", "batch", "seq_len", "", text(rng)))
        if rng.random() < 0.15:
            d.denotation = rng.choice(("DATA_BATCH", "DATA_CHANNEL"))
        out.dim.append(d)
    return out


def type_proto(rng: random.Random, depth: int = 2) -> TypeProto:
    """A type with one member of ``value`` set (sometimes an empty one: set, at its
    default), nesting sequences, maps and optionals ``depth`` levels at most."""
    t = TypeProto()
    kinds = ["tensor", "sparse", "opaque"] + (["sequence", "map", "optional"] if depth else [])
    kind = rng.choice(kinds)
    if kind in ("tensor", "sparse"):
        inner: Any = TypeProto.Tensor() if kind == "tensor" else TypeProto.SparseTensor()
        if rng.random() < 0.9:
            inner.elem_type = rng.choice(_ELEM_TYPES)
        if rng.random() < 0.8:
            inner.shape = shape(rng)
        if kind == "tensor":
            t.tensor_type = inner
        else:
            t.sparse_tensor_type = inner
    elif kind == "opaque":
        t.opaque_type = TypeProto.Opaque()
        if rng.random() < 0.5:
            t.opaque_type.domain, t.opaque_type.name = "com.example", text(rng)
    elif kind == "sequence":
        t.sequence_type = TypeProto.Sequence(elem_type=type_proto(rng, depth - 1))
    elif kind == "optional":
        t.optional_type = TypeProto.Optional(elem_type=type_proto(rng, depth - 1))
    else:
        key = rng.choice([d for d in _ELEM_TYPES if DATA_TYPES[d].key is not None] + [8])
        t.map_type = TypeProto.Map(key_type=key, value_type=type_proto(rng, depth - 1))
    if rng.random() < 0.1:
        t.denotation = rng.choice(("TENSOR", "IMAGE", "AUDIO", "TEXT"))
    return t


def value_info(rng: random.Random, name: str) -> ValueInfoProto:
    v = ValueInfoProto(name=name)
    if rng.random() < 0.95:
        v.type = type_proto(rng, 1)
    if rng.random() < 0.2:
        annotate(v, rng)  # a doc string, metadata
    return v


# -- attributes ------------------------------------------------------------------------


def attribute(rng: random.Random, name: str, kind: int, depth: int) -> AttributeProto:
    """An attribute of type ``kind`` whose one value field is the one the type names."""
    a = AttributeProto(name=name, type=kind)
    values: Any
    if kind in (AT.FLOAT, AT.FLOATS):
        values = floats("f", rng.randint(1, 4), rng)
    elif kind in (AT.INT, AT.INTS):
        values = [integer(-(1 << 63), (1 << 63) - 1, rng) for _ in range(rng.randint(1, 4))]
    elif kind in (AT.STRING, AT.STRINGS):
        values = [text(rng).encode() for _ in range(rng.randint(1, 3))]
    elif kind in (AT.TENSOR, AT.TENSORS):
        values = [_initializer(rng, _name(rng, "c")) for _ in range(rng.randint(1, 2))]
    elif kind in (AT.SPARSE_TENSOR, AT.SPARSE_TENSORS):
        values = [sparse(rng, rng.choice(_ELEM_TYPES), 1) for _ in range(rng.randint(1, 2))]
    elif kind in (AT.TYPE_PROTO, AT.TYPE_PROTOS):
        values = [type_proto(rng, 1) for _ in range(rng.randint(1, 2))]
    else:
        values = [graph(rng, depth - 1, [], name) for _ in range(rng.randint(1, 2))]
    field = ATTRIBUTE_FIELDS[kind]
    # A singular type (FLOAT .. TYPE_PROTO) takes the first value; its list type all of them.
    setattr(a, field, values[0] if kind in _SINGULAR else list(values))
    return a


_SINGULAR = frozenset((AT.FLOAT, AT.INT, AT.STRING, AT.TENSOR, AT.GRAPH, AT.SPARSE_TENSOR,
                       AT.TYPE_PROTO))  # fmt: skip


# -- graphs ----------------------------------------------------------------------------


def _initializer(rng: random.Random, name: str, external: bool = False) -> TensorProto:
    dt = rng.choice(_ELEM_TYPES)
    if external and dt != TensorProto.STRING:
        t = tensor(rng, dt, "external", dims(rng, 0))
    else:
        form = "typed" if dt == TensorProto.STRING or rng.random() < 0.5 else "raw"
        t = tensor(rng, dt, form, dims(rng, rng.randint(0, 1)))
    t.name = name
    return t


def _node(rng: random.Random, known: list[str], depth: int, k: int) -> NodeProto:
    """A node reading names from ``known`` (defined earlier) and writing a new one."""
    ops = list(_PLAIN_OPS) + (list(_SUBGRAPH_OPS) if depth > 0 else []) + ["Custom"]
    op = rng.choice(ops)
    count = min(len(known), rng.randint(1, 3))
    node = NodeProto(op_type=op, input=rng.sample(known, count) if known else [])
    node.output = [f"{op.lower()}_{k}_{rng.randrange(1000)}"]
    if rng.random() < 0.7:
        node.name = f"{op}_{k}"
    if op in _SUBGRAPH_OPS:
        node.attribute = [attribute(rng, a, AT.GRAPH, depth) for a in _SUBGRAPH_OPS[op]]
        if op == "Scan":
            node.attribute.append(AttributeProto(name="num_scan_inputs", type=AT.INT, i=1))
    elif op == "Custom":  # a custom domain's op: every kind of attribute shows up somewhere
        node.domain = "com.example"
        kinds = [t for t in ATTRIBUTE_FIELDS if depth > 0 or t not in (AT.GRAPH, AT.GRAPHS)]
        chosen = rng.sample(kinds, rng.randint(1, 3))
        node.attribute = [attribute(rng, f"attr_{i}", t, depth) for i, t in enumerate(chosen)]
    elif op == "Transpose" and rng.random() < 0.7:
        node.attribute = [attribute(rng, "perm", AT.INTS, depth)]
    if rng.random() < 0.1:
        annotate(node, rng)  # a doc string, metadata, a domain and an overload
    known.extend(node.output)
    return node


def graph(rng: random.Random, depth: int, outer: list[str], name: str = "main",
          nodes: int | None = None, external: bool = False) -> GraphProto:  # fmt: skip
    """A graph whose nodes read only earlier names; a subgraph may also read ``outer``
    (its enclosing graph's names), as ONNX allows.  ``depth``: subgraph levels below."""
    g = GraphProto(name=name)
    inputs = [_name(rng, "x") for _ in range(rng.randint(0, 2) if outer else rng.randint(1, 3))]
    g.input = [value_info(rng, n) for n in inputs]
    g.initializer = [
        _initializer(rng, _name(rng, "w"), external and rng.random() < 0.6)
        for _ in range(rng.randint(0, 3))
    ]
    known = [*outer, *inputs, *(t.name for t in g.initializer)]
    count = rng.randint(1, 4) if nodes is None else nodes
    g.node = [_node(rng, known, depth, k) for k in range(count)]
    last = g.node[-1].output if g.node else inputs[:1]
    g.output = [value_info(rng, n) for n in last]
    if g.node and rng.random() < 0.3:
        g.value_info = [value_info(rng, g.node[0].output[0])]
    if rng.random() < 0.2:
        annotate(g, rng)
    return g


def opsets(rng: random.Random) -> list[OperatorSetIdProto]:
    found = [OperatorSetIdProto(domain="", version=rng.randint(7, 23))]
    if rng.random() < 0.3:
        found.append(OperatorSetIdProto(domain="ai.onnx.ml", version=rng.randint(1, 5)))
    if rng.random() < 0.3:
        found.append(OperatorSetIdProto(domain="com.example", version=1))
    return found


def model(rng: random.Random, depth: int = 2, nodes: int | None = None,
          external: bool = False) -> ModelProto:  # fmt: skip
    """A model-shaped ``ModelProto``: ``depth`` levels of subgraphs at most."""
    m = ModelProto(ir_version=rng.randint(3, 11), opset_import=opsets(rng))
    m.graph = graph(rng, depth, [], rng.choice(("main", "torch_jit", "tf2onnx")), nodes, external)
    if rng.random() < 0.6:
        m.producer_name = rng.choice(("pytorch", "tf2onnx", "onnxdata", "skl2onnx"))
        m.producer_version = f"{rng.randint(0, 3)}.{rng.randint(0, 20)}"
    if rng.random() < 0.3:
        m.domain, m.model_version = "com.example", rng.randint(0, 5)
    if rng.random() < 0.3:
        annotate(m, rng)  # every string left unset, and metadata
    if rng.random() < 0.2:
        m.functions = [function(rng)]
    return m


def function(rng: random.Random) -> FunctionProto:
    inputs = [_name(rng, "a") for _ in range(rng.randint(1, 2))]
    known = list(inputs)
    f = FunctionProto(name=_name(rng, "Fn"), domain="com.example", input=inputs)
    f.node = [_node(rng, known, 0, k) for k in range(rng.randint(1, 3))]
    f.output = list(f.node[-1].output)
    f.opset_import = opsets(rng)
    if rng.random() < 0.5:
        f.attribute = ["alpha"]
    return f


def subgraph_model(rng: random.Random, levels: int) -> ModelProto:
    """A model whose graph holds an ``If`` whose branch holds an ``If``..., ``levels`` deep."""
    m = model(rng, 0, 1)
    here = m.graph
    for level in range(levels):
        body = graph(rng, 0, [], f"branch{level}", 1)
        node = NodeProto(op_type="If", input=[here.input[0].name] if here.input else [],
                         output=[f"if{level}"])  # fmt: skip
        node.attribute = [AttributeProto(name="then_branch", type=AT.GRAPH, g=body),
                          attribute(rng, "else_branch", AT.GRAPH, 1)]  # fmt: skip
        here.node.append(node)
        here = body
    return m


def annotated_model(rng: random.Random) -> Message:
    m = model(rng, 1)
    annotate(m, rng)
    return m
