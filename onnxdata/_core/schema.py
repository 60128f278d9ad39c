"""The schema: every message and field, declared once, and what the layers read of it.

A message class in ``_messages/declarations.py`` declares each field as
protobuf's ``.proto`` does, with :func:`field`: its number, its scalar kind
(or ``MESSAGE``), and whether it is repeated.  ``@message``
(``_core/classes.py``) turns the class into a slotted, keyword-only dataclass
and attaches a :class:`MessageSpec`, the descriptor that every other layer
reads instead of naming fields itself:

- the codec (``_codec/decode.py``, ``_codec/encode.py``) generates one
  decoder and one encoder per message from it, the way ``dataclasses``
  generates ``__init__``;
- JSON, the validator's walk, ``show``, type detection, the strategies and
  the error paths look fields up in it by name or number.

So adding a field or a message is one edit to the declarations, and every
layer picks it up (``tests/core/test_schema.py`` adds a field to a copy of
the declarations and round-trips it).

What is built from the schema lives beside it, one concern a module:
``classes.py`` (the class: ``__init__``, ``__repr__``, the repeated fields'
properties), ``blanks.py`` (empty messages for the decoder's generated code)
and ``access.py`` (reading fields of many messages without making containers).
"""

from __future__ import annotations

import sys
from array import array
from operator import attrgetter

from .codegen import Emitter
from .kinds import BOUNDS, is_boolean, is_boolean_type
from .repeated import (
    RepeatedMessages,
    RepeatedScalars,
    message_list,
    to_list,
    to_messages,
    to_scalars,
)
from .wire import (  # the wire types, re-exported: readers take them with the schema
    I32,
    I64,
    LEN,
    VARINT,
    tag_bytes,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterator
    from typing import Any, Literal

    from .enums import EnumType

    Kind = Literal[
        "int32", "int64", "uint64", "float", "double", "string", "bytes", "enum", "message"
    ]

__all__ = [
    "BYTES",
    "DOUBLE",
    "ENUM",
    "FLOAT",
    "I32",
    "I64",
    "INT32",
    "INT32_TYPECODE",
    "INT64",
    "INT64_TYPECODE",
    "KINDS",
    "LEN",
    "MESSAGE",
    "MISSING",
    "PACKAGE",
    "REPEATED",
    "STRING",
    "UINT64",
    "UNKNOWN",
    "UNKNOWN_FIELDS",
    "VARINT",
    "FieldSpec",
    "KindInfo",
    "MessageSpec",
    "Named",
    "all_slots",
    "field",
    "is_boolean",
    "is_boolean_type",
    "is_message",
    "spec_of",
    "unknown",
]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""No default given."""


def REPEATED() -> Any:  # noqa: N802 - a marker, read as a constant
    """The default of every repeated field: an empty list or array of its kind.

    Declarations say ``default_factory=REPEATED``; ``@message`` replaces it
    with the kind's own container (:attr:`FieldSpec.container`).
    """
    raise AssertionError("REPEATED is replaced by the field's container")  # pragma: no cover


# -- kinds -----------------------------------------------------------------------

# The scalar kinds of the .proto, and MESSAGE.  A kind is its .proto type name, so
# a declaration reads as the .proto does: ``field(12, "string", default=None)``.
INT32 = "int32"
INT64 = "int64"
UINT64 = "uint64"
FLOAT = "float"
DOUBLE = "double"
STRING = "string"
BYTES = "bytes"
ENUM = "enum"  # a proto2 enum field: varint on the wire, closed (unknown values kept aside)
MESSAGE = "message"


_ZEROS: dict[str, Any] = {
    INT32: 0,
    INT64: 0,
    UINT64: 0,
    ENUM: 0,
    FLOAT: 0.0,
    DOUBLE: 0.0,
    STRING: "",
    BYTES: b"",
}
"""What an unset field of each scalar kind reads as (protobuf's defaults)."""

# int32 is 4 bytes in an ``array('i')`` wherever Python runs, but check.
INT32_TYPECODE = "i" if array("i").itemsize == 4 else "l"
"""The ``array`` typecode of an ``int32`` field's values (``INT32`` is the kind, ``"int32"``)."""
INT64_TYPECODE = "q"
"""The ``array`` typecode of an ``int64`` field's values."""


class KindInfo:
    """What a scalar kind is on the wire and in memory."""

    __slots__ = ("bounds", "kind", "packable", "typecode", "wire_type")

    def __init__(
        self,
        kind: str,
        wire_type: int,
        typecode: str | None,
        bounds: tuple[int, int] | None,
        packable: bool,
    ) -> None:
        self.kind = kind
        self.wire_type = wire_type
        self.typecode = typecode  # the array typecode of a repeated field, if it has one
        self.bounds = bounds  # an integer kind's range
        self.packable = packable


KINDS: dict[str, KindInfo] = {
    INT32: KindInfo(INT32, VARINT, INT32_TYPECODE, BOUNDS[INT32], True),
    INT64: KindInfo(INT64, VARINT, INT64_TYPECODE, BOUNDS[INT64], True),
    UINT64: KindInfo(UINT64, VARINT, "Q", BOUNDS[UINT64], True),
    ENUM: KindInfo(ENUM, VARINT, None, BOUNDS[ENUM], True),
    FLOAT: KindInfo(FLOAT, I32, "f", None, True),
    DOUBLE: KindInfo(DOUBLE, I64, "d", None, True),
    STRING: KindInfo(STRING, LEN, None, None, False),
    BYTES: KindInfo(BYTES, LEN, None, None, False),
    MESSAGE: KindInfo(MESSAGE, LEN, None, None, False),
}
"""Every kind a field may have, by name."""


# -- fields and messages ---------------------------------------------------------


class FieldSpec:
    """One field of one message: everything the codec and the tools need to know.

    ``name``, ``number``, ``kind`` and the label (``repeated``) are declared;
    the rest is derived: the wire type, the encoded tag, the JSON name, the
    array typecode of a packed numeric field, the integer bounds.
    """

    __slots__ = (
        "_message",
        "_messages",
        "bounds",
        "default",
        "default_factory",
        "enum",
        "enum_name",
        "enum_values",
        "first",
        "held",
        "json_name",
        "kind",
        "last",
        "message_name",
        "name",
        "number",
        "oneof",
        "owner",
        "packed",
        "repeated",
        "repr",
        "runs",
        "siblings",
        "slot",
        "tag",
        "type",
        "typecode",
        "view",
        "wire_type",
        "zero",
    )

    def __init__(
        self,
        number: int,
        kind: str,
        *,
        default: Any,
        default_factory: Any,
        packed: bool,
        message: str | None,
        enum: str | None,
        repr: bool,
        first: bool = False,
        last: bool = False,
        runs: str | tuple[str, ...] = "",
        oneof: str | None = None,
        view: bool = False,
    ) -> None:
        info = _checked(number, kind, message, enum)
        if view and kind != BYTES:
            raise ValueError(f"only a bytes field is read as a view, not a {kind} field")
        self.number = number
        self.kind = kind
        self.repeated = default_factory is REPEATED
        plain = None if oneof is None else not (runs or first or last)
        _check_label(self.repeated, info, packed, plain)
        self.packed = packed
        # The oneof it belongs to, and the slots of the other members, which
        # setting it clears (filled in by ``MessageSpec``).
        self.oneof = oneof
        self.siblings: tuple[str, ...] = ()
        self.message_name = message
        self.enum_name = enum
        self.default = None if default is MISSING and not self.repeated else default
        # What reading the field gives while it is unset (protobuf's default);
        # an enum's is its first value, set when the enum is resolved.
        self.zero: Any = _ZEROS.get(kind)
        self.default_factory = default_factory
        self.repr = repr
        # What the decoder specialises for this field (see field()): data, not names in the codec.
        if first and last:
            raise ValueError("a field is tested first or last, not both")
        self.first = first
        self.last = last
        self.runs = runs
        # Whether decode(copy=False) leaves the field's values views of the input.
        self.view = view
        self.wire_type = LEN if packed else info.wire_type
        self.tag = tag_bytes(number, self.wire_type)
        # An array holds a packed field's values, and a float or double
        # field's either way: it keeps every bit (a signalling NaN included).
        fixed = self.repeated and kind in (FLOAT, DOUBLE)
        self.typecode = info.typecode if packed or fixed else None
        self.bounds = info.bounds
        self.name = ""
        self.slot = ""
        # What the message holds in the field, without making anything: set with ``slot``.
        self.held: Callable[[Any], Any] = _unnamed
        self.json_name = ""
        self.owner: Any = None
        self.type: Any = None
        self.enum: EnumType | None = None
        self.enum_values: frozenset[int] = frozenset()  # the values ``enum`` names
        self._message: Any = None
        self._messages: Any = None  # the RepeatedMessages class, once resolved

    def __repr__(self) -> str:
        label = "repeated" if self.repeated else "optional"
        what = self.message_name or self.enum_name or self.kind
        return f"<field {label} {what} {self.name} = {self.number}>"

    @property
    def message(self) -> Any:
        """The class of a MESSAGE field's values.

        Resolved on first use: the .proto may declare it later, or it may be
        the message itself.
        """
        found = self._message
        if found is None and self.message_name is not None:
            found = self._message = _resolve(self.owner, self.message_name)
        return found

    @property
    def container(self) -> Callable[[], Any]:
        """What makes a repeated field's empty container: a ``RepeatedScalars`` of
        its typecode, its message's ``RepeatedMessages``, or ``list``."""
        code = self.typecode
        if code is not None:
            return _ScalarsFactory(code)
        if self.message_name is not None:
            return _MessagesFactory(self)
        return list

    def convert(self, value: Any) -> Any:
        """A value assigned to a repeated field, as the field's container.

        Always a new container, for every kind of repeated field, as protobuf
        makes: the caller's list (or another message's container) is never
        shared, so changing it afterwards leaves the message alone.  What
        cannot be converted is kept as given, for ``encode()`` to refuse with
        the field's path (see ``_core/repeated.py``).
        """
        if self.typecode is not None:
            return to_scalars(self.typecode, value)
        if self.message_name is not None:
            made = self.messages_class()
            if type(value) is list:  # the usual value: a plain list, copied
                return made(value)
            return to_messages(made, value)
        if type(value) is list:  # the usual value: copied, the fastest way there is
            return value.copy()
        return to_list(value)

    def messages_class(self) -> type[RepeatedMessages]:
        """A MESSAGE field's ``RepeatedMessages`` class, resolved once."""
        made: type[RepeatedMessages] | None = self._messages
        if made is None:
            made = self._messages = message_list(self.message)
        return made

    def named(self, name: str) -> None:
        """Give the field its name, and with it its slot and :attr:`held`
        (``@message`` calls it once, when it builds the class).

        ``held`` is the one way a module outside ``_core`` and the codec
        reads a field as the message holds it: ``None`` while the field is
        unset (a repeated one's container is made only when it is first
        read by name), without a stand-in made for an unset sub-message.
        It is an ``operator.attrgetter`` of the slot, built here once: one C
        call, as fast as ``getattr(message, slot)`` and naming no slot
        (``tests/package/test_slots.py`` checks that no other module does).
        """
        self.name = name
        self.slot = f"_{name}"
        self.held = attrgetter(self.slot)

    def put(self, message: Any, value: Any) -> None:
        """Store ``value`` in the field as held (``None`` unsets it), with no
        conversion and no oneof rule: for code that moves what :attr:`held`
        gave from one message to another of the same class (a copy, a
        ``Clear``), never for a user's value (assign the field by name)."""
        setattr(message, self.slot, value)

    def tag_for(self, wire_type: int) -> bytes:
        """The encoded tag of this field with ``wire_type`` (packed and unpacked are both read)."""
        return tag_bytes(self.number, wire_type)

    def accepted_wire_types(self) -> tuple[int, ...]:
        """The wire types a parser accepts for this field: both forms of a packable one."""
        info = KINDS[self.kind]
        if self.repeated and info.packable:
            return (info.wire_type, LEN)
        return (info.wire_type,)


def _unnamed(message: Any) -> Any:
    """:attr:`FieldSpec.held` of a field not yet in a class."""
    raise LookupError("the field is in no message class yet")


def _checked(number: int, kind: str, message: str | None, enum: str | None) -> KindInfo:
    """The kind of a field declared so, if the declaration is valid proto2.

    Raises:
        ValueError: it is not.
    """
    info = KINDS.get(kind)
    if info is None:
        raise ValueError(f"unknown field kind {kind!r}; one of {', '.join(KINDS)}")
    if not 1 <= number < 1 << 29 or 19000 <= number <= 19999:
        raise ValueError(f"field number {number} is not allowed by protobuf")
    if (kind == MESSAGE) != (message is not None):
        raise ValueError("a MESSAGE field names its message, and only a MESSAGE field does")
    if (kind == ENUM) != (enum is not None):
        raise ValueError("an ENUM field names its enum, and only an ENUM field does")
    return info


def _check_label(repeated: bool, info: KindInfo, packed: bool, plain_oneof: bool | None) -> None:
    """Refuse what the codec does not support of a field's label.

    ``plain_oneof`` is None for a field in no oneof, else whether the member
    asks the decoder for no specialisation (none may).

    Raises:
        ValueError: a packed field that cannot be, a repeated enum, a
            repeated or specialised oneof member.
    """
    if packed and not (repeated and info.packable):
        raise ValueError("only a repeated numeric field can be packed")
    # What the codec supports beyond that (all the .proto files use):
    if repeated and info.kind == ENUM:
        raise ValueError("repeated enum fields are not supported: declare them int32")
    if plain_oneof is not None and (repeated or not plain_oneof):
        raise ValueError("a oneof member is singular, and the decoder specialises none")


class _ScalarsFactory:
    """An empty ``RepeatedScalars`` of one typecode; picklable and comparable, unlike a lambda."""

    __slots__ = ("typecode",)

    def __init__(self, typecode: str) -> None:
        self.typecode = typecode

    def __call__(self) -> RepeatedScalars:
        return RepeatedScalars(self.typecode)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ScalarsFactory) and other.typecode == self.typecode

    def __hash__(self) -> int:
        return hash(self.typecode)

    def __repr__(self) -> str:
        return f"RepeatedScalars({self.typecode!r})"


class _MessagesFactory:
    """An empty ``RepeatedMessages`` of a field's message, resolved on first call."""

    __slots__ = ("field", "made")

    def __init__(self, field: FieldSpec) -> None:
        self.field = field
        self.made: Any = None

    def __call__(self) -> RepeatedMessages:
        made = self.made
        if made is None:
            made = self.made = message_list(self.field.message)
        value: RepeatedMessages = made()
        return value

    def __repr__(self) -> str:
        return f"RepeatedMessages[{self.field.message_name}]"


class MessageSpec:
    """One message: its full name, its fields in declaration and in number order."""

    __slots__ = (
        "by_name",
        "by_number",
        "cls",
        "fields",
        "full_name",
        "held_numbered",
        "name",
        "named",
        "numbered",
        "oneofs",
    )

    def __init__(self, cls: type, fields: tuple[FieldSpec, ...]) -> None:
        self.cls = cls
        self.name: str = cls.__qualname__
        self.full_name = PACKAGE + self.name  # protobuf's name: "onnx.TensorProto.Segment"
        self.fields = fields
        self.numbered = tuple(sorted(fields, key=lambda f: f.number))
        # A function giving what a message holds in every field (as FieldSpec.held
        # gives each: None while unset), in number order, then its unknown fields:
        # for the walkers that read every field of a message (the printers, JSON,
        # ListFields, ==), zipped with ``numbered``.  One tuple of slot reads,
        # ``(m._a, ..., m.unknown_fields)``, generated on first call: a slot read in
        # generated code is the fastest read CPython has.  It raises AttributeError
        # when a slot was deleted.  Callers zip it without ``strict=``: the tuple is
        # one longer than ``numbered``, and a keyword makes ``zip()`` a slow call
        # on CPython 3.11, in loops run once per message.
        self.held_numbered: Callable[[Any], tuple[Any, ...]] = self._build_held_numbered
        self.by_name = {f.name: f for f in fields}
        self.by_number = {f.number: f for f in fields}
        self.named = Named(self)
        if len(self.by_number) != len(fields):
            raise ValueError(f"{self.name}: two fields share a number")
        # Each oneof's members, in declaration order, by the oneof's name.
        self.oneofs: dict[str, tuple[FieldSpec, ...]] = {}
        for f in fields:
            if f.oneof is not None:
                self.oneofs[f.oneof] = (*self.oneofs.get(f.oneof, ()), f)
        for members in self.oneofs.values():
            for f in members:
                f.siblings = tuple(other.slot for other in members if other is not f)
        if set(self.oneofs) & set(self.by_name):
            raise ValueError(f"{self.name}: a oneof has the name of a field")

    def __repr__(self) -> str:
        return f"<message {self.name}: {', '.join(f.name for f in self.fields)}>"

    def _build_held_numbered(self, message: Any) -> tuple[Any, ...]:
        """:attr:`held_numbered` until it is first called: generate it, put it
        in its place, and read ``message`` with it (so that importing the
        package generates nothing, and a call later costs no test)."""
        emit = Emitter()
        reads = "".join(f"m.{f.slot}, " for f in self.numbered)
        emit(f"def held(m):\n    return ({reads}m.{UNKNOWN_FIELDS})")
        made: Callable[[Any], tuple[Any, ...]]
        made = emit.build(f"<onnxdata held {self.name}>", at_import=True)["held"]
        made.__qualname__ = f"held[{self.name}]"
        self.held_numbered = made
        return made(message)

    def children(self) -> Iterator[FieldSpec]:
        """The MESSAGE fields, in number order."""
        return (f for f in self.numbered if f.kind == MESSAGE)


class Named:
    """A message's fields as attributes: ``spec_of(ModelProto).named.graph`` is the
    ``FieldSpec`` of ``ModelProto.graph``.

    How a module outside the declarations reaches one field's number, tag or
    name: by an identifier that fails at once (``AttributeError``, at import
    when read at module level) if the declarations rename the field, where a
    number or a string written again would silently go stale
    (``tests/package/test_schema_knowledge.py`` checks that none is).
    """

    __slots__ = ("_spec",)

    def __init__(self, spec: MessageSpec) -> None:
        self._spec = spec

    def __getattr__(self, name: str) -> FieldSpec:
        found = self._spec.by_name.get(name)
        if found is None:
            raise AttributeError(f"{self._spec.name} has no field {name!r}")
        return found

    def __repr__(self) -> str:
        return f"<fields of {self._spec.name}>"


PACKAGE = "onnx."
"""The .proto's package, as protobuf's full names start with it."""


def is_message(value: Any) -> bool:
    """Whether ``value`` is a message of a class built from a schema (any copy of it)."""
    return isinstance(getattr(type(value), "_SPEC", None), MessageSpec)


def spec_of(cls: type) -> MessageSpec:
    """The :class:`MessageSpec` of a message class.

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    spec = getattr(cls, "_SPEC", None)
    if not isinstance(spec, MessageSpec):
        raise TypeError(f"not a message class: {getattr(cls, '__qualname__', cls)!r}")
    return spec


def _resolve(owner: type, dotted: str) -> Any:
    """A class named ``dotted`` ("TensorProto.Segment") in ``owner``'s module.

    Messages refer to each other by name, as in the ``.proto``, so that a
    message can hold itself or one declared after it.
    """
    namespace = vars(sys.modules[owner.__module__])
    head, *rest = dotted.split(".")
    found: Any = namespace.get(head)
    if found is None:  # a message nested in the owner, named without its parent
        found = getattr(owner, head, None)
    for part in rest:
        found = getattr(found, part, None)
    if found is None:
        raise LookupError(f"{owner.__qualname__}: no message named {dotted!r}")
    return found


# -- declaring ------------------------------------------------------------------


def field(
    number: int,
    kind: Kind,
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    packed: bool = False,
    message: str | None = None,
    enum: str | None = None,
    repr: bool = True,
    first: bool = False,
    last: bool = False,
    runs: str | tuple[str, ...] = "",
    oneof: str | None = None,
    view: bool = False,
) -> Any:
    """Declare a field: ``field(12, "string", default=None)``.

    ``default_factory=REPEATED`` makes it repeated; ``packed=True`` writes a
    repeated numeric field packed; ``message`` names a MESSAGE field's class
    (as in the ``.proto``, it may be declared later); ``enum`` names the
    nested enum (a ``ProtoEnum`` declaration) of an ENUM field, whose unknown values are kept as
    unknown fields (proto2 enums are closed).

    The rest tell the decoder how the field's data usually looks, so that it
    specialises its code for it (none changes what is decoded): ``first``
    and ``last`` test the field before or after all others (a large payload;
    a field rarely set); ``runs`` says how its values come in runs:
    ``"varints"`` (long runs of unpacked integers), ``"tail"`` (a field of
    the message's own type whose last element ends the message: nested
    lists), or a tuple of the element's field names (elements that repeat the bytes of these
    fields, the last a ``bytes`` payload).

    ``view=True`` (a ``bytes`` field only) lets ``decode(copy=False)`` leave
    the field's values read-only ``memoryview`` slices of the input: for a
    large payload (``raw_data``), which is then never copied.  Every other
    ``bytes`` field decodes as ``bytes`` in every mode, as protobuf's does,
    because code written for onnx calls ``bytes`` methods on it
    (``attribute.s.decode()``) and uses it as a dictionary key.

    ``oneof`` names the ``oneof`` the field belongs to: setting one member
    unsets the others, in every way a field is set (assignment, a
    sub-message written through, decoding), as protobuf does.

    Raises:
        ValueError: the declaration is not a valid proto2 field.
    """
    return FieldSpec(
        number,
        kind,
        default=default,
        default_factory=default_factory,
        packed=packed,
        message=message,
        enum=enum,
        repr=repr,
        first=first,
        last=last,
        runs=runs,
        oneof=oneof,
        view=view,
    )


UNKNOWN: Any = object()
"""What :func:`unknown` declares; ``@message`` recognises it."""


def unknown(*, default: bytes = b"") -> Any:
    """Declare ``unknown_fields: bytes = unknown(default=b"")``, last in every message.

    It keeps the bytes of the fields the schema does not know, byte for byte,
    and writes them back after the known ones, as protobuf does.
    """
    return UNKNOWN


UNKNOWN_FIELDS = "unknown_fields"
"""The slot, after the declared fields, that keeps unknown fields' bytes."""


def all_slots(spec: MessageSpec) -> tuple[str, ...]:
    """The names of every slot of a message: its fields' (``FieldSpec.slot``),
    then ``unknown_fields``.

    A field's slot is not its name (it is ``_<name>``): it holds ``None``
    while the field is unset, and a repeated field's until its container is
    first asked for (by the property of the field's name), so an empty
    repeated field costs no object.  The codec and every walker that must
    see presence read the slots; code that reads fields as protobuf's users
    do uses the names (an unset field then reads as its default).
    """
    return (*(f.slot for f in spec.fields), UNKNOWN_FIELDS)
