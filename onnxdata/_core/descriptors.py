"""A message's ``DESCRIPTOR``, as protobuf's generated classes offer it, from the schema.

Code written for onnx walks a message through its descriptor:
``for fd in tensor.DESCRIPTOR.fields: getattr(tensor, fd.name)`` (onnxslim
compares tensors so), ``fd.type == fd.TYPE_MESSAGE``, ``fd.is_repeated``.
There is no protobuf here, so the descriptor is built from the one schema
(:class:`~.schema.MessageSpec`): the names, numbers and constants are
protobuf's, the attributes those of protobuf 7's upb ``Descriptor``,
``FieldDescriptor``, ``OneofDescriptor`` and ``FileDescriptor`` (no
``label``: protobuf 7 has ``is_repeated`` and ``is_required`` instead).
What needs protobuf's runtime (``GetOptions``, ``CopyToProto``, a pool)
is not offered.  Each is built on first use and kept, so that ``import
onnxdata`` pays nothing for them.

A descriptor is read-only data; it never decides anything inside onnxdata:
onnx's (foreign) messages are recognised as not being onnxdata's messages
first (``foreign.py``), never by having a ``DESCRIPTOR``.
"""

from __future__ import annotations

import sys
from types import MappingProxyType

from .enums import EnumType
from .schema import (
    BYTES,
    DOUBLE,
    ENUM,
    FLOAT,
    INT32,
    INT64,
    MESSAGE,
    PACKAGE,
    STRING,
    UINT64,
    FieldSpec,
    MessageSpec,
    spec_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .enums import EnumDescriptor

__all__ = [
    "Descriptor",
    "FieldDescriptor",
    "FileDescriptor",
    "OneofDescriptor",
    "descriptor_of",
    "message_descriptor",
]

DEFAULT_FILE = "onnx/onnx-ml.proto"
"""The .proto file of a message that names none (``_PROTO_FILE`` on the class)."""


class _Constants:
    """protobuf's ``FieldDescriptor`` constants, with its values."""

    TYPE_DOUBLE = 1
    TYPE_FLOAT = 2
    TYPE_INT64 = 3
    TYPE_UINT64 = 4
    TYPE_INT32 = 5
    TYPE_FIXED64 = 6
    TYPE_FIXED32 = 7
    TYPE_BOOL = 8
    TYPE_STRING = 9
    TYPE_GROUP = 10
    TYPE_MESSAGE = 11
    TYPE_BYTES = 12
    TYPE_UINT32 = 13
    TYPE_ENUM = 14
    TYPE_SFIXED32 = 15
    TYPE_SFIXED64 = 16
    TYPE_SINT32 = 17
    TYPE_SINT64 = 18
    MAX_TYPE = 18

    CPPTYPE_INT32 = 1
    CPPTYPE_INT64 = 2
    CPPTYPE_UINT32 = 3
    CPPTYPE_UINT64 = 4
    CPPTYPE_DOUBLE = 5
    CPPTYPE_FLOAT = 6
    CPPTYPE_BOOL = 7
    CPPTYPE_ENUM = 8
    CPPTYPE_STRING = 9
    CPPTYPE_MESSAGE = 10
    MAX_CPPTYPE = 10

    LABEL_OPTIONAL = 1
    LABEL_REQUIRED = 2
    LABEL_REPEATED = 3
    MAX_LABEL = 3

    MAX_FIELD_NUMBER = (1 << 29) - 1
    FIRST_RESERVED_FIELD_NUMBER = 19000
    LAST_RESERVED_FIELD_NUMBER = 19999


_C = _Constants
# A kind of the schema -> (protobuf's type, its C++ type).
_TYPES: dict[str, tuple[int, int]] = {
    DOUBLE: (_C.TYPE_DOUBLE, _C.CPPTYPE_DOUBLE),
    FLOAT: (_C.TYPE_FLOAT, _C.CPPTYPE_FLOAT),
    INT64: (_C.TYPE_INT64, _C.CPPTYPE_INT64),
    UINT64: (_C.TYPE_UINT64, _C.CPPTYPE_UINT64),
    INT32: (_C.TYPE_INT32, _C.CPPTYPE_INT32),
    STRING: (_C.TYPE_STRING, _C.CPPTYPE_STRING),
    BYTES: (_C.TYPE_BYTES, _C.CPPTYPE_STRING),
    ENUM: (_C.TYPE_ENUM, _C.CPPTYPE_ENUM),
    MESSAGE: (_C.TYPE_MESSAGE, _C.CPPTYPE_MESSAGE),
}


class FileDescriptor:
    """The .proto file of a message: ``name`` ("onnx/onnx-ml.proto") and ``package``."""

    __slots__ = ("name", "package")

    def __init__(self, name: str) -> None:
        self.name = name
        self.package = PACKAGE.rstrip(".")

    def __repr__(self) -> str:
        return f"<FileDescriptor {self.name}>"


_FILES: dict[str, FileDescriptor] = {}


def _file(name: str) -> FileDescriptor:
    found = _FILES.get(name)
    if found is None:
        found = _FILES[name] = FileDescriptor(name)
    return found


class FieldDescriptor(_Constants):
    """One field as protobuf 7's upb ``FieldDescriptor`` shows it (its constants too)."""

    __slots__ = (
        "_spec",
        "camelcase_name",
        "containing_oneof",
        "containing_type",
        "cpp_type",
        "default_value",
        "full_name",
        "has_presence",
        "index",
        "is_packed",
        "is_repeated",
        "json_name",
        "name",
        "number",
        "type",
    )

    has_default_value = False  # the .proto declares no explicit default
    has_options = False
    is_extension = False
    is_required = False  # proto2 ``required`` is used by no ONNX field
    extension_scope = None

    def __init__(self, spec: FieldSpec, index: int, containing: Descriptor) -> None:
        self._spec = spec
        self.name = spec.name
        self.full_name = f"{containing.full_name}.{spec.name}"
        self.index = index
        self.number = spec.number
        self.type, self.cpp_type = _TYPES[spec.kind]
        self.is_repeated = spec.repeated
        self.is_packed = spec.packed
        self.has_presence = not spec.repeated
        self.json_name = self.camelcase_name = spec.json_name
        self.containing_type = containing
        self.containing_oneof: OneofDescriptor | None = None
        # What protobuf's default_value gives: [] for a repeated field, None
        # for a message, the kind's zero (an enum's first number) otherwise.
        self.default_value: Any = [] if spec.repeated else spec.zero

    @property
    def message_type(self) -> Descriptor | None:
        """The descriptor of a MESSAGE field's message (made when asked: it may be its own)."""
        spec = self._spec
        return descriptor_of(spec_of(spec.message)) if spec.kind == MESSAGE else None

    @property
    def enum_type(self) -> EnumDescriptor | None:
        """The descriptor of an ENUM field's enum."""
        enum = self._spec.enum
        return None if enum is None else enum.DESCRIPTOR

    @property
    def file(self) -> FileDescriptor:
        """The .proto file declaring the field's message."""
        return self.containing_type.file

    def __repr__(self) -> str:
        return f"<FieldDescriptor {self.full_name} = {self.number}>"


class OneofDescriptor:
    """A oneof as protobuf's ``OneofDescriptor``: ``name``, ``full_name``, ``index``,
    its ``fields`` in declaration order, ``containing_type``."""

    __slots__ = ("containing_type", "fields", "full_name", "index", "name")

    has_options = False

    def __init__(self, name: str, index: int, containing: Descriptor) -> None:
        self.name = name
        self.full_name = f"{containing.full_name}.{name}"
        self.index = index
        self.containing_type = containing
        self.fields: tuple[FieldDescriptor, ...] = ()

    def __repr__(self) -> str:
        return f"<OneofDescriptor {self.full_name}>"


class Descriptor:
    """A message as protobuf 7's upb ``Descriptor`` shows it.

    ``fields`` (declaration order), ``fields_by_name``, ``fields_by_number``,
    ``fields_by_camelcase_name``, ``oneofs`` and ``oneofs_by_name``,
    ``nested_types`` and ``enum_types`` (declaration order) with their
    ``*_by_name``, ``enum_values_by_name`` (every value of its enums),
    ``containing_type`` (the message it is nested in), ``file``, no
    extensions.  The sequences are tuples and the tables read-only mappings:
    a descriptor is shared by every message of its class.
    """

    __slots__ = (
        "_concrete_class",
        "_spec",
        "containing_type",
        "enum_types",
        "enum_types_by_name",
        "enum_values_by_name",
        "fields",
        "fields_by_camelcase_name",
        "fields_by_name",
        "fields_by_number",
        "file",
        "full_name",
        "name",
        "nested_types",
        "nested_types_by_name",
        "oneofs",
        "oneofs_by_name",
    )

    has_options = False
    is_extendable = False
    extension_ranges: tuple[Any, ...] = ()
    extensions: tuple[Any, ...] = ()
    extensions_by_name: MappingProxyType[str, Any] = MappingProxyType({})

    def __init__(self, spec: MessageSpec) -> None:
        cls: Any = spec.cls
        _BUILT[id(spec)] = self  # before its nested ones, which look for it
        self._spec = spec
        self._concrete_class = cls
        self.full_name = spec.full_name
        self.name = spec.name.rpartition(".")[2]
        self.containing_type: Descriptor | None = None
        self.file = _file(getattr(cls, "_PROTO_FILE", DEFAULT_FILE))
        self.fields = tuple(FieldDescriptor(f, i, self) for i, f in enumerate(spec.fields))
        self.fields_by_name = MappingProxyType({f.name: f for f in self.fields})
        self.fields_by_number = MappingProxyType({f.number: f for f in self.fields})
        self.fields_by_camelcase_name = MappingProxyType({f.camelcase_name: f for f in self.fields})
        oneofs = [OneofDescriptor(name, i, self) for i, name in enumerate(spec.oneofs)]
        for oneof in oneofs:
            members = tuple(self.fields_by_name[f.name] for f in spec.oneofs[oneof.name])
            oneof.fields = members
            for member in members:
                member.containing_oneof = oneof
        self.oneofs = tuple(oneofs)
        self.oneofs_by_name = MappingProxyType({o.name: o for o in oneofs})
        nested: list[Descriptor] = []
        enums: list[EnumDescriptor] = []
        prefix = spec.name + "."
        for value in vars(cls).values():
            if isinstance(value, EnumType) and value.__qualname__.startswith(prefix):
                enums.append(value.DESCRIPTOR)
            inner = getattr(value, "_SPEC", None) if isinstance(value, type) else None
            if isinstance(inner, MessageSpec) and inner.name.startswith(prefix):
                child = descriptor_of(inner)
                child.containing_type = self
                nested.append(child)
        self.nested_types = tuple(nested)
        self.nested_types_by_name = MappingProxyType({d.name: d for d in nested})
        self.enum_types = tuple(enums)
        self.enum_types_by_name = MappingProxyType({e.name: e for e in enums})
        self.enum_values_by_name = MappingProxyType({v.name: v for e in enums for v in e.values})

    def EnumValueName(self, enum: str, value: int) -> str:  # noqa: N802 - protobuf's name
        """The name of ``value`` in the nested enum called ``enum``.

        Raises:
            KeyError: no nested enum has that name, or it no value that number
                (protobuf's error).
        """
        return self.enum_types_by_name[enum].values_by_number[value].name

    def __repr__(self) -> str:
        return f"<Descriptor {self.full_name}>"


_BUILT: dict[int, Descriptor] = {}  # id(MessageSpec) -> its descriptor; specs live forever


def descriptor_of(spec: MessageSpec) -> Descriptor:
    """The descriptor of the message ``spec`` declares: built once, then the same object.

    A nested message's descriptor is built by its parent's (which sets its
    ``containing_type``), so asking for a nested one first builds its parent's.
    """
    found = _BUILT.get(id(spec))
    if found is None:
        parent = _parent_spec(spec)
        if parent is not None:
            descriptor_of(parent)  # builds the nested ones, this one among them
            found = _BUILT.get(id(spec))
        if found is None:
            found = Descriptor(spec)  # registers itself in _BUILT
    return found


def _parent_spec(spec: MessageSpec) -> MessageSpec | None:
    """The schema of the message ``spec``'s message is nested in, if any."""
    parent_name, _, _ = spec.name.rpartition(".")
    if not parent_name:
        return None
    found: Any = sys.modules[spec.cls.__module__]
    for part in parent_name.split("."):
        found = getattr(found, part, None)
    inner = getattr(found, "_SPEC", None)
    return inner if isinstance(inner, MessageSpec) else None


def message_descriptor(cls: type) -> Descriptor:
    """``cls.DESCRIPTOR`` of a message class (``Message.DESCRIPTOR`` reads it).

    Raises:
        AttributeError: ``cls`` is no message class (``Message`` itself), so
            that ``hasattr(cls, "DESCRIPTOR")`` is false for it.
    """
    spec = getattr(cls, "_SPEC", None)
    if not isinstance(spec, MessageSpec):
        raise AttributeError(f"{cls.__qualname__} is no message class: it has no DESCRIPTOR")
    return descriptor_of(spec)
