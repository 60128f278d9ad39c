"""The suite's two profiles (tests/conftest.py): default deselects ``slow``, ``all`` runs it;
hypothesis keeps no example database in CI; the seed runner (``tests/support/seeds.py``).

Each case collects one file in a subprocess, whose slow and other tests are
read from the file itself (the ``@pytest.mark.slow`` lines), so a test marked
slow later is checked too.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import seeds
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


# -- hypothesis: the example database, and runs with seeds of their own ---------


def _hypothesis_settings(ci: bool) -> str:
    """Whether the loaded profile has no database, and its print_blob, in a fresh interpreter."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "HYPOTHESIS_PROFILE")}
    if ci:
        env["CI"] = "true"
    code = (
        "import tests.conftest\nfrom hypothesis import settings\n"
        "print(settings().database is None, settings().print_blob)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def test_ci_keeps_no_example_database_and_prints_the_blob_of_a_failure() -> None:
    assert _hypothesis_settings(ci=True) == "True True"
    assert _hypothesis_settings(ci=False) == "False True"  # a local run keeps .hypothesis/


def test_the_seed_runner_counts_failed_runs_and_names_their_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = tmp_path / "test_good.py", tmp_path / "test_bad.py"
    header = "from hypothesis import given, strategies as st\n\n\n@given(st.integers(0, 9))\n"
    good.write_text(header + "def test_good(n: int) -> None:\n    assert n < 10\n")
    bad.write_text(header + "def test_bad(n: int) -> None:\n    assert n < 5\n")
    assert seeds.main([str(good)]) == 2  # no count of runs
    assert seeds.main(["1", str(tmp_path / "test_missing.py")]) == 2
    capsys.readouterr()
    assert seeds.main(["1", str(good), str(bad)]) == 1
    out = capsys.readouterr()
    assert re.search(r"^run 1/1 seed \d+: FAILED\n +\S*test_bad\.py::test_bad$", out.out, re.M)
    assert out.out.endswith("0 of 1 runs passed, 1 failed (2 files)\n")
    # hypothesis says "Falsifying example" before 6.16x, "Failing test case" after
    assert "test_good" not in out.out
    assert re.search(r"(Falsifying example|Failing test case): test_bad\(", out.err)
    assert seeds.main(["1", str(good)]) == 0
    assert capsys.readouterr().out.endswith("1 of 1 runs passed, 0 failed (1 files)\n")


def test_the_seed_runner_finds_every_test_file_that_uses_hypothesis() -> None:
    files = seeds.hypothesis_test_files()
    assert "tests/core/test_parity_machine.py" in files
    assert "tests/package/test_profiles.py" not in files  # hypothesis only in a string
    assert all((ROOT / f).read_text(encoding="utf-8").count("hypothesis") for f in files)
