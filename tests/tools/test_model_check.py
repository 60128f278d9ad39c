"""``check()`` on models: the tensor rules at any depth, and the model rules that
need no operator schema, each compared with ``onnx.checker.check_model``.

Every crafted model below breaks exactly one rule of a model that both
checkers accept; onnx must refuse it, and onnxdata must report it at the
path named in the table (onnx stops at its first error, onnxdata reports all).
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any

import onnx
import onnx.checker
import pytest
from onnx import TensorProto as T
from onnx import helper

import onnxdata
from onnxdata._io.files import load
from onnxdata._tools.check import check

ONNX_DIR = pathlib.Path(onnx.__file__).parent
PACKAGE_MODELS = sorted(ONNX_DIR.rglob("*.onnx"))


def value(name: str, shape: list[Any] | None = None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, T.FLOAT, [1] if shape is None else shape)


def base() -> onnx.ModelProto:
    """A valid model: Greater, then an If whose branches hold a Constant and an Identity."""
    then = helper.make_graph(
        [helper.make_node("Constant", [], ["t"], value=helper.make_tensor("c", T.FLOAT, [1], [1]))],
        "then", [], [value("t")],
    )  # fmt: skip
    identity = helper.make_node("Identity", ["x"], ["e"])
    other = helper.make_graph([identity], "else", [], [value("e")])
    graph = helper.make_graph(
        [helper.make_node("Greater", ["x", "w"], ["c"]),
         helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)],
        "main", [value("x")], [value("y")], [helper.make_tensor("w", T.FLOAT, [1], [0.5])],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def ours(model: onnx.ModelProto) -> list[str]:
    return [str(v) for v in check(onnxdata.ModelProto.decode(model.SerializeToString()))]


def then_graph(m: onnx.ModelProto) -> onnx.GraphProto:
    return m.graph.node[1].attribute[1].g  # make_node sorts attributes: else, then


def _set(path: str, value: Any) -> Callable[[onnx.ModelProto], None]:
    def edit(m: Any) -> None:
        *parts, last = path.split(".")
        for part in parts:
            m = getattr(m, part)
        setattr(m, last, value)

    return edit


def _duplicate_initializer(m: onnx.ModelProto) -> None:
    m.graph.initializer.append(helper.make_tensor("w", T.FLOAT, [1], [1]))


def _unsorted(m: onnx.ModelProto) -> None:
    first = onnx.NodeProto()
    first.CopyFrom(m.graph.node[0])
    del m.graph.node[0]
    m.graph.node.append(first)


def _ssa(m: onnx.ModelProto) -> None:
    m.graph.node.append(helper.make_node("Identity", ["x"], ["c"]))


def _two_values(m: onnx.ModelProto) -> None:
    attr = then_graph(m).node[0].attribute[0]
    attr.f = 1.0


def _mistyped(m: onnx.ModelProto) -> None:
    then_graph(m).node[0].attribute[0].type = onnx.AttributeProto.FLOAT


def _duplicate_attribute(m: onnx.ModelProto) -> None:
    node = m.graph.node[1]
    node.attribute.append(node.attribute[0])


def _bad_subgraph_tensor(m: onnx.ModelProto) -> None:
    then_graph(m).node[0].attribute[0].t.int64_data.append(3)


def _later_name_in_subgraph(m: onnx.ModelProto) -> None:
    m.graph.node[1].attribute[0].g.node[0].input[0] = "y"  # If's own output: not yet defined


def _unknown_domain(m: onnx.ModelProto) -> None:
    m.graph.node[0].domain = "com.example"


def _duplicate_metadata(m: onnx.ModelProto) -> None:
    helper.set_model_props(m, {"a": "1"})
    m.metadata_props.add(key="a", value="2")


def _untyped_input(m: onnx.ModelProto) -> None:
    m.graph.input[0].ClearField("type")


def _shapeless_input(m: onnx.ModelProto) -> None:
    m.graph.input[0].type.tensor_type.ClearField("shape")


def _duplicate_input(m: onnx.ModelProto) -> None:
    m.graph.input.append(value("x"))


def _no_opsets(m: onnx.ModelProto) -> None:
    del m.opset_import[:]


def _dangling_output(m: onnx.ModelProto) -> None:
    m.graph.output.append(value("nowhere"))


def _empty_node(m: onnx.ModelProto) -> None:
    m.graph.node.append(helper.make_node("Identity", [], []))


def _no_op_type(m: onnx.ModelProto) -> None:
    m.graph.node[0].op_type = ""


BROKEN: dict[str, tuple[Callable[[onnx.ModelProto], None], str]] = {
    "no ir_version": (_set("ir_version", 0), "ModelProto.ir_version"),
    "ir_version too high": (_set("ir_version", 99), "ModelProto.ir_version"),
    "no graph name": (_set("graph.name", ""), "ModelProto.graph.name"),
    "duplicate initializer": (_duplicate_initializer, "ModelProto.graph.initializer[1].name"),
    "nodes out of order": (_unsorted, "ModelProto.graph.node[0].input[0]"),
    "output assigned twice": (_ssa, "ModelProto.graph.node[2].output[0]"),
    "two attribute values": (_two_values, "ModelProto.graph.node[1].attribute[1].g.node[0]"
                                          ".attribute[0]"),
    "attribute type mismatch": (_mistyped, "ModelProto.graph.node[1].attribute[1].g.node[0]"
                                           ".attribute[0].t"),
    "duplicate attribute": (_duplicate_attribute, "ModelProto.graph.node[1].attribute[2].name"),
    "bad tensor in a subgraph": (_bad_subgraph_tensor, "ModelProto.graph.node[1].attribute[1].g"
                                                       ".node[0].attribute[0].t.int64_data"),
    "subgraph reads a later name": (_later_name_in_subgraph, "ModelProto.graph.node[1]"
                                                             ".attribute[0].g.node[0].input[0]"),
    "domain not imported": (_unknown_domain, "ModelProto.graph.node[0].domain"),
    "duplicate metadata key": (_duplicate_metadata, "ModelProto.metadata_props[1].key"),
    "main input without type": (_untyped_input, "ModelProto.graph.input[0].type"),
    "main input without shape": (_shapeless_input, "ModelProto.graph.input[0].type.tensor_type"
                                                   ".shape"),
    "input named twice": (_duplicate_input, "ModelProto.graph.input[1].name"),
    "no opset_import": (_no_opsets, "ModelProto.opset_import"),
    "output of no node": (_dangling_output, "ModelProto.graph.output[1].name"),
    "node without input or output": (_empty_node, "ModelProto.graph.node[2]"),
    "op_type empty": (_no_op_type, "ModelProto.graph.node[0].op_type"),
}  # fmt: skip


def test_the_base_model_is_valid_for_both() -> None:
    model = base()
    onnx.checker.check_model(model)
    assert ours(model) == []


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_model_is_refused_by_both(case: str) -> None:
    edit, path = BROKEN[case]
    model = base()
    edit(model)
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(model)
    found = ours(model)
    assert any(v.startswith(path + ": ") for v in found), found


@pytest.mark.parametrize("path", PACKAGE_MODELS, ids=lambda p: str(p.relative_to(ONNX_DIR)))
def test_the_package_models_pass_as_onnx_checker_passes_them(path: pathlib.Path) -> None:
    model = onnx.load(path)
    onnx.checker.check_model(model)  # every model onnx ships passes its checker
    found = check(load(path, onnxdata.ModelProto))  # mapped, no copies
    assert found == []


def test_onnx_messages_are_checked_through_their_bytes() -> None:
    model = base()
    _bad_subgraph_tensor(model)
    assert [str(v) for v in check(model)] == ours(model)
    assert str(check(then_graph(model))[0]).startswith("GraphProto.node[0]")


def test_a_name_an_enclosing_graph_defined_earlier_is_visible_in_a_subgraph() -> None:
    model = base()
    then_graph(model).node.append(helper.make_node("Identity", ["w"], ["w2"]))
    onnx.checker.check_model(model)
    assert ours(model) == []


def test_deeply_nested_subgraphs_are_checked_without_recursion() -> None:
    identity = helper.make_node("Identity", ["x"], ["o0"])
    inner = helper.make_graph([identity], "g0", [], [value("o0")])
    for depth in range(1, 30):
        leaf = helper.make_graph([helper.make_node("Identity", ["x"], [f"e{depth}"])], "leaf", [],
                                 [value(f"e{depth}")])  # fmt: skip
        node = helper.make_node("If", ["c"], [f"o{depth}"], then_branch=inner, else_branch=leaf)
        inner = helper.make_graph([node], f"g{depth}", [], [value(f"o{depth}")])
    cond = helper.make_tensor_value_info("c", T.BOOL, [])
    graph = helper.make_graph(list(inner.node), "main", [value("x"), cond], [value("o29")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    assert ours(model) == []
    # The deepest Identity reads a name defined nowhere: found, at its full path.
    node: Any = model.graph.node[0]
    path = "ModelProto.graph.node[0]"
    for _ in range(29):
        node = node.attribute[1].g.node[0]
        path += ".attribute[1].g.node[0]"
    node.input[0] = "missing"
    found = ours(model)
    assert f"{path}.input[0]: 'missing' is not a graph input, an initializer or an output of an " \
           "earlier node (nodes must be in topological order)" in found  # fmt: skip


def test_functions_follow_the_function_rules() -> None:
    model = base()
    model.ir_version = 10
    body = [helper.make_node("Identity", ["a"], ["b"]), helper.make_node("Identity", ["b"], ["b"])]
    function = helper.make_function("local", "f", ["a"], ["b"], body,
                                    [helper.make_opsetid("", 17)])  # fmt: skip
    model.functions.append(function)
    model.opset_import.append(helper.make_opsetid("local", 1))
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(model)
    twice = "ModelProto.functions[0].node[1].output[0]: 'b' is assigned twice (SSA form)"
    assert ours(model) == [twice]
    del model.functions[0].node[1]
    onnx.checker.check_model(model)
    assert ours(model) == []
