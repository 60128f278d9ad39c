"""The suite's two profiles (tests/conftest.py): default deselects ``slow``, ``all`` runs it.

Each case collects one file in a subprocess, whose slow and other tests are
read from the file itself (the ``@pytest.mark.slow`` lines), so a test marked
slow later is checked too.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

from tests.support.paths import ROOT

FILE = "tests/numpy/test_numpy_varint_runs.py"  # slow tests and others side by side


def _tests_of(path: str) -> tuple[set[str], set[str]]:
    """(slow, other) test function names of ``path``, from its decorators."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    slow: set[str] = set()
    other: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            marks = {ast.unparse(d) for d in node.decorator_list}
            (slow if "pytest.mark.slow" in marks else other).add(node.name)
    return slow, other


def _collect(*args: str, profile: str | None = None) -> tuple[int, set[str], str]:
    """Exit code, collected test function names and output of ``pytest --co``."""
    env = dict(os.environ)
    env.pop("ONNXDATA_TESTS", None)
    if profile is not None:
        env["ONNXDATA_TESTS"] = profile
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    names = {
        line.split("::")[1].split("[")[0]
        for line in done.stdout.splitlines()
        if line.startswith("tests/") and "::" in line
    }
    return done.returncode, names, done.stdout + done.stderr


def test_the_default_deselects_slow_tests_and_all_runs_them() -> None:
    slow, other = _tests_of(FILE)
    assert slow and other
    code, names, out = _collect(FILE)
    assert code == 0 and names == other, out
    assert "slow tests deselected by the default profile" in out
    code, names, out = _collect(FILE, profile="all")
    assert code == 0 and names == slow | other, out
    assert "deselected" not in out


def test_naming_only_slow_tests_runs_them_and_m_chooses_by_itself() -> None:
    slow, _ = _tests_of(FILE)
    name = sorted(slow)[0]
    code, names, out = _collect(f"{FILE}::{name}")
    assert code == 0 and names == {name}, out  # not exit code 5: nothing deselected
    code, names, out = _collect(FILE, "-m", "slow")
    assert code == 0 and names == slow, out


def test_an_unknown_profile_is_a_usage_error() -> None:
    code, _, out = _collect(FILE, profile="everything")
    assert code == pytest.ExitCode.USAGE_ERROR and "ONNXDATA_TESTS='everything'" in out
