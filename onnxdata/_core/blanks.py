"""Blank messages: the statements that make an empty message, for generated code.

The decoder makes one message per element it meets, so how a message is made
matters more there than anywhere: calling ``__init__`` with keywords costs
twice what storing each slot's default does.  The defaults come from one
generator, :func:`slot_defaults`, which ``__init__`` (``_core/classes.py``) is
built from too, so a blank and a message made by its constructor never differ.
"""

from __future__ import annotations

from .codegen import Emitter
from .schema import UNKNOWN_FIELDS

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from .schema import MessageSpec

__all__ = ["blank_maker", "blank_source", "slot_defaults"]


def slot_defaults(spec: MessageSpec, env: dict[str, Any], prefix: str = "") -> dict[str, str]:
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
    emit = Emitter()
    with emit.block(f"def make({', '.join(given)}):"):
        emit("\n".join(blank_source(spec, "m", emit.env, "", given, cls)))
        emit("return m")
    maker: Callable[..., Any] = emit.build(f"<onnxdata blank {spec.name}>")["make"]
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
    defaults = slot_defaults(spec, env, prefix)
    env["new"] = object.__new__
    env[f"{prefix}cls"] = cls or spec.cls
    arguments = {spec.by_name[name].slot: name for name in given}
    lines = [f"{target} = new({prefix}cls)"]
    for slot, made in defaults.items():
        lines.append(f"{target}.{slot} = {arguments.get(slot, made)}")
    return lines
