"""What onnx's checker carries from a model down to each node: the contexts.

``CheckerContext`` is onnx's ``C.CheckerContext``: the IR version and opset
imports the model declares, whether the graph at hand is the main one, the
folder external data is read from, and the two switches of ``check_model``.
``LexicalScopeContext`` is the set of value names a graph defines, linked to
the scope of the graph that holds it, so that a subgraph sees the names of
its enclosing graphs (and no shadowing is allowed).

``fail`` raises the checker's error with onnx's text; :func:`within` adds a
field to its path as it climbs back through the walk, so the path costs
nothing until something fails.
"""

from __future__ import annotations

from .._core.errors import ValidationError
from .check import Violation

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import NoReturn

__all__ = ["CheckerContext", "LexicalScopeContext", "add_context", "c_string", "fail", "within"]


class CheckerContext:
    """onnx's ``checker.C.CheckerContext``: what the checks of a graph, node or
    function need to know of the model around them.

    ``ir_version`` is -1 and ``opset_imports`` empty until set, as onnx's;
    ``model_dir`` (where external data files are looked for, ``""``: the
    current directory), ``is_main_graph``, ``skip_opset_compatibility_check``
    and ``check_custom_domain`` are onnx's C++ fields, which its Python class
    does not expose (onnxdata's does).
    """

    __slots__ = (
        "check_custom_domain",
        "depth",
        "ir_version",
        "is_main_graph",
        "model_dir",
        "opset_imports",
        "schemas",
        "skip_opset_compatibility_check",
    )

    def __init__(self) -> None:
        self.ir_version: int = -1
        self.opset_imports: dict[str, int] = {}
        self.is_main_graph: bool = True
        self.model_dir: str = ""
        self.skip_opset_compatibility_check: bool = False
        self.check_custom_domain: bool = False
        # onnxdata's: how deep the graph at hand is nested, and the operator
        # schemas one check has looked up (shared by the copies of a check).
        self.depth: int = 0
        self.schemas: object = None

    def copy(self) -> CheckerContext:
        """A copy (C++ copies the context for a subgraph or a function body)."""
        made = CheckerContext()
        made.ir_version = self.ir_version
        made.opset_imports = self.opset_imports
        made.is_main_graph = self.is_main_graph
        made.model_dir = self.model_dir
        made.skip_opset_compatibility_check = self.skip_opset_compatibility_check
        made.check_custom_domain = self.check_custom_domain
        made.depth = self.depth
        made.schemas = self.schemas
        return made

    def __repr__(self) -> str:
        return (
            f"CheckerContext(ir_version={self.ir_version}, opset_imports={self.opset_imports!r}, "
            f"is_main_graph={self.is_main_graph}, model_dir={self.model_dir!r})"
        )


class LexicalScopeContext:
    """onnx's ``checker.C.LexicalScopeContext``: the names a graph defines, and the
    scope of the graph that encloses it (``parent``), looked up by
    :meth:`this_or_ancestor_graph_has`.

    The parent is linked, not copied, as in onnx: a subgraph is checked while
    its node is checked, so it sees the names defined before that node.
    """

    __slots__ = ("output_names", "parent")

    def __init__(self, parent: LexicalScopeContext | None = None) -> None:
        self.parent = parent
        self.output_names: set[str] = set()

    def add(self, name: str) -> None:
        self.output_names.add(name)

    def this_graph_has(self, name: str) -> bool:
        return name in self.output_names

    def this_or_ancestor_graph_has(self, name: str) -> bool:
        scope: LexicalScopeContext | None = self
        while scope is not None:
            if name in scope.output_names:
                return True
            scope = scope.parent
        return False


def fail(*parts: object) -> NoReturn:
    """Raise the checker's :class:`ValidationError`, its text ``parts`` joined as
    onnx's ``MakeString`` joins them; ``err.violations`` holds the one
    :class:`Violation` (its path filled in by :func:`within`)."""
    text = "".join(map(str, parts))
    raise ValidationError(c_string(text), [Violation("", text)])


def c_string(text: str) -> str:
    """``text`` as onnx's error shows it: up to its first NUL character, where
    a C++ exception's ``what()`` ends (a name holding one is cut there).  The
    whole text stays in the error's violation."""
    return text.split("\0", 1)[0]


def within(err: ValidationError, field: str) -> None:
    """Put ``field`` (``"node[3]"``, ``"ModelProto"``) before ``err.path`` as the
    error climbs out of the message that holds the field."""
    err.path = f"{field}.{err.path}" if err.path else field
    for v in err.violations:
        if isinstance(v, Violation):
            v.path = err.path


def add_context(err: ValidationError, context: str) -> None:
    """onnx's ``ValidationError::AppendContext``: the error's text becomes its
    first text and ``context``; a later call (an enclosing node) replaces an
    earlier one, as in onnx."""
    base = next((v.message for v in err.violations if isinstance(v, Violation)), str(err))
    err.args = (c_string(f"{c_string(base)}\n\n==> Context: {context}"),)
