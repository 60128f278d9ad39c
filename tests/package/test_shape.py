"""The package stays small enough to hold in one's head, and its generated code has one home.

- No module of ``onnxdata/`` is over 800 lines.
- No function has a cyclomatic complexity above 20, as ``radon cc`` counts it.
- Source is compiled (``exec``/``compile``/``eval``) in one module only,
  ``_core/codegen.py``, which registers it with ``linecache`` so that tracebacks
  and ``pdb`` show generated lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from radon.complexity import cc_visit

import onnxdata

PACKAGE = Path(onnxdata.__file__).parent
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 800
MAX_COMPLEXITY = 20
COMPILES_HERE = PACKAGE / "_core" / "codegen.py"


def _name(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_no_module_is_over_800_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{_name(path)} has {lines} lines: split it by concept"


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_no_function_is_too_complex(path: Path) -> None:
    blocks = cc_visit(path.read_text(encoding="utf-8"))
    found = []
    stack = list(blocks)
    while stack:
        block = stack.pop()
        stack.extend(getattr(block, "methods", []))
        stack.extend(getattr(block, "closures", []))
        if block.complexity > MAX_COMPLEXITY:
            found.append(f"{block.name} (line {block.lineno}): {block.complexity}")
    assert found == [], f"{_name(path)}: cyclomatic complexity above {MAX_COMPLEXITY}: {found}"


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_source_is_compiled_only_by_codegen(path: Path) -> None:
    if path == COMPILES_HERE:
        return
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("exec", "eval", "compile")
    ]
    assert calls == [], f"{_name(path)} compiles source at lines {calls}: use _core.codegen.build"


def test_codegen_does_compile() -> None:
    """The exception above is not vacuous: codegen.py is where compiling happens."""
    tree = ast.parse(COMPILES_HERE.read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    names = {n.func.id for n in calls if isinstance(n.func, ast.Name)}
    assert {"compile", "exec"} <= names
