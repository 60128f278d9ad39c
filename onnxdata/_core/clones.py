"""A message's cloner: one generated statement per slot.

``copy``-like code outside ``_core`` (the makers' ``CopyFrom``,
``_tools/protovalues.py``) decides how each kind of value is copied; only
this layer knows that a message keeps each field in a slot, so the function
that reads and stores the slots is generated here, from the schema, as
``dataclasses`` generates ``__init__``.
"""

from __future__ import annotations

from .codegen import Emitter
from .schema import BYTES, MESSAGE, STRING, UNKNOWN_FIELDS, spec_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

__all__ = ["make_cloner"]


def make_cloner(
    cls: type,
    *,
    view: Callable[[Any], Any],
    container: Callable[[Any], Any],
    element: Callable[[Any, type], Any],
) -> Callable[[Any], Any]:
    """A function giving a copy of a ``cls`` message, slot by slot: a new
    message whose every slot holds the original's value, passed through
    ``view`` (a ``bytes`` or ``string`` value: to copy a view out of its
    buffer), ``container`` (a repeated scalar field's container) or
    ``element(value, message_class)`` (each sub-message, and each element of
    a repeated message field that holds a list); numbers and unset slots
    (``None``) are shared as they are, unknown fields through ``view``.

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    spec = spec_of(cls)  # a stand-in's class shares its message's spec
    emit = Emitter(
        {
            "new": object.__new__,
            "C": spec.cls,
            "view": view,
            "container": container,
            "element": element,
            "kind_of": type,  # not "type": a field may be named so
        }
    )
    # Every slot is stored once (a message of slots has no other state).
    with emit.block("def clone(m):"):
        emit("n = new(C)")
        for f in spec.fields:
            slot = f.slot
            if f.kind == MESSAGE:
                message = emit.bind(f"E{slot}", f.message)
                emit(f"v = m.{slot}")
                if f.repeated:  # a list of messages; anything else is kept, for encode() to refuse
                    emit(
                        f"n.{slot} = kind_of(v)([element(x, {message}) for x in v])"
                        " if isinstance(v, list) else v"
                    )
                else:
                    emit(f"n.{slot} = None if v is None else element(v, {message})")
            elif f.repeated:
                emit(f"v = m.{slot}\nn.{slot} = None if v is None else container(v)")
            elif f.kind in (BYTES, STRING):  # a view (of a mapped file) is copied out
                emit(f"v = m.{slot}\nn.{slot} = view(v) if v.__class__ is memoryview else v")
            else:
                emit(f"n.{slot} = m.{slot}")
        emit(f"n.{UNKNOWN_FIELDS} = view(m.{UNKNOWN_FIELDS})\nreturn n")
    made: Callable[[Any], Any] = emit.build(f"<onnxdata clone {spec.name}>")["clone"]
    return made
