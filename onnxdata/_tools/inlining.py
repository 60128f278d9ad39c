"""onnx's inliner, part 2: call-sites replaced by the bodies they call.

onnx 1.23.2's ``InlinerImpl`` (``inliner.cc``), in its order, so that the
result is onnx's byte for byte:

- ``inline_local_functions``: every call of a model-local function, in the
  main graph and its subgraphs, is replaced by the function's body, and calls
  in the body in turn; the functions inlined leave ``model.functions``.  A
  function whose opset imports differ from the model's (a domain the model
  imports at another version) is left as it is, unless ``convert_version``
  and the only difference is the ONNX domain: then onnx converts the body
  with its version converter, which onnxdata does not have
  (:class:`InliningUnavailableError`, raised only where such a call is met).
- ``inline_selected_functions``: the local functions named by (domain, name)
  (or all others, ``exclude``), in the main graph and then in the bodies of
  the functions kept; the model and its functions must agree on every opset
  version (else ``RuntimeError``, as onnx).  With ``inline_schema_functions``,
  calls of operators whose schema (:mod:`onnxdata.defs`, at the model's
  version of the node's domain) has a function body are inlined too; an
  operator whose body depends on its context (input types) needs onnx's
  shape inference, which onnxdata does not have (InliningUnavailableError).

Both first check that no local function calls itself (onnx's
``check_function_call_cycles``, ``ValidationError``).  The call-sites are
numbered in the order they are inlined (``__1``, ``__2``...); names follow
:mod:`.inlining_names`.  A function is identified by (domain, name, overload)
for lookup (``ai.onnx`` read as ``""``), but selected by (domain, name) as
written in the node, as onnx does.
"""

from __future__ import annotations

from .._core.errors import DecodeError, EncodeValueError
from .._core.schema import spec_of
from .._defs.registry import lookup
from .._messages.graphs import AttributeProto, FunctionProto, ModelProto
from .checker_functions import check_function_call_cycles, function_id
from .inlining_names import NameGenerator, bind_attributes, rename_callee

_GRAPH = spec_of(AttributeProto).named.g.name

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterator
    from typing import Any

__all__ = [
    "InliningUnavailableError",
    "inline_local_functions",
    "inline_selected_functions",
]

_NO_CONVERSION = -1
# A graph nested deeper than this cannot be in a model protobuf parses (100
# nested messages, three per level): onnx's own result fails to parse then.
_MAX_GRAPH_LEVELS = 40
_TOO_DEEP = (
    "Error parsing message with type 'onnx.ModelProto': the inlined model nests messages deeper "
    "than protobuf parses (100), as onnx's inliner's result would"
)


class InliningUnavailableError(NotImplementedError):
    """What onnx's inliner would do needs a part of onnx that onnxdata does not have:
    its version converter (``convert_version=True`` and a function called at another
    ONNX opset version than the model's) or its shape inference (an operator whose
    function body depends on its inputs' types, with ``inline_schema_functions``)."""


def _to_int(value: int) -> int:
    """``static_cast<int>`` of an int64: the low 32 bits, signed."""
    return ((value + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


class _OpsetMap(dict[str, int]):
    """onnx's ``OpsetMap``: a domain's version, ``ai.onnx`` read as ``""``."""

    def add(self, entries: Any) -> bool:
        """Add ``entries``; False at the first that disagrees (the rest are not added)."""
        for entry in entries:
            domain = "" if entry.domain == "ai.onnx" else entry.domain
            known = self.get(domain)
            if known is None:
                self[domain] = entry.version
            elif known != entry.version:
                return False
        return True

    def mismatches(self, entries: Any) -> dict[str, int]:
        """The model's versions of the domains ``entries`` import at another version."""
        result: dict[str, int] = {}
        for entry in entries:
            domain = "" if entry.domain == "ai.onnx" else entry.domain
            known = self.get(domain)
            if known is not None and known != entry.version:
                result.setdefault(domain, known)
        return result


class _Inliner:
    """onnx's ``InlinerImpl``: one model, the functions to inline, one name generator."""

    def __init__(
        self,
        model: Any,
        selected: Callable[[str, str], bool],
        functions: dict[str, tuple[bytes, int]],
        schemas: bool,
    ) -> None:
        self.model = model
        self.selected = selected
        self.functions = functions
        self.schemas = schemas
        self.names = NameGenerator(model.graph)
        self.count = 0
        # A local function inlined in the main graph (or a function) keeps its messages'
        # depth (a function's node is as deep as a graph's); inlined in a subgraph, it is
        # three messages deeper per level, and may pass what protobuf parses.
        self.deeper = False

    def callee(self, node: Any) -> tuple[Any, int] | None:
        """onnx's ``GetCallee``: the body to inline for ``node`` (a fresh copy) and
        the ONNX version to convert it to, or None to keep the node."""
        domain = node.domain
        if not self.selected(domain, node.op_type):
            return None
        found = self.functions.get(function_id(domain, node.op_type, node.overload))
        if found is not None:
            return FunctionProto.decode(found[0]), found[1]
        if not self.schemas:
            return None
        version = _to_int(next((e.version for e in self.model.opset_import
                                if e.domain == domain), 0))  # fmt: skip
        schema = lookup(node.op_type, version, domain)
        if schema is None:
            return None
        body = schema.get_function_with_opset_version(version) if schema.has_function else b""
        if body:
            self.deeper = True  # a schema's body is not bounded by the model's depth
            return FunctionProto.decode(body), _NO_CONVERSION
        if schema.has_context_dependent_function:
            raise InliningUnavailableError(
                f"inlining {domain or 'ai.onnx'}.{node.op_type} (opset {version}) needs onnx's "
                "shape inference, to build its context-dependent function body: onnxdata has "
                "none (docs/compat.md)"
            )
        return None

    def process(self, nodes: Any, value_infos: Any, level: int) -> None:
        """onnx's ``Process``: ``nodes`` rebuilt with each selected call replaced by
        its body, whose calls are replaced in turn (depth first, in order)."""
        stack: list[Iterator[Any]] = [iter(list(nodes))]
        del nodes[:]
        while stack:
            node = next(stack[-1], None)
            if node is None:
                stack.pop()
                continue
            found = self.callee(node)
            if found is None:
                for attr in node.attribute:
                    if attr.HasField(_GRAPH):
                        self.graph(attr.g, level + 1)
                    for sub in attr.graphs:
                        self.graph(sub, level + 1)
                nodes.append(node)
                continue
            body, target = found
            self.deeper = self.deeper or level > 0
            bind_attributes(node, body)
            self.count += 1
            rename_callee(node, body, f"__{self.count}", self.names)
            if target != _NO_CONVERSION:
                raise InliningUnavailableError(
                    f"inlining {node.domain}.{node.op_type} needs onnx's version converter, to "
                    f"convert its body to ONNX opset {target}: onnxdata has none (docs/compat.md)"
                )
            actual = {*node.input, *node.output}
            for vi in body.value_info:
                if vi.name not in actual:
                    value_infos.append(vi)
            stack.append(iter(list(body.node)))

    def graph(self, graph: Any, level: int) -> None:
        if level > _MAX_GRAPH_LEVELS:
            raise DecodeError(_TOO_DEEP, 0)
        self.process(graph.node, graph.value_info, level)

    def function(self, function: Any) -> None:
        self.process(function.node, function.value_info, 0)


def _working_copy(model: Any) -> Any:
    """A copy of ``model`` to change, made as onnx makes it: through its bytes."""
    work = ModelProto.decode(model.encode())
    work.graph.SetInParent()  # onnx's mutable_graph(): a model without one gets one
    return work


def _finished(model: Any, functions: dict[str, tuple[bytes, int]], deeper: bool) -> Any:
    """The inlined functions removed; the nesting protobuf can parse checked, when a body
    was inlined in a subgraph (else no message is deeper than in the model given)."""
    kept = [f for f in model.functions
            if function_id(f.domain, f.name, f.overload) not in functions]  # fmt: skip
    if len(kept) != len(model.functions):
        model.functions[:] = kept
    if not deeper:
        return model
    try:
        model.encode()
    except EncodeValueError as err:
        if "nesting deeper" not in str(err):
            raise
        raise DecodeError(_TOO_DEEP, 0) from err
    return model


def inline_local_functions(model: Any, convert_version: bool) -> Any:
    """onnx's ``InlineLocalFunctions`` on a copy of ``model``, returned.

    Raises:
        ValidationError: a local function calls itself, or two share an id.
        RuntimeError: a call has more inputs or outputs than its function.
        InliningUnavailableError: a call needs onnx's version converter.
        DecodeError: the result nests deeper than protobuf parses (as onnx's).
    """
    work = _working_copy(model)
    check_function_call_cycles(work)
    imports = _OpsetMap()
    imports.add(work.opset_import)
    functions: dict[str, tuple[bytes, int]] = {}
    for function in work.functions:
        mismatches = imports.mismatches(function.opset_import)
        target = _NO_CONVERSION
        if convert_version and "" in mismatches:
            target = mismatches.pop("")
        if not mismatches:
            key = function_id(function.domain, function.name, function.overload)
            functions[key] = (function.encode(), target)
    inliner = _Inliner(work, lambda domain, name: True, functions, False)
    inliner.graph(work.graph, 0)
    return _finished(work, functions, inliner.deeper)


def inline_selected_functions(
    model: Any, function_ids: list[tuple[str, str]], exclude: bool, schemas: bool
) -> Any:
    """onnx's ``InlineSelectedFunctions`` on a copy of ``model``, returned.

    Raises:
        ValidationError: a local function calls itself, or two share an id.
        RuntimeError: the model and its functions import an opset at different
            versions; a call has more inputs or outputs than its function.
        InliningUnavailableError: a schema's body depends on the node's context.
        DecodeError: the result nests deeper than protobuf parses (as onnx's).
    """
    work = _working_copy(model)
    check_function_call_cycles(work)
    wanted = set(function_ids)

    def selected(domain: str, name: str) -> bool:
        return ((domain, name) in wanted) != exclude

    imports = _OpsetMap()
    imports.add(work.opset_import)
    functions: dict[str, tuple[bytes, int]] = {}
    others = []
    for function in work.functions:
        if not imports.add(function.opset_import):
            raise RuntimeError("Model has functions with incompatible opset versions.")
        if selected(function.domain, function.name):
            key = function_id(function.domain, function.name, function.overload)
            functions[key] = (function.encode(), _NO_CONVERSION)
        else:
            others.append(function)
    inliner = _Inliner(work, selected, functions, schemas)
    inliner.graph(work.graph, 0)
    for function in others:
        inliner.function(function)
    return _finished(work, functions, inliner.deeper)
