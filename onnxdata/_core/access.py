"""Reading many freshly decoded messages without making their containers.

A repeated field's container is made the first time its property is read
(``_core/classes.py``), so an empty field costs no object.  Code that reads
the same fields of thousands of messages just decoded (the numpy bridge,
once per tensor or per nesting level) would make a container for every
empty field it looks at.  The functions here are generated once per
message class and field, as one expression over the slots.
"""

from __future__ import annotations

from operator import attrgetter

from .codegen import Emitter
from .schema import spec_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

__all__ = ["CROWDED", "alone", "counter", "gather", "held"]


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
    emit = Emitter()
    emit(f"def count(m):\n    return {' + '.join(terms) or '0'}")
    count: Callable[[Any], int] = emit.build(f"<onnxdata count {spec.name}: {', '.join(names)}>")[
        "count"
    ]
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
    emit = Emitter({"CROWDED": CROWDED})
    emit(
        f"def alone(m):\n    return m.{fields[0].slot} if {' and '.join(empty) or 'True'} "
        "else CROWDED"
    )
    made: Callable[[Any], Any] = emit.build(f"<onnxdata alone {spec.name}.{name}>")["alone"]
    made.__qualname__ = f"alone[{spec.name}.{name}]"
    return made


def gather(cls: type, names: tuple[str, ...], empty: tuple[str, ...] = ()) -> Callable[[Any], Any]:
    """A function giving, as one tuple, what a ``cls`` message holds in each
    field ``names`` (as :func:`held` gives each: ``None`` while unset), or
    :data:`CROWDED` when one of the fields ``empty`` holds an element (a
    repeated field) or is set (any other).

    For the fast paths that read several fields of each of many messages
    (``to_array``, ``to_optional``, the walk over a model's attributes): one
    call where :func:`held` is one per field and a property one Python call
    per field, and an unset sub-message gives ``None``, not a stand-in made
    for it.  Without ``empty`` it is one ``operator.attrgetter`` (a C call);
    with ``empty``, one generated expression over the slots, as :func:`alone`.
    Like :func:`alone`, the function raises ``TypeError`` (from ``len``) when
    a repeated field of ``empty`` holds a value that is not a container.

    Raises:
        KeyError: a name is not a field of ``cls``.
        ValueError: a field is both read and among ``empty``.
    """
    spec = spec_of(cls)
    slots = [spec.by_name[n].slot for n in names]
    if not empty:
        return attrgetter(*slots) if len(slots) != 1 else _one(attrgetter(slots[0]))
    fields = [spec.by_name[n] for n in empty]
    both = set(names) & set(empty)
    if both:
        raise ValueError(f"{spec.name}: {', '.join(sorted(both))} both read and tested empty")
    tests = " and ".join(
        f"(m.{f.slot} is None or not len(m.{f.slot}))" if f.repeated else f"m.{f.slot} is None"
        for f in fields
    )
    values = "".join(f"m.{slot}, " for slot in slots)
    emit = Emitter({"CROWDED": CROWDED})
    emit(f"def gather(m):\n    return ({values}) if {tests} else CROWDED")
    label = f"{spec.name}: {', '.join(names)} unless {', '.join(empty)}"
    made: Callable[[Any], Any] = emit.build(f"<onnxdata gather {label}>")["gather"]
    made.__qualname__ = f"gather[{label}]"
    return made


def _one(get: Callable[[Any], Any]) -> Callable[[Any], tuple[Any]]:
    """``get``'s value as a 1-tuple, as :func:`gather` gives every value."""
    return lambda m: (get(m),)


class _Crowded:
    def __repr__(self) -> str:
        return "CROWDED"


CROWDED: Any = _Crowded()
"""What :func:`alone` gives when another of the fields holds elements."""
