"""The schema: every message and field, declared once, and what is built from it.

A message class in ``_messages.py`` declares each field as protobuf's
``.proto`` does, with :func:`field`: its number, its scalar kind (or
``MESSAGE``), and whether it is repeated.  :func:`message` turns the class
into a slotted, keyword-only dataclass and attaches a :class:`MessageSpec`,
the descriptor that every other layer reads instead of naming fields itself:

- the codec (``_decode.py``, ``_encode.py``) generates one decoder and one
  encoder per message from it, the way ``dataclasses`` generates ``__init__``;
- JSON, the validator's walk, ``show``, type detection, the strategies and
  the error paths look fields up in it by name or number.

So adding a field or a message is one edit here and in ``_messages.py``'s
declarations, and every layer picks it up (``tests/core/test_schema.py`` adds a
field to a copy of the declarations and round-trips it).

The classes are built without importing ``dataclasses``: ``import
dataclasses`` pulls in ``inspect``, ``ast``, ``dis`` and ``re``, most of what
``import onnxdata`` would otherwise cost on every cold start.  What
``dataclasses`` would have attached (``__dataclass_fields__``) is made from a
real dataclass the first time anything asks for it, so ``dataclasses.fields``,
``asdict``, ``replace`` and ``is_dataclass`` work.  Type checkers see a
dataclass through ``dataclass_transform``.
"""

from __future__ import annotations

import sys
from array import array
from enum import IntEnum
from functools import partial
from operator import attrgetter

from .codegen import build
from .repeated import RepeatedMessages, RepeatedScalars, message_list, to_messages, to_scalars
from .wire import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, MASK64, encode_varint

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterator
    from typing import Any, Literal, TypeVar

    from typing_extensions import dataclass_transform

    _T = TypeVar("_T", bound=type)
    Kind = Literal[
        "int32", "int64", "uint64", "float", "double", "string", "bytes", "enum", "message"
    ]

__all__ = [
    "BYTES",
    "CROWDED",
    "DOUBLE",
    "ENUM",
    "FLOAT",
    "INT32",
    "INT64",
    "MESSAGE",
    "MISSING",
    "PACKAGE",
    "REPEATED",
    "STRING",
    "UINT64",
    "FieldSpec",
    "MessageSpec",
    "alone",
    "blank_maker",
    "blank_source",
    "counter",
    "field",
    "held",
    "is_boolean",
    "is_boolean_type",
    "is_message",
    "message",
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

    Declarations say ``default_factory=REPEATED``; :func:`message` replaces it
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

VARINT, I64, LEN, I32 = 0, 1, 2, 5

# int32 is 4 bytes in an ``array('i')`` wherever Python runs, but check.
_INT32_CODE = "i" if array("i").itemsize == 4 else "l"


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
    INT32: KindInfo(INT32, VARINT, _INT32_CODE, (INT32_MIN, INT32_MAX), True),
    INT64: KindInfo(INT64, VARINT, "q", (INT64_MIN, INT64_MAX), True),
    UINT64: KindInfo(UINT64, VARINT, "Q", (0, MASK64), True),
    ENUM: KindInfo(ENUM, VARINT, None, (INT32_MIN, INT32_MAX), True),
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
        "json_name",
        "kind",
        "last",
        "message_name",
        "name",
        "number",
        "owner",
        "packed",
        "repeated",
        "repr",
        "runs",
        "slot",
        "tag",
        "type",
        "typecode",
        "wire_type",
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
    ) -> None:
        info = KINDS.get(kind)
        if info is None:
            raise ValueError(f"unknown field kind {kind!r}; one of {', '.join(KINDS)}")
        if not 1 <= number < 1 << 29 or 19000 <= number <= 19999:
            raise ValueError(f"field number {number} is not allowed by protobuf")
        if (kind == MESSAGE) != (message is not None):
            raise ValueError("a MESSAGE field names its message, and only a MESSAGE field does")
        if (kind == ENUM) != (enum is not None):
            raise ValueError("an ENUM field names its enum, and only an ENUM field does")
        self.number = number
        self.kind = kind
        self.repeated = default_factory is REPEATED
        if packed and not (self.repeated and info.packable):
            raise ValueError("only a repeated numeric field can be packed")
        # What the codec supports beyond that (all the .proto files use):
        if self.repeated and kind == ENUM:
            raise ValueError("repeated enum fields are not supported: declare them int32")
        if self.repeated and kind in (FLOAT, DOUBLE) and not packed:
            raise ValueError("a repeated float or double field must be packed")
        self.packed = packed
        self.message_name = message
        self.enum_name = enum
        self.default = None if default is MISSING and not self.repeated else default
        self.default_factory = default_factory
        self.repr = repr
        # What the decoder specialises for this field (see field()): data, not names in the codec.
        if first and last:
            raise ValueError("a field is tested first or last, not both")
        self.first = first
        self.last = last
        self.runs = runs
        self.wire_type = LEN if packed else info.wire_type
        self.tag = encode_varint(number << 3 | self.wire_type)
        self.typecode = info.typecode if packed else None
        self.bounds = info.bounds
        self.name = ""
        self.slot = ""
        self.json_name = ""
        self.owner: Any = None
        self.type: Any = None
        self.enum: type[IntEnum] | None = None
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

        A copy, as protobuf makes; what cannot be converted is kept as given,
        for ``encode()`` to refuse with the field's path (see ``_repeated.py``).
        """
        if self.typecode is not None:
            return to_scalars(self.typecode, value)
        if self.message_name is not None:
            made = self.messages_class()
            if type(value) is list:  # the usual value: a plain list, copied
                return made(value)
            return to_messages(made, value)
        return value

    def messages_class(self) -> type[RepeatedMessages]:
        """A MESSAGE field's ``RepeatedMessages`` class, resolved once."""
        made: type[RepeatedMessages] | None = self._messages
        if made is None:
            made = self._messages = message_list(self.message)
        return made

    def tag_for(self, wire_type: int) -> bytes:
        """The encoded tag of this field with ``wire_type`` (packed and unpacked are both read)."""
        return encode_varint(self.number << 3 | wire_type)

    def accepted_wire_types(self) -> tuple[int, ...]:
        """The wire types a parser accepts for this field: both forms of a packable one."""
        info = KINDS[self.kind]
        if self.repeated and info.packable:
            return (info.wire_type, LEN)
        return (info.wire_type,)


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

    __slots__ = ("by_name", "by_number", "cls", "fields", "full_name", "name", "numbered")

    def __init__(self, cls: type, fields: tuple[FieldSpec, ...]) -> None:
        self.cls = cls
        self.name: str = cls.__qualname__
        self.full_name = PACKAGE + self.name  # protobuf's name: "onnx.TensorProto.Segment"
        self.fields = fields
        self.numbered = tuple(sorted(fields, key=lambda f: f.number))
        self.by_name = {f.name: f for f in fields}
        self.by_number = {f.number: f for f in fields}
        if len(self.by_number) != len(fields):
            raise ValueError(f"{self.name}: two fields share a number")

    def __repr__(self) -> str:
        return f"<message {self.name}: {', '.join(f.name for f in self.fields)}>"

    def children(self) -> Iterator[FieldSpec]:
        """The MESSAGE fields, in number order."""
        return (f for f in self.numbered if f.kind == MESSAGE)


PACKAGE = "onnx."
"""The .proto's package, as protobuf's full names start with it."""


def is_message(value: Any) -> bool:
    """Whether ``value`` is a message of a class built from a schema (any copy of it)."""
    return isinstance(getattr(type(value), "_SPEC", None), MessageSpec)


def is_boolean(value: Any) -> bool:
    """Whether ``value`` is a Python or numpy bool: never an integer field's value.

    protobuf refuses ``True`` for an integer field.  numpy's bool has had an
    ``__index__`` in some versions and not in others (2.2 against 2.3), so a
    check by ``operator.index`` alone would accept it or not depending on the
    numpy installed; it is refused by its type instead, the same everywhere.
    numpy is not imported: the type is recognised by its module and name.
    """
    return is_boolean_type(type(value))


def is_boolean_type(cls: type) -> bool:
    """Whether values of ``cls`` are bools (see :func:`is_boolean`)."""
    return issubclass(cls, bool) or (
        getattr(cls, "__module__", None) == "numpy" and cls.__name__ in _NUMPY_BOOLS
    )


_NUMPY_BOOLS = frozenset({"bool", "bool_", "bool8"})


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
) -> Any:
    """Declare a field: ``field(12, "string", default=None)``.

    ``default_factory=REPEATED`` makes it repeated; ``packed=True`` writes a
    repeated numeric field packed; ``message`` names a MESSAGE field's class
    (as in the ``.proto``, it may be declared later); ``enum`` names the
    nested ``IntEnum`` of an ENUM field, whose unknown values are kept as
    unknown fields (proto2 enums are closed).

    The rest tell the decoder how the field's data usually looks, so that it
    specialises its code for it (none changes what is decoded): ``first``
    and ``last`` test the field before or after all others (a large payload;
    a field rarely set); ``runs`` says how its values come in runs:
    ``"varints"`` (long runs of unpacked integers), ``"tail"`` (a field of
    the message's own type whose last element ends the message: nested
    lists), or a tuple of the element's field names (elements that repeat
    the bytes of these fields, the last a ``bytes`` payload).

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
    )


_UNKNOWN: Any = object()


def unknown(*, default: bytes = b"") -> Any:
    """Declare ``unknown_fields: bytes = unknown(default=b"")``, last in every message.

    It keeps the bytes of the fields the schema does not know, byte for byte,
    and writes them back after the known ones, as protobuf does.
    """
    return _UNKNOWN


def _camel(name: str) -> str:
    """protobuf's JSON name: lowerCamelCase of the field name."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


if TYPE_CHECKING:  # pragma: no cover

    @dataclass_transform(kw_only_default=True, eq_default=False, field_specifiers=(field, unknown))
    def message(cls: _T) -> _T: ...

else:

    def message(cls):
        """Build a message class from its field declarations; see the module docstring."""
        specs = []
        namespace = dict(cls.__dict__)
        # ``cls.__annotations__``, not the class dict: on 3.14 annotations are lazy.
        for name, annotation in cls.__annotations__.items():
            if str(annotation).startswith("ClassVar"):
                continue
            value = namespace.pop(name, MISSING)
            if value is _UNKNOWN and name == UNKNOWN_FIELDS:
                continue  # every message has it, after its fields
            if not isinstance(value, FieldSpec):
                raise TypeError(f"{cls.__qualname__}.{name}: declare it with field()")
            value.name = name
            value.slot = f"_{name}" if value.repeated else name
            value.json_name = _camel(name)
            value.type = annotation
            if value.repeated:
                value.default_factory = value.container
            specs.append(value)
        namespace.pop("__dict__", None)
        namespace.pop("__weakref__", None)
        namespace["__qualname__"] = cls.__qualname__
        namespace["__slots__"] = (*(spec.slot for spec in specs), "unknown_fields")
        for spec in specs:
            if spec.repeated:
                namespace[spec.name] = _repeated_property(spec)
        namespace["__match_args__"] = ()
        namespace["__dataclass_fields__"] = _Metadata("__dataclass_fields__")
        namespace["__dataclass_params__"] = _Metadata("__dataclass_params__")
        built = type(cls)(cls.__name__, cls.__bases__, namespace)
        for spec in specs:
            spec.owner = built
            if spec.enum_name is not None:
                spec.enum = getattr(built, spec.enum_name)
                spec.enum_values = frozenset(int(v) for v in spec.enum)
        spec = MessageSpec(built, tuple(specs))
        built._SPEC = spec
        built.__init__ = _make_init(spec)
        built.__repr__ = _make_repr(spec)
        return built


UNKNOWN_FIELDS = "unknown_fields"
"""The slot, after the declared fields, that keeps unknown fields' bytes."""


def all_slots(spec: MessageSpec) -> tuple[str, ...]:
    """The names of every slot of a message: its fields' (``FieldSpec.slot``),
    then ``unknown_fields``.

    A repeated field's slot is not its name: it holds ``None`` until the
    field's container is first asked for (by the property of the field's
    name), so an empty repeated field costs no object.  The codec reads and
    writes the slots; everything else uses the fields' names.
    """
    return (*(f.slot for f in spec.fields), UNKNOWN_FIELDS)


def _defaults(spec: MessageSpec, env: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Each slot's default, as an expression over names it puts in ``env``
    (each starting with ``prefix``).

    The one generator of defaults, for ``__init__`` and for the decoder's
    blank messages: a repeated field's slot is ``None`` (no container until
    one is asked for); any other default is the declared object itself, and
    ``None`` (most of them) is written as the literal, which a blank stores
    without a lookup.
    """
    made: dict[str, str] = {}
    for f in spec.fields:
        if f.repeated or f.default is None:
            made[f.slot] = "None"
        else:
            env[f"{prefix}default_{f.name}"] = f.default
            made[f.slot] = f"{prefix}default_{f.name}"
    made[UNKNOWN_FIELDS] = "b''"
    return made


def _make_init(spec: MessageSpec) -> Callable[..., None]:
    """Generate ``__init__``, the way ``dataclasses`` does, from source text.

    A repeated field given a value gets it converted to its container (a
    copy, as protobuf makes: ``FieldSpec.convert``).
    """
    env: dict[str, Any] = {"MISSING": MISSING}
    defaults = _defaults(spec, env)
    params = []
    body = []
    for f in spec.fields:
        if f.repeated:
            env[f"convert_{f.name}"] = f.convert
            params.append(f"{f.name}=MISSING")
            body.append(
                f"    m.{f.slot} = None if {f.name} is MISSING else convert_{f.name}({f.name})"
            )
        else:
            params.append(f"{f.name}={defaults[f.slot]}")
            body.append(f"    m.{f.slot} = {f.name}")
    params.append(f"{UNKNOWN_FIELDS}={defaults[UNKNOWN_FIELDS]}")
    body.append(f"    m.{UNKNOWN_FIELDS} = {UNKNOWN_FIELDS}")
    source = f"def __init__(m, *, {', '.join(params)}):\n" + "\n".join(body)
    build(source, f"<onnxdata __init__ {spec.name}>", env)
    init: Callable[..., None] = env["__init__"]
    init.__qualname__ = f"{spec.name}.__init__"
    return init


def _repeated_property(f: FieldSpec) -> property:
    """The property of a repeated field: its container, made on first access;
    assigning converts the value to the container (``FieldSpec.convert``)."""
    env: dict[str, Any] = {"make": list, "convert": f.convert}
    if f.message_name is not None:
        # The element class is resolved on the first call (messages refer to
        # classes defined after them); from then on ``make`` is the container
        # class itself, one call less for every container made.
        def first() -> Any:
            made = env["make"] = f.messages_class()
            return made()

        env["make"] = first
    elif f.typecode is not None:
        env["make"] = partial(RepeatedScalars, f.typecode)  # no Python frame per container
    source = (
        "def get(m):\n"
        f"    v = m.{f.slot}\n"
        "    if v is None:\n"
        f"        v = m.{f.slot} = make()\n"
        "    return v\n"
        "def put(m, value):\n"
        f"    m.{f.slot} = convert(value)\n"
        "def drop(m):\n"
        f"    del m.{f.slot}\n"
    )
    build(source, f"<onnxdata property {f.name}>", env)
    return property(
        env["get"], env["put"], env["drop"], doc=f"The repeated field {f.name} = {f.number}."
    )


def blank_maker(
    spec: MessageSpec, given: tuple[str, ...] = (), cls: type | None = None
) -> Callable[..., Any]:
    """A function that makes an empty message twice as fast as its ``__init__``,
    taking the values of the slots named in ``given`` as arguments.

    The decoder makes one message per element, so this matters; it sets the
    same defaults as ``__init__``, from the same generator.  ``cls`` makes
    instances of a subclass of the message instead.  The values of ``given``
    fields are stored as they are, in the fields' slots.
    """
    env: dict[str, Any] = {}
    lines = [f"def make({', '.join(given)}):"]
    lines += ["    " + line for line in blank_source(spec, "m", env, "", given, cls)]
    build("\n".join([*lines, "    return m"]), f"<onnxdata blank {spec.name}>", env)
    maker: Callable[..., Any] = env["make"]
    return maker


def blank_source(
    spec: MessageSpec,
    target: str,
    env: dict[str, Any],
    prefix: str,
    given: tuple[str, ...] = (),
    cls: type | None = None,
) -> list[str]:
    """The statements that make an empty message in the variable ``target``.

    For generated code that makes many messages in a loop (the decoder, one
    per element): written into its body, they save a call per message.  The
    names they use are put in ``env``, each starting with ``prefix`` so that
    the blanks of several message types can share one namespace.  ``given``
    and ``cls`` are as in :func:`blank_maker`, which is built from these.
    """
    defaults = _defaults(spec, env, prefix)
    env["new"] = object.__new__
    env[f"{prefix}cls"] = cls or spec.cls
    arguments = {spec.by_name[name].slot: name for name in given}
    lines = [f"{target} = new({prefix}cls)"]
    for slot, made in defaults.items():
        lines.append(f"{target}.{slot} = {arguments.get(slot, made)}")
    return lines


def held(cls: type, name: str) -> Callable[[Any], Any]:
    """A function giving what a ``cls`` message holds in field ``name``
    without making anything: a repeated field's container, or ``None`` where
    it was never made (the field is empty); any other field's value.

    For code that reads the same field of many freshly decoded messages (the
    numpy bridge, once per nesting level): one C-level call, where the
    property of a repeated field is a Python call that may make a container.

    Raises:
        KeyError: ``name`` is not a field of ``cls``.
    """
    return attrgetter(spec_of(cls).by_name[name].slot)


def counter(cls: type, names: tuple[str, ...]) -> Callable[[Any], int]:
    """A function giving how many elements the repeated fields ``names`` of a
    ``cls`` message hold together, without making any container.

    Reading a repeated field by its name makes its container, which costs an
    object per field; code that only asks "is anything there?" of freshly
    decoded messages (the numpy bridge, once per tensor or per nesting level)
    would make a container for every empty field it looks at.  Generated like
    ``__init__``: one expression over the slots.

    The function raises ``TypeError`` (from ``len``) when a field holds a
    value that is not a container, as assigning an unconvertible value leaves it.

    Raises:
        KeyError: a name is not a field of ``cls``.
        ValueError: a named field is not repeated.
    """
    spec = spec_of(cls)
    fields = [spec.by_name[name] for name in names]
    for f in fields:
        if not f.repeated:
            raise ValueError(f"{spec.name}.{f.name} is not a repeated field")
    terms = [f"(0 if m.{f.slot} is None else len(m.{f.slot}))" for f in fields]
    env: dict[str, Any] = {}
    source = f"def count(m):\n    return {' + '.join(terms) or '0'}"
    build(source, f"<onnxdata count {spec.name}: {', '.join(names)}>", env)
    count: Callable[[Any], int] = env["count"]
    count.__qualname__ = f"count[{spec.name}: {', '.join(names)}]"
    return count


def alone(cls: type, name: str, others: tuple[str, ...]) -> Callable[[Any], Any]:
    """A function giving what a ``cls`` message holds in the repeated field
    ``name``, as :func:`held` gives it, when none of the repeated fields
    ``others`` holds an element; :data:`CROWDED` when one does.

    For code that reads one of several exclusive fields of many freshly
    decoded messages (the numpy bridge: a sequence holds elements in the
    field of its ``elem_type`` only): one generated expression over the
    slots, where :func:`counter` and :func:`held` are two calls and a sum.
    Like :func:`counter`, the function raises ``TypeError`` (from ``len``)
    when one of ``others`` holds a value that is not a container.

    Raises:
        KeyError: a name is not a field of ``cls``.
        ValueError: a named field is not repeated, or ``name`` is among ``others``.
    """
    spec = spec_of(cls)
    fields = [spec.by_name[n] for n in (name, *others)]
    for f in fields:
        if not f.repeated:
            raise ValueError(f"{spec.name}.{f.name} is not a repeated field")
    if name in others:
        raise ValueError(f"{spec.name}.{name} is both the field read and another one")
    empty = [f"(m.{f.slot} is None or not len(m.{f.slot}))" for f in fields[1:]]
    env: dict[str, Any] = {"CROWDED": CROWDED}
    source = (
        f"def alone(m):\n    return m.{fields[0].slot} if {' and '.join(empty) or 'True'} "
        "else CROWDED"
    )
    build(source, f"<onnxdata alone {spec.name}.{name}>", env)
    made: Callable[[Any], Any] = env["alone"]
    made.__qualname__ = f"alone[{spec.name}.{name}]"
    return made


class _Crowded:
    def __repr__(self) -> str:
        return "CROWDED"


CROWDED: Any = _Crowded()
"""What :func:`alone` gives when another of the fields holds elements."""


def _make_repr(spec: MessageSpec) -> Callable[[Any], str]:
    from _thread import get_ident

    shown = tuple(f.name for f in spec.fields if f.repr)
    running: set[tuple[int, int]] = set()

    def __repr__(self: Any) -> str:  # noqa: N807 - it is the class's __repr__
        key = (id(self), get_ident())
        if key in running:
            return "..."  # a message that contains itself
        running.add(key)
        try:
            inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        finally:
            running.discard(key)
        return f"{type(self).__qualname__}({inner})"

    return __repr__


class _Metadata:
    """``__dataclass_fields__``/``__dataclass_params__``, made on first access.

    ``dataclasses`` is imported then, and only then: the metadata come from a
    real dataclass with the same fields, so every ``dataclasses`` function
    sees exactly what ``@dataclass`` would have given.
    """

    def __init__(self, attribute: str) -> None:
        self.attribute = attribute

    def __get__(self, instance: Any, owner: type) -> Any:
        import dataclasses

        def made(f: FieldSpec) -> Any:
            if f.repeated:
                return dataclasses.field(default_factory=f.default_factory, repr=f.repr)
            return dataclasses.field(default=f.default, repr=f.repr)

        twin = dataclasses.make_dataclass(
            owner.__name__,
            [
                *((f.name, f.type, made(f)) for f in spec_of(owner).fields),
                (UNKNOWN_FIELDS, "bytes", dataclasses.field(default=b"", repr=False)),
            ],
            kw_only=True,
            eq=False,
        )
        owner.__dataclass_fields__ = twin.__dataclass_fields__  # type: ignore[attr-defined]
        owner.__dataclass_params__ = twin.__dataclass_params__  # type: ignore[attr-defined]
        return getattr(owner, self.attribute)
