"""``onnxdata.checker.check_model`` and its kin give onnx's verdict and message.

Differential, with onnx 1.23.2's checker as the oracle: every ``.onnx`` model
in the onnx package, every node-test model onnx's test cases build, and
mutants of them that break one rule each (``tests/support/checker_mutants``:
attribute types, names and requiredness, unknown and deprecated operators,
opsets, arity, SSA, topological order, subgraph scopes, value infos,
tensors, sparse tensors, external data, local functions).  Both checkers
must agree on the verdict and on the message, byte for byte.  The default
run takes every tenth node-test model's mutants; the slow one takes all.
"""

from __future__ import annotations

import functools
import os
import pathlib
import random
import warnings
from typing import Any

import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from onnx import TensorProto, helper

import onnxdata
from onnxdata import checker
from onnxdata import strategies as ods
from tests.support.checker_mutants import MUTATIONS, mutant, verdict
from tests.support.message_strategies import scaled

ONNX_ROOT = pathlib.Path(onnx.__file__).parent
PACKAGE_MODELS = sorted(ONNX_ROOT.glob("backend/test/data/**/*.onnx"))
MODELS_DIR = os.environ.get("ONNXDATA_MODELS_DIR", "")


@pytest.fixture(scope="module")
def node_models() -> list[tuple[str, onnx.ModelProto]]:
    from onnx.backend.test.case import node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node.collect_testcases(None)
    return [(c.name, c.model) for c in cases if c.model is not None]


def _both(model: Any, **flags: Any) -> tuple[Any, Any]:
    return (
        verdict(functools.partial(onnx.checker.check_model, **flags), model),
        verdict(functools.partial(checker.check_model, **flags), model),
    )


def test_the_package_models_agree() -> None:
    assert len(PACKAGE_MODELS) > 100
    differ = []
    for path in PACKAGE_MODELS:
        theirs, ours = _both(str(path))
        if theirs != ours:
            differ.append((path.name, theirs, ours))
    assert differ == []


def test_the_node_test_models_agree(node_models: list[tuple[str, onnx.ModelProto]]) -> None:
    assert len(node_models) > 1800
    differ = []
    for name, model in node_models:
        data = model.SerializeToString()
        theirs, ours = _both(data)
        if theirs != ours:
            differ.append((name, theirs, ours))
    assert differ == []


def _mutants(models: list[tuple[str, onnx.ModelProto]], step: int, **flags: Any) -> dict[str, int]:
    counts = {"mutants": 0, "rejected": 0}
    differ = []
    for k, (name, base) in enumerate(models[::step]):
        for mutation in MUTATIONS:
            model = mutant(base, mutation, k)
            if model is None:
                continue
            theirs, ours = _both(model.SerializeToString(), **flags)
            counts["mutants"] += 1
            counts["rejected"] += theirs is not None
            if theirs != ours:
                differ.append((name, mutation, k, theirs, ours))
    assert differ == []
    return counts


@pytest.mark.parametrize(
    "flags",
    [{}, {"check_custom_domain": True}, {"skip_opset_compatibility_check": True}],
    ids=["default", "custom-domain", "skip-opset-compatibility"],
)
def test_mutants_of_every_tenth_node_test_model_agree(
    node_models: list[tuple[str, onnx.ModelProto]], flags: dict[str, bool],
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)  # external data is looked for in the current folder
    counts = _mutants(node_models, 10 if not flags else 30, **flags)
    assert counts["rejected"] > counts["mutants"] // 2  # the mutants do break rules


@pytest.mark.slow
def test_mutants_of_every_node_test_model_agree(
    node_models: list[tuple[str, onnx.ModelProto]], tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    counts = _mutants(node_models, 1)
    assert counts["mutants"] > 30000


@pytest.mark.slow
@pytest.mark.skipif(not MODELS_DIR, reason="ONNXDATA_MODELS_DIR names no folder of models")
def test_every_model_of_a_folder_and_its_mutants_agree(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A corpus of real models (``ONNXDATA_MODELS_DIR``): each by path, and its
    mutants (external data looked for beside each model, as by path)."""
    paths = sorted(pathlib.Path(MODELS_DIR).rglob("*.onnx"))
    assert paths, f"no .onnx file under {MODELS_DIR}"
    differ = []
    for k, path in enumerate(paths):
        theirs, ours = _both(str(path))
        if theirs != ours:
            differ.append((str(path), "", theirs, ours))
        if path.stat().st_size > 200 << 20:
            continue  # onnx's checker reads the model into memory for each mutant
        monkeypatch.chdir(path.parent)
        base = onnx.load(str(path), load_external_data=False)
        for mutation in MUTATIONS:
            model = mutant(base, mutation, k)
            if model is not None:
                theirs, ours = _both(model.SerializeToString())
                if theirs != ours:
                    differ.append((str(path), mutation, theirs, ours))
    assert differ == []


def _external_model(location: str) -> onnx.ModelProto:
    weight = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2])
    weight.data_location = TensorProto.EXTERNAL
    weight.external_data.add(key="location", value=location)
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [weight],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize(
    "location",
    ["data.bin", "./data.bin", "sub/data.bin", "missing.bin", "link.bin", "hard.bin", "sub",
     "sub/../data.bin", "../data.bin", "/abs.bin", "", "sub/", "up/data.bin",
     # A NUL ends the path the system sees, as C++ hands it over (Python's
     # calls raised "embedded null byte", a bare ValueError onnx never gives).
     "data.bin\0x", "missing.bin\0x", "\0data.bin", "sub/\0x", "link.bin\0",
     "hard.bin\0", "data.bin\0/../../outside/data.bin", "up/data.bin\0"],
)  # fmt: skip
def test_external_data_files_are_judged_as_onnx_judges_them(
    location: str, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By path (the model's folder) and by model (the current folder): present,
    missing, a symbolic link, a hard link, a folder, outside the folder."""
    folder = tmp_path / "model"
    (folder / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    for name in ("data.bin", "sub/data.bin", "hard.bin", "../outside/data.bin"):
        (folder / name).write_bytes(b"\0" * 8)
    os.link(folder / "hard.bin", folder / "hard2.bin")
    (folder / "link.bin").symlink_to(folder / "data.bin")
    (folder / "up").symlink_to(tmp_path / "outside")
    model = _external_model(location)
    path = folder / "model.onnx"
    path.write_bytes(model.SerializeToString())
    assert _both(str(path)) == _both(str(path))  # stable
    theirs, ours = _both(str(path))
    assert theirs == ours
    monkeypatch.chdir(folder)
    assert _both(model.SerializeToString())[0] == _both(model.SerializeToString())[1]
    assert _both(pathlib.Path("model.onnx"))[0] == _both(pathlib.Path("model.onnx"))[1]


def test_a_file_that_is_not_a_model_fails_as_in_onnx(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\xff\xff\xff")
    assert _both(str(bad))[0] == _both(str(bad))[1]
    missing = str(tmp_path / "missing.onnx")
    assert _both(missing)[0] == _both(missing)[1]
    theirs, ours = _both(b"\xff\xff\xff")
    assert theirs == ours == ("ValueError", ours[1])


def _relu_model(**changes: Any) -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="r")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], **changes)


def test_the_error_says_where_and_keeps_onnx_text() -> None:
    model = _relu_model()
    model.graph.node[0].attribute.append(helper.make_attribute("alpha", 1.0))
    data = model.SerializeToString()
    with pytest.raises(onnx.checker.ValidationError) as theirs:
        onnx.checker.check_model(data)
    with pytest.raises(checker.ValidationError) as ours:
        checker.check_model(data)
    assert str(ours.value) == str(theirs.value)
    assert "==> Context: Bad node spec for node. Name: r OpType: Relu" in str(ours.value)
    assert ours.value.path == "ModelProto.graph.node[0]"
    assert isinstance(ours.value, ValueError)


def test_a_subgraph_error_names_the_outermost_node_and_the_inner_path() -> None:
    inner = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["z"], name="inner", bogus=1)], "then", [],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1])],
    )  # fmt: skip
    model = _relu_model()
    model.graph.node.append(
        helper.make_node("If", ["c"], ["w"], name="outer", then_branch=inner, else_branch=inner)
    )
    model.graph.input.append(helper.make_tensor_value_info("c", TensorProto.BOOL, []))
    theirs, ours = _both(model.SerializeToString())
    assert theirs == ours
    assert ours is not None and ours[1].endswith("Name: outer OpType: If")
    with pytest.raises(checker.ValidationError) as err:
        checker.check_model(model.SerializeToString())
    assert err.value.path == "ModelProto.graph.node[1].attribute[0].g.node[0]"


def test_full_check_runs_the_checks_and_says_that_inference_did_not() -> None:
    model = _relu_model()
    with pytest.warns(RuntimeWarning, match="shape inference"):
        checker.check_model(model, full_check=True)
    model.graph.name = ""  # an invalid model gets its ValidationError, and no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(checker.ValidationError):
            checker.check_model(model, full_check=True)


def test_the_size_limit_is_the_module_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    """onnx's test patches ``checker.MAXIMUM_PROTOBUF``: the limit is read at each call."""
    data = _relu_model().SerializeToString()
    monkeypatch.setattr(checker, "MAXIMUM_PROTOBUF", len(data) - 1)
    monkeypatch.setattr(onnx.checker, "MAXIMUM_PROTOBUF", len(data) - 1)
    theirs, ours = _both(data)
    assert theirs == ours and ours is not None and ours[0] == "ValueError"


def test_models_of_onnxdata_and_of_onnx_are_taken() -> None:
    model = _relu_model()
    checker.check_model(model)
    checker.check_model(onnxdata.ModelProto.decode(model.SerializeToString()))
    with pytest.raises(TypeError):
        checker.check_model(3)  # type: ignore[arg-type]


_EMPTY_TENSOR = onnx.TensorProto(name="t", data_type=TensorProto.FLOAT, dims=[1])


def _node_cases() -> list[tuple[onnx.NodeProto, int]]:
    """Nodes alone, against the default context and an older opset."""
    return [
        (helper.make_node("Relu", ["x"], ["y"]), 28),
        (helper.make_node("Relu", ["x", "z"], ["y"]), 28),
        (helper.make_node("Conv", ["x"], ["y"]), 28),
        (helper.make_node("Conv", ["x", "w", ""], ["y"], pads=[0, 0]), 11),
        (helper.make_node("Conv", ["x", "w"], ["y"], pads=1.0), 11),
        (helper.make_node("Cast", ["x"], ["y"]), 28),
        (helper.make_node("Upsample", ["x", "s"], ["y"]), 10),
        (helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "a"]), 9),
        (helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "a", "b"]), 15),
        (helper.make_node("LayerNormalization", ["x", "s"], ["y"], whatever=1), 17),
        (helper.make_node("Concat", [], ["y"], axis=0), 13),
        (helper.make_node("Max", ["a", "", "c"], ["y"]), 13),
        (helper.make_node("Split", ["x"], ["", "b"], axis=0), 13),
        (helper.make_node("NoSuch", ["x"], ["y"]), 13),
        (helper.make_node("NoSuch", ["x"], ["y"], domain="com.custom"), 13),
        (helper.make_node("Scale", ["x"], ["y"]), 13),
        (helper.make_node("Relu", [], []), 13),
        (helper.make_node("", ["x"], ["y"]), 13),
        (helper.make_node("Constant", [], ["y"], value=_EMPTY_TENSOR), 13),
        (helper.make_node("Constant", [], ["y"]), 13),
    ]


@pytest.mark.parametrize("case", range(len(_node_cases())))
def test_check_node_agrees(case: int) -> None:
    node, version = _node_cases()[case]
    ctx = onnx.checker.C.CheckerContext()
    ctx.ir_version = 10
    ctx.opset_imports = {"": version, "com.custom": 1}
    ours_ctx = checker.C.CheckerContext()
    ours_ctx.ir_version = 10
    ours_ctx.opset_imports = {"": version, "com.custom": 1}
    theirs = verdict(lambda n: onnx.checker.check_node(n, ctx), node)
    ours = verdict(lambda n: checker.check_node(n, ours_ctx), node)
    assert theirs == ours
    assert verdict(onnx.checker.check_node, node) == verdict(checker.check_node, node)


def test_check_graph_attribute_value_info_and_function_agree() -> None:
    model = _relu_model()
    graph = model.graph
    for g in (graph, helper.make_graph([], "", [], [])):
        assert verdict(onnx.checker.check_graph, g) == verdict(checker.check_graph, g)
    for value in (graph.input[0], onnx.ValueInfoProto(name="v"), onnx.ValueInfoProto()):
        assert verdict(onnx.checker.check_value_info, value) == verdict(
            checker.check_value_info, value
        )
    for attr in (
        helper.make_attribute("a", 1),
        onnx.AttributeProto(name="a", type=onnx.AttributeProto.INT, f=1.0),
        onnx.AttributeProto(name="", type=onnx.AttributeProto.INT),
        helper.make_attribute("g", graph),
    ):
        assert verdict(onnx.checker.check_attribute, attr) == verdict(checker.check_attribute, attr)
    fn = helper.make_function(
        "d", "f", ["x"], ["y"], [helper.make_node("Relu", ["x"], ["y"])],
        [helper.make_opsetid("", 13)],
    )  # fmt: skip
    bad = onnx.FunctionProto()
    bad.CopyFrom(fn)
    bad.node[0].input[0] = "nowhere"
    for f in (fn, bad):
        assert verdict(onnx.checker.check_function, f) == verdict(checker.check_function, f)


def test_the_contexts_read_as_onnx() -> None:
    ctx = checker.C.CheckerContext()
    theirs = onnx.checker.C.CheckerContext()
    assert (ctx.ir_version, ctx.opset_imports) == (theirs.ir_version, theirs.opset_imports)
    assert checker.DEFAULT_CONTEXT.ir_version == onnx.checker.DEFAULT_CONTEXT.ir_version
    assert checker.DEFAULT_CONTEXT.opset_imports == onnx.checker.DEFAULT_CONTEXT.opset_imports
    scope = checker.C.LexicalScopeContext()
    inner = checker.C.LexicalScopeContext(scope)
    scope.add("a")
    assert inner.this_or_ancestor_graph_has("a") and not inner.this_graph_has("a")
    assert checker.C.ValidationError is checker.ValidationError


def test_the_bytes_functions_of_c_agree() -> None:
    model = _relu_model()
    data = model.SerializeToString()
    theirs_model = verdict(lambda b: onnx.checker.C.check_model(b, False, False, False), data)
    assert theirs_model == verdict(lambda b: checker.C.check_model(b), data)
    graph = model.graph.SerializeToString()
    theirs = verdict(
        lambda g: onnx.checker.C.check_graph(
            g, onnx.checker.DEFAULT_CONTEXT, onnx.checker.LEXICAL_SCOPE_CONTEXT
        ),
        graph,
    )
    ours = verdict(
        lambda g: checker.C.check_graph(g, checker.DEFAULT_CONTEXT, checker.LEXICAL_SCOPE_CONTEXT),
        graph,
    )
    assert theirs == ours


def _onnxdata_relu() -> onnxdata.ModelProto:
    return onnxdata.ModelProto.decode(_relu_model().SerializeToString())


def test_a_value_of_the_wrong_type_is_the_encoders_error() -> None:
    """onnx serializes before it checks; a wrong type that breaks the check is
    reported as encode() reports it, with the field's path."""
    model = _onnxdata_relu()
    model.graph.node[0].attribute.append(onnxdata.AttributeProto(name=3, type=2, i=1))  # type: ignore[arg-type]
    with pytest.raises(onnxdata.EncodeError, match=r"graph\.node\[0\]\.attribute\[0\]\.name"):
        checker.check_model(model)
    with pytest.raises(onnxdata.EncodeError, match=r"node\[0\]\.attribute\[0\]\.name"):
        checker.check_graph(model.graph)


def test_a_graph_inside_itself_ends() -> None:
    """Only an object can hold a cycle; the walk stops where protobuf would have."""
    model = _onnxdata_relu()
    node = onnxdata.NodeProto(op_type="If", input=["x"], output=["z"])
    inner = onnxdata.GraphProto(name="loop", node=[node])
    node.attribute.append(
        onnxdata.AttributeProto(name="then_branch", type=onnxdata.AttributeProto.GRAPH, g=inner)
    )
    model.graph.node.append(node)
    with pytest.raises(ValueError, match="Unable to parse proto"):
        checker.check_model(model)
    model.graph.node.pop()
    model.ir_version = 10
    function = onnxdata.FunctionProto(name="f", domain="d", node=[node])
    model.functions.append(function)
    with pytest.raises(ValueError, match="Unable to parse proto"):
        checker.check_model(model)


def test_a_long_chain_of_function_calls_is_refused() -> None:
    """More than 100 local functions calling each other in a chain: refused with
    onnx's message.  onnx walks its functions in the order of a hash table, so
    whether its walk meets the chain from its start (and refuses) depends on
    that order (docs/compat.md); this one is met from its start."""
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("d", 1)]
    model = helper.make_model(helper.make_graph([], "g", [], []), opset_imports=opsets)
    for i in range(120):
        call = helper.make_node(f"f{i + 1}", ["x"], ["y"], domain="d")
        body = [call] if i < 119 else [helper.make_node("Relu", ["x"], ["y"])]
        model.functions.append(helper.make_function("d", f"f{i}", ["x"], ["y"], body, opsets))
    with pytest.raises(checker.ValidationError, match=r"depth exceeds limit \(100\)"):
        checker.check_model(model.SerializeToString())
    del model.functions[100:]  # 100 deep, the last calling one that is not there
    assert _both(model.SerializeToString())[1] is None


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


@pytest.mark.slow
def test_a_model_file_above_2_gib_is_checked(tmp_path: pathlib.Path) -> None:
    """onnx cannot parse it ("Unable to parse proto from file"); the file is
    mapped here and checked, its 2 GiB of weights never read (a sparse file)."""
    size = 1 << 31
    weight = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[size // 4])
    tensor = weight.SerializeToString() + b"\x4a" + _varint(size)  # raw_data, field 9
    graph = _relu_model().graph
    graph.node.append(helper.make_node("Add", ["y", "w"], ["z"]))
    graph.output[0].name = "z"
    head = graph.SerializeToString() + b"\x2a" + _varint(len(tensor) + size) + tensor
    model = _relu_model()
    model.ClearField("graph")
    data = model.SerializeToString() + b"\x3a" + _varint(len(head) + size) + head
    path = tmp_path / "big.onnx"
    with open(path, "wb") as f:
        f.write(data)
        f.truncate(len(data) + size)
    checker.check_model(path)
    checker.check_model(str(path))


@settings(max_examples=scaled(0.3), deadline=None, suppress_health_check=list(HealthCheck))
@given(ods.models(max_depth=2, external=False))
def test_drawn_models_get_onnx_verdict(model: onnxdata.ModelProto) -> None:
    """Models as exporters write them (operators of every domain, subgraphs,
    functions, metadata), drawn by onnxdata's own strategy."""
    data = model.encode()
    assert verdict(onnx.checker.check_model, data) == verdict(checker.check_model, data)


@settings(max_examples=scaled(0.3), deadline=None, suppress_health_check=list(HealthCheck))
@given(ods.of(onnxdata.ModelProto))
def test_models_drawn_from_the_schema_get_onnx_verdict(model: onnxdata.ModelProto) -> None:
    """Any ModelProto the schema allows (mostly refused early, at every rule)."""
    data = model.encode()
    assert verdict(onnx.checker.check_model, data) == verdict(checker.check_model, data)


def _custom_schema(module: Any) -> Any:
    s = module.defs.OpSchema
    return s(
        "CheckerTestOp", "ai.onnx.preview", 1, doc="",
        inputs=[s.FormalParameter("x", "T")], outputs=[s.FormalParameter("y", "T")],
        type_constraints=[("T", ["tensor(float)"], "")],
        attributes=[s.Attribute("alpha", s.AttrType.FLOAT, "", required=True)],
    )  # fmt: skip


@pytest.mark.parametrize(
    "attributes", [{}, {"alpha": 1.0}, {"alpha": 1}], ids=["no", "float", "int"]
)
def test_a_schema_registered_from_python_is_checked(attributes: dict[str, Any]) -> None:
    """Packages with custom operators register their schemas (``defs.register_schema``);
    the checker verifies nodes against them as onnx's does.  The domain is one onnx
    knows at this version, so that onnx's map of domains is left as it was (the
    catalog's generator reads it)."""
    onnx.defs.register_schema(_custom_schema(onnx))
    onnxdata.defs.register_schema(_custom_schema(onnxdata))
    try:
        model = _relu_model()
        model.graph.node[0].CopyFrom(
            helper.make_node("CheckerTestOp", ["x"], ["y"], domain="ai.onnx.preview", **attributes)
        )
        model.opset_import.append(helper.make_opsetid("ai.onnx.preview", 1))
        theirs, ours = _both(model.SerializeToString())
        assert theirs == ours
        assert (ours is None) == isinstance(attributes.get("alpha"), float)
    finally:
        onnx.defs.deregister_schema("CheckerTestOp", 1, "ai.onnx.preview")
        onnxdata.defs.deregister_schema("CheckerTestOp", 1, "ai.onnx.preview")


def _byte_mutants(models: list[tuple[str, onnx.ModelProto]], count: int) -> dict[str, int]:
    """``count`` node-test models with 1 to 3 bytes changed at random (seeded):
    onnx parses its bytes with protobuf's C++ parser, which ends a model at a
    stray end-group or zero tag; its message stops at a NUL; a name that is no
    UTF-8 makes its message fail to decode (``UnicodeDecodeError``, or under
    CPython 3.10 an empty message; counted apart: onnxdata raises the
    ValidationError, the bytes as surrogate escapes)."""
    rng = random.Random(7)
    datas = [m.SerializeToString() for _, m in models]
    counts = {"same": 0, "undecodable message": 0}
    differ = []
    for _ in range(count):
        data = bytearray(rng.choice(datas))
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        theirs, ours = _both(bytes(data))
        # onnx's message cannot be decoded: UnicodeDecodeError escapes, or (its
        # binding under CPython 3.10) the ValidationError comes with no message
        if theirs is not None and (
            theirs[0] == "UnicodeDecodeError" or theirs == ("ValidationError", "")
        ):
            assert ours is not None and ours[0] == "ValidationError", ours
            assert any("\udc80" <= c <= "\udcff" for c in ours[1]), ours
            counts["undecodable message"] += 1
        elif theirs == ours:
            counts["same"] += 1
        else:
            differ.append((bytes(data), theirs, ours))
    assert differ == []
    return counts


def test_models_with_bytes_changed_get_onnx_verdict(
    node_models: list[tuple[str, onnx.ModelProto]],
) -> None:
    counts = _byte_mutants(node_models, 1500)
    assert counts["same"] > 1000


@pytest.mark.slow
def test_many_models_with_bytes_changed_get_onnx_verdict(
    node_models: list[tuple[str, onnx.ModelProto]],
) -> None:
    counts = _byte_mutants(node_models, 20000)
    assert counts["same"] > 15000


@pytest.mark.parametrize(
    "data",
    [b"\x08\x07\x34\x3a", b"\x08\x07\x00\x3a", b"\x08\x07\x80\x00\x3a", b"\x08\x07\x04\x3a",
     b"\x08\x07\x02\x00", b"\x08\x07\x3a\x02\x0c\x00", b"\x08\x07\x3a\x02\x00\x00", b"\x34"],
)  # fmt: skip
def test_a_stray_end_tag_ends_the_model_as_in_onnx_parser(data: bytes) -> None:
    """onnx's C++ parser ends a model at a top-level end-group tag or tag 0 (upb
    refuses both); inside a sub-message both fail."""
    theirs, ours = _both(data)
    assert theirs == ours and ours is not None


def test_a_message_stops_at_a_nul_as_onnx_message() -> None:
    model = _relu_model()
    model.graph.output[0].name = "o\x00ut"
    model.graph.node[0].attribute.append(helper.make_attribute("bo\x00gus", 1))
    theirs, ours = _both(model.SerializeToString())
    assert theirs == ours and ours is not None
    assert (
        ours[1]
        == "Unrecognized attribute: bo\n\n==> Context: Bad node spec for node. Name: r OpType: Relu"
    )
    with pytest.raises(checker.ValidationError) as err:
        checker.check_model(model.SerializeToString())
    assert "bo\x00gus" in str(err.value.violations[0])  # the whole name is kept there
