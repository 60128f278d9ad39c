"""Unset sub-messages: reading one gives an empty message that sets itself when written.

protobuf's rule, which onnx code relies on: ``t.segment.begin`` is ``0`` when
``segment`` was never set, and ``t.segment.begin = 1`` sets ``segment``;
reading alone sets nothing (``t.HasField("segment")`` stays false, and the
bytes do not change).  So reading an unset sub-message field gives a *stand-in*:
an empty message of a subclass made here, linked to its parent and field.
Whatever writes into it (a field, a repeated field's container, ``CopyFrom``,
``Clear``, ``SetInParent``...) first *attaches* it: it becomes a plain message
of the field's class (``__class__`` is reassigned: the layouts are the same)
and takes its place in its parent, which attaches itself first if it is a
stand-in too (``opt.tensor_value.segment.begin = 1`` sets both).

The stand-in never sits in a parent's slot until it is attached, so the codec,
equality and every walker see an unset field as ``None``, as before, and
nothing they do costs more.  The link lives in a table keyed by the stand-in's
``id``, removed when it is attached or garbage-collected.

Differences from protobuf, both documented in docs/compat.md: protobuf gives
the same stand-in to every read, here each read gives a new one (when two
are written, the first written is the parent's, the other stays apart); and
``dataclasses`` sees a stand-in as no dataclass, so ``asdict`` of a message
whose own type nests (``OptionalProto.optional_value``) ends instead of
recursing forever.
"""

from __future__ import annotations

from .blanks import blank_maker
from .schema import UNKNOWN_FIELDS, spec_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterator
    from typing import Any

    from .schema import FieldSpec

__all__ = ["STAND_INS", "UnsetRepeated", "attach", "detach", "forget_readers", "stand_in"]

_LINKS: dict[int, tuple[Any, FieldSpec]] = {}  # id(stand-in) -> (parent, the field)
_MADE: dict[type, tuple[Callable[[], Any], type]] = {}  # message class -> (blank, stand-in class)
_REAL: dict[type, type] = {}  # stand-in class -> message class

STAND_INS: set[type] = set()
"""The stand-in classes made so far: ``type(v) in STAND_INS`` tells a stand-in."""


def stand_in(parent: Any, f: FieldSpec) -> Any:
    """An empty message of ``f``'s class, linked to ``parent``'s field ``f``."""
    found = _MADE.get(f.message)
    if found is None:
        found = _MADE[f.message] = (blank_maker(spec_of(f.message)), _stand_in_class(f.message))
    made = found[0]()
    made.__class__ = found[1]  # made as a plain blank: the stand-in's setters would attach it
    _LINKS[id(made)] = (parent, f)
    return made


def attach(message: Any) -> None:
    """Make the stand-in ``message`` a plain message set in its parent.

    Its parent is attached first if it is a stand-in too.  If the parent's
    field was set meanwhile (through another stand-in, or by assignment),
    ``message`` stays a plain message of its own.
    """
    # A loop, not recursion: a chain of stand-ins may be thousands deep
    # (``t.sequence_type.elem_type`` read again and again), deeper than the
    # interpreter's recursion limit.
    chain = []
    while True:
        link = _LINKS.get(id(message))
        detach(message)
        chain.append((message, link))
        if link is None or type(link[0]) not in STAND_INS:
            break
        message = link[0]
    for message, link in reversed(chain):  # the outermost parent first
        if link is not None:
            parent, f = link
            if getattr(parent, f.slot) is None:
                setattr(parent, f.slot, message)
                for other in f.siblings:  # the other members of its oneof
                    setattr(parent, other, None)


def forget_readers(parent: Any, field: FieldSpec | None = None) -> None:
    """Unlink the stand-ins read from ``parent``'s ``field`` (every field: ``None``).

    protobuf's rule for ``ClearField``, ``Clear`` and ``ParseFromString``: a
    reference read from an unset field before them no longer sets the field
    when written afterwards (it becomes a message of its own).  Only the
    stand-ins alive are scanned, and none usually are.
    """
    if not _LINKS:
        return
    for key, (linked, linked_field) in list(_LINKS.items()):
        if linked is parent and (field is None or linked_field.slot == field.slot):
            del _LINKS[key]


def detach(message: Any) -> Any:
    """The stand-in ``message`` made a plain message linked to nothing; return it.

    For a stand-in assigned to a field or given to a constructor: it is then
    that field's value, and must not set the field it was read from.
    """
    _LINKS.pop(id(message), None)
    message.__class__ = _REAL[type(message)]
    return message


class _Hidden:
    """``__dataclass_fields__`` of a stand-in: absent, so ``dataclasses`` does not recurse."""

    def __get__(self, instance: Any, owner: type) -> Any:
        raise AttributeError("__dataclass_fields__")


def _stand_in_class(cls: type) -> type:
    """The stand-in subclass of the message class ``cls`` (no slot of its own)."""
    spec = spec_of(cls)
    namespace: dict[str, Any] = {
        "__slots__": (),
        "__qualname__": cls.__qualname__,
        "__module__": cls.__module__,
        "__doc__": cls.__doc__,
        "__dataclass_fields__": _Hidden(),
        "__del__": _forget,
        "__copy__": _fresh,
        "__deepcopy__": _fresh,
        "__reduce_ex__": _reduce,
    }
    for f in spec.fields:
        namespace[f.name] = _watched(getattr(cls, f.name), f.repeated)
    unknown = vars(cls)[UNKNOWN_FIELDS]  # the slot's descriptor: every message has it
    namespace[UNKNOWN_FIELDS] = _watched(
        property(unknown.__get__, unknown.__set__, unknown.__delete__), False
    )
    for name in getattr(cls, "_MUTATORS", ()):
        namespace[name] = _attaching(getattr(cls, name))
    made: type = type(cls)(cls.__name__, (cls,), namespace)
    _REAL[made] = cls
    STAND_INS.add(made)
    return made


def _watched(base: property, repeated: bool) -> property:
    """A stand-in's property: as ``base``, attaching the stand-in before any write;
    a repeated field's container is watched for writes too."""
    get, put, drop = base.fget, base.fset, base.fdel
    assert get is not None and put is not None and drop is not None

    def put_attached(m: Any, value: Any) -> None:
        attach(m)
        put(m, value)

    def drop_attached(m: Any) -> None:
        attach(m)
        drop(m)

    if repeated:

        def get_watched(m: Any) -> Any:
            return UnsetRepeated(m, get(m))

        return property(get_watched, put_attached, drop_attached, doc=base.__doc__)
    return property(get, put_attached, drop_attached, doc=base.__doc__)


def _attaching(method: Callable[..., Any]) -> Callable[..., Any]:
    def attaching(self: Any, *args: Any, **kwargs: Any) -> Any:
        attach(self)
        return method(self, *args, **kwargs)

    attaching.__name__ = attaching.__qualname__ = method.__name__
    attaching.__doc__ = method.__doc__
    return attaching


def _forget(self: Any, links: dict[int, tuple[Any, FieldSpec]] = _LINKS) -> None:
    links.pop(id(self), None)


def _fresh(self: Any, memo: Any = None) -> Any:
    """A copy of a stand-in: a new empty message, linked to nothing."""
    return _REAL[type(self)]()


def _reduce(self: Any, protocol: Any) -> tuple[Any, ...]:
    return (_REAL[type(self)], ())


class UnsetRepeated:
    """A repeated field of a stand-in: reads as its (empty) container, and
    attaches the stand-in before anything is written to it.

    ``s.values.dims.append(1)`` sets ``s.values``; ``len(s.values.dims)``
    does not.  Everything not written is read from the container.
    """

    __slots__ = ("_container", "_owner")

    def __init__(self, owner: Any, container: Any) -> None:
        self._owner = owner
        self._container = container

    def _written(self) -> Any:
        if type(self._owner) in STAND_INS:
            attach(self._owner)
        return self._container

    def __getattr__(self, name: str) -> Any:
        return getattr(self._container, name)

    def __len__(self) -> int:
        return len(self._container)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._container)

    def __reversed__(self) -> Iterator[Any]:
        backwards: Iterator[Any] = reversed(self._container)
        return backwards

    def __getitem__(self, index: Any) -> Any:
        return self._container[index]

    def __contains__(self, value: Any) -> bool:
        return value in self._container

    def __eq__(self, other: object) -> bool:
        if isinstance(other, UnsetRepeated):
            other = other._container
        result: bool = self._container == other
        return result

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._container)

    def __setitem__(self, index: Any, value: Any) -> None:
        self._written()[index] = value

    def __delitem__(self, index: Any) -> None:
        del self._written()[index]

    def __iadd__(self, values: Any) -> Any:
        self._written().extend(values)
        return self

    def append(self, value: Any) -> None:
        self._written().append(value)

    def extend(self, values: Any) -> None:
        self._written().extend(values)

    def insert(self, index: int, value: Any) -> None:
        self._written().insert(index, value)

    def add(self, **fields: Any) -> Any:
        return self._written().add(**fields)

    def MergeFrom(self, values: Any) -> None:  # noqa: N802 - protobuf's name
        self._written().extend(values)

    def remove(self, value: Any) -> None:
        self._written().remove(value)

    def pop(self, index: int = -1) -> Any:
        return self._written().pop(index)

    def clear(self) -> None:
        del self._written()[:]

    def sort(self, **kwargs: Any) -> None:
        self._written().sort(**kwargs)

    def reverse(self) -> None:
        self._written().reverse()
