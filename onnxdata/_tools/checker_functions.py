"""onnx's checks of functions: a model's local functions and ``check_function``.

onnx 1.23.2's ``check_function``, ``check_opset_compatibility``,
``check_function_call_cycles`` and ``check_model_local_functions``
(``checker.cc``), in its order and with its messages.  A function's nodes
are checked against the function's own opset imports; where the model
imports the same domain at another version, the node's operator must have
the same schema at both (unless ``skip_opset_compatibility_check``).  A
local function must not call itself, directly or through others, through
its nodes' subgraphs included.

onnx finds a cycle by walking hash tables, so when a model has several
cycles, or a cycle can be entered at several functions, which one its
message names depends on its hashing; here the functions are walked in the
model's order (docs/compat.md).
"""

from __future__ import annotations

from .._core.errors import ValidationError
from .._core.schema import spec_of
from .._messages.graphs import AttributeProto, FunctionProto
from .checker_context import CheckerContext, LexicalScopeContext, fail, within
from .checker_graphs import (
    EXPERIMENTAL_OPS,
    MAX_GRAPH_DEPTH,
    PARSE_FAILED,
    check_node,
    schemas_of,
    warn_experimental,
)

# Fields named through the schema: a rename in the declarations fails here, at import.
_FUNCTION_DOMAIN = spec_of(FunctionProto).named.domain.name
_G = spec_of(AttributeProto).named.g.name

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = [
    "check_function",
    "check_function_call_cycles",
    "check_model_local_functions",
    "check_opset_compatibility",
    "checked_opset_version",
    "function_id",
]

_INT_RANGE = (-(1 << 31), (1 << 31) - 1)
MAX_LOCAL_FUNCTIONS = 10000
MAX_CALL_DEPTH = 100


def checked_opset_version(version: int) -> int:
    """An opset version as onnx's ``int``. Raises ValidationError beyond int32."""
    if not _INT_RANGE[0] <= version <= _INT_RANGE[1]:
        fail("Opset import version ", version, " is out of supported range")
    return version


def _imports(entries: Any) -> dict[str, int]:
    """Opset imports as onnx's map: a domain imported twice keeps its last version."""
    return {e.domain: checked_opset_version(e.version) for e in entries}


def function_id(domain: str, name: str, overload: str) -> str:
    """onnx's ``GetFunctionImplId``: ``domain::name[::overload]``, ``ai.onnx`` as ``""``."""
    domain = "" if domain == "ai.onnx" else domain
    return f"{domain}::{name}::{overload}" if overload else f"{domain}::{name}"


def check_opset_compatibility(
    node: Any, ctx: CheckerContext, function_imports: dict[str, int], model_imports: dict[str, int]
) -> None:
    """onnx's ``check_opset_compatibility``: the node's operator has the same
    schema at the function's version of its domain as at the model's.

    Raises:
        ValidationError: the first rule broken, with onnx's text.
    """
    domain = node.domain
    function_version = function_imports.get(domain, -1)
    model_version = model_imports.get(domain, -1)
    if function_version == -1:
        fail("No Opset registered for domain ", domain)
    if model_version in (-1, function_version):
        return
    schemas = schemas_of(ctx)
    for_model = schemas.get(node.op_type, model_version, domain)
    for_function = schemas.get(node.op_type, function_version, domain)
    if for_model is None and for_function is None:
        return
    if (
        for_model is None
        or for_function is None
        or for_model.since_version != for_function.since_version
    ):
        fail("Opset import for domain ", domain, " in function op ", node.op_type, "is not "
             "compatible with the version imported by model. FunctionOp imports version ",
             function_version, " whereas model imports version ", model_version)  # fmt: skip


def check_function(function: Any, ctx: CheckerContext, parent_lex: LexicalScopeContext) -> None:
    """onnx's ``check_function``. Raises ValidationError."""
    name = function.name
    if not name:
        fail("Field 'name' of 'function' is required to be non-empty.")
    if ctx.ir_version >= 8 and not function.HasField(_FUNCTION_DOMAIN):
        fail("Field 'domain' of 'function' is required but missing.")
    model_imports = ctx.opset_imports
    inner = ctx.copy()
    function_imports = _imports(function.opset_import)
    inner.opset_imports = function_imports
    lex_ctx = LexicalScopeContext(parent_lex)
    for value in function.input:
        if value in lex_ctx.output_names:
            fail("Graph must be in single static assignment (SSA) form, however '", value,
                 "' has been used multiple times.")  # fmt: skip
        lex_ctx.add(value)
    if len(set(function.output)) != len(function.output):
        fail("function (", name, ") should not have duplicate outputs specified.")
    if len(set(function.attribute)) != len(function.attribute):
        fail("function (", name, ") should not have duplicate attributes specified.")
    experimental: list[str] = []
    names = lex_ctx.output_names
    for n, node in enumerate(function.node):
        try:
            _function_node(node, inner, lex_ctx, function_imports, model_imports)
        except ValidationError as err:
            within(err, f"node[{n}]")
            raise
        if node.op_type in EXPERIMENTAL_OPS and node.domain in ("", "ai.onnx"):
            experimental.append(node.op_type)
        for value in node.output:
            if value and lex_ctx.this_or_ancestor_graph_has(value):
                fail("Function must be in single static assignment (SSA) form, however '",
                     value, "' has been used as output names multiple times.")  # fmt: skip
            if value:
                names.add(value)
    warn_experimental(experimental)


def _function_node(
    node: Any,
    ctx: CheckerContext,
    lex_ctx: LexicalScopeContext,
    function_imports: dict[str, int],
    model_imports: dict[str, int],
) -> None:
    for value in node.input:
        if value and value not in lex_ctx.output_names:
            fail("Nodes in a function must be topologically sorted, however input '", value,
                 "' of node: \nName: ", node.name, " OpType: ", node.op_type,
                 "\n is neither output of any previous nodes nor input of the "
                 "function.")  # fmt: skip
    if not ctx.skip_opset_compatibility_check:
        check_opset_compatibility(node, ctx, function_imports, model_imports)
    check_node(node, ctx, lex_ctx)


def _callees(nodes: Any, by_id: dict[str, int], found: dict[int, None]) -> None:
    """The local functions ``nodes`` call, through subgraphs too (in order met).

    Raises ValueError (onnx's parse failure) for graphs nested deeper than
    protobuf parses, which only an object built in Python (a graph inside
    itself) can hold."""
    todo = [(nodes, 0)]
    while todo:
        current, depth = todo.pop()
        if depth > MAX_GRAPH_DEPTH:
            raise ValueError(PARSE_FAILED)
        for node in current:
            index = by_id.get(function_id(node.domain, node.op_type, node.overload))
            if index is not None:
                found.setdefault(index)
            for attr in node.attribute:
                if attr.HasField(_G):
                    todo.append((attr.g.node, depth + 1))
                todo.extend((g.node, depth + 1) for g in attr.graphs)


def check_function_call_cycles(model: Any) -> None:
    """onnx's ``check_function_call_cycles``: no local function calls itself.

    Raises:
        ValidationError: the first rule broken, with onnx's text.
    """
    functions = model.functions
    if len(functions) > MAX_LOCAL_FUNCTIONS:
        fail("Model contains ", len(functions), " local functions, exceeding the limit of ",
             MAX_LOCAL_FUNCTIONS, ". The model may be malformed or malicious.")  # fmt: skip
    ids: list[str] = []
    by_id: dict[str, int] = {}
    for i, f in enumerate(functions):
        key = function_id(f.domain, f.name, f.overload)
        if key in by_id:
            fail("Model contains multiple local functions with the same implementation id '",
                 key, "'.")  # fmt: skip
        by_id[key] = i
        ids.append(key)
    calls: list[list[int]] = []
    for f in functions:
        found: dict[int, None] = {}
        _callees(f.node, by_id, found)
        calls.append(list(found))
    done: set[int] = set()
    for root in range(len(functions)):
        if root not in done:
            _walk_calls(root, calls, ids, done)


def _walk_calls(root: int, calls: list[list[int]], ids: list[str], done: set[int]) -> None:
    """onnx's ``DetectCycleDFS`` from ``root``, with an explicit stack."""
    path = [root]
    on_path = {root}
    stack = [(root, iter(calls[root]))]
    while stack:
        func, callees = stack[-1]
        callee = next(callees, None)
        if callee is None:
            stack.pop()
            path.pop()
            on_path.discard(func)
            done.add(func)
            continue
        if callee in on_path:
            cycle = " -> ".join(ids[f] for f in path[path.index(callee) :])
            fail("Cycle detected in model-local function references: ", cycle, " -> ",
                 ids[callee], ". Model-local functions must not be recursive.")  # fmt: skip
        if callee not in done:
            path.append(callee)
            on_path.add(callee)
            if len(path) > MAX_CALL_DEPTH:
                fail("Function call chain depth exceeds limit (", MAX_CALL_DEPTH, "). The model "
                     "may be malformed or malicious.")  # fmt: skip
            stack.append((callee, iter(calls[callee])))


def check_model_local_functions(
    model: Any, ctx: CheckerContext, parent_lex: LexicalScopeContext
) -> None:
    """onnx's ``check_model_local_functions``: the model's imports, completed by
    the functions' imports of other domains, are what each function's imports
    are compared with; then no call cycle; then each function.

    Raises:
        ValidationError: the first rule broken, with onnx's text.
    """
    merged = dict(ctx.opset_imports)
    for function in model.functions:
        for entry in function.opset_import:
            if entry.domain not in merged:
                merged[entry.domain] = checked_opset_version(entry.version)
    check_function_call_cycles(model)
    inner = ctx.copy()
    inner.opset_imports = merged
    for k, function in enumerate(model.functions):
        try:
            check_function(function, inner, parent_lex)
        except ValidationError as err:
            within(err, f"functions[{k}]")
            raise
