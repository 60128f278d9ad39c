"""The runner's parts, on small sources: the rewrite, the absent names, the scope rule."""

from __future__ import annotations

import ast
import sys

import pytest

import onnxdata
from onnxdata import helper, numpy_helper
from tests.onnx_suite import scope, switched
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
        "from onnx import GraphProto, TensorProto\n"
        "from onnx.helper import make_node\n"
        "import onnx.reference as ref\n"
        "codes = [GraphProto.FLOAT]\n"  # at import: allowed
    )
    assert ns["TensorProto"] is onnxdata.TensorProto
    codes = ns["codes"]
    assert isinstance(codes, list)
    for absent in (ns["GraphProto"], ns["make_node"], ns["ref"], codes[0]):
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
from onnx import helper, TensorProto

def _model():
    return helper.make_model(None)

def _tensor():
    return helper.make_tensor("t", TensorProto.FLOAT, [1], [1.0])

def test_tensor():
    assert _tensor().name == "t"

def test_model_through_a_function():
    _model()

class TestBase:
    @pytest.fixture(autouse=True)
    def setup(self):
        self.model = self.build()

    def build(self):
        return helper.make_graph([], "g", [], [])

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
"""


def test_scope_follows_what_a_test_runs() -> None:
    found = {v.name: v.excluded_by for v in scope.verdicts(SCOPED)}
    assert found == {
        "test_tensor": "",
        "test_model_through_a_function": "make_model",
        "TestBase::test_reads_a_tensor": "make_graph",  # its autouse fixture builds a graph
        "TestDerived::test_more": "make_graph",  # inherited
        "TestDerived::test_reads_a_tensor": "make_graph",
        "TestPlain::test_plain": "",
        "TestPlain::test_onnx_load": "onnx.load",
    }
