"""The encoder generator: one encode function per message and mode, from the schema.

:func:`encoders` writes the source of a message's encode function, one block
per field in field-number order, unknown fields last, as protobuf writes
them, and compiles it once through ``codegen.build``.  Each field's block
comes from its kind's writer in ``blocks.FIELDS``, fast unless
``switches.GENERAL_PATHS`` is set as the encoder is generated; encoders are
kept per switch state (:data:`ENCODERS`), and :func:`clear` forgets them.

The names the blocks call come from the caller (``encode.py``), as the
``env`` every generated function starts from.
"""

from __future__ import annotations

from _thread import allocate_lock

from .._core import switches
from .._core.codegen import Emitter
from .._core.schema import MessageSpec, spec_of
from .blocks import FIELDS

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["ENCODERS", "clear", "encoders", "source"]

# Per switch state (False: fast paths on), per mode (False: a list, True: a
# Plan): message class -> encoder.
ENCODERS: tuple[tuple[dict[type, Any], dict[type, Any]], ...] = (({}, {}), ({}, {}))
_SOURCES: dict[tuple[type, bool, bool], str] = {}
_LOCK = allocate_lock()


def clear() -> None:
    """Forget every encoder generated so far: the next encode generates them anew."""
    with _LOCK:
        for modes in ENCODERS:
            for made in modes:
                made.clear()
        _SOURCES.clear()


def source(cls: type, plan: bool, env: dict[str, Any]) -> str:
    """The source text of the encoder generated for ``cls`` (in the switch's present state).

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    encoders(cls, plan, env)
    return _SOURCES[spec_of(cls).cls, plan, switches.GENERAL_PATHS]


_HEAD = """\
def {function}(m, out, depth):
    size = 0
    try:"""

_TAIL = """\
        if type(unknown) is not bytes or unknown:
            size += trailer(m, out, depth)
    except EncodeError as err:
        attach(err, FIELD_AT.get(err.__traceback__.tb_lineno, ""))
        raise
    return size"""


def encoders(cls: type, plan: bool, env: dict[str, Any]) -> Any:
    """Generate, compile and publish the encoders of ``cls`` and every message it
    holds, each starting from the globals ``env``; return ``cls``'s.

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    try:
        spec = spec_of(cls)
    except TypeError:
        raise TypeError(f"not an onnxdata message: {cls.__name__}") from None
    general = switches.GENERAL_PATHS
    with _LOCK:
        made_here = ENCODERS[general][plan]
        made = made_here.get(cls)
        if made is None:
            pending: dict[type, Any] = {}
            if spec.cls not in made_here:
                _generate(spec, plan, general, env, made_here, pending)
            made_here.update(pending)
            made = made_here[cls] = made_here[spec.cls]  # a subclass is written as its message
        return made


def _generate(
    spec: MessageSpec,
    plan: bool,
    general: bool,
    base: dict[str, Any],
    made_here: dict[type, Any],
    pending: dict[type, Any],
) -> None:
    emit = Emitter(dict(base))
    env = emit.env
    # Type fields' values that need no check: ints (the enums' values are ints).
    env["INTS"] = frozenset({int})
    function = f"encode_{spec.name.replace('.', '_')}"
    emit(_HEAD.format(function=function))
    # Each line is labelled with its field: an error names the field by the
    # line it was raised at (the traceback's, in the encoder's frame), which
    # costs nothing until there is an error, where a local set before every
    # field cost a store per field of every message.
    with emit.block(levels=2):
        for f in spec.numbered:
            with emit.labelled(f.name):
                emit(FIELDS[f.kind].encode(spec, f, plan, not general, env))
        with emit.labelled("unknown_fields"):
            emit("unknown = m.unknown_fields")
    with emit.labelled("unknown_fields"):
        emit(_TAIL)
    env["FIELD_AT"] = emit.labels()
    modes = (" plan" if plan else "") + (" general" if general else "")
    emit.build(f"<onnxdata encoder {spec.name}{modes}>")
    _SOURCES[spec.cls, plan, general] = emit.source()
    pending[spec.cls] = env[function]
    for f in spec.children():
        child = f.message
        if child not in made_here and child not in pending:
            _generate(spec_of(child), plan, general, base, made_here, pending)
        env[f"encode_{f.name}"] = made_here.get(child) or pending[child]
