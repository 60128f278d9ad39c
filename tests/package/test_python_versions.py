"""The package runs on the oldest Python that ``pyproject.toml`` declares.

Two independent checks over ``onnxdata/*.py``:

* ``vermin`` (from the ``test`` extra) knows, for each standard-library module,
  function and keyword argument, the version that brought it in, and the
  syntax too; ``--violations`` makes it fail on anything newer than the target.
* ``ast.parse(..., feature_version=...)`` parses with that version's grammar,
  as a second opinion on syntax (``except*``, PEP 695 generics, ...).

CPython 3.11 (here) and Pyodide's CPython 3.14 (``test_pyodide.py``) are the
versions actually run.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

ROOT = ROOT
PACKAGE = ROOT / "onnxdata"
# vermin has a console script but no ``python -m vermin``: call its entry point.
VERMIN = "import sys, vermin; sys.argv[0] = 'vermin'; sys.exit(vermin.main())"


def _oldest() -> tuple[int, int]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'^requires-python\s*=\s*">=\s*3\.(\d+)"', text, re.MULTILINE)
    assert found, 'pyproject.toml should declare requires-python = ">=3.N"'
    return 3, int(found.group(1))


def test_declared_version_matches_the_tools() -> None:
    major, minor = _oldest()
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'target-version = "py{major}{minor}"' in text  # ruff's pyupgrade rules


def test_vermin_finds_nothing_newer_than_declared() -> None:
    try:
        import vermin  # noqa: F401
    except ImportError:
        pytest.fail("vermin is missing: pip install -e '.[test]'")
    major, minor = _oldest()
    proc = subprocess.run(
        [sys.executable, "-c", VERMIN, f"--target={major}.{minor}-", "--no-tips",
         "--violations", "--eval-annotations", "--no-make-paths-absolute", "onnxdata"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_parses_with_oldest_grammar(path: Path) -> None:
    ast.parse(path.read_text(encoding="utf-8"), str(path), feature_version=_oldest())
