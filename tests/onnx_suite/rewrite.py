"""Point an onnx test file's imports at onnxdata, keeping its line numbers.

Every ``import onnx...`` and ``from onnx... import ...`` statement (at any
depth: tests import inside functions too) is replaced by its onnxdata
equivalent, written on the statement's first line; the lines it spanned stay,
blank, so that a traceback's line numbers are onnx's own.

- ``import onnx`` and ``import onnx.X`` bind ``onnx`` to onnxdata (``onnx.X``
  is then onnxdata's module X, or fails where it is used);
- ``import onnx.X as Y`` binds ``Y`` to onnxdata's X;
- ``from onnx[.X] import a, b as c`` binds each name to onnxdata's, through
  :func:`.switched.bind`, which gives a name onnxdata lacks as an ``Absent``
  that fails when used.
"""

from __future__ import annotations

import ast

# The runner copies ``switched.py`` beside the rewritten files under this name, so
# that they import nothing of this checkout but the onnxdata being tested.
SWITCHED = "onnx_suite_switched"


def _onnx_path(module: str) -> str | None:
    """``"X.Y"`` for ``onnx.X.Y``, ``""`` for ``onnx``, ``None`` for any other module."""
    if module == "onnx":
        return ""
    if module.startswith("onnx."):
        return module[len("onnx.") :]
    return None


def _replacement(node: ast.Import | ast.ImportFrom) -> str | None:
    """The statement to write instead of ``node``, ``None`` to keep it."""
    if isinstance(node, ast.ImportFrom):
        path = _onnx_path(node.module or "") if node.level == 0 else None
        if path is None:
            return None
        targets = [a.asname or a.name for a in node.names]
        names = [a.name for a in node.names]
        call = f"__import__({SWITCHED!r}, fromlist=['bind']).bind({path!r}, {names!r})"
        return f"{', '.join(targets)} = {call}"
    statements = []
    for alias in node.names:
        path = _onnx_path(alias.name)
        if path is None:
            statements.append(
                f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
            )
        elif alias.asname is None:
            statements.append(f"onnx = __import__({SWITCHED!r}, fromlist=['module']).module('')")
        else:
            statements.append(
                f"{alias.asname} = __import__({SWITCHED!r}, fromlist=['module']).module({path!r})"
            )
    if all(s.startswith("import ") for s in statements):
        return None
    return "; ".join(statements)


def rewrite(source: str) -> str:
    """``source`` with its onnx imports pointed at onnxdata (see the module docstring).

    Raises:
        SyntaxError: ``source`` is not Python.
        ValueError: an onnx import shares a line with another statement.
    """
    lines = source.splitlines(keepends=True)
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        new = _replacement(node)
        if new is None:
            continue
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        head = lines[first][: node.col_offset]
        tail = lines[last][node.end_col_offset :]
        if head.strip() or tail.strip():
            raise ValueError(f"line {node.lineno}: an onnx import shares its line; cannot rewrite")
        lines[first] = head + new + "\n"
        for i in range(first + 1, last + 1):
            lines[i] = "\n"
    return "".join(lines)
