"""The code is lint-clean and fully typed: ``ruff check`` and ``mypy --strict`` find nothing.

Both run from the repository root with the configuration in ``pyproject.toml``:
ruff over the whole checkout (library, tests, benchmarks), mypy over the files
``[tool.mypy]`` names (the library) in strict mode.  A finding fails the test
and its report is printed, so the README's test command (and ``.ci/run``)
fails on it.
"""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import ROOT

ROOT = ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_finds_nothing() -> None:
    done = _run("ruff", "check", "--no-cache", str(ROOT))
    assert done.returncode == 0, f"ruff check failed:\n{done.stdout}{done.stderr}"


def test_mypy_strict_finds_nothing() -> None:
    done = _run("mypy", "--strict", "--cache-dir", "/dev/null")
    assert "strict = true" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert done.returncode == 0, f"mypy --strict failed:\n{done.stdout}{done.stderr}"
    assert "Success" in done.stdout, done.stdout
