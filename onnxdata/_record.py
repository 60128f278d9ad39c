"""Dataclass-compatible message classes, built without importing ``dataclasses``.

``import dataclasses`` pulls in ``inspect``, ``ast``, ``dis`` and ``re``: about
15 ms, most of what ``import onnxdata`` would otherwise cost, and an import is
paid on every cold start of a serverless function or a Pyodide page.  So
:func:`message` builds what ``@dataclass(slots=True, kw_only=True, eq=False)``
builds (slots, a generated keyword-only ``__init__``, a ``__repr__``), and
hands ``dataclasses`` its real metadata the first time anything asks for it:
``dataclasses.fields``, ``asdict``, ``replace`` and ``is_dataclass`` work.
Type checkers see a dataclass through ``dataclass_transform``.
"""

from __future__ import annotations

from _thread import get_ident

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any, TypeVar

    from typing_extensions import dataclass_transform

    _T = TypeVar("_T", bound=type)


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """What :func:`field` records about one field."""

    __slots__ = ("default", "default_factory", "name", "repr", "type")

    def __init__(self, default: Any, default_factory: Any, repr: bool) -> None:
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.name = ""
        self.type: Any = None


def field(*, default: Any = MISSING, default_factory: Any = MISSING, repr: bool = True) -> Any:
    """A field's default, or the factory of its default, as ``dataclasses.field``."""
    return Field(default, default_factory, repr)


if TYPE_CHECKING:  # pragma: no cover

    @dataclass_transform(kw_only_default=True, eq_default=False, field_specifiers=(field,))
    def message(cls: _T) -> _T: ...

else:

    def message(cls):
        """Turn a class with annotated fields into a slotted, keyword-only message class."""
        specs = []
        namespace = dict(cls.__dict__)
        # ``cls.__annotations__``, not the class dict: on 3.14 annotations are lazy.
        for name, annotation in cls.__annotations__.items():
            if str(annotation).startswith("ClassVar"):
                continue
            value = namespace.pop(name, MISSING)
            spec = value if isinstance(value, Field) else Field(value, MISSING, True)
            spec.name = name
            spec.type = annotation
            specs.append(spec)
        namespace.pop("__dict__", None)
        namespace.pop("__weakref__", None)
        namespace["__qualname__"] = cls.__qualname__
        namespace["__slots__"] = tuple(spec.name for spec in specs)
        namespace["__match_args__"] = ()
        namespace["_FIELDS"] = tuple(specs)
        namespace["_FIELD_NAMES"] = tuple(spec.name for spec in specs)
        namespace["__init__"] = _make_init(cls.__qualname__, specs)
        namespace["__repr__"] = _make_repr(specs)
        namespace["__dataclass_fields__"] = _Metadata("__dataclass_fields__")
        namespace["__dataclass_params__"] = _Metadata("__dataclass_params__")
        return type(cls)(cls.__name__, cls.__bases__, namespace)


def _make_init(qualname: str, specs: list[Field]) -> Callable[..., None]:
    """Generate ``__init__``, the way ``dataclasses`` does, from source text.

    A list default is a literal (faster than calling ``list``); any other
    factory's value is made by copying an empty prototype, as the decoder does.
    """
    env: dict[str, Any] = {"MISSING": MISSING}
    params = []
    body = []
    for spec in specs:
        name = spec.name
        if spec.default_factory is not MISSING:
            params.append(f"{name}=MISSING")
            if spec.default_factory is list:
                made = "[]"
            else:
                env[f"_empty_{name}"] = spec.default_factory()
                made = f"_empty_{name}.__copy__()"
            body.append(f"    self.{name} = {made} if {name} is MISSING else {name}")
        else:
            env[f"_default_{name}"] = spec.default
            params.append(f"{name}=_default_{name}")
            body.append(f"    self.{name} = {name}")
    source = f"def __init__(self, *, {', '.join(params)}):\n" + "\n".join(body or ["    pass"])
    exec(source, env)
    init: Callable[..., None] = env["__init__"]
    init.__qualname__ = f"{qualname}.__init__"
    return init


def _make_repr(specs: list[Field]) -> Callable[[Any], str]:
    shown = tuple(spec.name for spec in specs if spec.repr)
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

        twin = dataclasses.make_dataclass(
            owner.__name__,
            [
                (
                    spec.name,
                    spec.type,
                    dataclasses.field(default=spec.default, repr=spec.repr)
                    if spec.default_factory is MISSING
                    else dataclasses.field(default_factory=spec.default_factory, repr=spec.repr),
                )
                for spec in owner.__dict__["_FIELDS"]
            ],
            kw_only=True,
            eq=False,
        )
        owner.__dataclass_fields__ = twin.__dataclass_fields__  # type: ignore[attr-defined]
        owner.__dataclass_params__ = twin.__dataclass_params__  # type: ignore[attr-defined]
        return getattr(owner, self.attribute)
