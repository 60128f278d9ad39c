"""The runner's parts, on small sources: the rewrite, the absent names, the scope rule."""

from __future__ import annotations

import ast
import sys
import tarfile
from pathlib import Path

import pytest

import onnxdata
from onnxdata import helper, numpy_helper
from tests.onnx_suite import plugin, runner, scope, switched
from tests.onnx_suite.rewrite import SWITCHED, rewrite


def _run(source: str) -> dict[str, object]:
    """Execute a rewritten source with the switched helpers importable by their copied name."""
    namespace: dict[str, object] = {}
    sys.modules.setdefault(SWITCHED, switched)
    exec(compile(rewrite(source), "<rewritten>", "exec"), namespace)
    return namespace


def test_rewrite_keeps_line_numbers_and_other_imports() -> None:
    source = (
        "import os\n"
        "from onnx import (\n"
        "    TensorProto,\n"
        "    helper,\n"
        ")\n"
        "def f():\n"
        "    from onnx.numpy_helper import to_array as ta\n"
        "    return ta\n"
    )
    out = rewrite(source)
    assert len(out.splitlines()) == len(source.splitlines())
    assert out.splitlines()[0] == "import os"
    assert "onnx" not in out.replace(SWITCHED, "").replace("'numpy_helper'", "")
    ast.parse(out)


def test_rewritten_names_are_onnxdata_s() -> None:
    ns = _run(
        "import onnx\n"
        "import onnx.numpy_helper\n"
        "import onnx.helper as h\n"
        "from onnx import TensorProto, numpy_helper as nh\n"
        "from onnx.helper import make_tensor\n"
    )
    assert ns["onnx"] is onnxdata
    assert ns["h"] is helper and ns["nh"] is numpy_helper
    assert ns["TensorProto"] is onnxdata.TensorProto
    assert ns["make_tensor"] is helper.make_tensor


def test_names_onnxdata_lacks_fail_where_they_are_used() -> None:
    ns = _run(
        "from onnx import OperatorProto, TensorProto\n"
        "from onnx.version_converter import convert_version\n"
        "import onnx.reference as ref\n"
        "codes = [OperatorProto.EXPERIMENTAL]\n"  # at import: allowed
    )
    assert ns["TensorProto"] is onnxdata.TensorProto
    codes = ns["codes"]
    assert isinstance(codes, list)
    for absent in (ns["OperatorProto"], ns["convert_version"], ns["ref"], codes[0]):
        assert isinstance(absent, switched.Absent)
        with pytest.raises(switched.OutOfScopeError, match="out of its scope"):
            absent()
        with pytest.raises(switched.OutOfScopeError):
            bool(absent)


def test_an_import_sharing_its_line_is_refused() -> None:
    with pytest.raises(ValueError, match="shares its line"):
        rewrite("import os; import onnx\n")


SCOPED = """
import pytest
from onnx import checker, helper, reference, TensorProto

def _model():
    return reference.ReferenceEvaluator(helper.make_model(helper.make_graph([], "g", [], [])))

def _tensor():
    return helper.make_tensor("t", TensorProto.FLOAT, [1], [1.0])

def test_tensor():
    assert _tensor().name == "t"

def test_model_through_a_function():
    _model()

def test_a_model_built_in_python():
    helper.make_model(helper.make_graph([], "g", [], []))

class TestBase:
    @pytest.fixture(autouse=True)
    def setup(self):
        self.model = self.build()

    def build(self):
        g = helper.make_graph([], "g", [], [])
        return reference.ReferenceEvaluator(helper.make_model(g))

    def test_reads_a_tensor(self):
        _tensor()

class TestDerived(TestBase):
    def test_more(self):
        pass

class TestPlain:
    @pytest.mark.parametrize("x", [TensorProto.FLOAT])
    def test_plain(self, x):
        _tensor()

    def test_onnx_load(self):
        import onnx
        onnx.load("m.onnx")

    def test_shape_inference(self):
        import onnx
        onnx.shape_inference.infer_shapes(onnx.load("m.onnx"))
"""


def test_scope_follows_what_a_test_runs() -> None:
    found = {v.name: v.excluded_by for v in scope.verdicts(SCOPED)}
    assert found == {
        "test_tensor": "",
        "test_model_through_a_function": "ReferenceEvaluator",
        "test_a_model_built_in_python": "",  # models are in scope: only onnx's C++ is out
        # its autouse fixture runs the reference evaluator
        "TestBase::test_reads_a_tensor": "ReferenceEvaluator",
        "TestDerived::test_more": "ReferenceEvaluator",  # inherited
        "TestDerived::test_reads_a_tensor": "ReferenceEvaluator",
        "TestPlain::test_plain": "",
        "TestPlain::test_onnx_load": "",
        "TestPlain::test_shape_inference": "infer_shapes",
    }


def test_parameter_ids() -> None:
    assert plugin.parameters("a.py::T::test_x[Path-onnxtxt]") == {"Path", "onnxtxt"}
    assert plugin.parameters("a.py::test_x") == set()
    # onnx's textual syntax is in scope now that the parser and printer exist
    assert "onnxtxt" not in scope.OUT_OF_SCOPE_PARAMETERS


FAKE_HELPER_TEST = """
import pytest
import onnx
from onnx import helper, TensorProto, backend

def test_passes():
    assert helper.make_tensor("t", TensorProto.FLOAT, [1], [1.0]).name == "t"

@pytest.mark.parametrize("n", [1, 2])
def test_fails(n):
    assert TensorProto(name="x").name == "y", "names differ"

@pytest.mark.parametrize("fmt", ["protobuf", "onnxtxt"])
def test_a_format(fmt):
    assert fmt in ("protobuf", "onnxtxt")

def test_reaches_an_absent_name():
    backend.prepare(None)

def test_a_built_model_inferred():
    onnx.shape_inference.infer_shapes(helper.make_model(helper.make_graph([], "g", [], [])))
"""


def _fake_source(root: Path, version: str) -> Path:
    folder = root / "onnx-x"
    tests = folder / "tests" / "python"
    tests.mkdir(parents=True)
    (folder / "VERSION_NUMBER").write_text(version + "\n", encoding="utf-8")
    for name in scope.FILES:
        (tests / name).write_text("", encoding="utf-8")
    (tests / "helper_test.py").write_text(FAKE_HELPER_TEST, encoding="utf-8")
    return folder


def test_the_runner_reports_each_in_scope_test(tmp_path: Path) -> None:
    folder = _fake_source(tmp_path, runner.ONNX_VERSION)
    archive = tmp_path / "onnx-x.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="onnx-x")
    outcome = runner.run(str(archive))
    found = {r.nodeid: (r.outcome, r.message) for r in outcome.results}
    assert found == {
        "helper_test.py::test_passes": ("passed", ""),
        "helper_test.py::test_fails[1]": ("failed", "AssertionError: names differ"),
        "helper_test.py::test_fails[2]": ("failed", "AssertionError: names differ"),
        "helper_test.py::test_a_format[protobuf]": ("passed", ""),
        "helper_test.py::test_a_format[onnxtxt]": ("passed", ""),
        "helper_test.py::test_reaches_an_absent_name": (
            "failed",
            # the class of the helper module copied beside the tests
            "onnx_suite_switched.OutOfScopeError: "
            "onnxdata has no onnx.backend.prepare (out of its scope)",
        ),
    }
    assert outcome.excluded == (("helper_test.py::test_a_built_model_inferred", "infer_shapes"),)
    assert "3 passed, 3 failed, 0 error" in runner.table(outcome)


def test_sources_of_another_version_are_refused(tmp_path: Path) -> None:
    folder = _fake_source(tmp_path, "1.0.0")
    with pytest.raises(runner.SourceError, match=r"onnx 1\.0\.0, expected"):
        runner.run(str(folder))
    with pytest.raises(runner.SourceError, match="no onnx tests/python"):
        runner.run(str(tmp_path))
