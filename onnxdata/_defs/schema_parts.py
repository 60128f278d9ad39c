"""The parts of an ``OpSchema``, with the attributes and errors of onnx 1.23.2's (C++) classes.

Formal parameters, attributes, type constraints, onnx's enums (``AttrType``,
``FormalParameterOption``...) and ``SchemaError``.  ``opschema.py`` builds a schema from them,
from its generated record (:func:`~.opschema.from_record`) or as a user builds one
(``OpSchema(name, domain, since_version, inputs=..., ...)``), checked as onnx's
``OpSchema::Finalize`` checks it (:func:`arity` here), with the same exception types and
messages.  onnx's prose is not part of the catalog: a catalog schema's ``doc`` and every
``description`` read as ``""`` (docs/compat.md).  Attribute defaults are kept as encoded bytes
and decoded with onnxdata's codec when read.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import Any

from .._messages.graphs import AttributeProto
from . import typestrings

INFINITE = 2**31 - 1  # onnx's std::numeric_limits<int>::max(): a variadic's max arity


class SchemaError(Exception):
    """An operator schema is not registered, or cannot be registered or deregistered."""


class _Named:
    """onnx's enums print as ``AttrType.FLOAT`` (repr and str alike)."""

    name: str

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    __str__ = __repr__


class AttrType(_Named, enum.IntEnum):
    """The type of an attribute: ``AttributeProto.AttributeType`` without ``UNDEFINED``."""

    FLOAT = 1
    INT = 2
    STRING = 3
    TENSOR = 4
    GRAPH = 5
    FLOATS = 6
    INTS = 7
    STRINGS = 8
    TENSORS = 9
    GRAPHS = 10
    SPARSE_TENSOR = 11
    SPARSE_TENSORS = 12
    TYPE_PROTO = 13
    TYPE_PROTOS = 14


class FormalParameterOption(_Named, enum.IntEnum):
    """How many values a formal parameter takes: one, zero or one, or one or more."""

    Single = 0
    Optional = 1
    Variadic = 2


class DifferentiationCategory(_Named, enum.IntEnum):
    """Whether gradients flow through a formal parameter."""

    Unknown = 0
    Differentiable = 1
    NonDifferentiable = 2


class NodeDeterminism(_Named, enum.Enum):
    """Whether a node of the operator always computes the same outputs (not an int in onnx)."""

    Deterministic = 2
    NonDeterministic = 1
    Unknown = 0


class SupportType(_Named, enum.IntEnum):
    """Whether an operator is part of the standard or experimental."""

    COMMON = 0
    EXPERIMENTAL = 1


class FormalParameter:
    """An input or output of an operator: its name, type, arity and differentiability.

    ``types`` is empty until the parameter is part of a schema, which fills it from its type
    constraints, as onnx does.
    """

    __slots__ = ("_arity", "_category", "_description", "_homogeneous", "_option", "_own_name",
                 "_type_str", "_types")  # fmt: skip

    def __init__(
        self,
        name: str,
        type_str: str,
        description: str = "",
        *,
        param_option: FormalParameterOption = FormalParameterOption.Single,
        is_homogeneous: bool = True,
        min_arity: int = 1,
        differentiation_category: DifferentiationCategory = DifferentiationCategory.Unknown,
    ) -> None:
        self._own_name = _text(name, "name")
        self._type_str = _text(type_str, "type_str")
        self._description = _text(description, "description")
        self._option = FormalParameterOption(param_option)
        self._homogeneous = bool(is_homogeneous)
        self._arity = c_int(min_arity, "min_arity")
        self._category = DifferentiationCategory(differentiation_category)
        self._types: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        return self._own_name

    @property
    def type_str(self) -> str:
        return self._type_str

    @property
    def types(self) -> set[str]:
        """The type strings the parameter accepts (a new set each time, as onnx's)."""
        return set(self._types)

    @property
    def description(self) -> str:
        return self._description

    @property
    def option(self) -> FormalParameterOption:
        return self._option

    @property
    def is_homogeneous(self) -> bool:
        return self._homogeneous

    @property
    def min_arity(self) -> int:
        return self._arity

    @property
    def differentiation_category(self) -> DifferentiationCategory:
        return self._category

    def with_types(self, types: frozenset[str]) -> FormalParameter:
        """A copy of this parameter accepting ``types`` (what a schema does to its own)."""
        copy = FormalParameter.__new__(FormalParameter)
        for slot in FormalParameter.__slots__:
            setattr(copy, slot, getattr(self, slot))
        copy._types = types
        return copy

    def __repr__(self) -> str:
        return (
            f"OpSchema.FormalParameter(name={self.name!r}, type_str={self.type_str!r}, "
            f"description={self.description!r}, param_option={self.option!r}, "
            f"is_homogeneous={self.is_homogeneous!r}, min_arity={self.min_arity!r}, "
            f"differentiation_category={self.differentiation_category!r})"
        )


class Attribute:
    """An attribute an operator takes: its name, type, whether it is required, its default.

    ``Attribute(name, type, description="", *, required=True)`` declares one with no default;
    ``Attribute(name, default_value, description="")`` one whose default is an
    ``AttributeProto`` (anything with ``SerializeToString``), which makes it optional.
    Raises ValueError when the default's ``type`` is not an ``AttrType``, AttributeError when
    the default has no ``SerializeToString``, as onnx does.
    """

    __slots__ = ("_default", "_description", "_own_name", "_required", "_type_code")

    def __init__(
        self,
        name: str,
        type: Any = None,  # onnx's keyword: an AttrType, or the default value
        description: str = "",
        *,
        required: bool | None = None,
        default_value: Any = None,
    ) -> None:
        self._own_name = _text(name, "name")
        self._description = _text(description, "description")
        if (type is None) == (default_value is None):
            raise TypeError("Attribute() takes a type or a default_value (one of the two)")
        value = type if default_value is None else default_value
        if isinstance(value, AttrType):
            self._type_code = int(value)
            self._required = True if required is None else bool(required)
            self._default = b""
            return
        if required is not None:
            raise TypeError("Attribute(): required= is taken only with a type, not a default")
        self._default = bytes(value.SerializeToString())
        self._type_code = AttributeProto.decode(self._default).type  # checked when read, as onnx
        self._required = False

    @property
    def name(self) -> str:
        return self._own_name

    @property
    def description(self) -> str:
        return self._description

    @property
    def type(self) -> AttrType:
        """The type; ValueError when a default's type is none of AttrType's, as onnx."""
        if self._type_code not in AttrType._value2member_map_:
            raise ValueError(f"{self._type_code} is not a valid AttrType.")  # onnx's words
        return AttrType(self._type_code)

    @property
    def required(self) -> bool:
        return self._required

    @property
    def default_value(self) -> AttributeProto:
        """The default as an ``AttributeProto`` (empty when there is none): a new one each time."""
        return AttributeProto.decode(self._default)

    @property
    def _default_value(self) -> bytes:
        """The default's encoded bytes, as onnx's ``Attribute._default_value``."""
        return self._default

    def __repr__(self) -> str:
        default = str(self.default_value) if self._default else ""
        return (
            f"OpSchema.Attribute(name={self.name!r}, type={self.type!r}, "
            f"description={self.description!r}, default_value={default}, "
            f"required={self.required!r})"
        )


class TypeConstraintParam:
    """A type parameter (``T``) and the type strings it may stand for."""

    __slots__ = ("_allowed", "_description", "_param")

    def __init__(
        self, type_param_str: str, allowed_type_strs: Sequence[str], description: str = ""
    ) -> None:
        self._param = _text(type_param_str, "type_param_str")
        if isinstance(allowed_type_strs, (str, bytes)):
            raise TypeError("allowed_type_strs must be a sequence of str, not one string")
        self._allowed = tuple(_text(t, "allowed_type_strs") for t in allowed_type_strs)
        self._description = _text(description, "description")

    @property
    def type_param_str(self) -> str:
        return self._param

    @property
    def allowed_type_strs(self) -> list[str]:
        return list(self._allowed)

    @property
    def description(self) -> str:
        return self._description

    def __repr__(self) -> str:
        return (
            f"OpSchema.TypeConstraintParam(type_param_str={self.type_param_str!r}, "
            f"allowed_type_strs={self.allowed_type_strs!r}, description={self.description!r})"
        )


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be str, not {type(value).__name__}")
    return value


def c_int(value: object, what: str) -> int:
    """``value`` as onnx's C++ takes an int (True is 1), else TypeError."""
    if not isinstance(value, int):
        raise TypeError(f"{what} must be int, not {type(value).__name__}")
    if not -(2**31) <= value < 2**31:
        raise TypeError(f"{what} must fit a C int: {value}")
    return int(value)


def arity(params: Sequence[FormalParameter], name: str, kind: str) -> tuple[int, int]:
    """(min, max) of ``params``, as onnx's ``Finalize``; RuntimeError as onnx's ENFORCE."""
    low = high = 0
    for i, p in enumerate(params):
        if p.option is FormalParameterOption.Single:
            high += 1
            low = high
        elif p.option is FormalParameterOption.Optional:
            high += 1
        else:
            if i != len(params) - 1:
                raise RuntimeError(
                    f"ONNX Schema {name}: failed validating the check: ({kind}_.size() - 1) == i"
                )
            low = high + p.min_arity
            high = INFINITE
    return low, high


def constraint_of(item: object) -> TypeConstraintParam:
    if not isinstance(item, (tuple, list)) or len(item) != 3:
        raise TypeError(
            "type_constraints takes (type_param_str, allowed_type_strs, description) tuples"
        )
    return TypeConstraintParam(item[0], item[1], item[2])


def typed(
    params: Iterable[FormalParameter], allowed: dict[str, frozenset[str]]
) -> tuple[FormalParameter, ...]:
    return tuple(
        p.with_types(allowed.get(p.type_str) or frozenset({typestrings.canonical(p.type_str)}))
        for p in params
    )


def kind_of(attribute: Attribute) -> int:
    """The attribute's type as a number, which may be none of AttrType's (a bad default)."""
    return attribute._type_code


def attribute(name: str, kind: int, required: bool, default: bytes) -> Attribute:
    """An attribute from the catalog's facts (no prose), without re-checking them."""
    made = Attribute.__new__(Attribute)
    made._own_name, made._description, made._type_code = name, "", kind
    made._required, made._default = required, default
    return made


def parameter(fields: Sequence[Any], types: frozenset[str]) -> FormalParameter:
    """A formal parameter from the catalog's facts: (name, type_str, option, homogeneous,
    min_arity, differentiation category), accepting ``types``."""
    name, type_str, option, homogeneous, arity, category = fields
    made = FormalParameter.__new__(FormalParameter)
    made._own_name, made._type_str, made._description = name, type_str, ""
    made._option = FormalParameterOption(option)
    made._homogeneous, made._arity = homogeneous, arity
    made._category = DifferentiationCategory(category)
    made._types = types
    return made


def constraint(param: str, allowed: Sequence[str]) -> TypeConstraintParam:
    """A type constraint from the catalog's facts."""
    made = TypeConstraintParam.__new__(TypeConstraintParam)
    made._param, made._allowed, made._description = param, tuple(allowed), ""
    return made
