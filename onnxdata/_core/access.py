"""Reading many freshly decoded messages without making their containers.

Every function takes the fields as the schema gives them (each a ``FieldSpec``:
``spec_of(TensorProto).named.raw_data``, or a module constant
``_TENSOR = spec_of(TensorProto).named`` and ``_TENSOR.raw_data``), never a
name written as a string, so a field renamed in the declarations fails at
import (``AttributeError``), not later (``tests/package/test_schema_knowledge.py``).
One field's value as held is ``FieldSpec.held`` (an ``operator.attrgetter``
of its slot, built once with the field).

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
from .schema import all_slots, spec_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from .schema import FieldSpec, MessageSpec

__all__ = ["CROWDED", "alone", "counter", "gather", "state"]


def _one_message(fields: tuple[FieldSpec, ...]) -> MessageSpec:
    """The message the ``fields`` all belong to.

    Raises:
        ValueError: no field, or fields of two messages.
    """
    owners = {id(f.owner) for f in fields}
    if len(owners) != 1:
        raise ValueError(f"fields of one message expected, got {fields!r}")
    return spec_of(fields[0].owner)


def _repeated(spec: MessageSpec, fields: tuple[FieldSpec, ...]) -> None:
    for f in fields:
        if not f.repeated:
            raise ValueError(f"{spec.name}.{f.name} is not a repeated field")


def counter(*fields: FieldSpec) -> Callable[[Any], int]:
    """A function giving how many elements the repeated ``fields`` of one
    message hold together, without making any container.

    Reading a repeated field by its name makes its container, which costs an
    object per field; code that only asks "is anything there?" of freshly
    decoded messages (the numpy bridge, once per tensor or per nesting level)
    would make a container for every empty field it looks at.  Generated like
    ``__init__``: one expression over the slots.

    The function raises ``TypeError`` (from ``len``) when a field holds a
    value that is not a container, as assigning an unconvertible value leaves it.

    Raises:
        ValueError: a field is not repeated, or the fields are of two messages.
    """
    spec = _one_message(fields)
    _repeated(spec, fields)
    names = ", ".join(f.name for f in fields)
    terms = [f"(0 if m.{f.slot} is None else len(m.{f.slot}))" for f in fields]
    emit = Emitter()
    emit(f"def count(m):\n    return {' + '.join(terms) or '0'}")
    count: Callable[[Any], int] = emit.build(f"<onnxdata count {spec.name}: {names}>")["count"]
    count.__qualname__ = f"count[{spec.name}: {names}]"
    return count


def alone(field: FieldSpec, others: tuple[FieldSpec, ...]) -> Callable[[Any], Any]:
    """A function giving what a message holds in the repeated ``field``, as
    :attr:`FieldSpec.held` gives it, when none of the repeated fields
    ``others`` (of the same message) holds an element; :data:`CROWDED` when
    one does.

    For code that reads one of several exclusive fields of many freshly
    decoded messages (the numpy bridge: a sequence holds elements in the
    field of its ``elem_type`` only): one generated expression over the
    slots, where :func:`counter` and ``held`` are two calls and a sum.
    Like :func:`counter`, the function raises ``TypeError`` (from ``len``)
    when one of ``others`` holds a value that is not a container.

    Raises:
        ValueError: a field is not repeated, ``field`` is among ``others``,
            or the fields are of two messages.
    """
    fields = (field, *others)
    spec = _one_message(fields)
    _repeated(spec, fields)
    if field in others:
        raise ValueError(f"{spec.name}.{field.name} is both the field read and another one")
    empty = [f"(m.{f.slot} is None or not len(m.{f.slot}))" for f in others]
    emit = Emitter({"CROWDED": CROWDED})
    emit(
        f"def alone(m):\n    return m.{field.slot} if {' and '.join(empty) or 'True'} else CROWDED"
    )
    made: Callable[[Any], Any] = emit.build(f"<onnxdata alone {spec.name}.{field.name}>")["alone"]
    made.__qualname__ = f"alone[{spec.name}.{field.name}]"
    return made


def gather(
    fields: tuple[FieldSpec, ...], empty: tuple[FieldSpec, ...] = ()
) -> Callable[[Any], Any]:
    """A function giving, as one tuple, what a message holds in each of
    ``fields`` (as :attr:`FieldSpec.held` gives each: ``None`` while unset),
    or :data:`CROWDED` when one of the fields ``empty`` (of the same message)
    holds an element (a repeated field) or is set (any other).

    For the fast paths that read several fields of each of many messages
    (``to_array``, ``to_optional``, the walk over a model's attributes, the
    validator's): one call where ``held`` is one per field and a property one
    Python call per field, and an unset sub-message gives ``None``, not a
    stand-in made for it.  Without ``empty`` it is one ``operator.attrgetter``
    (a C call); with ``empty``, one generated expression over the slots, as
    :func:`alone`.  Like :func:`alone`, the function raises ``TypeError``
    (from ``len``) when a repeated field of ``empty`` holds a value that is
    not a container; without ``empty``, ``AttributeError`` when a slot was
    deleted (``del m._name``).

    Raises:
        ValueError: a field is both read and among ``empty``, or the fields
            are of two messages.
    """
    spec = _one_message((*fields, *empty))
    slots = [f.slot for f in fields]
    if not empty:
        return attrgetter(*slots) if len(slots) != 1 else _one(attrgetter(slots[0]))
    both = set(fields) & set(empty)
    if both:
        twice = ", ".join(sorted(f.name for f in both))
        raise ValueError(f"{spec.name}: {twice} both read and tested empty")
    tests = " and ".join(
        f"(m.{f.slot} is None or not len(m.{f.slot}))" if f.repeated else f"m.{f.slot} is None"
        for f in empty
    )
    values = "".join(f"m.{slot}, " for slot in slots)
    emit = Emitter({"CROWDED": CROWDED})
    emit(f"def gather(m):\n    return ({values}) if {tests} else CROWDED")
    label = (
        f"{spec.name}: {', '.join(f.name for f in fields)}"
        f" unless {', '.join(f.name for f in empty)}"
    )
    made: Callable[[Any], Any] = emit.build(f"<onnxdata gather {label}>")["gather"]
    made.__qualname__ = f"gather[{label}]"
    return made


def state(message: Any, own: Callable[[Any], Any]) -> dict[str, Any]:
    """Every slot's value, ``own(value)``, by the slot's name: what ``pickle``
    and ``copy`` keep of a message (``Message.__getstate__``), so that a
    message restores (``__setstate__``) without knowing its slots.

    Raises:
        whatever ``own`` raises.
    """
    return {slot: own(getattr(message, slot)) for slot in all_slots(spec_of(type(message)))}


def _one(get: Callable[[Any], Any]) -> Callable[[Any], tuple[Any]]:
    """``get``'s value as a 1-tuple, as :func:`gather` gives every value."""
    return lambda m: (get(m),)


class _Crowded:
    def __repr__(self) -> str:
        return "CROWDED"


CROWDED: Any = _Crowded()
"""What :func:`alone` gives when another of the fields holds elements."""
