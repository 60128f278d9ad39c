"""onnx's own data-API tests pass against onnxdata, but for the documented differences.

Slow (a pytest run of its own) and opt-in: it needs onnx's source distribution
(``ONNXDATA_ONNX_SOURCE``, see :mod:`tests.onnx_suite.runner`), and is skipped
without it.  ``python -m tests.onnx_suite`` prints the same results as a table.
"""

from __future__ import annotations

import os

import pytest

from tests.onnx_suite.runner import SOURCE_VARIABLE, Run, run

# The tests of onnx 1.23.2's data API that :mod:`tests.onnx_suite.scope` selects,
# a parametrized case counting once per case.
IN_SCOPE = 248

# docs/compat.md, "Deliberate differences": the in-scope tests that fail on purpose.
DELIBERATE = {
    # onnx accepts 2 int32_data values for 10 INT4 elements; make_tensor and
    # to_array store one value per element, so 5 are needed.
    "checker_test.py::TestChecker::test_check_tensor_packed_subbyte_int32_data",
}

pytestmark = pytest.mark.slow


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
    failing = {r.nodeid: r.message for r in outcome.results if r.outcome != "passed"}
    assert set(failing) == DELIBERATE, "\n".join(
        f"{test}: {message}" for test, message in sorted(failing.items())
        if test not in DELIBERATE
    )  # fmt: skip
