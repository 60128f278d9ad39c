"""``OpSchema``: one version of one operator, from the catalog or built from Python.

The attributes are onnx 1.23.2's (``onnx.defs.OpSchema``, a C++ class there): read-only but
for ``name``, ``domain`` and ``doc``, which onnx lets Python set too.  A catalog schema is made
from its generated record by :func:`from_record`; ``OpSchema(...)`` checks what it is given as
onnx's ``OpSchema::Finalize`` does (RuntimeError for an ill-formed arity or an unnamed
parameter, SchemaError for a repeated type constraint, ValueError for a type string that does
not parse).
"""

from __future__ import annotations

import binascii
import bisect
from collections.abc import Sequence
from typing import Any

from .._messages.graphs import FunctionProto, NodeProto
from . import schema_parts as parts
from . import typestrings
from .schema_parts import (
    INFINITE,
    Attribute,
    AttrType,
    DifferentiationCategory,
    FormalParameter,
    FormalParameterOption,
    NodeDeterminism,
    SchemaError,
    SupportType,
    TypeConstraintParam,
    arity,
    attribute,
    c_int,
    constraint,
    constraint_of,
    kind_of,
    parameter,
    typed,
)

_GRAPHS = (AttrType.GRAPH, AttrType.GRAPHS)
# A catalog record's fields, by position (tests/support/defs_generate.py writes them).
NAME, DOMAIN, SINCE, DEPRECATED, ARITY, LEVELS, INFERENCE = range(7)
INPUTS, OUTPUTS, ATTRIBUTES, CONSTRAINTS, FUNCTIONS, CONTEXTUAL = range(7, 13)


class OpSchema:
    """The schema of one version of an operator: onnx's ``OpSchema``.

    ``OpSchema(name, domain, since_version, doc="", *, inputs=(), outputs=(),
    type_constraints=(), attributes=(), node_determinism=NodeDeterminism.Unknown)`` builds one
    to register (``onnxdata.defs.register_schema``).  ``type_constraints`` takes
    ``(type_param_str, allowed_type_strs, description)`` tuples.  Raises RuntimeError,
    SchemaError, ValueError or TypeError as onnx does for what it refuses (module docstring).
    """

    AttrType = AttrType
    Attribute = Attribute
    DifferentiationCategory = DifferentiationCategory
    FormalParameter = FormalParameter
    FormalParameterOption = FormalParameterOption
    NodeDeterminism = NodeDeterminism
    SupportType = SupportType
    TypeConstraintParam = TypeConstraintParam

    __slots__ = (
        "_arity", "_attributes", "_constraints", "_contextual", "_deprecated", "_determinism",
        "_doc", "_file", "_final", "_function_bodies", "_inference", "_inputs", "_outputs",
        "_own_domain", "_own_name", "_since", "_support",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        domain: str,
        since_version: int,
        doc: str = "",
        *,
        inputs: Sequence[parts.FormalParameter] = (),
        outputs: Sequence[parts.FormalParameter] = (),
        type_constraints: Sequence[tuple[str, Sequence[str], str]] = (),
        attributes: Sequence[parts.Attribute] = (),
        node_determinism: parts.NodeDeterminism = NodeDeterminism.Unknown,
    ) -> None:
        self._own_name = _text(name, "name")
        self._own_domain = _text(domain, "domain")
        self._since = c_int(since_version, "since_version")
        self._doc: str | None = _text(doc, "doc") or None
        self._deprecated = False
        self._file = "unknown"  # what onnx says of a schema built in Python
        self._support = SupportType.COMMON
        self._determinism = NodeDeterminism(node_determinism)
        self._final = False
        self._inference = (False, False)
        self._function_bodies: tuple[tuple[int, bytes], ...] = ()
        self._contextual: tuple[tuple[int, tuple[bytes, ...], tuple[Any, ...]], ...] = ()
        constraints = [
            constraint_of(item) for item in _sequence(type_constraints, "type_constraints")
        ]
        allowed: dict[str, frozenset[str]] = {}
        for tc in constraints:
            if tc.type_param_str in allowed:
                raise SchemaError("Duplicate type constraint name")
            allowed[tc.type_param_str] = frozenset(
                typestrings.canonical(t) for t in tc.allowed_type_strs
            )
        self._constraints = tuple(constraints)
        ins, outs = _parameters(inputs, "inputs"), _parameters(outputs, "outputs")
        self._attributes = _attributes(attributes)
        self._arity = (*arity(ins, name, "inputs"), *arity(outs, name, "outputs"))
        for p in (*ins, *outs):
            if not p.name:
                raise RuntimeError(
                    f"ONNX Schema {name}: failed validating the check: !(it.GetName().empty())"
                )
        self._inputs, self._outputs = typed(ins, allowed), typed(outs, allowed)

    # -- what onnx lets Python set
    @property
    def name(self) -> str:
        return self._own_name

    @name.setter
    def name(self, value: str) -> None:
        self._own_name = _text(value, "name")

    @property
    def domain(self) -> str:
        return self._own_domain

    @domain.setter
    def domain(self, value: str) -> None:
        self._own_domain = _text(value, "domain")

    @property
    def doc(self) -> str | None:
        """The schema's prose: "" for a catalog schema (not copied), None when unset."""
        return self._doc

    @doc.setter
    def doc(self, value: str) -> None:
        self._doc = _text(value, "doc") or None

    # -- read-only facts
    @property
    def since_version(self) -> int:
        return self._since

    @property
    def deprecated(self) -> bool:
        return self._deprecated

    @property
    def file(self) -> str:
        """Where onnx defined the schema in C++: not copied, "" (docs/compat.md); "unknown"
        for a schema built in Python, as onnx."""
        return self._file

    @property
    def line(self) -> int:
        """The line of :attr:`file`: 0."""
        return 0

    @property
    def support_level(self) -> parts.SupportType:
        return self._support

    @property
    def min_input(self) -> int:
        return self._arity[0]

    @property
    def max_input(self) -> int:
        return self._arity[1]

    @property
    def min_output(self) -> int:
        return self._arity[2]

    @property
    def max_output(self) -> int:
        return self._arity[3]

    @property
    def inputs(self) -> list[parts.FormalParameter]:
        return list(self._inputs)

    @property
    def outputs(self) -> list[parts.FormalParameter]:
        return list(self._outputs)

    @property
    def attributes(self) -> dict[str, parts.Attribute]:
        """The attributes by name (a new dict each time, as onnx's)."""
        return dict(self._attributes)

    @property
    def type_constraints(self) -> list[parts.TypeConstraintParam]:
        return list(self._constraints)

    @property
    def has_type_and_shape_inference_function(self) -> bool:
        """Whether onnx has a C++ inference function for it (a fact; none runs here)."""
        return self._inference[0]

    @property
    def has_data_propagation_function(self) -> bool:
        return self._inference[1]

    @property
    def node_determinism(self) -> parts.NodeDeterminism:
        """onnx's ``GetNodeDeterminism``: declared, or derived when declared Unknown."""
        if self._final or self._determinism is not NodeDeterminism.Unknown:
            return self._determinism
        if any(kind_of(a) in _GRAPHS for a in self._attributes.values()):
            return NodeDeterminism.NonDeterministic
        if self._contextual:
            return NodeDeterminism.Unknown
        return NodeDeterminism.Deterministic

    @property
    def non_deterministic(self) -> bool:
        return self.node_determinism is not NodeDeterminism.Deterministic

    @staticmethod
    def is_infinite(v: int) -> bool:
        """Whether ``v`` stands for "no bound" (a variadic parameter's ``max_input``)."""
        return v == INFINITE

    # -- functions
    @property
    def has_function(self) -> bool:
        return bool(self._function_bodies)

    @property
    def has_context_dependent_function(self) -> bool:
        return bool(self._contextual)

    @property
    def function_opset_versions(self) -> list[int]:
        return [v for v, _ in self._function_bodies]

    @property
    def context_dependent_function_opset_versions(self) -> list[int]:
        return [v for v, _, _ in self._contextual]

    @property
    def all_function_opset_versions(self) -> list[int]:
        return sorted({v for v, _ in self._function_bodies} | {e[0] for e in self._contextual})

    @property
    def _function_body(self) -> bytes:
        """The encoded body of the latest function version, b"" when there is none."""
        return self._function_bodies[-1][1] if self._function_bodies else b""

    @property
    def function_body(self) -> FunctionProto:
        """The latest function body (empty when there is none), without onnx's prose."""
        return FunctionProto.decode(self._function_body)

    def get_function_with_opset_version(self, opset_version: int) -> bytes:
        """The encoded body for ``opset_version``: that of the latest version not above it."""
        versions = [v for v, _ in self._function_bodies]
        at = bisect.bisect_right(versions, opset_version)
        return self._function_bodies[at - 1][1] if at else b""

    def get_context_dependent_function(
        self, node_proto: bytes, input_types: Sequence[bytes]
    ) -> bytes:
        """The context-dependent body for a node, at the schema's own version (see below)."""
        return self.get_context_dependent_function_with_opset_version(
            self._since, node_proto, input_types
        )

    def get_context_dependent_function_with_opset_version(
        self, opset_version: int, node_proto: bytes, input_types: Sequence[bytes]
    ) -> bytes:
        """The context-dependent body onnx builds for ``node_proto`` at ``opset_version``.

        b"" when the schema has no builder for exactly that version, as onnx.  onnx builds the
        body with C++ code from the node's attributes, its inputs' types and which inputs and
        outputs it names; the catalog keeps what onnx builds for every pattern of named inputs
        and outputs of a node with no attributes and no known input types (b"" where onnx
        builds nothing).  Raises NotImplementedError for a node outside that (attributes,
        ``input_types``, more inputs or outputs than the schema declares); DecodeError when
        ``node_proto`` is not a NodeProto.
        """
        node = NodeProto.decode(node_proto)
        found = [entry for entry in self._contextual if entry[0] == opset_version]
        if not found:
            return b""
        _, bodies, patterns = found[0]
        if (
            node.attribute
            or input_types
            or len(node.input) > len(self._inputs)
            or len(node.output) > len(self._outputs)
        ):
            raise NotImplementedError(
                "onnxdata has the context-dependent function bodies of nodes with no attributes"
                " and no input types only (docs/compat.md)"
            )
        ins = sum(1 << k for k, name in enumerate(node.input) if name)
        outs = sum(1 << k for k, name in enumerate(node.output) if name)
        for pattern_in, pattern_out, index in patterns:
            if (pattern_in, pattern_out) == (ins, outs):
                return bytes(bodies[index])
        return b""

    def __repr__(self) -> str:
        return (
            f"OpSchema(\n    name={self.name!r},\n    domain={self.domain!r},\n"
            f"    since_version={self.since_version!r},\n    doc={self.doc!r},\n"
            f"    type_constraints={self.type_constraints!r},\n    inputs={self.inputs!r},\n"
            f"    outputs={self.outputs!r},\n    attributes={self.attributes!r}\n)"
        )

    def copy(self, *, since_version: int | None = None) -> OpSchema:
        """A copy whose settable fields are its own (onnx returns copies of registered ones),
        at ``since_version`` when given (registering an unset version makes it 1)."""
        made = OpSchema.__new__(OpSchema)
        for slot in OpSchema.__slots__:
            setattr(made, slot, getattr(self, slot))
        if since_version is not None:
            made._since = since_version
        return made


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be str, not {type(value).__name__}")
    return value


def _sequence(items: object, what: str) -> tuple[Any, ...]:
    """``items`` as a tuple if it is a sequence (a list, a tuple), as onnx's C++ takes it."""
    if not isinstance(items, Sequence) or isinstance(items, (str, bytes)):
        raise TypeError(f"{what} takes a sequence (a list or a tuple), not {type(items).__name__}")
    return tuple(items)


def _parameters(items: Sequence[Any], what: str) -> tuple[FormalParameter, ...]:
    found = _sequence(items, what)
    if not all(isinstance(p, FormalParameter) for p in found):
        raise TypeError(f"{what} takes OpSchema.FormalParameter objects")
    return found


def _attributes(items: Sequence[Any]) -> dict[str, Attribute]:
    """By name; a later attribute of the same name is ignored, as onnx's map insert does."""
    given = _sequence(items, "attributes")
    if not all(isinstance(a, Attribute) for a in given):
        raise TypeError("attributes takes OpSchema.Attribute objects")
    found: dict[str, Attribute] = {}
    for a in given:
        found.setdefault(a.name, a)
    return found


_CANONICAL: dict[int, frozenset[str]] = {}


def _allowed(index: int, type_lists: Sequence[Sequence[str]]) -> frozenset[str]:
    """The canonical types of a shared type list, computed once."""
    found = _CANONICAL.get(index)
    if found is None:
        found = _CANONICAL[index] = frozenset(
            typestrings.canonical(t) for t in type_lists[index]
        )
    return found


def _bytes(text: str) -> bytes:
    return binascii.a2b_base64(text) if text else b""


def from_record(record: Sequence[Any], type_lists: Sequence[Sequence[str]]) -> OpSchema:
    """The schema a catalog record describes: a parsed JSON line in the layout
    tests/support/defs_generate.py writes (lists, bytes as base64 text)."""
    made = OpSchema.__new__(OpSchema)
    made._own_name, made._own_domain, made._since = record[NAME], record[DOMAIN], record[SINCE]
    made._doc, made._deprecated, made._file = "", record[DEPRECATED], ""
    made._arity = tuple(record[ARITY])
    support, determinism = record[LEVELS]
    made._support, made._determinism = SupportType(support), NodeDeterminism(determinism)
    made._final = True  # onnx's answer, derived through the registry when the catalog was made
    made._inference = tuple(record[INFERENCE])
    allowed = {param: _allowed(i, type_lists) for param, i in record[CONSTRAINTS]}

    def types(type_str: str) -> frozenset[str]:
        return allowed.get(type_str) or frozenset({typestrings.canonical(type_str)})

    made._inputs = tuple(parameter(p, types(p[1])) for p in record[INPUTS])
    made._outputs = tuple(parameter(p, types(p[1])) for p in record[OUTPUTS])
    made._attributes = {
        name: attribute(name, kind, required, _bytes(default))
        for name, kind, required, default in record[ATTRIBUTES]
    }
    made._constraints = tuple(constraint(p, type_lists[i]) for p, i in record[CONSTRAINTS])
    made._function_bodies = tuple((v, _bytes(body)) for v, body in record[FUNCTIONS])
    made._contextual = tuple(
        (v, tuple(_bytes(b) for b in bodies), tuple(tuple(p) for p in patterns))
        for v, bodies, patterns in record[CONTEXTUAL]
    )
    return made
