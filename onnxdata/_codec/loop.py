"""The decode loop generator: one decoder per message and mode, from the schema.

:func:`decoders` writes the source of a message's decode loop from its
:class:`~onnxdata._core.schema.MessageSpec`, field by field, the way
``dataclasses`` writes ``__init__``, and compiles it once through
``codegen.build``: the result is the straight-line loop one would write by
hand (tags compared as integers), with no per-field call or table lookup.
Two decoders are made per message, one per mode:

- ``copy=True``: every ``bytes`` value is the message's own copy;
- ``copy=False`` ("views"): the ``bytes`` fields declared ``view=True`` (a
  tensor's payload) and packed float fields are read-only views of the input
  (see ``Message.decode``); every other ``bytes`` value is a copy.

The mode is part of the generated code, not state looked up while decoding.
So is the choice of paths: each field's branches come from its kind's
writer in ``blocks.FIELDS``, fast unless ``switches.GENERAL_PATHS`` is set
as the decoder is generated.  Decoders are kept per mode and per switch state
(:data:`CODECS`), so flipping the switch picks the other set; :func:`clear`
forgets them all (after a declaration changed, in a test).
"""

from __future__ import annotations

from _thread import allocate_lock

from .._core import switches
from .._core.blanks import blank_maker
from .._core.codegen import Emitter, indent
from .._core.inline import READ_TAG
from .._core.schema import MessageSpec, spec_of
from .blocks import FIELDS
from .reading import GLOBALS
from .runs import head_fields, head_runner, varint_run
from .tails import TAIL_LOCATED, TAIL_PROLOGUE, TAIL_STRAY, tail_field, tail_path

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from .._core.schema import FieldSpec

__all__ = ["CODECS", "clear", "decoders", "source"]

# Per switch state (False: fast paths on), per mode (copy): message class ->
# (maker of an empty message, decoder).
CODECS: tuple[tuple[dict[type, Any], dict[type, Any]], ...] = (({}, {}), ({}, {}))
_SOURCES: dict[tuple[type, bool, bool], str] = {}
_LOCK = allocate_lock()


def clear() -> None:
    """Forget every decoder generated so far: the next decode generates them anew.

    For a test that changed a declaration; flipping ``switches.GENERAL_PATHS``
    needs no clearing, as the decoders of each state are kept apart.
    """
    with _LOCK:
        for modes in CODECS:
            for codecs in modes:
                codecs.clear()
        _SOURCES.clear()


def source(cls: type, copy: bool = True) -> str:
    """The source text of the decoder generated for ``cls`` (in the switch's present state).

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    decoders(cls, copy)
    return _SOURCES[spec_of(cls).cls, copy, switches.GENERAL_PATHS]


_HEAD = """\
def {function}(buf, pos, end, msg, depth, grown):
    run_end = -1  # the end of the last unknown field; ``unknown`` is made with the first
{prologue}    try:
        while True:
            if pos >= end:
                break
""" + indent(READ_TAG, 3)

_TAIL = """\
            else:
                pos = skip_field(buf, start, pos, end, tag, depth)
                if run_end < 0:
                    unknown = []
                    run_start = start
                elif start != run_end:  # not adjacent to the last unknown field: a new run
                    unknown.append(buf[run_start:run_end])
                    run_start = start
                run_end = pos
        if run_end >= 0:
            unknown.append(buf[run_start:run_end])
            unknown_fields(msg, unknown, grown)
    except DecodeError as err:
        locate(err, msg, FIELD_AT.get(err.__traceback__.tb_lineno, 0), FIELDS)
{located}        raise
    except (IndexError, struct.error, OverflowError) as exc:
{stray}"""

_STRAY = "        raise stray(exc, pos) from exc\n"


def decoders(cls: type, copy: bool) -> tuple[Any, Any]:
    """Generate, compile and publish the decoders of ``cls`` and every message it holds.

    Under a lock, and published only once complete: another thread never
    sees a decoder whose sub-message decoders are not there yet.

    Raises:
        TypeError: ``cls`` is not a message class.
    """
    spec = spec_of(cls)
    general = switches.GENERAL_PATHS
    with _LOCK:
        codecs = CODECS[general][copy]
        made: tuple[Any, Any] | None = codecs.get(cls)
        if made is None:
            pending: dict[type, tuple[Any, Any]] = {}
            if spec.cls not in codecs:
                _generate(spec, copy, general, codecs, pending)
            codecs.update(pending)
            made = codecs[spec.cls]
            if spec.cls is not cls:  # a subclass of a message: its decoder, its instances
                made = codecs[cls] = (blank_maker(spec, cls=cls), made[1])
        return made


def _generate(
    spec: MessageSpec,
    copy: bool,
    general: bool,
    codecs: dict[type, tuple[Any, Any]],
    pending: dict[type, tuple[Any, Any]],
) -> None:
    emit = Emitter(dict(GLOBALS))
    env = emit.env
    env["FIELDS"] = spec.by_number
    env["varint_run"] = varint_run
    env["tail_path"] = tail_path
    function = f"decode_{spec.name.replace('.', '_')}"
    tail = None if general else tail_field(spec)
    env["TAIL_FIELD"] = tail
    emit(_HEAD.format(function=function, prologue=TAIL_PROLOGUE if tail else ""))
    with emit.block(levels=3):
        _branches(spec, copy, general, emit)
    emit(_TAIL.format(located=TAIL_LOCATED if tail else "", stray=TAIL_STRAY if tail else _STRAY))
    # An error names its field by the line it was raised at (the traceback's,
    # in the decoder's frame): nothing to pay until there is an error, where
    # keeping the field number in a local cost a store per field read.
    env["FIELD_AT"] = emit.labels()
    modes = ("" if copy else " views") + (" general" if general else "")
    emit.build(f"<onnxdata decoder {spec.name}{modes}>")
    _SOURCES[spec.cls, copy, general] = emit.source()
    pending[spec.cls] = (blank_maker(spec), env[function])
    # The messages it holds, after it: a message may hold itself.
    for f in spec.children():
        child = f.message
        if child not in codecs and child not in pending:
            _generate(spec_of(child), copy, general, codecs, pending)
        new, decode = codecs.get(child) or pending[child]
        env[f"new_{f.name}"], env[f"decode_{f.name}"] = new, decode
        fields = head_fields(spec, f)
        if fields and not general:
            env[f"run_{f.name}"] = head_runner(fields, spec_of(child), copy, new, decode)


def _branches(spec: MessageSpec, copy: bool, general: bool, emit: Emitter) -> None:
    """Write the ``if tag == ...`` branches of a message's loop, one or two per
    field, each line labelled with its field's number.

    In number order, each field's usual wire form before the other; on the
    fast paths, fields declared ``first`` come first and ``last`` last.
    """

    def rank(f: FieldSpec) -> tuple[int, int]:
        return (1 if general else (0 if f.first else 2 if f.last else 1), f.number)

    keyword = "if"
    for f in sorted(spec.fields, key=rank):
        with emit.labelled(f.number):
            for condition, body in FIELDS[f.kind].decode(spec, f, copy, not general, emit.env):
                with emit.block(f"{keyword} {condition}:  # {f.name}"):
                    emit(body)
                    # A oneof member read unsets the others, as protobuf's parser does.
                    for slot in f.siblings:
                        emit(f"msg.{slot} = None")
                keyword = "elif"
