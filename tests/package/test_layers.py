"""The folder tree is the architecture, and the code keeps to it.

``onnxdata/`` holds at its top only public modules; every internal module sits in a
subpackage named after its layer.  ``LAYERS`` lists the layers from the bottom up, as
docs/architecture.md draws them:

- every import, at module level *or inside a function* (only ``if TYPE_CHECKING:``
  blocks are left out: they run under a type checker, never at run time), points to
  the same layer or a lower one, and nothing internal imports a public module;
- the import graph of the whole package has no cycle;
- no module takes another's private name: neither ``from .x import _y`` nor ``x._y``.

That the knowledge of a field lives in the schema (no field's name or number
written again outside it) is checked for every field by test_schema_knowledge.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import onnxdata

PACKAGE = Path(onnxdata.__file__).parent

# From the bottom up.  A subpackage not listed here fails test_every_folder_is_a_layer.
LAYERS = [
    "_core", "_codec", "_text", "_messages", "_defs", "_syntax", "_infer", "_io", "_tools",
    "_numpy", "_fuzz",
]  # fmt: skip
PUBLIC = len(LAYERS)  # the top-level modules: the public faces

# Upward imports that are known and due to go: (importing module, imported module).
KNOWN_UPWARD: set[tuple[str, str]] = set()
# Imports within a layer that close a cycle, known and due to go.
KNOWN_CYCLE_EDGES: set[tuple[str, str]] = set()


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _dotted(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _layer(dotted: str) -> int:
    head = dotted.split(".")[0]
    if head in LAYERS:
        return LAYERS.index(head)
    assert not head.startswith("_") or head in ("", "__init__", "__main__"), (
        f"onnxdata/{head} is a private name at the top level: put it in a layer's folder"
    )
    return PUBLIC


def _runtime_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    """Relative imports that can run: at module level or in a function, not under TYPE_CHECKING."""
    found: list[ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.level:
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _targets(path: Path, node: ast.ImportFrom) -> list[str]:
    """The modules of the package that ``node`` (in ``path``) imports, dotted from the package."""
    here = _dotted(path).split(".") if _dotted(path) else []
    package = here if path.name == "__init__.py" else here[:-1]
    base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
    if node.module:
        module = [*base, *node.module.split(".")]
        return [".".join(module)]
    found = []
    for alias in node.names:  # from . import x: a module, or a name of the package
        candidate = [*base, alias.name]
        if (PACKAGE.joinpath(*candidate).with_suffix(".py")).exists() or PACKAGE.joinpath(
            *candidate, "__init__.py"
        ).exists():
            found.append(".".join(candidate))
        else:
            found.append(".".join(base))
    return found


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        edges = graph.setdefault(_dotted(path), set())
        for node in _runtime_imports(tree):
            edges.update(t for t in _targets(path, node) if t != _dotted(path))
    return graph


def test_the_top_level_holds_only_public_modules() -> None:
    tops = ("__init__.py", "__main__.py")
    private = [p.name for p in PACKAGE.glob("_*.py") if p.name not in tops]
    assert private == [], f"private modules at the top of onnxdata/: {private}"


def test_every_folder_is_a_layer() -> None:
    folders = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert folders <= set(LAYERS), f"folders in no layer: {sorted(folders - set(LAYERS))}"


def test_no_file_name_is_used_twice() -> None:
    """A module's file name says its job, so two jobs never share one: ``writing.py`` in two
    layers made every mention ambiguous (``__init__.py`` and ``__main__.py`` excepted)."""
    seen: dict[str, list[str]] = {}
    for path in _modules():
        if path.name not in ("__init__.py", "__main__.py"):
            seen.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    assert {name: where for name, where in seen.items() if len(where) > 1} == {}


@pytest.mark.parametrize("path", _modules(), ids=lambda p: _dotted(p) or "__init__")
def test_imports_point_down(path: Path) -> None:
    here = _layer(_dotted(path))
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in _runtime_imports(tree):
        for target in _targets(path, node):
            if (_dotted(path), target) in KNOWN_UPWARD:
                continue
            assert _layer(target) <= here, (
                f"{_dotted(path)}:{node.lineno} imports {target} from a higher layer"
            )
            if here < PUBLIC:
                assert _layer(target) < PUBLIC or target == "", (
                    f"{_dotted(path)}:{node.lineno} imports the public module {target}"
                )


def test_known_exceptions_still_exist() -> None:
    """An entry of KNOWN_UPWARD or KNOWN_CYCLE_EDGES that the code no longer has is removed."""
    graph = _graph()
    known = KNOWN_UPWARD | KNOWN_CYCLE_EDGES
    stale = {(a, b) for a, b in known if b not in graph.get(a, set())}
    assert stale == set(), stale


def test_the_import_graph_has_no_cycle() -> None:
    graph = {
        module: {t for t in targets if (module, t) not in KNOWN_UPWARD | KNOWN_CYCLE_EDGES}
        for module, targets in _graph().items()
    }
    done: set[str] = set()
    stack: list[str] = []

    def visit(module: str) -> None:
        if module in stack:
            cycle = [*stack[stack.index(module) :], module]
            raise AssertionError("import cycle: " + " -> ".join(m or "onnxdata" for m in cycle))
        if module in done:
            return
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if target in graph and target != "":  # the package itself is loaded first anyway
                visit(target)
        stack.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: _dotted(p) or "__init__")
def test_no_private_name_crosses_a_module(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            for alias in node.names:
                if node.module is None:  # from . import x (as y)
                    modules.add(alias.asname or alias.name)
                else:
                    private = alias.name.startswith("_") and not alias.name.startswith("__")
                    assert not private, f"{_dotted(path)}:{node.lineno} imports {alias.name}"
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            name = node.attr
            assert not (name.startswith("_") and not name.startswith("__")), (
                f"{_dotted(path)}:{node.lineno} uses {node.value.id}.{name}"
            )
