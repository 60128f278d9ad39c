"""Which of onnx's own tests onnxdata must pass: the in-scope selection.

A test is in scope unless what it runs names something of onnx that needs
onnx's C++ and onnxdata does not reproduce (shape inference, the textual
parser and printer, the reference evaluator, the version converter, the
operator schemas of ``onnx.defs``; the checker is in scope) or a module
onnxdata does not reproduce (``compose``,
``inliner``, ``hub``, ``utils``, ``tools``, ``model_container``).  "What it
runs" is read from the source, not guessed from the test's name: the test
function with its decorators, its class's decorators, the fixtures it asks
for and the autouse ones, and, transitively, every method of its class (and
bases) reached through ``self.``, and every function or class of its module
called by name.  A test that parses its model in an autouse fixture is
therefore out, even when its own body only reads a tensor.

The rule is mechanical so that the count can be reproduced and audited: the
runner prints every test with the name that took it out of scope.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

# The test files of onnx's ``tests/python`` about messages, helper, the data
# checks, serialization and (model) external data.
FILES = (
    "basic_test.py",
    "checker_test.py",
    "external_data_test.py",
    "helper_test.py",
    "inliner_test.py",
    "numpy_helper_test.py",
    "parser_test.py",
    "printer_test.py",
    "schema_test.py",
    "serialization_test.py",
)

# Names of onnx whose behaviour is its C++ (or a module onnxdata does not reproduce).
OUT_OF_SCOPE = frozenset(
    {
        # shape and type inference
        "InferenceError", "infer_function_output_types", "infer_node_outputs",
        "infer_shapes", "infer_shapes_path", "shape_inference",
        # the reference evaluator, the version converter
        "ReferenceEvaluator", "reference", "convert_version", "version_converter",
        # modules about models that onnxdata does not reproduce
        "compose", "hub", "model_container", "tools", "utils",
    }
)  # fmt: skip

# Names that are out of scope only as attributes of ``onnx`` (none at present:
# ``onnx.load``/``onnx.save`` are in scope since the model messages exist).
OUT_OF_SCOPE_ON_ONNX: frozenset[str] = frozenset()

# Parameters of a parametrized test that are out of scope, by their id (none at
# present: onnx's "onnxtxt" format is in scope since the parser and printer exist).
OUT_OF_SCOPE_PARAMETERS: frozenset[str] = frozenset()

_SETUP = frozenset({"setup", "setUp", "setup_method", "setup_class", "setUpClass"})


@dataclass(frozen=True)
class Verdict:
    """One test function of a file: its pytest name (``Class::test`` or ``test``)
    and the out-of-scope name that excludes it (``""`` when it is in scope)."""

    name: str
    excluded_by: str


def _fixture(node: ast.AST) -> tuple[bool, bool]:
    """(is a pytest fixture, is autouse) for a function definition."""
    if not isinstance(node, ast.FunctionDef):
        return False, False
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if ast.unparse(target).endswith("fixture"):
            autouse = isinstance(deco, ast.Call) and any(
                k.arg == "autouse" and ast.unparse(k.value) == "True" for k in deco.keywords
            )
            return True, autouse
    return False, False


class _Module:
    """The module's functions and classes, for following what a test runs."""

    def __init__(self, tree: ast.Module) -> None:
        self.functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        self.classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def members(self, cls: ast.ClassDef) -> dict[str, ast.FunctionDef]:
        """The methods of ``cls`` and its bases in this module, the class's own first."""
        found: dict[str, ast.FunctionDef] = {}
        for base in cls.bases:
            parent = self.classes.get(ast.unparse(base))
            if parent is not None:
                found.update(self.members(parent))
        found.update({n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)})
        return found

    def decorators(self, cls: ast.ClassDef) -> list[ast.expr]:
        found = list(cls.decorator_list)
        for base in cls.bases:
            parent = self.classes.get(ast.unparse(base))
            if parent is not None:
                found.extend(self.decorators(parent))
        return found

    def reached(self, test: ast.FunctionDef, cls: ast.ClassDef | None) -> list[ast.AST]:
        """Every node the test runs, following ``self.`` methods and module names."""
        methods = self.members(cls) if cls is not None else {}
        start: list[ast.AST] = [test]
        if cls is not None:
            start.extend(self.decorators(cls))
            start.extend(m for name, m in methods.items() if name in _SETUP or _fixture(m)[1])
        asked = {a.arg for a in test.args.args}
        start.extend(m for name, m in methods.items() if name in asked and _fixture(m)[0])
        start.extend(f for name, f in self.functions.items() if name in asked and _fixture(f)[0])
        seen: set[int] = set()
        todo = start
        out: list[ast.AST] = []
        while todo:
            node = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            out.append(node)
            for sub in ast.walk(node):
                if (
                    isinstance(sub, ast.Attribute)
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id in ("self", "cls")
                    and sub.attr in methods
                ):
                    todo.append(methods[sub.attr])
                elif isinstance(sub, ast.Name):
                    if sub.id in self.functions:
                        todo.append(self.functions[sub.id])
                    elif sub.id in self.classes:
                        todo.append(self.classes[sub.id])
        return out


def _excluding_name(nodes: list[ast.AST]) -> str:
    """The first out-of-scope name the nodes use, ``""`` if none."""
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id in OUT_OF_SCOPE:
                return sub.id
            if isinstance(sub, ast.Attribute):
                if sub.attr in OUT_OF_SCOPE:
                    return sub.attr
                if (
                    sub.attr in OUT_OF_SCOPE_ON_ONNX
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id == "onnx"
                ):
                    return f"onnx.{sub.attr}"
    return ""


def verdicts(source: str) -> list[Verdict]:
    """Every test function of the module ``source`` with its verdict."""
    tree = ast.parse(source)
    module = _Module(tree)
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            found.append(Verdict(node.name, _excluding_name(module.reached(node, None))))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for name, method in module.members(node).items():
                if name.startswith("test"):
                    reached = module.reached(method, node)
                    found.append(Verdict(f"{node.name}::{name}", _excluding_name(reached)))
    return found
