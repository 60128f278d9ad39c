"""Models that break one rule of onnx's checker each, made from valid ones.

Each mutation takes an onnx ``ModelProto`` (protobuf's, a copy) and a seeded
``random.Random``, changes one thing that a rule of ``checker.cc`` or
``OpSchema::Verify`` is about, and returns the model, or None when the model
offers nothing to change (no attribute, no initializer...).  The mutants are
judged by onnx's checker and onnxdata's, which must agree on the verdict and
the message (:func:`verdict`); a mutation may well leave the model valid (an
attribute removed that was optional), which is a verdict too.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import onnx
from onnx import AttributeProto, TensorProto, helper

Mutation = Callable[[onnx.ModelProto, random.Random], "onnx.ModelProto | None"]


def _nodes(model: onnx.ModelProto) -> list[onnx.NodeProto]:
    """Every node: of the graph, its subgraphs at any depth, and the functions."""
    found: list[onnx.NodeProto] = []
    graphs = [model.graph, *(f for f in model.functions)]
    while graphs:
        g = graphs.pop()
        for n in g.node:
            found.append(n)
            for a in n.attribute:
                if a.HasField("g"):
                    graphs.append(a.g)
                graphs.extend(a.graphs)
    return found


def _subgraphs(model: onnx.ModelProto) -> list[onnx.GraphProto]:
    return [a.g for n in _nodes(model) for a in n.attribute if a.HasField("g")] + [
        g for n in _nodes(model) for a in n.attribute for g in a.graphs
    ]


def _pick(items: list[Any], rng: random.Random) -> Any:
    return items[rng.randrange(len(items))] if items else None


def _attributes(model: onnx.ModelProto) -> list[tuple[onnx.NodeProto, AttributeProto]]:
    return [(n, a) for n in _nodes(model) for a in n.attribute]


def wrong_attribute_type(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    found = _pick(_attributes(model), rng)
    if found is None:
        return None
    _, attr = found
    attr.type = rng.choice([t for t in range(1, 15) if t != attr.type])
    return model


def attribute_type_unset(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    found = _pick(_attributes(model), rng)
    if found is None:
        return None
    found[1].ClearField("type")
    return model


def drop_attribute(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    found = _pick(_attributes(model), rng)
    if found is None:
        return None
    node, attr = found
    node.attribute.remove(attr)
    return model


def empty_attribute(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    """An attribute that keeps its name and type but no value (or refers to one)."""
    found = _pick(_attributes(model), rng)
    if found is None:
        return None
    _, attr = found
    kept = AttributeProto(name=attr.name, type=attr.type)
    if rng.random() < 0.3:
        kept.ref_attr_name = "outer"
    attr.CopyFrom(kept)
    return model


def ref_attribute(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    """An attribute that refers to the calling node's and holds a value too, in a
    graph, a subgraph or a function body."""
    made = _function_model(model, rng) if rng.random() < 0.5 else model
    found = _pick(_attributes(made) if made is not None else [], rng)
    if found is None:
        return None
    found[1].ref_attr_name = "outer"
    return made


def unknown_attribute(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    node = _pick(_nodes(model), rng)
    if node is None:
        return None
    name = rng.choice(["bogus", "__internal", "alpha", "axis"])
    node.attribute.append(helper.make_attribute(name, rng.choice([1, 1.5, "s", [1, 2]])))
    return model


def duplicate_attribute(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    found = _pick(_attributes(model), rng)
    if found is None:
        return None
    node, attr = found
    node.attribute.append(attr)
    return model


def two_value_fields(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    found = _pick(_attributes(model), rng)
    if found is None:
        return None
    attr = found[1]
    if rng.random() < 0.5:
        attr.f = 2.0
    else:
        attr.ints.extend([1, 2])
    return model


def rename_op(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    node = _pick(_nodes(model), rng)
    if node is None:
        return None
    node.op_type = rng.choice(["NoSuchOp", "", "Scale", "ATen", node.op_type.lower()])
    return model


def change_domain(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    node = _pick(_nodes(model), rng)
    if node is None:
        return None
    node.domain = rng.choice(["ai.onnx", "com.example", "ai.onnx.ml", "ai.onnx.preview.training"])
    if rng.random() < 0.5:
        model.opset_import.append(helper.make_opsetid(node.domain, rng.randint(1, 5)))
    return model


def lower_opset(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    """An operator newer than the opset, or a deprecated version."""
    if not model.opset_import:
        return None
    entry = _pick(list(model.opset_import), rng)
    entry.version = rng.choice([1, 6, 7, 9, 10, max(1, entry.version - 1), 2**31])
    return model


def drop_opset(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    if not model.opset_import:
        return None
    del model.opset_import[rng.randrange(len(model.opset_import))]
    return model


def ir_version(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    model.ir_version = rng.choice([0, 1, 2, 3, 4, 7, 8, 99])
    return model


def more_inputs(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    node = _pick(_nodes(model), rng)
    if node is None or not node.input:
        return None
    node.input.extend(node.input[: rng.randint(1, 3)])
    return model


def fewer_inputs(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    node = _pick([n for n in _nodes(model) if n.input], rng)
    if node is None:
        return None
    del node.input[-rng.randint(1, len(node.input)) :]
    return model


def empty_input(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    node = _pick([n for n in _nodes(model) if n.input], rng)
    if node is None:
        return None
    node.input[rng.randrange(len(node.input))] = ""
    return model


def more_outputs(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    node = _pick(_nodes(model), rng)
    if node is None:
        return None
    node.output.extend(f"extra_{i}" for i in range(rng.randint(1, 5)))
    return model


def fewer_outputs(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    node = _pick([n for n in _nodes(model) if n.output], rng)
    if node is None:
        return None
    del node.output[-rng.randint(1, len(node.output)) :]
    return model


def ssa_violation(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    """An output named as a graph input, an earlier output, or an outer value."""
    node = _pick([n for n in _nodes(model) if n.output], rng)
    names = [i.name for i in model.graph.input] + [o for n in _nodes(model) for o in n.output]
    if node is None or not names:
        return None
    node.output[rng.randrange(len(node.output))] = rng.choice(names)
    return model


def swap_nodes(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    """Use before definition: nodes out of topological order."""
    graph = _pick([model.graph, *_subgraphs(model), *model.functions], rng)
    if graph is None or len(graph.node) < 2:
        return None
    nodes = list(graph.node)
    rng.shuffle(nodes)
    del graph.node[:]
    graph.node.extend(nodes)
    return model


def outer_name_in_subgraph(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    """A subgraph uses a name of the main graph defined later, or redefines one."""
    subs = _subgraphs(model)
    sub = _pick(subs, rng)
    names = [o for n in model.graph.node for o in n.output] + [i.name for i in model.graph.input]
    if sub is None or not sub.node or not names:
        return None
    node = _pick(list(sub.node), rng)
    if rng.random() < 0.5 and node.input:
        node.input[0] = rng.choice(names)
    elif node.output:
        node.output[0] = rng.choice(names)
    return model


def graph_value_info(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    graph = _pick([model.graph, *_subgraphs(model)], rng)
    values = [*graph.input, *graph.output]
    value = _pick(values, rng)
    if value is None:
        return None
    what = rng.randrange(6)
    if what == 0:
        value.name = ""
    elif what == 1:
        value.ClearField("type")
    elif what == 2 and value.type.HasField("tensor_type"):
        value.type.tensor_type.ClearField(rng.choice(["elem_type", "shape"]))
    elif what == 3:
        value.name = rng.choice([v.name for v in values])
    elif what == 4:
        value.type.CopyFrom(rng.choice(_TYPES))
    else:
        graph.output.add().name = "not_defined"
    return model


_TYPES = [
    onnx.TypeProto(),
    onnx.TypeProto(sequence_type=onnx.TypeProto.Sequence()),
    onnx.TypeProto(sequence_type=onnx.TypeProto.Sequence(elem_type=onnx.TypeProto())),
    onnx.TypeProto(map_type=onnx.TypeProto.Map(key_type=7)),
    onnx.TypeProto(map_type=onnx.TypeProto.Map(value_type=onnx.TypeProto())),
    onnx.TypeProto(map_type=onnx.TypeProto.Map(key_type=7, value_type=onnx.TypeProto())),
    onnx.TypeProto(optional_type=onnx.TypeProto.Optional()),
    onnx.TypeProto(opaque_type=onnx.TypeProto.Opaque()),
    onnx.TypeProto(opaque_type=onnx.TypeProto.Opaque(name="o")),
    onnx.TypeProto(sparse_tensor_type=onnx.TypeProto.SparseTensor(elem_type=1)),
    helper.make_sparse_tensor_type_proto(1, [2]),
    helper.make_tensor_type_proto(1, None),
]


def graph_name(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    graph = _pick([model.graph, *_subgraphs(model)], rng)
    graph.name = ""
    return model


def metadata(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    helper.set_model_props(model, {"a": "1", "b": "2"})
    model.metadata_props.add(key=rng.choice(["a", "c"]), value="3")
    return model


def _tensors(model: onnx.ModelProto) -> list[TensorProto]:
    found = list(model.graph.initializer)
    for _, a in _attributes(model):
        if a.HasField("t"):
            found.append(a.t)
        found.extend(a.tensors)
    return found


def bad_tensor(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    tensor = _pick(_tensors(model), rng)
    if tensor is None:
        return None
    what = rng.randrange(9)
    if what == 0:
        tensor.data_type = 0
    elif what == 1:
        tensor.ClearField("data_type")
    elif what == 2:
        tensor.dims.append(rng.choice([-1, 0, 3, 2**62]))
    elif what == 3:
        tensor.raw_data = tensor.raw_data[: rng.randrange(len(tensor.raw_data) + 1)]
    elif what == 4:
        tensor.float_data.extend([1.0, 2.0])
    elif what == 5:
        tensor.data_type = rng.choice([1, 2, 6, 7, 8, 11, 12, 13, 16, 21, 22, 23, 25, 40, 99])
    elif what == 6:
        tensor.ClearField("raw_data")
        tensor.int64_data.extend(range(rng.randrange(4)))
    elif what == 7:
        del tensor.dims[:]
    else:
        tensor.name = ""
    return model


def external_tensor(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    tensor = _pick(_tensors(model), rng)
    if tensor is None:
        return None
    if rng.random() < 0.8:
        tensor.ClearField("raw_data")
        for name in ("float_data", "int32_data", "int64_data", "double_data", "string_data"):
            tensor.ClearField(name)
    tensor.data_location = TensorProto.EXTERNAL
    location = rng.choice(["", "/abs/x.bin", "../up.bin", "a/../../b", "missing.bin", "a/./b",
                           "x..y", "."])  # fmt: skip
    if rng.random() < 0.9:
        tensor.external_data.add(key="location", value=location)
    return model


def bad_sparse(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    """A sparse initializer, right or wrong in one way."""
    values = helper.make_tensor("sp", TensorProto.FLOAT, [3], [1.0, 2.0, 3.0])
    idx = [rng.choice([0, 1, 2, 5, -1]) for _ in range(3)]
    linear = rng.random() < 0.5
    if linear:
        indices = helper.make_tensor("sp_i", TensorProto.INT64, [3], sorted(idx))
    else:
        indices = helper.make_tensor("sp_i", TensorProto.INT64, [3, 2], idx + idx[::-1])
    dims = rng.choice([[6], [2, 3], [0, 3], []])
    sparse = helper.make_sparse_tensor(values, indices, dims)
    if rng.random() < 0.2:
        sparse.indices.data_type = TensorProto.INT32
    model.graph.sparse_initializer.append(sparse)
    return model


def _function_model(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    """The main graph's first node moved into a local function, the graph calling it."""
    if not model.graph.node or model.ir_version < 8:
        return None
    node = model.graph.node[0]
    inner = onnx.NodeProto()
    inner.CopyFrom(node)
    fn = helper.make_function(
        "local", "Fn", [f"i{k}" for k in range(len(node.input))],
        [f"o{k}" for k in range(len(node.output))],
        [inner], [helper.make_opsetid(e.domain, e.version) for e in model.opset_import],
    )  # fmt: skip
    del inner.input[:]
    inner.input.extend(f"i{k}" if n else "" for k, n in enumerate(node.input))
    del inner.output[:]
    inner.output.extend(f"o{k}" if n else "" for k, n in enumerate(node.output))
    node.op_type, node.domain = "Fn", "local"
    del node.attribute[:]
    model.functions.append(fn)
    model.opset_import.append(helper.make_opsetid("local", 1))
    return model


def bad_function(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    """A local function whose opsets, names, order or calls break a rule."""
    made = _function_model(model, rng)
    if made is None:
        return None
    fn = made.functions[0]
    what = rng.randrange(8)
    if what == 0:
        fn.opset_import[0].version = rng.choice([1, 6, 11, 13, fn.opset_import[0].version + 1])
    elif what == 1:
        del fn.opset_import[:]
    elif what == 2:
        fn.ClearField("domain")
    elif what == 3:
        fn.input.append(fn.input[0] if fn.input else "x")
    elif what == 4:
        fn.node.append(helper.make_node("Fn", list(fn.input), ["again"], domain="local"))
        fn.opset_import.append(helper.make_opsetid("local", 1))
    elif what == 5:
        fn.output.append(fn.output[0])
    elif what == 6:
        fn.node[0].input.append("undefined_name")
    else:
        made.functions.append(made.functions[0])
    return made


def valid_function(model: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto | None:
    return _function_model(model, rng)


MUTATIONS: dict[str, Mutation] = {
    f.__name__: f
    for f in (
        wrong_attribute_type, attribute_type_unset, drop_attribute, empty_attribute,
        ref_attribute, unknown_attribute,
        duplicate_attribute, two_value_fields, rename_op, change_domain, lower_opset,
        drop_opset, ir_version, more_inputs, fewer_inputs, empty_input, more_outputs,
        fewer_outputs, ssa_violation, swap_nodes, outer_name_in_subgraph, graph_value_info,
        graph_name, metadata, bad_tensor, external_tensor, bad_sparse, bad_function,
        valid_function,
    )
}  # fmt: skip


def mutant(base: onnx.ModelProto, name: str, seed: int) -> onnx.ModelProto | None:
    """The mutant of a copy of ``base`` by mutation ``name`` with ``seed``."""
    model = onnx.ModelProto()
    model.CopyFrom(base)
    return MUTATIONS[name](model, random.Random(seed))


def verdict(check: Callable[[Any], None], model: Any) -> tuple[str, str] | None:
    """None when ``check`` passes, else (kind of error, message).  onnx's
    InferenceError from a sparse tensor's indices counts as the checker's
    error (onnxdata raises ValidationError with the same text)."""
    try:
        check(model)
    except Exception as err:
        kind = type(err).__name__
        if kind == "InferenceError":
            kind = "ValidationError"
        return kind, str(err)
    return None
