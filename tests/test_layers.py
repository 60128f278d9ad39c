"""The package's layers, as docs/architecture.md draws them, hold in the code.

- Module-level imports point only to the same layer or a lower one (wire <- schema
  <- codec <- files/streams <- bridges/tools); imports inside a function (the lazy
  loading of the codec by ``Message``'s methods, the CLI's commands) are not layering.
- No module takes another's private name: neither ``from ._x import _y`` nor
  ``_x._y`` on an imported module.
- The knowledge of a field lives in the schema: its name appears in at most two
  library modules (its declaration, and at most one place that names it on purpose).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import onnxdata

PACKAGE = Path(onnxdata.__file__).parent

LAYERS: list[set[str]] = [
    {"_errors", "_wire"},
    {"_repeated", "_schema", "_messages", "_datatypes", "_foreign"},
    {"_varints", "_lanes", "_npvarints", "_short_entries", "_gcpause", "_decode", "_encode"},
    {"_atomic", "_stream", "_files", "_external"},
    {"_check", "_show", "_raw", "strategies", "_numpy_bits", "_numpy_floats",
     "_numpy_dtypes", "_numpy_tensor", "_numpy_sparse", "numpy_helper", "cli",
     "text_format", "json_format", "helper", "checker", "fuzz", "_corpus", "_mutate",
     "serialization", "external_data_helper", "_tensor_io",
     "__init__", "__main__"},
]  # fmt: skip


def _layer(module: str) -> int:
    for i, names in enumerate(LAYERS):
        if module in names:
            return i
    raise AssertionError(f"onnxdata/{module}.py is in no layer: add it to LAYERS and the docs")


def _modules() -> list[Path]:
    return sorted(PACKAGE.glob("*.py"))


def _top_level_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    """Relative imports executed when the module is imported (not under TYPE_CHECKING)."""
    found: list[ast.ImportFrom] = []

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.level:
                found.append(node)
            elif isinstance(node, ast.If):
                if "TYPE_CHECKING" not in ast.unparse(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)

    visit(tree.body)
    return found


def _imported_module(node: ast.ImportFrom, alias: ast.alias) -> str:
    if node.module:
        return node.module.split(".")[0]
    return "__init__" if alias.name.startswith("__") else alias.name  # from . import __version__


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.name)
def test_imports_point_down(path: Path) -> None:
    here = _layer(path.stem)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in _top_level_imports(tree):
        for alias in node.names:
            target = _imported_module(node, alias)
            assert _layer(target) <= here, (
                f"{path.name}:{node.lineno} imports {target} from a higher layer"
            )


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.name)
def test_no_private_name_crosses_a_module(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            for alias in node.names:
                if node.module is None:  # from . import _x (as y)
                    modules.add(alias.asname or alias.name)
                else:
                    private = alias.name.startswith("_") and not alias.name.startswith("__")
                    assert not private, f"{path.name}:{node.lineno} imports {alias.name}"
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            name = node.attr
            assert not (name.startswith("_") and not name.startswith("__")), (
                f"{path.name}:{node.lineno} uses {node.value.id}.{name}"
            )


@pytest.mark.parametrize("field", ["doc_string", "metadata_props"])
def test_a_field_is_named_in_at_most_two_modules(field: str) -> None:
    naming = [p.name for p in _modules() if field in p.read_text(encoding="utf-8")]
    assert len(naming) <= 2, naming
