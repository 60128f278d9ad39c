"""onnx's inliner, part 1: the names an inlined call-site gets, and its attributes.

onnx 1.23.2's ``NameGenerator``, ``InliningRenamer`` and ``AttributeBinder``
(``inliner.cc``, ``attribute_binder.h``), step for step, because the inlined
model is compared byte for byte with onnx's: which name is tried first, which
counter is consumed when, and which names are left alone decide the result.

- Every name the main graph uses (its inputs, initializers and outputs, every
  node's name, inputs and outputs, through subgraphs at any depth) is taken;
  a new name is ``suggested`` if free, else ``suggested_<k>`` with one counter
  for the whole inlining (never reset), until free.
- At a call-site numbered ``n`` the callee's formal inputs and outputs become
  the call's actual names (a missing optional output gets ``<formal>__n``,
  made unique); every other name the body defines becomes ``<name>__n``, made
  unique; a name it uses without defining (an outer-scope name) is kept.
  Inside a subgraph of the body, its inputs, initializers and outputs are
  renamed in a scope of their own; its value infos and sparse initializers
  are not renamed (onnx's renamer does not visit them).
- An attribute of the body that refers to one of the function's attributes
  (``ref_attr_name``) becomes a copy of the call's attribute of that name,
  keeping its own name, or is removed when the call does not give it;
  attributes inside the copied value are left as they are.

Subgraphs are visited by recursion: the input came from a parse bounded at
100 nested messages, so a body nests at most 32 graphs.
"""

from __future__ import annotations

from .._core.schema import spec_of
from .._messages.graphs import AttributeProto

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["NameGenerator", "bind_attributes", "rename_callee"]

_GRAPH = spec_of(AttributeProto).named.g.name


class NameGenerator:
    """onnx's ``NameGenerator``: the names taken, and new ones made from suggestions."""

    def __init__(self, graph: Any) -> None:
        self.index = 0
        self.existing: set[str] = set()
        self._visit_graph(graph)

    def create_new(self, suggested: str) -> str:
        """``suggested``, or ``suggested_<k>`` for the next free ``k`` of the one
        counter, now taken."""
        name = suggested
        while name in self.existing:
            name = f"{suggested}_{self.index}"
            self.index += 1
        self.existing.add(name)
        return name

    def _visit_graph(self, graph: Any) -> None:
        existing = self.existing
        existing.update(x.name for x in graph.input)
        existing.update(x.name for x in graph.initializer)
        existing.update(x.name for x in graph.output)
        for node in graph.node:
            existing.add(node.name)
            existing.update(node.input)
            existing.update(node.output)
            for attr in node.attribute:
                if attr.HasField(_GRAPH):
                    self._visit_graph(attr.g)
                for sub in attr.graphs:
                    self._visit_graph(sub)


class _Renamer:
    """onnx's ``InliningRenamer`` for one call-site: scopes of renamings, innermost last."""

    def __init__(self, suffix: str, generator: NameGenerator) -> None:
        self.suffix = suffix
        self.generator = generator
        self.scopes: list[dict[str, str]] = [{}]

    def make_unique(self, name: str) -> str:
        return self.generator.create_new(name + self.suffix)

    def bind(self, formals: list[str], actuals: list[str], is_output: bool) -> None:
        """Formal parameters to the call's actual names (``Bind<isOutput>``).

        Raises:
            RuntimeError: more actual parameters than formal ones (onnx's assertion).
        """
        if len(actuals) > len(formals):
            raise RuntimeError(
                "Bind: Assertion `actuals.size() <= formals.size()` failed: Number of actual "
                "parameters cannot exceed number of formal parameters"
            )
        scope = self.scopes[-1]
        for i, formal in enumerate(formals):
            rename_as = actuals[i] if i < len(actuals) else ""
            if is_output and not rename_as:
                rename_as = self.make_unique(formal)
            scope[formal] = rename_as
            if rename_as:
                formals[i] = rename_as

    def _rename(self, name: str) -> str:
        new_name = self.make_unique(name)
        self.scopes[-1][name] = new_name
        return new_name

    def lookup_or_rename(self, name: str, is_new_def: bool) -> str:
        if not name:
            return name
        for scope in reversed(self.scopes):
            found = scope.get(name)
            if found is not None:
                return found
        return self._rename(name) if is_new_def else name

    def visit_node(self, node: Any) -> None:
        if node.name:
            node.name = self.make_unique(node.name)
        inputs = node.input
        for i, name in enumerate(inputs):
            inputs[i] = self.lookup_or_rename(name, False)
        outputs = node.output
        for i, name in enumerate(outputs):
            outputs[i] = self.lookup_or_rename(name, True)
        for attr in node.attribute:
            if attr.HasField(_GRAPH):
                self.visit_graph(attr.g)
            for sub in attr.graphs:
                self.visit_graph(sub)

    def visit_graph(self, graph: Any) -> None:
        self.scopes.append({})
        for x in graph.input:
            x.name = self._rename(x.name)
        for init in graph.initializer:
            init.name = self._rename(init.name)
        for y in graph.output:
            y.name = self._rename(y.name)
        for node in graph.node:
            self.visit_node(node)
        self.scopes.pop()


def rename_callee(call: Any, callee: Any, suffix: str, generator: NameGenerator) -> None:
    """onnx's ``InliningRenamer::Rename``: ``callee`` (a copy of the function) made
    ready to inline at ``call``.

    Raises:
        RuntimeError: the call has more inputs or outputs than the function.
    """
    renamer = _Renamer(suffix, generator)
    renamer.bind(callee.input, list(call.input), False)
    renamer.bind(callee.output, list(call.output), True)
    for node in callee.node:
        renamer.visit_node(node)
    for vi in callee.value_info:
        vi.name = renamer.lookup_or_rename(vi.name, False)


def bind_attributes(call: Any, callee: Any) -> None:
    """onnx's ``AttributeBinder::BindAttributes``: each attribute reference in
    ``callee``'s nodes replaced by a copy of the call's attribute (the last one
    of that name), or removed when the call has none."""
    given = {attr.name: attr for attr in call.attribute}
    copies: dict[str, bytes] = {}
    for node in callee.node:
        _bind_node(node, given, copies)


def _bind_node(node: Any, given: dict[str, Any], copies: dict[str, bytes]) -> None:
    kept = []
    changed = False
    for attr in node.attribute:
        ref = attr.ref_attr_name
        if not ref:
            if attr.HasField(_GRAPH):
                for inner in attr.g.node:
                    _bind_node(inner, given, copies)
            for sub in attr.graphs:
                for inner in sub.node:
                    _bind_node(inner, given, copies)
            kept.append(attr)
            continue
        changed = True
        replacement = given.get(ref)
        if replacement is None:
            continue
        data = copies.get(ref)
        if data is None:
            data = copies[ref] = replacement.encode()
        name = attr.name
        copy = type(attr).decode(data)
        copy.name = name
        kept.append(copy)
    if changed:
        node.attribute[:] = kept
