"""A node against its operator's schema: onnx's ``OpSchema::Verify``.

The schema comes from the operator catalog (``_defs``, onnx.defs' API).  What
``Verify`` needs of it is read once per schema into a :class:`Verifier`: the
input and output counts allowed, which formal parameters are single, whether
the last is variadic, the attributes by name with their types, and the
required ones in onnx's order (its ``std::map``: by name).  Two facts of
onnx's C++ schemas that its Python ``OpSchema`` does not expose are here as
data: the output counts BatchNormalization allows besides its range, and the
one schema that accepts attributes it does not declare.

The checks and their messages are ``schema.cc``'s, in its order.
"""

from __future__ import annotations

from .._core.schema import spec_of
from .._defs.registry import get_schema
from .._defs.schema_parts import SchemaError
from .._messages.graphs import AttributeProto
from .checker_context import fail

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["SchemaCache", "Verifier"]

# OpSchema::NumOutputs(std::unordered_set<int>): counts allowed on top of the range,
# by (domain, name, since_version).
_ALLOWED_OUTPUTS: dict[tuple[str, str, int], frozenset[int]] = {
    **{("", "BatchNormalization", v): frozenset({1, 5}) for v in (1, 6, 7, 9)},
    **{("", "BatchNormalization", v): frozenset({1, 3}) for v in (14, 15)},
}
# OpSchema::AllowUncheckedAttributes(), by (domain, name, since_version).
_UNCHECKED_ATTRIBUTES = frozenset({("", "LayerNormalization", 17)})

_SINGLE, _OPTIONAL, _VARIADIC = 0, 1, 2
_ATTRIBUTE_TYPES = AttributeProto.AttributeType
# The attribute types whose value field Verify asks for, and the field's name
# in its message ("type_proto" is onnx's word for the field tp).
_ATTRIBUTE = spec_of(AttributeProto).named
_NEEDS_FIELD = {
    _ATTRIBUTE_TYPES.TENSOR: (_ATTRIBUTE.t.held, _ATTRIBUTE.t.name),
    _ATTRIBUTE_TYPES.SPARSE_TENSOR: (_ATTRIBUTE.sparse_tensor.held, _ATTRIBUTE.sparse_tensor.name),
    _ATTRIBUTE_TYPES.GRAPH: (_ATTRIBUTE.g.held, _ATTRIBUTE.g.name),
    _ATTRIBUTE_TYPES.TYPE_PROTO: (_ATTRIBUTE.tp.held, "type_proto"),
}
_KNOWN_TYPES = frozenset(_ATTRIBUTE_TYPES.values())
_UNDEFINED = _ATTRIBUTE_TYPES.UNDEFINED
_ATTR_TYPE = _ATTRIBUTE.type.held
_ATTR_REF = _ATTRIBUTE.ref_attr_name.held


def type_name(value: int) -> str:
    """``AttributeProto_AttributeType_Name``: ``""`` for a value it does not know."""
    values = _ATTRIBUTE_TYPES.values()
    return str(_ATTRIBUTE_TYPES.Name(value)) if value in values else ""


class Verifier:
    """What ``OpSchema::Verify`` reads of one schema, read once."""

    __slots__ = (
        "allowed_inputs",
        "allowed_outputs",
        "attributes",
        "deprecated",
        "inputs",
        "max_input",
        "max_output",
        "min_input",
        "min_output",
        "outputs",
        "prefix",
        "required",
        "since_version",
        "unchecked",
    )

    def __init__(self, schema: Any) -> None:
        key = (schema.domain, schema.name, schema.since_version)
        self.since_version: int = schema.since_version
        self.deprecated: bool = bool(schema.deprecated)
        self.prefix = f" with schema({schema.domain}::{schema.name}:{schema.since_version})"
        self.min_input: int = schema.min_input
        self.max_input: int = schema.max_input
        self.min_output: int = schema.min_output
        self.max_output: int = schema.max_output
        self.inputs = tuple(int(p.option) for p in schema.inputs)
        self.outputs = tuple(int(p.option) for p in schema.outputs)
        self.allowed_inputs: frozenset[int] | None = None
        self.allowed_outputs = _ALLOWED_OUTPUTS.get(key)
        self.attributes = {name: int(a.type) for name, a in schema.attributes.items()}
        self.required = sorted(name for name, a in schema.attributes.items() if a.required)
        self.unchecked = key in _UNCHECKED_ATTRIBUTES

    def fail_prefix(self, node_name: str) -> str:
        return (f"Node({node_name})" if node_name else "Node") + self.prefix

    def verify(self, node: Any, inputs: list[str], outputs: list[str], attributes: Any) -> None:
        """``OpSchema::Verify(node)``. Raises ValidationError."""
        if self.deprecated:
            fail("Operator '", node.op_type, "' has been deprecated since version ",
                 self.since_version)  # fmt: skip
        n_in, n_out = len(inputs), len(outputs)
        if not (self.min_input <= n_in <= self.max_input) or (
            self.allowed_inputs is not None and n_in not in self.allowed_inputs
        ):
            self._count(node, "input", n_in, self.min_input, self.max_input)
        if not (self.min_output <= n_out <= self.max_output) or (
            self.allowed_outputs is not None and n_out not in self.allowed_outputs
        ):
            self._count(node, "output", n_out, self.min_output, self.max_output)
        if "" in inputs or n_in > len(self.inputs):
            _parameters(node, "input", inputs, self.inputs)
        if "" in outputs or n_out > len(self.outputs):
            _parameters(node, "output", outputs, self.outputs)
        if attributes or self.required:
            self._attributes(node, attributes)

    def _count(self, node: Any, what: str, n: int, low: int, high: int) -> None:
        prefix = self.fail_prefix(node.name)
        if not low <= n <= high:
            fail(
                prefix, " has ", what, " size ", n, " not in range [min=", low, ", max=", high, "]."
            )
        fail(prefix, " has ", what, " size ", n, " not in allowed ", what, " sizes.")

    def _attributes(self, node: Any, attributes: Any) -> None:
        seen: set[str] = set()
        for attr in attributes:
            name = attr.name
            if name in seen:
                fail("Attribute '", name, "' appeared multiple times.")
            seen.add(name)
            expected = self.attributes.get(name)
            if expected is None:
                if self.unchecked or name.startswith("__"):
                    continue
                fail("Unrecognized attribute: ", name, " for operator ", node.op_type)
            actual = _ATTR_TYPE(attr)
            if actual not in _KNOWN_TYPES:
                actual = 0  # unset, or a value proto2 keeps as unknown: the field reads unset
            if actual != expected:
                fail("Mismatched attribute type in '", node.name, " : ", name, "'. Expected: '",
                     type_name(expected), "', actual: '", type_name(actual), "'")  # fmt: skip
            if _ATTR_REF(attr):
                continue
            needed = _NEEDS_FIELD.get(expected)
            if needed is not None and needed[0](attr) is None:
                fail("Attribute '", name, "' is expected to have field '", needed[1], "'")
            if expected == _UNDEFINED:
                fail("Attribute '", name, " has unknown expected type")
        for name in self.required:
            if name not in seen:
                fail("Required attribute '", name, "' is missing.")


def _parameters(node: Any, what: str, names: list[str], options: tuple[int, ...]) -> None:
    """The loop of Verify over a node's inputs (or outputs): no more than
    declared unless the last is variadic, no empty name for a single one."""
    plural = f"{what}s"
    for i, name in enumerate(names):
        if i >= len(options):
            if options and options[-1] == _VARIADIC:
                return
            fail("Node (", node.name, ") has more ", plural, " (", len(names), ") than declared (",
                 len(options), ") in op definition.")  # fmt: skip
        if not name and options[i] == _SINGLE:
            fail("Node (", node.name, ")'s ", what, " ", i, " is marked single but has an empty "
                 "string in the graph")  # fmt: skip


class SchemaCache:
    """The schemas one check asks for, looked up once per (op, version, domain):
    a :class:`Verifier`, or None where the catalog has no schema."""

    __slots__ = ("found",)

    def __init__(self) -> None:
        self.found: dict[tuple[str, int, str], Verifier | None] = {}

    def get(self, op_type: str, version: int, domain: str) -> Verifier | None:
        key = (op_type, version, domain)
        try:
            return self.found[key]
        except KeyError:
            pass
        try:
            schema = get_schema(op_type, version, domain)
        except (SchemaError, TypeError):  # TypeError: a name that is no UTF-8 names no schema
            made = None
        else:
            made = Verifier(schema)
        self.found[key] = made
        return made
