"""The encoder generator: one encode function per message and mode, from the schema.

:func:`encoders` writes the source of a message's encode function, one block
per field in field-number order, unknown fields last, as protobuf writes
them, and compiles it once through ``codegen.build``.  Two tables keyed by
field kind write the blocks: :data:`GENERAL`, the plain check and write of
each value, and :data:`FAST`, which adds what a benchmark asked for (tables
of pre-encoded tags and values, remembered encodings of short integer
lists, a repeated bytes field written a chunk at a time, a repeated message
field's loop written out).  ``switches.GENERAL_PATHS``, read when an encoder
is generated, picks the table; encoders are kept per switch state
(:data:`ENCODERS`), and :func:`clear` forgets them.

The names the blocks call come from the caller (``encode.py``), as the
``env`` every generated function starts from.
"""

from __future__ import annotations

from _thread import allocate_lock

from .._core import switches
from .._core.codegen import Emitter, indent
from .._core.schema import (
    BYTES,
    DOUBLE,
    ENUM,
    FLOAT,
    INT32,
    INT64,
    MESSAGE,
    STRING,
    UINT64,
    MessageSpec,
    spec_of,
)
from .._core.wire import INT32_MAX, INT32_MIN
from .varints import tagged
from .writing import seen_table

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from .._core.schema import FieldSpec

    Writer = Callable[[FieldSpec, bool, dict[str, Any]], str]

__all__ = ["ENCODERS", "FAST", "GENERAL", "clear", "encoders", "source"]

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
    table = GENERAL if general else FAST
    emit(_HEAD.format(function=function))
    # Each line is labelled with its field: an error names the field by the
    # line it was raised at (the traceback's, in the encoder's frame), which
    # costs nothing until there is an error, where a local set before every
    # field cost a store per field of every message.
    with emit.block(levels=2):
        for f in spec.numbered:
            with emit.labelled(f.name):
                emit(table[f.kind](f, plan, env))
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


def _singular(f: FieldSpec, write: str) -> str:
    """A singular field: ``write`` where it is set, with its value in ``v``."""
    return f"if m.{f.slot} is not None:\n    v = m.{f.slot}\n{indent(write)}"


def _repeated(f: FieldSpec, container: str, body: str) -> str:
    """A repeated field, read from its slot (``None``: never used, so empty):
    its values normalised (see ``writing.items``), then ``body`` if any."""
    if container == "list":
        test = "not isinstance(values, list)"
    elif container == "array":
        test = "not isinstance(values, array)"
    else:  # a decode(copy=False) view of a float field is written as it is
        test = "not isinstance(values, array) and type(values) is not memoryview"
    return (
        f"if m.{f.slot} is not None:\n    values = m.{f.slot}\n"
        f"    if {test}:\n        values = items(values)\n"
        f"    if values:\n{indent(body, 2)}"
    )


_APPEND = "out.append(b)\nsize += len(b)"


# -- shared by both tables ---------------------------------------------------------


def _enum(f: FieldSpec, plan: bool, env: dict[str, Any]) -> str:
    env[f"TAG_{f.name}"] = f.tag
    env[f"KNOWN_{f.name}"] = f.enum_values
    write = (
        f"v = check_int(v, {INT32_MIN}, {INT32_MAX})\n"
        f"if v not in KNOWN_{f.name}:  # proto2 enums are closed\n    raise enum_error(v)\n"
        f"b = TAG_{f.name} + varint(v)\n{_APPEND}"
    )
    return _singular(f, write)


def _fixed(f: FieldSpec, plan: bool, env: dict[str, Any]) -> str:
    env[f"TAG_{f.name}"] = f.tag
    code = "f" if f.kind == FLOAT else "d"
    if f.repeated and not f.packed:
        write = f"size += unpacked_floats(TAG_{f.name}, values, {code!r}, out)"
        return _repeated(f, "floats", write)
    if f.repeated:
        write = f"size += length_delimited(TAG_{f.name}, floats(values, {code!r}), out)"
        return _repeated(f, "floats", write)
    return _singular(f, f"b = TAG_{f.name} + to_float(v, {code!r})\n{_APPEND}")


def _string(f: FieldSpec, plan: bool, env: dict[str, Any]) -> str:
    env[f"TAG_{f.name}"] = f.tag
    if f.repeated:
        return _repeated(f, "list", f"size += each_string(TAG_{f.name}, values, out)")
    return _singular(f, f"size += length_delimited(TAG_{f.name}, to_str(v), out)")


def _one_message(f: FieldSpec, plan: bool, env: dict[str, Any]) -> str:
    name = f.name
    env[f"TAG_{name}"] = f.tag
    env[f"CLS_{name}"] = f.message
    if plan:
        return _singular(f, f"size += out.sub(TAG_{name}, v, CLS_{name}, depth)")
    return _singular(f, f"size += sub(TAG_{name}, v, CLS_{name}, encode_{name}, out, depth)")


def _packed_ints(f: FieldSpec, plan: bool, env: dict[str, Any]) -> str:
    assert f.bounds is not None
    lo, hi = f.bounds
    args = f"TAG_{f.name}, values, {lo}, {hi}, {f.typecode!r}"
    call = f"out.packed({args})" if plan else f"packed({args}, out)"
    return _repeated(f, "array", f"size += {call}")


# -- the general table -------------------------------------------------------------


def _general_int(f: FieldSpec, plan: bool, env: dict[str, Any]) -> str:
    env[f"TAG_{f.name}"] = f.tag
    assert f.bounds is not None
    lo, hi = f.bounds
    if f.repeated and f.typecode is not None:  # packed into an array
        return _packed_ints(f, plan, env)
    if f.repeated:
        return _repeated(
            f, "list", f"b = encode_unpacked(TAG_{f.name}, values, {lo}, {hi})\n{_APPEND}"
        )
    return _singular(f, f"b = TAG_{f.name} + varint(check_int(v, {lo}, {hi}))\n{_APPEND}")


def _general_bytes(f: FieldSpec, plan: bool, env: dict[str, Any]) -> str:
    env[f"TAG_{f.name}"] = f.tag
    if f.repeated:
        return _repeated(f, "list", f"size += each_bytes(TAG_{f.name}, values, out)")
    return _singular(f, f"size += length_delimited(TAG_{f.name}, to_bytes(v), out)")


def _general_message(f: FieldSpec, plan: bool, env: dict[str, Any]) -> str:
    if not f.repeated:
        return _one_message(f, plan, env)
    name = f.name
    env[f"TAG_{name}"] = f.tag
    env[f"CLS_{name}"] = f.message
    if plan:
        return _repeated(f, "list", f"size += out.subs(TAG_{name}, values, CLS_{name}, depth)")
    call = f"each_sub(TAG_{name}, values, CLS_{name}, encode_{name}, out, depth)"
    return _repeated(f, "list", f"size += {call}")


GENERAL: dict[str, Writer] = {
    INT32: _general_int,
    INT64: _general_int,
    UINT64: _general_int,
    ENUM: _enum,
    FLOAT: _fixed,
    DOUBLE: _fixed,
    STRING: _string,
    BYTES: _general_bytes,
    MESSAGE: _general_message,
}
"""Field kind -> the writer of its general block."""


# -- the fast table ----------------------------------------------------------------


def _fast_int(f: FieldSpec, plan: bool, env: dict[str, Any]) -> str:
    if f.repeated and f.typecode is None and len(f.tag) == 1:
        return _fast_unpacked(f, env)
    if f.repeated or len(f.tag) != 1:
        return _general_int(f, plan, env)
    name = f.name
    assert f.bounds is not None
    lo, hi = f.bounds
    env[f"TAG_{name}"] = f.tag
    env[f"TAGGED_{name}"] = tagged(f.tag)
    write = (
        f"if type(v) in INTS and 0 <= v < 0x80:\n"
        f"    out.append(TAGGED_{name}[v])\n    size += 2\n"
        f"else:\n    b = TAG_{name} + varint(check_int(v, {lo}, {hi}))\n{indent(_APPEND)}"
    )
    return _singular(f, write)


def _fast_unpacked(f: FieldSpec, env: dict[str, Any]) -> str:
    """A repeated integer field written unpacked after a one-byte tag: short
    lists of small values (a shape) are remembered by their bytes."""
    name = f.name
    assert f.bounds is not None
    lo, hi = f.bounds
    env[f"TAG_{name}"] = f.tag
    env[f"seen_{name}"] = seen_table()
    body = (
        "try:\n    key = bytes(values)\n"
        "except (TypeError, ValueError):\n"
        '    key = b""  # values are not empty here: b"" says bytes() refused them\n'
        f"b = seen_{name}.get(key)\n"
        "if b is None or 0 in key or 1 in key:\n"
        f"    b = small_unpacked(values, key, seen_{name}, {f.tag[0]}) "
        f"or encode_unpacked(TAG_{name}, values, {lo}, {hi})\n{_APPEND}"
    )
    return _repeated(f, "list", body)


def _fast_bytes(f: FieldSpec, plan: bool, env: dict[str, Any]) -> str:
    name = f.name
    env[f"TAG_{name}"] = f.tag
    if f.repeated:
        return _repeated(f, "list", f"size += bytes_list(TAG_{name}, values, out)")
    if len(f.tag) != 1:
        return _general_bytes(f, plan, env)
    env[f"TAGGED_{name}"] = tagged(f.tag)
    write = (
        "if type(v) is bytes and len(v) < 0x80:\n"
        f"    out.append(TAGGED_{name}[len(v)])\n    out.append(v)\n"
        "    size += 2 + len(v)\n"
        f"else:\n    size += length_delimited(TAG_{name}, to_bytes(v), out)"
    )
    return _singular(f, write)


def _fast_message(f: FieldSpec, plan: bool, env: dict[str, Any]) -> str:
    if plan or not f.repeated:
        return _general_message(f, plan, env)
    name = f.name
    env[f"TAG_{name}"] = f.tag
    env[f"CLS_{name}"] = f.message
    env[f"HEADS_{name}"] = tagged(f.tag)
    # each_sub's loop written out: one call less per field (nested messages pay it per level).
    env[f"SHORT_{name}"] = len(f.tag) + 1
    body = (
        "e = None\n"
        "try:\n"
        "    for e in values:\n"
        f"        if type(e) is not CLS_{name} or depth <= 0:\n"
        f"            check_sub(e, CLS_{name}, depth)  # a subclass passes\n"
        "        slot = len(out)\n"
        '        out.append(b"")\n'
        f"        n = encode_{name}(e, out, depth - 1)\n"
        "        if n < 0x80:\n"
        f"            out[slot] = HEADS_{name}[n]\n"
        f"            size += SHORT_{name} + n\n"
        "        else:\n"
        f"            b = TAG_{name} + varint(n)\n"
        "            out[slot] = b\n"
        "            size += len(b) + n\n"
        "except EncodeError as err:\n"
        "    err.within(position(values, e))\n"
        "    raise"
    )
    return _repeated(f, "list", body)


FAST: dict[str, Writer] = {
    **GENERAL,
    INT32: _fast_int,
    INT64: _fast_int,
    UINT64: _fast_int,
    BYTES: _fast_bytes,
    MESSAGE: _fast_message,
}
"""Field kind -> the writer of its fast block."""
