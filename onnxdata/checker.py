"""``onnx.checker``: onnx's checker with the operator schemas, in pure Python.

``check_model`` (a model, its bytes or a path), ``check_graph``,
``check_node``, ``check_function``, ``check_attribute`` and
``check_value_info`` are onnx 1.23.2's checks (``checker.cc``, and
``OpSchema::Verify`` of ``schema.cc`` for a node against its operator's
schema, from :mod:`onnxdata.defs`), in onnx's order: the first rule broken
raises :class:`ValidationError` with onnx's text, and ``err.path`` says
where (``"ModelProto.graph.node[3].attribute[0]"``).  ``C`` holds the
contexts (``C.CheckerContext``, ``C.LexicalScopeContext``) and the
bytes-taking functions of onnx's ``onnx_cpp2py_export.checker``.

What differs from onnx in these (docs/compat.md): ``full_check=True`` runs
every check but shape inference (which onnxdata does not have yet) and says
so with a ``RuntimeWarning``; a model file above 2 GiB, or a ModelProto
object that would encode to more, is checked (onnx cannot parse the one and
asks for a path for the other); when a model has several cycles of local
function calls, the one named is the first met in the model's order.

``check_tensor`` and ``check_sparse_tensor`` called on their own keep
onnxdata's stricter rules (``check_model`` applies onnx's to the tensors of a
model), and so do ``check_sequence``, ``check_map`` and ``check_optional``
(onnx has them in C++ only).  ``check_test_case`` (onnxdata's own) checks an
onnx test-case folder: its model against the rules that need no operator
schema, and each ``test_data_set_*`` file against the type the model
declares for it.

What differs from onnx in the data checks:

* Counts are exact: a tensor with more values than its dims need is refused
  (onnx accepts any surplus), and the 4- and 2-bit types need one
  ``int32_data`` value per byte of packed data, as ``make_tensor`` writes
  them (onnx asks for one per 4 bytes, so it accepts a tensor that holds too
  few values).  BOOL ``raw_data`` bytes must be 0 or 1.
* A tensor with a ``segment`` holds part of the data: its counts are not
  checked (onnx checks them against the whole dims and so refuses it).
* An external tensor's location is judged as a path (relative, inside the
  base directory) without touching the file system; onnx looks for the file
  in the current directory.
* ``ctx`` is accepted for onnx's signature and not used: no rule for data
  messages depends on the IR version or the opsets.
* :class:`ValidationError` is also a ``ValueError``.
"""

from __future__ import annotations

import os
from functools import partial

from ._core.errors import ValidationError
from ._core.schema import spec_of
from ._core.walk import Step, message_children, walk
from ._defs.registry import schema_version_map
from ._messages.convert import as_message
from ._messages.declarations import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from ._messages.graphs import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    ValueInfoProto,
)
from ._messages.versions import IR_VERSION
from ._tools import checker_graphs as _graphs
from ._tools import checker_models as _models
from ._tools.check import Violation, check
from ._tools.checker_context import CheckerContext, LexicalScopeContext
from ._tools.checker_functions import check_function as _check_function
from ._tools.checker_schemas import SchemaCache
from ._tools.makers import find_min_ir_version_for
from ._tools.testcase import check_test_case as _test_case_violations

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterator
    from typing import Any

    from ._core.schema import FieldSpec

__all__ = [
    "DEFAULT_CONTEXT",  # noqa: F822 - made on first use (module __getattr__)
    "LEXICAL_SCOPE_CONTEXT",
    "MAXIMUM_PROTOBUF",
    "C",
    "ValidationError",
    "check_attribute",
    "check_function",
    "check_graph",
    "check_map",
    "check_model",
    "check_node",
    "check_optional",
    "check_sequence",
    "check_sparse_tensor",
    "check_tensor",
    "check_test_case",
    "check_value_info",
]

MAXIMUM_PROTOBUF = _models.MAXIMUM_PROTOBUF
"""The largest message protobuf parses (2 GiB - 1 byte), as in onnx."""

_DT = TensorProto.DataType

_DEFAULTS: list[CheckerContext] = []


def _default_context() -> CheckerContext:
    """onnx's ``DEFAULT_CONTEXT``: the newest IR version and ONNX opset, made on
    first use (the opset is the catalog's, which loads then, not at import)."""
    if not _DEFAULTS:
        made = CheckerContext()
        made.ir_version = IR_VERSION
        made.opset_imports = {"": schema_version_map()[""][1]}
        _DEFAULTS.append(made)
    return _DEFAULTS[0]


def __getattr__(name: str) -> Any:
    """``DEFAULT_CONTEXT``, made on first use: making it at import loads the
    operator catalog, 2.1 ms more than the 15.7 ms ``import onnxdata.checker``
    takes (CPython 3.11, CPU time, best of 20 fresh processes).

    Raises:
        AttributeError: any other name.
    """
    if name == "DEFAULT_CONTEXT":
        return _default_context()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


LEXICAL_SCOPE_CONTEXT = LexicalScopeContext()
"""onnx's default scope: no enclosing graph."""


def _context(ctx: Any) -> CheckerContext:
    """A copy of ``ctx`` (onnxdata's, or onnx's ``C.CheckerContext``; None:
    ``DEFAULT_CONTEXT``) for one check, with the schema lookups of that check
    alone."""
    if ctx is None:
        made = _default_context().copy()
    elif isinstance(ctx, CheckerContext):
        made = ctx.copy()
    else:
        made = CheckerContext()
        made.ir_version = int(ctx.ir_version)
        made.opset_imports = dict(ctx.opset_imports)
    made.schemas = SchemaCache()
    return made


def _scope(lexical_scope_ctx: Any) -> LexicalScopeContext:
    if isinstance(lexical_scope_ctx, LexicalScopeContext):
        return lexical_scope_ctx
    return LEXICAL_SCOPE_CONTEXT  # onnx's own holds nothing Python can read


def check_model(
    model: ModelProto | str | bytes | os.PathLike[str],
    full_check: bool = False,
    skip_opset_compatibility_check: bool = False,
    check_custom_domain: bool = False,
) -> None:
    """Check a model as onnx's checker does, operator schemas included.

    ``model`` is a ModelProto (onnxdata's or onnx's), its bytes, or the path
    of its file (memory-mapped; external data is looked for beside it, and a
    file above 2 GiB is checked too).  ``skip_opset_compatibility_check``
    skips comparing a local function's opset imports with the model's;
    ``check_custom_domain`` also refuses operators of other domains that have
    no schema.  ``full_check`` would run shape inference after the checks,
    which onnxdata does not have yet: every other check runs, then a
    ``RuntimeWarning`` says that inference did not.

    Raises:
        ValidationError: (a ``ValueError``) the first rule broken, with onnx's
            text; ``err.path`` is the field path.  Also a file that cannot be
            opened or parsed, as onnx.
        ValueError: bytes above :data:`MAXIMUM_PROTOBUF` or that do not
            decode (onnx's texts).
        TypeError: ``model`` is not a model, bytes or a path.
        MappedFileError: (an ``OSError``) sparse indices are views of a file
            loaded with ``mmap=True`` that shrank since.

    Warns:
        RuntimeWarning: ``full_check=True``: shape inference did not run.
    """
    _models.check_model(
        model, full_check, skip_opset_compatibility_check, check_custom_domain, MAXIMUM_PROTOBUF
    )


def check_graph(
    graph: GraphProto, ctx: Any = None, lexical_scope_ctx: Any = LEXICAL_SCOPE_CONTEXT
) -> None:
    """Check a graph (onnx's ``check_graph``) in the context ``ctx``: its IR
    version and opset imports, whether it is the main graph.

    Raises:
        ValidationError: the first rule broken, onnx's text; ``err.path``.
        TypeError: ``graph`` is not a GraphProto.
    """
    graph = as_message(graph, GraphProto)
    _models.guarded(
        graph, partial(_graphs.check_graph, graph, _context(ctx), _scope(lexical_scope_ctx))
    )


def check_node(
    node: NodeProto, ctx: Any = None, lexical_scope_ctx: Any = LEXICAL_SCOPE_CONTEXT
) -> None:
    """Check a node against its operator's schema (onnx's ``check_node``).

    Raises:
        ValidationError: the first rule broken, onnx's text; ``err.path``.
        TypeError: ``node`` is not a NodeProto.
    """
    node = as_message(node, NodeProto)
    _models.guarded(
        node, partial(_graphs.check_node, node, _context(ctx), _scope(lexical_scope_ctx))
    )


def check_attribute(
    attr: AttributeProto, ctx: Any = None, lexical_scope_ctx: Any = LEXICAL_SCOPE_CONTEXT
) -> None:
    """Check an attribute's form and the tensors and graphs it holds (onnx's
    ``check_attribute``; no schema: which attributes an operator takes is
    ``check_node``'s).

    Raises:
        ValidationError: the first rule broken, onnx's text; ``err.path``.
        TypeError: ``attr`` is not an AttributeProto.
    """
    attr = as_message(attr, AttributeProto)
    _models.guarded(
        attr, partial(_graphs.check_attribute, attr, _context(ctx), _scope(lexical_scope_ctx))
    )


def check_value_info(value_info: ValueInfoProto, ctx: Any = None) -> None:
    """Check a graph input's or output's name and, in the main graph, its type.

    Raises:
        ValidationError: the first rule broken, onnx's text.
        TypeError: ``value_info`` is not a ValueInfoProto.
    """
    value_info = as_message(value_info, ValueInfoProto)
    _models.guarded(value_info, partial(_graphs.check_value_info, value_info, _context(ctx)))


def check_function(
    function: FunctionProto, ctx: Any = None, lexical_scope_ctx: Any = LEXICAL_SCOPE_CONTEXT
) -> None:
    """Check a function (onnx's ``check_function``).  Without ``ctx``, its own
    opset imports are the context, and the IR version the oldest that has
    them, as onnx does.

    Raises:
        ValidationError: the first rule broken, onnx's text; ``err.path``.
        TypeError: ``function`` is not a FunctionProto.
    """
    function = as_message(function, FunctionProto)
    if ctx is None:
        ctx = CheckerContext()
        ctx.ir_version = find_min_ir_version_for(function.opset_import, ignore_unknown=True)
        ctx.opset_imports = {e.domain: e.version for e in function.opset_import}
    _models.guarded(
        function, partial(_check_function, function, _context(ctx), _scope(lexical_scope_ctx))
    )


class C:
    """onnx's ``onnx_cpp2py_export.checker``: the contexts, the error, and the
    checks taking a message's bytes."""

    CheckerContext = CheckerContext
    LexicalScopeContext = LexicalScopeContext
    ValidationError = ValidationError

    @staticmethod
    def check_model(
        bytes: bytes,
        full_check: bool = False,
        skip_opset_compatibility_check: bool = False,
        check_custom_domain: bool = False,
    ) -> None:
        _models.check_model(bytes, full_check, skip_opset_compatibility_check, check_custom_domain)

    @staticmethod
    def check_model_path(
        path: str,
        full_check: bool = False,
        skip_opset_compatibility_check: bool = False,
        check_custom_domain: bool = False,
    ) -> None:
        _models.check_model_path(path, full_check, skip_opset_compatibility_check,
                                 check_custom_domain)  # fmt: skip

    @staticmethod
    def check_graph(data: bytes, ctx: Any, lexical_scope_ctx: Any) -> None:
        check_graph(GraphProto.decode(data), ctx, lexical_scope_ctx)

    @staticmethod
    def check_node(data: bytes, ctx: Any, lexical_scope_ctx: Any) -> None:
        check_node(NodeProto.decode(data), ctx, lexical_scope_ctx)

    @staticmethod
    def check_attribute(data: bytes, ctx: Any, lexical_scope_ctx: Any) -> None:
        check_attribute(AttributeProto.decode(data), ctx, lexical_scope_ctx)

    @staticmethod
    def check_function(data: bytes, ctx: Any, lexical_scope_ctx: Any) -> None:
        check_function(FunctionProto.decode(data), ctx, lexical_scope_ctx)

    @staticmethod
    def check_value_info(data: bytes, ctx: Any) -> None:
        check_value_info(ValueInfoProto.decode(data), ctx)

    @staticmethod
    def check_tensor(data: bytes, ctx: Any) -> None:
        check_tensor(TensorProto.decode(data), ctx)

    @staticmethod
    def check_sparse_tensor(data: bytes, ctx: Any) -> None:
        check_sparse_tensor(SparseTensorProto.decode(data), ctx)


def check_tensor(tensor: TensorProto, ctx: Any = None) -> None:
    """Check a TensorProto (onnxdata's or onnx's) against the ONNX rules.

    Raises:
        ValidationError: (a ``ValueError``) a rule is broken; the message
            lists every broken rule.
        TypeError: ``tensor`` is not a TensorProto.
    """
    _validate(as_message(tensor, TensorProto))


def check_sparse_tensor(sparse: SparseTensorProto, ctx: Any = None) -> None:
    """Check a SparseTensorProto: its values and indices as tensors, the indices in
    range, ascending and unique (linear ``[NNZ]`` or COO ``[NNZ, rank]``).

    Raises:
        ValidationError: (a ``ValueError``) a rule is broken.
        TypeError: ``sparse`` is not a SparseTensorProto.
    """
    _validate(as_message(sparse, SparseTensorProto))


def check_sequence(sequence: SequenceProto, ctx: Any = None) -> None:
    """Check a SequenceProto and every element in it.

    Raises:
        ValidationError: (a ``ValueError``) a rule is broken.
        TypeError: ``sequence`` is not a SequenceProto.
    """
    _validate(as_message(sequence, SequenceProto))


def check_map(map: MapProto, ctx: Any = None) -> None:
    """Check a MapProto: key type, unique keys, as many values as keys, and the values.

    Raises:
        ValidationError: (a ``ValueError``) a rule is broken.
        TypeError: ``map`` is not a MapProto.
    """
    _validate(as_message(map, MapProto))


def check_optional(optional: OptionalProto, ctx: Any = None) -> None:
    """Check an OptionalProto and the value it holds, if any.

    Raises:
        ValidationError: (a ``ValueError``) a rule is broken.
        TypeError: ``optional`` is not an OptionalProto.
    """
    _validate(as_message(optional, OptionalProto))


def check_test_case(folder: str | os.PathLike[str]) -> None:
    """Check an onnx test-case folder: ``model.onnx`` (every tensor's rules and the
    model rules that need no operator schema) and each ``test_data_set_*/input_<i>.pb``
    and ``output_<i>.pb``, decoded as the type the graph's ``i``-th input or output
    declares, against the data rules and that type.

    Raises:
        ValidationError: (a ``ValueError``) a rule is broken, a data file does not
            fit its type or cannot be decoded; every violation is listed, paths
            starting with the file (``model.onnx: ModelProto.graph.name``).
        ValueError: the folder holds no ``model.onnx``.
        DecodeError: ``model.onnx`` is not a model.
        OSError: ``model.onnx`` cannot be read, or the folder listed.
    """
    found = _test_case_violations(os.fspath(folder))
    if found:
        raise ValidationError("\n".join(map(str, found)), found)


def _validate(message: Message) -> None:
    found = list(_required(message)) + check(message)
    if found:
        raise ValidationError("\n".join(map(str, found)), found)


def _walk(root: Message) -> Iterator[tuple[str, Any]]:
    """Every message in ``root`` with its path, depth first, each met once (the
    package's one walk); only the sub-messages that are set and of their
    field's class.  A cycle or a mistyped value is left to ``check()``, which
    reports it."""
    for step in walk([(spec_of(type(root)).name, root, None)], message_children, _reported):
        yield step.text(), step.obj


def _reported(where: Step, first: Step) -> None:
    """A message met inside itself: ``check()`` reports the cycle."""


def _required(root: Message) -> Iterator[Violation]:
    """The rules onnx's checker adds to :func:`onnxdata.check`, for every message inside."""
    for path, msg in _walk(root):
        for cls in type(msg).__mro__:  # a subclass of a message gets its rules
            rule = _REQUIRED.get(cls)
            if rule is not None:
                yield from rule(path, msg)
                break


def _missing(msg: Any, field: FieldSpec) -> bool:
    """Whether ``field`` of ``msg`` is unset (as ``not HasField``), read as held: a
    slot that was deleted is missing too (``check()`` reports it)."""
    try:
        return field.held(msg) is None
    except AttributeError:  # deleted
        return True


_TENSOR, _MAP = spec_of(TensorProto).named, spec_of(MapProto).named
_SEQUENCE, _OPTIONAL = spec_of(SequenceProto).named, spec_of(OptionalProto).named


def _tensor_required(path: str, msg: Any) -> Iterator[Violation]:
    if _missing(msg, _TENSOR.data_type):
        yield Violation(f"{path}.data_type", "Field 'data_type' of 'tensor' is required "
                                             "but missing.")  # fmt: skip
    elif msg.data_type == _DT.UNDEFINED:
        yield Violation(
            f"{path}.data_type",
            f"setting data_type field (tensor name: {msg.name or ''}) to UNDEFINED is not allowed",
        )


def _sparse_required(path: str, msg: Any) -> Iterator[Violation]:
    dims = msg.dims
    if not (isinstance(dims, (list, tuple)) or hasattr(dims, "typecode")):
        return  # dims of the wrong type: check() reports it
    name = msg.values.name if isinstance(msg.values, TensorProto) else None
    if not dims:
        yield Violation(f"{path}.dims", f"Sparse tensor ({name or ''}) must have a "
                                        "dense-rank > 0")  # fmt: skip
    elif any(isinstance(d, int) and d == 0 for d in dims):
        yield Violation(f"{path}.dims", f"Sparse tensor ({name or ''}) dimensions "
                                        "are not positive.")  # fmt: skip


def _element_required(path: str, msg: Any) -> Iterator[Violation]:
    """A sequence's or optional's element type is set, and one it may hold."""
    sequence = isinstance(msg, SequenceProto)
    what = "sequence" if sequence else "optional"
    if _missing(msg, _SEQUENCE.elem_type if sequence else _OPTIONAL.elem_type):
        yield Violation(f"{path}.elem_type", f"Field 'elem_type' of '{what}' is "
                                             "required but missing.")  # fmt: skip
    elif msg.elem_type == SequenceProto.OPTIONAL or (
        isinstance(msg, SequenceProto) and msg.elem_type == SequenceProto.UNDEFINED
    ):
        yield Violation(
            f"{path}.elem_type",
            f"{what.capitalize()} ( Structure name: {msg.name or ''}, "
            f"elem_type: {msg.elem_type}) is not have a valid element type.",
        )


def _map_required(path: str, msg: Any) -> Iterator[Violation]:
    if _missing(msg, _MAP.key_type):
        yield Violation(f"{path}.key_type", "Field 'key_type' of 'map' is required "
                                            "but missing.")  # fmt: skip
    if _missing(msg, _MAP.values):
        yield Violation(f"{path}.values", "Field 'values' of 'map' is required "
                                          "but missing.")  # fmt: skip


_REQUIRED: dict[type, Callable[[str, Any], Iterator[Violation]]] = {
    TensorProto: _tensor_required,
    SparseTensorProto: _sparse_required,
    SequenceProto: _element_required,
    OptionalProto: _element_required,
    MapProto: _map_required,
}
"""What onnx's checker asks of each message before it is used, by class."""
