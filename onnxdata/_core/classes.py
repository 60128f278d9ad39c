"""How a message class is built from its declarations: ``@message``.

A message class in ``_messages/declarations.py`` declares each field with
:func:`~.schema.field`; :func:`message` turns the class into a slotted,
keyword-only dataclass and attaches its :class:`~.schema.MessageSpec`.  It
generates ``__init__`` (as ``dataclasses`` does, from source text compiled by
``codegen.build``), a ``__repr__``, and a property per repeated field, which
makes the field's container on first access and converts (copies) what is
assigned to it (``FieldSpec.convert``).

The classes are built without importing ``dataclasses``: ``import
dataclasses`` pulls in ``inspect``, ``ast``, ``dis`` and ``re``, most of what
``import onnxdata`` would otherwise cost on every cold start.  What
``dataclasses`` would have attached (``__dataclass_fields__``) is made from a
real dataclass the first time anything asks for it, so ``dataclasses.fields``,
``asdict``, ``replace`` and ``is_dataclass`` work.  Type checkers see a
dataclass through ``dataclass_transform``.
"""

from __future__ import annotations

from functools import partial

from .blanks import slot_defaults
from .codegen import build
from .repeated import RepeatedScalars
from .schema import MISSING, UNKNOWN, UNKNOWN_FIELDS, FieldSpec, MessageSpec, spec_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any, TypeVar

    from typing_extensions import dataclass_transform

    from .schema import field, unknown

    _T = TypeVar("_T", bound=type)

__all__ = ["message"]


def _camel(name: str) -> str:
    """protobuf's JSON name: lowerCamelCase of the field name."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


if TYPE_CHECKING:  # pragma: no cover

    @dataclass_transform(kw_only_default=True, eq_default=False, field_specifiers=(field, unknown))
    def message(cls: _T) -> _T: ...

else:

    def message(cls):
        """Build a message class from its field declarations; see the module docstring.

        Raises:
            TypeError: an annotated name is not declared with ``field()``.
            ValueError: two fields share a number.
        """
        specs = []
        namespace = dict(cls.__dict__)
        # ``cls.__annotations__``, not the class dict: on 3.14 annotations are lazy.
        for name, annotation in cls.__annotations__.items():
            if str(annotation).startswith("ClassVar"):
                continue
            value = namespace.pop(name, MISSING)
            if value is UNKNOWN and name == UNKNOWN_FIELDS:
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


def _make_init(spec: MessageSpec) -> Callable[..., None]:
    """Generate ``__init__``, the way ``dataclasses`` does, from source text.

    A repeated field given a value gets it converted to its container (a
    copy, as protobuf makes: ``FieldSpec.convert``).
    """
    env: dict[str, Any] = {"MISSING": MISSING}
    defaults = slot_defaults(spec, env)
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
    build(source, f"<onnxdata __init__ {spec.name}>", env, at_import=True)
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
    build(source, f"<onnxdata property {f.name}>", env, at_import=True)
    return property(
        env["get"], env["put"], env["drop"], doc=f"The repeated field {f.name} = {f.number}."
    )


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
