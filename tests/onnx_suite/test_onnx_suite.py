"""onnx's own tests pass against onnxdata, but for the documented differences.

Slow (a pytest run of its own) and opt-in: it needs onnx's source distribution
(``ONNXDATA_ONNX_SOURCE``, see :mod:`tests.onnx_suite.runner`), and is skipped
without it.  ``python -m tests.onnx_suite`` prints the same results as a table.
"""

from __future__ import annotations

import os

import pytest

import onnxdata
from onnxdata import external_data_helper
from tests.onnx_suite.runner import SOURCE_VARIABLE, Run, run

# The tests of onnx 1.23.2 that :mod:`tests.onnx_suite.scope` selects (all but
# those needing onnx's C++ that onnxdata lacks; the checker's are in), a
# parametrized case counting once per case.
IN_SCOPE = 610

# Tests that onnx's own code skips on this platform or for this format: they
# are skipped with onnx too.
ONNX_SKIPS = (
    "Skipped: Skip Windows test",
    "Skipped: check_model supports protobuf only when provided as a path",
)

# docs/compat.md, "Deliberate differences": the in-scope tests that fail on purpose.
DELIBERATE = {
    # onnx accepts 2 int32_data values for 10 INT4 elements; make_tensor and
    # to_array store one value per element, so 5 are needed.
    "checker_test.py::TestChecker::test_check_tensor_packed_subbyte_int32_data",
    # They expect protobuf's own exception classes (google.protobuf.text_format.ParseError,
    # google.protobuf.message.DecodeError), which no library without protobuf can raise.
    "basic_test.py::TestSaveAndLoadFileExtensions::"
    "test_load_and_save_model_to_path_without_specifying_extension_succeeds",
    "basic_test.py::TestSaveAndLoadFileExtensions::"
    "test_load_and_save_model_without_specifying_extension_or_format_defaults_to_protobuf",
    "basic_test.py::TestSaveAndLoadFileExtensions::test_load_model_uses_format_when_it_is_specified",
    "basic_test.py::TestSaveAndLoadFileExtensions::test_save_model_uses_format_when_it_is_specified",
    # They read onnx's prose (OpSchema.doc), which the catalog does not copy.
    "schema_test.py::TestSchema::test_bitshift_type_constraints",
    "schema_test.py::TestSchema::test_mod_opset28_schema",
    "schema_test.py::TestSchema::test_optional_docstrings",
    # The inliner reaches onnx's C++ that is out of scope through no name the scope
    # rule sees: the version converter (a function body at another opset), and shape
    # inference (CastLike's context-dependent body; in scope once inference exists).
    "inliner_test.py::TestInliner::test_inline_ignores_constant_without_outputs",
    "inliner_test.py::TestInliner::test_schema_function_inlining",
}

# The model-level file functions, written on another branch: a test failing for
# want of one is tolerated only while the name is missing, so the tolerance ends
# by itself when they arrive.
MODEL_IO = {
    "save_model": onnxdata,
    "load_model": onnxdata,
    "convert_model_to_external_data": external_data_helper,
}

pytestmark = pytest.mark.slow


def _awaited(message: str) -> bool:
    """Whether a failure is for a model-level file function onnxdata still lacks."""
    missing = [name for name, module in MODEL_IO.items() if not hasattr(module, name)]
    if "onnxdata.ModelProto" in message:  # the formats registry does not take models yet
        return bool(missing)
    return any(name in message for name in missing)


@pytest.fixture(scope="module")
def outcome() -> Run:
    if not os.environ.get(SOURCE_VARIABLE):
        pytest.skip(f"{SOURCE_VARIABLE} does not name onnx's sdist")
    return run()


def test_every_in_scope_test_runs(outcome: Run) -> None:
    not_run = [f"{r.nodeid}: {r.message}" for r in outcome.results if r.outcome == "not run"]
    assert not_run == []
    assert len(outcome.results) == IN_SCOPE


def test_only_the_deliberate_differences_fail(outcome: Run) -> None:
    failing = {
        r.nodeid: r.message
        for r in outcome.results
        if r.outcome != "passed"
        and not _awaited(r.message)
        and not (r.outcome == "skipped" and r.message in ONNX_SKIPS)
    }
    assert set(failing) == DELIBERATE, "\n".join(
        f"{test}: {message}" for test, message in sorted(failing.items())
        if test not in DELIBERATE
    )  # fmt: skip
