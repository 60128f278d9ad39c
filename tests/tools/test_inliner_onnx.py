"""onnxdata.inliner against onnx.inliner (1.23.2): the same bytes, or the same error.

Every case runs both inliners on the same model and compares the serialized results
byte for byte (or the error class and text).  The models: onnx's own inliner tests
(parsed with onnx's parser, then given to both), onnx's node-test models (none has a
local function, so they exercise the schema-function path and the copy of a model
with nothing to inline), and models from a seeded generator that nests functions,
calls, subgraphs, attribute references, overloads and opset mismatches, with names
picked from a small pool so that the renaming's collisions are hit.  Where onnx needs
its shape inference or version converter, onnxdata raises InliningUnavailableError:
those cases are counted, and must stay a minority of the generated ones.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import onnx
import onnx.inliner
import pytest
from onnx import helper, parser

import onnxdata
from onnxdata import inliner
from tests.support.paths import ROOT

_LOCAL = onnx.inliner.inline_local_functions
_SELECTED = onnx.inliner.inline_selected_functions
_UNAVAILABLE = "unavailable"
_CYCLE_TEXT = "Cycle detected in model-local function references: "


def _run(function: Any, model: Any, *args: Any) -> Any:
    try:
        result = function(model, *args)
    except inliner.InliningUnavailableError:
        return _UNAVAILABLE
    except Exception as exc:  # the outcome compared is the exception
        return type(exc).__name__, str(exc)
    return result.SerializeToString()


def _both(model: onnx.ModelProto, local: bool, *args: Any) -> tuple[Any, Any]:
    """onnx's outcome and onnxdata's on ``model`` (given to onnxdata through its bytes)."""
    ours = onnxdata.ModelProto.decode(model.SerializeToString())
    if local:
        return _run(_LOCAL, model, *args), _run(inliner.inline_local_functions, ours, *args)
    return _run(_SELECTED, model, *args), _run(inliner.inline_selected_functions, ours, *args)


def _agree(theirs: Any, ours: Any) -> bool:
    if isinstance(theirs, tuple) and isinstance(ours, tuple):
        # onnx's assertion text starts with the path of its source file
        if theirs[1].startswith(_CYCLE_TEXT):
            # which cycle onnx names follows its hash tables (docs/compat.md)
            return bool(theirs[0] == ours[0] and ours[1].startswith(_CYCLE_TEXT))
        return bool(theirs[0] == ours[0] and theirs[1].endswith(ours[1]))
    return bool(theirs == ours)


# -- onnx's own inliner tests (tests/python/inliner_test.py), on both

_NESTED = """
<ir_version: 8, opset_import: [ "" : 17, "local" : 1 ]>
agraph (float[N] X) => (float[N] Y)
{
    Y = local.foo (X)
}
<opset_import: [ "" : 17, "local" : 1 ], domain: "local">
foo (x) => (y) {
    temp = Add(x, x)
    y = local.bar(temp)
}
<opset_import: [ "" : 17 ], domain: "local">
bar (x) => (y) {
    y = Mul (x, x)
}
"""

_SQUARES = """
<ir_version: 8, opset_import: [ "" : 17, "local" : 1 ]>
agraph (float[N] X) => (float[N] Y)
{
    T = local.square (X)
    Y = local.double_and_square (T)
}
<opset_import: [ "" : 17, "local" : 1 ], domain: "local">
double_and_square (x) => (y) {
    double = Add(x, x)
    y = local.square(double)
}
<opset_import: [ "" : 17 ], domain: "local">
square (x) => (y) {
    y = Mul (x, x)
}
"""

_CYCLE = """
<ir_version: 8, opset_import: [ "" : 17, "local" : 1 ]>
agraph (float[N] X) => (float[N] Y) { Y = local.foo (X) }
<opset_import: [ "" : 17, "local" : 1 ], domain: "local">
foo (x) => (y) { y = local.foo (x) }
"""

# Names that the renaming must step around: the suffixed names already taken.
_COLLIDING = """
<ir_version: 8, opset_import: [ "" : 17, "local" : 1 ]>
agraph (float[N] X) => (float[N] Y)
{
    temp__1 = Relu(X)
    temp__1_0 = Relu(temp__1)
    A = local.foo <alpha: float = 0.5> (temp__1_0)
    Y = local.foo (A)
}
<opset_import: [ "" : 17, "local" : 1 ], domain: "local">
foo <alpha> (x) => (y) {
    temp = LeakyRelu <alpha: float = @alpha> (x)
    temp__1 = Add(temp, x)
    c = Constant <value = bool {1}> ()
    y = If (c) <
        then_branch = g1 () => (float[N] z) { z = Identity(temp__1) },
        else_branch = g2 () => (float[N] z) { t = local.bar(temp) z = Identity(t) }
    >
}
<opset_import: [ "" : 17 ], domain: "local">
bar (x) => (y) {
    y = Mul (x, x)
}
"""

_MISMATCH = """
<ir_version: 8, opset_import: [ "" : 17, "local" : 1 ]>
agraph (float[N] X) => (float[N] Y) { Y = local.foo (X) }
<opset_import: [ "" : 16, "local" : 1 ], domain: "local">
foo (x) => (y) { y = Relu (x) }
"""

_SCHEMA = """
<ir_version: 8, opset_import: [ "" : 20]>
agraph (float[N] X) => (float[N] Y) { Y = Softsign (X) }
"""

_SCHEMA_PLAIN = """
<ir_version: 8, opset_import: [ "" : 18]>
agraph (float[N] X, float[N] Z) => (bool[N] Y) { T = Abs (X) Y = GreaterOrEqual (T, Z) }
"""


@pytest.mark.parametrize(
    ("text", "local", "args"),
    [
        (_NESTED, True, ()),
        (_SQUARES, False, ([("local", "square")], False)),
        (_SQUARES, False, ([("local", "double_and_square")], True)),
        (_CYCLE, True, ()),
        (_CYCLE, False, ([], True)),
        (_COLLIDING, True, ()),
        (_COLLIDING, False, ([("local", "bar")], False)),
        (_COLLIDING, False, ([("local", "bar")], True)),
        (_MISMATCH, True, ()),
        (_MISMATCH, False, ([("local", "foo")], False)),
        (_SCHEMA_PLAIN, False, ([], True, True)),
        (_SCHEMA_PLAIN, False, ([("", "GreaterOrEqual")], False, True)),
    ],
)
def test_onnx_inliner_cases_give_onnx_bytes(text: str, local: bool, args: tuple[Any, ...]) -> None:
    theirs, ours = _both(parser.parse_model(text), local, *args)
    assert _agree(theirs, ours), (theirs, ours)


def test_the_ported_assertions_of_onnx_hold() -> None:
    flat = inliner.inline_local_functions(parser.parse_model(_NESTED))
    assert [n.op_type for n in flat.graph.node] == ["Add", "Mul"]
    kept = inliner.inline_selected_functions(parser.parse_model(_SQUARES), [("local", "square")])
    assert [n.op_type for n in kept.graph.node] == ["Mul", "double_and_square"]
    assert [n.op_type for n in kept.functions[0].node] == ["Add", "Mul"]
    with pytest.raises(onnxdata.checker.ValidationError):
        inliner.inline_local_functions(parser.parse_model(_CYCLE))


def test_what_needs_onnx_shape_inference_or_version_converter_says_so() -> None:
    """onnx's Softsign body calls CastLike, whose body onnx builds from the inputs'
    types after inferring shapes; convert_version needs the version converter."""
    with pytest.raises(inliner.InliningUnavailableError, match="shape inference"):
        inliner.inline_selected_functions(parser.parse_model(_SCHEMA), [], True, True)
    _SELECTED(parser.parse_model(_SCHEMA), [], True, True)  # which onnx does
    with pytest.raises(inliner.InliningUnavailableError, match="version converter"):
        inliner.inline_local_functions(parser.parse_model(_MISMATCH), True)
    assert isinstance(inliner.InliningUnavailableError(), NotImplementedError)


def test_errors_are_onnx_errors() -> None:
    model = parser.parse_model(_NESTED)
    call = model.graph.node[0]
    call.input.extend(["X", "X"])
    theirs, ours = _both(model, True)
    assert theirs[0] == ours[0] == "RuntimeError" and _agree(theirs, ours)
    mixed = parser.parse_model(_SQUARES)
    mixed.functions[1].opset_import[0].version = 16
    theirs, ours = _both(mixed, False, [], True)
    assert ours == ("RuntimeError", "Model has functions with incompatible opset versions.")
    assert theirs == ours
    twice = parser.parse_model(_SQUARES)
    twice.functions.append(twice.functions[0])
    theirs, ours = _both(twice, True)
    assert theirs[0] == "ValidationError" and ours[0] == "ValidationError"
    assert theirs[1] == ours[1]


@pytest.mark.parametrize(
    "args",
    [
        (None,),
        ([("a",)],),
        ([1, 2],),
        ("ab",),
        ([("a", "b")], 1),
        ([("a", b"b")],),
        ([b"ab"],),
        (iter([("a", "b")]),),
        ({("a", "b")},),
        ([{"a": 1, "b": 2}],),
        ([("a", "b\udc80")],),
        ([("a", "b")], np.bool_(True)),
    ],
)
def test_arguments_of_the_wrong_type_are_type_errors(args: tuple[Any, ...]) -> None:
    model = parser.parse_model(_NESTED)
    with pytest.raises(TypeError):
        _SELECTED(model, *args)
    with pytest.raises(TypeError):
        inliner.inline_selected_functions(model, *args)


@pytest.mark.parametrize(
    "ids", [["lo"], [np.array(["local", "foo"])], (("local", "foo"),), [("local", "foo")]]
)
def test_any_sequence_of_two_str_is_a_pair_as_in_onnx(ids: Any) -> None:
    """onnx's binding reads any sequence of two str as a pair: even a two-letter str."""
    theirs, ours = _both(parser.parse_model(_COLLIDING), False, ids)
    assert isinstance(ours, bytes) and theirs == ours


def test_convert_version_must_be_a_bool_as_in_onnx() -> None:
    model = parser.parse_model(_NESTED)
    flags: list[Any] = [1, "x", None, np.bool_(True)]
    for flag in flags:
        with pytest.raises(TypeError):
            _LOCAL(model, flag)
        with pytest.raises(TypeError):
            inliner.inline_local_functions(model, flag)


def test_the_model_given_is_not_changed_and_pairs_may_be_lists() -> None:
    model = onnxdata.ModelProto.decode(parser.parse_model(_COLLIDING).SerializeToString())
    before = model.encode()
    pairs: Any = [["local", "foo"]]
    result = inliner.inline_selected_functions(model, pairs)
    assert model.encode() == before and result.encode() != before
    onnx_result = _SELECTED(parser.parse_model(_COLLIDING), pairs)
    assert result.encode() == onnx_result.SerializeToString()


def test_the_bytes_functions_of_c_agree() -> None:
    model = parser.parse_model(_COLLIDING)
    data = model.SerializeToString()
    cpp = onnx.onnx_cpp2py_export.inliner
    assert inliner.C.inline_local_functions(data, False) == cpp.inline_local_functions(data, False)
    ids = [("local", "bar")]
    assert inliner.C.inline_selected_functions(data, ids, True) == (
        cpp.inline_selected_functions(data, ids, True)
    )
    plain = parser.parse_model(_SCHEMA_PLAIN).SerializeToString()
    assert inliner.C.inline_selected_functions2(plain, [], True) == (
        cpp.inline_selected_functions2(plain, [], True)
    )


def _nested_ifs(nodes: list[Any], levels: int) -> Any:
    graph = helper.make_graph(nodes, "g", [], [])
    for i in range(levels):
        graph = helper.make_graph(
            [helper.make_node("If", ["c"], [f"y{i}"], then_branch=graph)], "g", [], []
        )
    return graph


@pytest.mark.parametrize(("outer", "inner"), [(20, 12), (20, 13), (30, 3)])
def test_a_result_too_deep_for_protobuf_fails_as_onnx(outer: int, inner: int) -> None:
    """onnx's own result fails to parse past 100 nested messages (a DecodeError)."""
    body = _nested_ifs([helper.make_node("Relu", ["x"], ["z"])], inner).node
    function = helper.make_function("local", "foo", ["x"], ["y"], list(body),
                                    [helper.make_opsetid("", 17)])  # fmt: skip
    graph = _nested_ifs([helper.make_node("foo", ["x"], ["w"], domain="local")], outer)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)]
    model = helper.make_model(graph, opset_imports=opsets, functions=[function])
    theirs, ours = _both(model, True)
    if isinstance(theirs, tuple):
        assert theirs[0] == ours[0] == "DecodeError"
    else:
        assert theirs == ours


# -- onnx's node-test models: the schema functions expanded, byte for byte


@pytest.fixture(scope="module")
def node_models() -> list[tuple[str, onnx.ModelProto]]:
    from onnx.backend.test.case import node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node.collect_testcases(None)
    return [(c.name, c.model) for c in cases if c.model is not None]


def _sweep(models: list[tuple[str, onnx.ModelProto]]) -> tuple[list[Any], int, int]:
    differ, same, unavailable = [], 0, 0
    for name, model in models:
        for local, args in ((True, ()), (False, ([], True, True))):
            theirs, ours = _both(model, local, *args)
            if ours == _UNAVAILABLE:
                unavailable += 1
            elif _agree(theirs, ours):
                same += 1
            else:
                differ.append((name, local))
    return differ, same, unavailable


def test_every_tenth_node_test_model_inlines_as_in_onnx(
    node_models: list[tuple[str, onnx.ModelProto]],
) -> None:
    differ, same, unavailable = _sweep(node_models[::10])
    assert differ == []
    assert same > unavailable


@pytest.mark.slow
def test_every_node_test_model_inlines_as_in_onnx(
    node_models: list[tuple[str, onnx.ModelProto]],
) -> None:
    assert len(node_models) > 1800
    differ, same, unavailable = _sweep(node_models)
    assert differ == []
    assert same > 2 * unavailable


# -- generated models: nested functions, subgraphs, references, colliding names

_NAMES = ["x", "y", "t", "t__1", "t__1_0", "t__2", "y__1", "n", "n__3", "X", ""]
_OPS = ["Relu", "Identity", "Add", "GreaterOrEqual", "ReduceSumSquare", "Softsign", "Selu"]
_DOMAINS = ["local", "local", "other", "ai.onnx"]


class _Generator:
    """A random model, valid or not: the inliner checks only the call graph."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.functions: list[Any] = []

    def name(self) -> str:
        return self.rng.choice(_NAMES)

    def names(self, low: int, high: int) -> list[str]:
        return [self.name() for _ in range(self.rng.randint(low, high))]

    def attribute(self) -> Any:
        rng = self.rng
        if rng.random() < 0.4:
            ref = onnx.AttributeProto()
            ref.name, ref.ref_attr_name = rng.choice(["alpha", "beta"]), rng.choice(["a", "b"])
            ref.type = onnx.AttributeProto.FLOAT
            return ref
        return helper.make_attribute(rng.choice(["alpha", "a", "b"]), rng.random())

    def node(self, callable_from: int, depth: int) -> Any:
        rng = self.rng
        kind = rng.random()
        if kind < 0.35 and callable_from < len(self.functions):
            f = self.functions[rng.randrange(callable_from, len(self.functions))]
            node = helper.make_node(f.name, self.names(0, len(f.input)),
                                    self.names(0, len(f.output)), domain=f.domain,
                                    name=self.name())  # fmt: skip
            if f.overload:
                node.overload = f.overload
            node.attribute.extend(self.attribute() for _ in range(rng.randint(0, 2)))
            return node
        if kind < 0.5 and depth < 3:
            branches = {
                key: self.graph(callable_from, depth + 1)
                for key in ("then_branch", "else_branch")[: rng.randint(1, 2)]
            }
            return helper.make_node("If", [self.name()], self.names(1, 2), name=self.name(),
                                    **branches)  # fmt: skip
        node = helper.make_node(rng.choice(_OPS), self.names(1, 2), self.names(1, 2),
                                name=self.name())  # fmt: skip
        node.attribute.extend(self.attribute() for _ in range(rng.randint(0, 1)))
        return node

    def graph(self, callable_from: int, depth: int) -> Any:
        rng = self.rng
        nodes = [self.node(callable_from, depth) for _ in range(rng.randint(0, 3))]
        value = helper.make_tensor_value_info
        inputs = [value(n, onnx.TensorProto.FLOAT, None) for n in self.names(0, 2)]
        outputs = [value(n, onnx.TensorProto.FLOAT, None) for n in self.names(0, 2)]
        inits = [helper.make_tensor(n, onnx.TensorProto.FLOAT, [1], [1.0])
                 for n in self.names(0, 1)]  # fmt: skip
        infos = [value(n, onnx.TensorProto.FLOAT, [1]) for n in self.names(0, 1)]
        return helper.make_graph(nodes, "g", inputs, outputs, inits, value_info=infos)

    def opsets(self) -> list[Any]:
        rng = self.rng
        if rng.random() < 0.85:  # mostly the model's own: the functions are then inlined
            return [helper.make_opsetid("", 18)]
        found = [helper.make_opsetid(rng.choice(["", "ai.onnx"]), rng.choice([17, 18, 18]))]
        if rng.random() < 0.3:
            found.append(helper.make_opsetid(rng.choice(["local", "ai.onnx", "other"]),
                                             rng.choice([1, 2])))  # fmt: skip
        return found

    def model(self) -> onnx.ModelProto:
        rng = self.rng
        for k in range(rng.randint(0, 5)):
            # function k calls only functions made before it: no cycle
            body = [self.node(0, 1) for _ in range(rng.randint(1, 4))]
            name = f"h{k}" if rng.random() < 0.8 else rng.choice(["f", "g"])
            function = helper.make_function(
                rng.choice(_DOMAINS),
                name,
                self.names(1, 3),
                self.names(1, 2),
                body,
                self.opsets(),
                attributes=rng.choice([[], ["a"]]),
            )
            if rng.random() < 0.2:
                function.overload = rng.choice(["o1", "o2"])
            if rng.random() < 0.4:
                function.value_info.extend(
                    helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, [2])
                    for n in self.names(1, 2)
                )
            self.functions.append(function)
        if self.functions and rng.random() < 0.05:
            # a call back to a function made later (or itself): a cycle, maybe
            caller = rng.choice(self.functions)
            callee = rng.choice(self.functions)
            caller.node.append(helper.make_node(callee.name, ["x"], ["y"], domain=callee.domain))
        graph = self.graph(0, 0)
        model = helper.make_model(graph, opset_imports=self.opsets(), functions=self.functions)
        return model

    def call(self) -> tuple[bool, tuple[Any, ...]]:
        rng = self.rng
        if rng.random() < 0.4:
            return True, (rng.random() < 0.3,)
        ids = [(f.domain, f.name) for f in self.functions if rng.random() < 0.5]
        ids.extend(
            [("", "GreaterOrEqual"), ("", "ReduceSumSquare"), ("", "Selu")][: rng.randint(0, 3)]
        )
        return False, (ids, rng.random() < 0.5, rng.random() < 0.5)


def _generated(seeds: range) -> tuple[list[Any], int, int]:
    differ, same, unavailable = [], 0, 0
    for seed in seeds:
        generator = _Generator(seed)
        model = generator.model()
        local, args = generator.call()
        theirs, ours = _both(model, local, *args)
        if ours == _UNAVAILABLE:
            unavailable += 1
        elif _agree(theirs, ours):
            same += 1
        else:
            differ.append((seed, theirs if isinstance(theirs, tuple) else "bytes", ours))
    return differ, same, unavailable


def test_generated_models_inline_as_in_onnx() -> None:
    differ, same, unavailable = _generated(range(1500))
    assert differ == []
    assert same > 3 * unavailable


@pytest.mark.slow
def test_many_generated_models_inline_as_in_onnx() -> None:
    differ, same, unavailable = _generated(range(1500, 31500))
    assert differ == []
    assert same > 3 * unavailable


# -- through install_as_onnx, with onnx and protobuf hidden

_SHIMMED = r"""
import json, sys

class Hidden:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("onnx", "google"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Hidden())
import onnxdata, onnxdata.inliner
onnxdata.install_as_onnx()
import onnx, onnx.inliner
from onnx import inliner
import onnx.onnx_cpp2py_export.inliner as C
data = sys.stdin.buffer.read()
model = onnx.load_model_from_string(data)
out = {
    "module": onnx.inliner is onnxdata.inliner and inliner is onnxdata.inliner,
    "cpp": sorted(n for n in dir(C) if not n.startswith("__")),
    "local": onnx.inliner.inline_local_functions(model).SerializeToString().hex(),
    "bytes": C.inline_local_functions(data, False).hex(),
}
print(json.dumps(out))
"""


def test_import_onnx_inliner_resolves_after_install_as_onnx() -> None:
    model = parser.parse_model(_COLLIDING)
    done = subprocess.run(
        [sys.executable, "-c", _SHIMMED],
        input=model.SerializeToString(),
        cwd=ROOT,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    out = json.loads(done.stdout)
    expected = _LOCAL(model).SerializeToString().hex()
    assert out["module"] is True
    assert out["cpp"] == [
        "inline_local_functions",
        "inline_selected_functions",
        "inline_selected_functions2",
    ]
    assert out["local"] == out["bytes"] == expected


def test_unknown_fields_travel_with_the_inlined_messages() -> None:
    """The call's attribute copied into the body keeps its unknown fields, as onnx's copy."""
    model = parser.parse_model(
        """
        <ir_version: 8, opset_import: [ "" : 17, "local" : 1 ]>
        agraph (float[N] X) => (float[N] Y) { Y = local.foo <a: float = 2.0> (X) }
        <opset_import: [ "" : 17, "local" : 1 ], domain: "local">
        foo <a> (x) => (y) { t = LeakyRelu <alpha: float = @a> (x) y = Relu(t) }
        """
    )
    unknown = b"\xf8\x07\x01"  # field 127, a varint: in no message of onnx.proto
    function = model.functions[0]
    for message in (model.graph.node[0].attribute[0], function.node[0], function.node[0]
                    .attribute[0], function, model.graph, model):  # fmt: skip
        message.ParseFromString(message.SerializeToString() + unknown)
    for local, args in ((True, ()), (False, ([("local", "foo")],))):
        theirs, ours = _both(model, local, *args)
        assert isinstance(ours, bytes) and theirs == ours and ours.count(unknown) == 4


def test_a_model_built_wrong_in_python_is_the_encoders_error() -> None:
    """onnx serializes the model first; so does onnxdata: a graph that holds itself and a
    value of the wrong type are EncodeErrors with the field path, never a RecursionError."""
    node = onnxdata.helper.make_node(
        "If", ["c"], ["y"], then_branch=onnxdata.helper.make_graph([], "g", [], [])
    )
    model = onnxdata.helper.make_model(onnxdata.helper.make_graph([node], "g", [], []))
    held = model.graph.node[0]
    held.attribute[0].g.node.append(held)
    with pytest.raises(onnxdata.EncodeError, match="nesting deeper than 100"):
        inliner.inline_local_functions(model)
    held.attribute[0].g.ClearField("node")
    held.name = 5  # type: ignore[assignment]
    with pytest.raises(onnxdata.EncodeError, match=r"graph\.node\[0\]\.name"):
        inliner.inline_selected_functions(model, [])
    with pytest.raises(TypeError):
        inliner.inline_local_functions(model.graph)
