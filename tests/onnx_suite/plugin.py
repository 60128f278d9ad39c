"""The pytest plugin the runner loads into the run of onnx's rewritten tests.

It keeps the in-scope tests only (the others are deselected, so they are never
run nor counted), and writes each test's outcome and first error line to a
JSON file, which the runner reads.  Two environment variables, set by the
runner, say where: ``ONNXDATA_SUITE_SCOPE`` (a JSON object: ``"tests"``, file
name -> the in-scope test names, ``Class::test`` or ``test``; ``"parameters"``,
the out-of-scope parameter ids) and ``ONNXDATA_SUITE_REPORT``.  A case of an
in-scope test with an out-of-scope parameter is deselected and reported as
``excluded``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

_SCOPE = "ONNXDATA_SUITE_SCOPE"
_REPORT = "ONNXDATA_SUITE_REPORT"

_results: dict[str, dict[str, str]] = {}


def test_name(nodeid: str) -> tuple[str, str]:
    """(file name, ``Class::test`` or ``test``) of a node id, parameters dropped."""
    path, _, rest = nodeid.partition("::")
    return Path(path).name, rest.split("[", 1)[0]


def first_line(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The first line of what failed: the exception's message as pytest shows it."""
    longrepr = report.longrepr
    crash = getattr(longrepr, "reprcrash", None)
    if isinstance(longrepr, tuple):  # a skip: (path, line, reason)
        text = str(longrepr[2])
    else:
        text = crash.message if crash is not None else str(longrepr)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return "(no message)"
    if lines[0].endswith("Regex pattern did not match."):
        # pytest.raises(match=...): what was raised says more than the fact
        return " ".join(lines[:3])
    return lines[0]


def parameters(nodeid: str) -> set[str]:
    """The ids of a case's parameters (``[Path-onnxtxt]`` -> ``{"Path", "onnxtxt"}``)."""
    _, bracket, rest = nodeid.partition("[")
    return set(rest.rstrip("]").split("-")) if bracket else set()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    scope = json.loads(Path(os.environ[_SCOPE]).read_text(encoding="utf-8"))
    tests, excluded = scope["tests"], set(scope["parameters"])
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        file, name = test_name(item.nodeid)
        if name not in tests.get(file, ()):
            dropped.append(item)
        elif parameters(item.nodeid) & excluded:
            dropped.append(item)
            word = sorted(parameters(item.nodeid) & excluded)[0]
            _results[item.nodeid] = {"outcome": "excluded", "message": word}
        else:
            kept.append(item)
    config.hook.pytest_deselected(items=dropped)
    items[:] = kept


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        _results[f"{report.nodeid}::<collection>"] = {
            "outcome": "error",
            "message": first_line(report),
        }


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    entry = _results.setdefault(report.nodeid, {"outcome": "passed", "message": ""})
    if report.skipped and report.when in ("setup", "call"):
        entry.update(outcome="skipped", message=first_line(report))
    elif report.failed and entry["outcome"] in ("passed", "skipped"):
        outcome = "failed" if report.when == "call" else "error"
        entry.update(outcome=outcome, message=first_line(report))


def pytest_sessionfinish(session: pytest.Session) -> None:
    Path(os.environ[_REPORT]).write_text(json.dumps(_results, indent=1), encoding="utf-8")
