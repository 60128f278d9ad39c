"""Every public walker of a message tree ends on a message that holds itself, and
visits a shared message once.

protobuf copies what it is given, so its messages are trees; a message built
in Python may share a sub-message between fields, or hold itself
(``node.attribute[0].g = graph`` where the graph holds the node).  Every
walker takes the package's one walk (``_core/walk.py``): a cycle is refused
with ``encode()``'s ``EncodeValueError`` (or, for ``check()``, reported as one
violation) and a shared message is visited once, so a model of 30 levels,
each holding the graph of the level below twice (2**30 paths, 31 graphs),
is walked in 31 visits.  Each call runs under a guard that fails the test
instead of hanging it.
"""

from __future__ import annotations

import copy
import os
import pickle
import threading
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import onnxdata as onnx
from onnxdata import (
    EncodeValueError,
    checker,
    helper,
    json_format,
    numpy_helper,
    printer,
    text_format,
)
from onnxdata import external_data_helper as edh

T = onnx.TensorProto


def promptly(call: Callable[[], Any], seconds: float = 30.0) -> Any:
    """``call()``, failing the test (not hanging it) if it runs too long."""
    result: list[Any] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(call())
        except BaseException as exc:  # re-raised in the test's thread
            failure.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds} s"
    if failure:
        raise failure[0]
    return result[0]


# -- models that hold themselves ---------------------------------------------------------


def weights(name: str) -> onnx.TensorProto:
    return numpy_helper.from_array(np.arange(300, dtype=np.float32), name)


def model() -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", T.FLOAT, [300])
    y = helper.make_tensor_value_info("y", T.FLOAT, [300])
    node = helper.make_node("Add", ["x", "w"], ["y"], doc_string="adds")
    graph = helper.make_graph([node], "g", [x], [y], [weights("w")], doc_string="the graph")
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def graph_in_g() -> onnx.ModelProto:
    """The graph holds itself through a node's attribute ``g``."""
    m = model()
    attr = onnx.AttributeProto(name="then_branch", type=onnx.AttributeProto.GRAPH)
    attr.g = m.graph
    m.graph.node[0].attribute.append(attr)
    return m


def graph_in_graphs() -> onnx.ModelProto:
    """The graph holds itself through a node's attribute ``graphs``."""
    m = model()
    attr = onnx.AttributeProto(name="bodies", type=onnx.AttributeProto.GRAPHS)
    attr.graphs.append(onnx.GraphProto(name="other"))
    attr.graphs.append(m.graph)
    m.graph.node[0].attribute.append(attr)
    return m


def function_node() -> onnx.ModelProto:
    """A function's node holds a graph that holds that same node."""
    m = model()
    inner = onnx.NodeProto(op_type="Identity", input=["a"], output=["b"])
    function = onnx.FunctionProto(name="f", domain="local", input=["a"], output=["b"])
    function.node.append(inner)
    m.functions.append(function)
    body = onnx.GraphProto(name="body")
    body.node.append(inner)
    inner.attribute.append(onnx.AttributeProto(name="body", type=onnx.AttributeProto.GRAPH, g=body))
    m.ir_version = 10
    return m


def type_loop() -> onnx.ModelProto:
    """An input's type is a sequence of itself (``sequence_type.elem_type``)."""
    m = model()
    tp = onnx.TypeProto()
    tp.sequence_type.elem_type = tp
    m.graph.input[0].type = tp
    return m


def sparse_in_loop() -> onnx.ModelProto:
    """A graph holding itself, whose node also holds a sparse tensor."""
    m = graph_in_g()
    sparse = helper.make_sparse_tensor(
        weights("v"), numpy_helper.from_array(np.arange(300, dtype=np.int64), "i"), [600]
    )
    m.graph.node[0].attribute.append(helper.make_attribute("sparse_value", sparse))
    return m


def sequence_loop() -> onnx.SequenceProto:
    s = onnx.SequenceProto(name="s", elem_type=onnx.SequenceProto.SEQUENCE)
    s.sequence_values.append(helper.make_sequence("t", onnx.SequenceProto.TENSOR, [weights("t")]))
    s.sequence_values.append(s)
    return s


def map_loop() -> onnx.MapProto:
    """A map whose values are a sequence of maps holding the map."""
    values = onnx.SequenceProto(name="v", elem_type=onnx.SequenceProto.MAP)
    m = onnx.MapProto(name="m", key_type=T.INT64, keys=[1], values=values)
    values.map_values.append(m)
    return m


def optional_loop() -> onnx.OptionalProto:
    o = onnx.OptionalProto(name="o", elem_type=onnx.OptionalProto.OPTIONAL)
    o.optional_value = o
    return o


MODELS: dict[str, Callable[[], onnx.ModelProto]] = {
    "graph in g": graph_in_g,
    "graph in graphs": graph_in_graphs,
    "function node": function_node,
    "type loop": type_loop,
    "sparse in loop": sparse_in_loop,
}
DATA: dict[str, Callable[[], Any]] = {
    "sequence": sequence_loop,
    "map": map_loop,
    "optional": optional_loop,
}
GRAPH_LOOPS = {"graph in g", "graph in graphs", "function node", "sparse in loop"}
MAIN_GRAPH_LOOPS = {"graph in g", "graph in graphs", "sparse in loop"}  # not through a function

# -- what each walker does with each --------------------------------------------------------

CYCLE = "cycle"  # EncodeValueError, "a cycle: ..." (the one walk's error)
ENCODE = "encode"  # EncodeValueError from encode(): nesting deeper than 100 messages
DEEP = "deep"  # ValueError of a printer or converter: nested more than it follows
OK = "ok"  # returns


def _save(m: Any, where: Path) -> None:
    onnx.save_model(m, str(where / "m.onnx"))


def _save_external(m: Any, where: Path) -> None:
    onnx.save_model(m, str(where / "m.onnx"), save_as_external_data=True, size_threshold=0)


def _to_external(m: Any, where: Path) -> None:
    edh.convert_model_to_external_data(
        m, location="w.data", size_threshold=0, convert_attribute=True
    )


def _printable(m: Any, where: Path) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return helper.printable_graph(m.graph)


def _equal(m: Any, again: Any) -> None:
    assert m == again  # two separate builds: the comparison ends, and they are equal


def _model_walkers() -> dict[str, tuple[Callable[[Any, Path], Any], Callable[[str], str]]]:
    """name: (call(model, folder), the outcome for a model shape)."""

    def tensors(shape: str) -> str:
        return CYCLE if shape in GRAPH_LOOPS else OK

    def whole(shape: str) -> str:
        return CYCLE

    return {
        "check": (lambda m, d: onnx.check(m), whole),
        "save_model": (_save, lambda s: CYCLE if s in GRAPH_LOOPS else ENCODE),
        "save_model(save_as_external_data)": (_save_external, whole),
        "get_all_tensors": (lambda m, d: list(edh.get_all_tensors(m)), tensors),
        "_get_all_tensors": (lambda m, d: list(edh._get_all_tensors(m)), tensors),
        "get_initializer_tensors": (
            lambda m, d: list(edh.get_initializer_tensors(m)),
            lambda s: CYCLE if s in MAIN_GRAPH_LOOPS else OK,
        ),
        "get_attribute_tensors": (lambda m, d: list(edh.get_attribute_tensors(m)), tensors),
        "convert_model_to_external_data": (_to_external, tensors),
        "convert_model_from_external_data": (
            lambda m, d: edh.convert_model_from_external_data(m),
            tensors,
        ),
        "load_external_data_for_model": (
            lambda m, d: edh.load_external_data_for_model(m, str(d)),
            tensors,
        ),
        "write_external_data_tensors": (
            lambda m, d: edh.write_external_data_tensors(m, str(d)),
            tensors,
        ),
        "convert_tensors_to_external_data": (
            lambda m, d: edh.convert_tensors_to_external_data(m, location="x.data"),
            tensors,
        ),
        "convert_tensors_from_external_data": (
            lambda m, d: edh.convert_tensors_from_external_data(m),
            tensors,
        ),
        "load_external_data_for_tensors": (
            lambda m, d: edh.load_external_data_for_tensors(m, str(d)),
            tensors,
        ),
        "strip_doc_string": (lambda m, d: helper.strip_doc_string(m), whole),
        "printable_graph": (_printable, lambda s: CYCLE if s in MAIN_GRAPH_LOOPS else OK),
        "printer.to_text": (lambda m, d: printer.to_text(m), whole),
        "encode": (lambda m, d: m.encode(), lambda s: ENCODE),
        "ByteSize": (lambda m, d: m.ByteSize(), lambda s: ENCODE),
        "CopyFrom": (lambda m, d: type(m)().CopyFrom(m), lambda s: ENCODE),
        "text_format.MessageToString": (
            lambda m, d: text_format.MessageToString(m),
            lambda s: DEEP,
        ),
        "json_format.MessageToJson": (lambda m, d: json_format.MessageToJson(m), lambda s: DEEP),
        "str": (lambda m, d: str(m), lambda s: OK),
        "repr": (lambda m, d: repr(m), lambda s: OK),
        "DiscardUnknownFields": (lambda m, d: m.DiscardUnknownFields(), lambda s: OK),
        "copy.deepcopy": (lambda m, d: copy.deepcopy(m), lambda s: OK),
        "pickle": (lambda m, d: pickle.loads(pickle.dumps(m)), lambda s: OK),
    }


MODEL_WALKERS = _model_walkers()


def _outcome(call: Callable[[], Any]) -> tuple[str, str]:
    try:
        result = promptly(call)
    except EncodeValueError as err:
        return (CYCLE if err.reason.startswith("a cycle: ") else ENCODE), str(err)
    except ValueError as err:
        return DEEP, str(err)
    if isinstance(result, list) and result and isinstance(result[0], onnx.Violation):
        cycles = [v for v in result if "a cycle" in v.message]
        return (CYCLE if len(cycles) == 1 else f"{len(cycles)} cycle violations"), str(result)
    return OK, ""


@pytest.mark.parametrize("walker", MODEL_WALKERS)
@pytest.mark.parametrize("shape", MODELS)
def test_every_model_walker_ends_on_a_model_that_holds_itself(
    shape: str, walker: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # onnx's location checks look in the current folder
    call, expected = MODEL_WALKERS[walker]
    m = MODELS[shape]()
    outcome, text = _outcome(lambda: call(m, tmp_path))
    assert outcome == expected(shape), text
    if outcome == CYCLE and walker != "check":
        assert "is nested inside itself" in text, text
    if outcome == ENCODE:
        assert "nesting deeper than 100 messages" in text, text


@pytest.mark.parametrize("shape", MODELS)
def test_two_models_that_hold_themselves_compare(shape: str) -> None:
    promptly(lambda: _equal(MODELS[shape](), MODELS[shape]()))


def test_the_cycle_is_named_where_it_closes() -> None:
    with pytest.raises(EncodeValueError) as caught:
        edh.get_all_tensors(graph_in_g()).__next__()
    assert caught.value.path == "ModelProto.graph.node[0].attribute[0].g"
    assert caught.value.reason.startswith(
        "a cycle: the message at ModelProto.graph is nested inside itself"
    )
    found = onnx.check(function_node())
    cycles = [v for v in found if "cycle" in v.message]
    assert [v.path for v in cycles] == ["ModelProto.functions[0].node[0].attribute[0].g.node[0]"]
    assert cycles[0].message == (
        "a cycle: the message at ModelProto.functions[0].node[0] is nested inside itself"
    )


@pytest.mark.parametrize("shape", sorted(GRAPH_LOOPS | {"type loop"}))
def test_a_refused_save_changes_nothing(shape: str, tmp_path: Path) -> None:
    m = MODELS[shape]()
    before = [(t.raw_data, t.data_location) for t in m.graph.initializer]
    with pytest.raises(EncodeValueError, match="a cycle"):
        promptly(lambda: _save_external(m, tmp_path))
    assert [(t.raw_data, t.data_location) for t in m.graph.initializer] == before
    assert os.listdir(tmp_path) == []


def test_a_refused_conversion_marks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    m = graph_in_g()
    with pytest.raises(EncodeValueError, match="a cycle"):
        _to_external(m, tmp_path)
    assert not edh.uses_external_data(m.graph.initializer[0])


def _data_walkers() -> dict[str, tuple[Callable[[Any, Path], Any], str]]:
    def validate(message: Any) -> None:
        check: Callable[[Any], None] = {
            "SequenceProto": checker.check_sequence,
            "MapProto": checker.check_map,
            "OptionalProto": checker.check_optional,
        }[type(message).__name__]  # type: ignore[assignment]
        with pytest.raises(checker.ValidationError) as caught:
            check(message)
        assert "is nested inside itself" in str(caught.value)

    def convert(message: Any) -> Any:
        name = type(message).__name__
        to = {"SequenceProto": "to_list", "MapProto": "to_dict", "OptionalProto": "to_optional"}
        return getattr(numpy_helper, to[name])(message)

    return {
        "check": (lambda m, d: onnx.check(m), CYCLE),
        "checker.check_*": (lambda m, d: validate(m), OK),
        "get_all_tensors": (lambda m, d: list(edh.get_all_tensors(m)), CYCLE),
        "convert_tensors_to_external_data": (
            lambda m, d: edh.convert_tensors_to_external_data(m, location="x.data"),
            CYCLE,
        ),
        "convert_tensors_from_external_data": (
            lambda m, d: edh.convert_tensors_from_external_data(m),
            CYCLE,
        ),
        "write_external_data_tensors": (
            lambda m, d: edh.write_external_data_tensors(m, str(d)),
            CYCLE,
        ),
        "load_external_data_for_tensors": (
            lambda m, d: edh.load_external_data_for_tensors(m, str(d)),
            CYCLE,
        ),
        "strip_doc_string": (lambda m, d: helper.strip_doc_string(m), CYCLE),
        "encode": (lambda m, d: m.encode(), ENCODE),
        "onnxdata.save": (lambda m, d: onnx.save(m, str(d / "m.pb")), ENCODE),
        "numpy_helper.to_*": (lambda m, d: convert(m), DEEP),
        "text_format.MessageToString": (lambda m, d: text_format.MessageToString(m), DEEP),
        "json_format.MessageToDict": (lambda m, d: json_format.MessageToDict(m), DEEP),
        "DiscardUnknownFields": (lambda m, d: m.DiscardUnknownFields(), OK),
        "==": (lambda m, d: _equal(m, copy.deepcopy(m)), OK),
    }


DATA_WALKERS = _data_walkers()


@pytest.mark.parametrize("walker", DATA_WALKERS)
@pytest.mark.parametrize("shape", DATA)
def test_every_data_walker_ends_on_a_message_that_holds_itself(
    shape: str, walker: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    call, expected = DATA_WALKERS[walker]
    m = DATA[shape]()
    outcome, text = _outcome(lambda: call(m, tmp_path))
    assert outcome == expected, text


# -- shared messages: each visited once ------------------------------------------------------

READS: Counter[int] = Counter()


class CountingGraph(onnx.GraphProto):
    """A graph that counts how often its nodes are read: once per visit of a walk."""

    __slots__ = ()

    def __getattribute__(self, name: str) -> Any:
        if name == "_node":
            READS[id(self)] += 1
        return super().__getattribute__(name)


def shared_levels(levels: int) -> tuple[onnx.ModelProto, list[CountingGraph]]:
    """``levels`` graphs above the model's, each holding the one below twice (an If's
    two branches): 2**levels paths to the bottom graph, ``levels + 1`` graphs.
    Each graph has an initializer of its own; the bottom one also a constant."""
    bottom = CountingGraph(name="g0", doc_string="bottom")
    bottom.initializer.append(weights("w0"))
    const = onnx.NodeProto(op_type="Constant", output=["c0"])
    const.attribute.append(helper.make_attribute("value", weights("k0")))
    bottom.node.append(const)
    graphs = [bottom]
    for i in range(1, levels + 1):
        node = onnx.NodeProto(op_type="If", input=["c"], output=["y"], doc_string=f"if {i}")
        for branch in ("then_branch", "else_branch"):
            node.attribute.append(
                onnx.AttributeProto(name=branch, type=onnx.AttributeProto.GRAPH, g=graphs[-1])
            )
        graph = CountingGraph(name=f"g{i}")
        graph.initializer.append(weights(f"w{i}"))
        graph.node.append(node)
        graphs.append(graph)
    m = onnx.ModelProto(ir_version=10, graph=graphs[-1])
    m.opset_import.append(helper.make_opsetid("", 17))
    return m, graphs


def _reads(graphs: list[CountingGraph]) -> set[int]:
    return {READS[id(g)] for g in graphs}


LEVELS = 30


def test_check_visits_each_shared_graph_once() -> None:
    m, graphs = shared_levels(LEVELS)
    READS.clear()
    found = promptly(lambda: onnx.check(m))
    assert _reads(graphs) == {1}  # the walk reads each graph's fields once
    # The model rules run once per graph too: one "not defined" per If.
    undefined = [v for v in found if "'c' is not a graph input" in v.message]
    assert len(undefined) == LEVELS


@pytest.mark.parametrize(
    ("walker", "walks"),
    [
        (lambda m: list(edh.get_initializer_tensors(m)), 1),
        (lambda m: list(edh.get_attribute_tensors(m)), 1),
        (lambda m: list(edh.get_all_tensors(m)), 2),  # initializers, then attributes
        (lambda m: helper.strip_doc_string(m), 1),
        (lambda m: m.DiscardUnknownFields(), 1),
    ],
    ids=["initializers", "attributes", "all", "strip_doc_string", "DiscardUnknownFields"],
)
def test_tensor_walkers_visit_each_shared_graph_once(walker: Any, walks: int) -> None:
    m, graphs = shared_levels(LEVELS)
    READS.clear()
    promptly(lambda: walker(m))
    assert _reads(graphs) == {walks}


def test_each_shared_tensor_is_listed_once() -> None:
    m, _ = shared_levels(LEVELS)
    names = [t.name for t in edh.get_all_tensors(m)]
    assert names == [f"w{i}" for i in range(LEVELS, -1, -1)] + ["k0"]
    assert [t.name for t in edh.get_initializer_tensors(m)] == names[:-1]
    assert [t.name for t in edh.get_attribute_tensors(m)] == ["k0"]


def test_two_shared_models_compare_pair_by_pair() -> None:
    (a, graphs_a), (b, graphs_b) = shared_levels(LEVELS), shared_levels(LEVELS)
    READS.clear()
    assert promptly(lambda: a == b)
    assert _reads(graphs_a) == _reads(graphs_b) == {1}
    graphs_b[0].initializer[0].name = "other"
    assert promptly(lambda: a != b)


def test_a_shared_tensor_is_written_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One tensor object held by the main graph and a subgraph: its data goes to the
    file once, and both places point at it (onnx's protobuf copies what it is
    given, so there a model holds two tensors, written twice)."""
    monkeypatch.chdir(tmp_path)
    m = model()
    shared = m.graph.initializer[0]
    body = onnx.GraphProto(name="body")
    body.initializer.append(shared)
    m.graph.node[0].attribute.append(
        onnx.AttributeProto(name="body", type=onnx.AttributeProto.GRAPH, g=body)
    )
    onnx.save_model(m, "m.onnx", save_as_external_data=True, location="w.data", size_threshold=0)
    assert os.path.getsize("w.data") == len(weights("w").raw_data)
    back = onnx.load_model("m.onnx")
    again = back.graph.node[0].attribute[0].g.initializer[0]
    assert back.graph.initializer[0].raw_data == again.raw_data == weights("w").raw_data
