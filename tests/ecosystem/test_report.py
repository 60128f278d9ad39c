"""The ecosystem harness's counting, on recorded outcomes (it installs and runs nothing here).

A test's final outcome is its worst phase's; a module's collection error stands for each
of its tests; tests passing on onnx and not on onnxdata are grouped by the first cause whose
pattern their error matches.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.ecosystem import run


def _write(path: Path, rows: list[dict[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"when": "call", "message": "", "where": "", **r}) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_counts_and_causes(tmp_path: Path) -> None:
    passed = [{"id": f"t.py::test_{i}", "outcome": "passed"} for i in range(5)]
    _write(
        tmp_path / "onnx" / "skl2onnx.jsonl",
        [
            *passed,
            {"id": "u.py::test_a", "outcome": "passed"},
            {"id": "t.py::x", "outcome": "failed"},
        ],
    )
    _write(
        tmp_path / "onnxdata" / "skl2onnx.jsonl",
        [
            passed[0],
            {"id": "t.py::test_1", "outcome": "failed", "message": "No module named 'onnx.defs'"},
            {"id": "t.py::test_2", "outcome": "passed"},
            {"id": "t.py::test_2", "when": "teardown", "outcome": "failed", "message": "boom"},
            {"id": "t.py::test_3", "outcome": "failed", "message": "check_model: bad"},
            {
                "id": "u.py",
                "when": "collect",
                "outcome": "collect-error",
                "message": "E  ImportError: x",
            },
        ],
    )
    tests = run.read(tmp_path / "onnxdata" / "skl2onnx.jsonl")
    assert tests["t.py::test_2"]["outcome"] == "error"  # a failed teardown wins over the call
    assert run.summary(tests) == "1 passed, 2 failed, 2 error, 0 skipped"
    text = run.report(tmp_path)
    assert "| skl2onnx | 6 / 1 / 0 / 0 | 1 / 2 / 2 / 0 | 1 of 6 |" in text
    line = next(x for x in text.splitlines() if x.startswith("- skl2onnx: "))
    assert set(line.removeprefix("- skl2onnx: ").split(", ")) == {
        "onnx.defs (operator schemas): 1",
        "other: 2",  # the teardown, and the module that did not import
        "checker (check_model...): 1",
        "not run on onnxdata (time box or not collected): 1",
    }
    assert "    - other: E  ImportError: x" in text and "    - other: boom" in text
