"""The code of one field, read and written: one table of writers, by field kind.

:data:`FIELDS` maps each field kind to its two writers: ``decode`` writes
the ``(condition, body)`` branches of a decode loop (``loop.py``), ``encode``
the block of an encode function (``writers.py``).  Every writer takes the
same arguments: the message's spec, the field, the mode (decoding: ``copy``;
encoding: ``plan``), ``fast``, and the generated code's environment.

With ``fast`` false (``ONNXDATA_GENERAL_PATHS`` set) a writer writes the
plain reading or writing of each value: a call of the wire reader or of a
check, one value per tag.  With ``fast`` it adds the fast paths of the
registry (``fastpaths.py``): varints and lengths read inline (the one copy
of that read is ``_core/inline.py``'s), runs of one field read in one go
predicting the next tag, tables of pre-encoded tags and values, and the
specialisations a field's declaration asks for (``runs``, see ``runs.py``
and ``tails.py``).  Both store and write the same values and raise the same
errors: the tests compare the two on every input they make.
"""

from __future__ import annotations

import struct
from array import array
from typing import NamedTuple

from .._core.blanks import blank_source
from .._core.codegen import indent
from .._core.inline import READ_LENGTH, read_varint_inline
from .._core.schema import (
    BYTES,
    DOUBLE,
    ENUM,
    FLOAT,
    INT32,
    INT64,
    KINDS,
    MESSAGE,
    STRING,
    UINT64,
    spec_of,
)
from .._core.wire import INT32_MAX, INT32_MIN, LEN
from .runs import head_fields
from .tails import TAIL_TEST, chain, int_tag, tail_field
from .varints import tagged
from .writing import seen_table

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from .._core.schema import FieldSpec, MessageSpec

    # (spec, field, copy or plan, fast, env) -> decode: [(condition, body)]; encode: a block
    Writer = Callable[[MessageSpec, FieldSpec, bool, bool, dict[str, Any]], Any]
    Blocks = list[tuple[str, str]]

__all__ = ["FIELDS", "FieldCode", "float32_at", "float32_bits"]

_CONVERT = {INT32: "to_int32(v)", INT64: "to_int64(v)", UINT64: "v", ENUM: "to_int32(v)"}
_DEPTH = "if depth <= 0:\n    raise depth_error(start)\n"
_CALL_LENGTH = "n, pos = read_length(buf, pos, end)"
# The text of a string field: proto2 strings are not checked for UTF-8 by upb,
# bad bytes become surrogates.
_TEXT = 'str(buf[pos : pos + n], "utf-8", "surrogateescape")'


def _tags(f: FieldSpec) -> tuple[int, int]:
    """The field's tag in its own wire form and in the packed (LEN) form, as integers."""
    return int_tag(f.tag_for(KINDS[f.kind].wire_type)), int_tag(f.tag_for(LEN))


def _held(spec: MessageSpec, f: FieldSpec, env: dict[str, Any]) -> str:
    """The expression of a field's value, or of a repeated field's container
    (its slot, or made there on first use)."""
    if not f.repeated:
        return f"msg.{f.slot}"
    env[f"fill_{f.name}"] = getattr(spec.cls, f.name).fget
    return f"(msg.{f.slot} or fill_{f.name}(msg))"


# -- decoding ----------------------------------------------------------------------


def _decode_varint(
    spec: MessageSpec, f: FieldSpec, copy: bool, fast: bool, env: dict[str, Any]
) -> Blocks:
    """A varint field's branches; ``fast`` reads a one-byte value inline, a
    closed enum's one-byte names without a call, and a declared run of
    unpacked entries (``runs="varints"``) as a whole."""
    native, packed = _tags(f)
    convert = _CONVERT[f.kind]
    general = f"v, pos = read_varint(buf, pos, end)\nv = {convert}"
    read = read_varint_inline(convert) if fast else general
    if f.kind == ENUM:
        env[f"known_{f.name}"] = f.enum_values
        test = f"closed_enum(buf, pos, end, known_{f.name})"
        if fast:  # a byte below 0x80 is a whole varint: its being named needs no call
            env[f"short_{f.name}"] = frozenset(v for v in f.enum_values if 0 <= v < 0x80)
            test = f"(pos < end and buf[pos] in short_{f.name} or {test})"
        return [(f"tag == {native} and {test}", f"{read}\nmsg.{f.slot} = v")]
    if not f.repeated:
        return [(f"tag == {native}", f"{read}\nmsg.{f.slot} = v")]
    code = KINDS[f.kind].typecode
    if f.typecode is not None:  # an array
        into = f"scalars(msg, {f.slot!r}, {code!r})"
        return [
            (
                f"tag == {packed}",
                f"{_CALL_LENGTH}\ndecode_into_array(buf, pos, pos + n, {into})\npos += n",
            ),
            (f"tag == {native}", f"{general}\n{into}.append(v)"),
        ]
    held = _held(spec, f, env)
    if fast and f.runs == "varints" and native < 0x80 and f.kind != INT32:
        unpacked = f"pos = varint_run(buf, start, pos, end, {held}, {native})"
    else:
        unpacked = f"{read}\n{held}.append(v)"
    whole = f"{_CALL_LENGTH}\ndecode_into_list(buf, pos, pos + n, {held}, {code!r})\npos += n"
    return [(f"tag == {native}", unpacked), (f"tag == {packed}", whole)]


_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_F64 = struct.Struct("<d")


def float32_at(buf: Any, pos: int) -> float:
    """The float32 at ``pos`` as a Python float, every bit of a NaN kept.

    Converting a float32 to a double quiets a signalling NaN; upb keeps the
    bits it read.  So a NaN's sign and payload (signalling bit included) are
    moved into the double by hand, where ``float32_bits`` finds them again.
    """
    value: float = _F32.unpack_from(buf, pos)[0]
    if value != value:
        bits = _U32.unpack_from(buf, pos)[0]
        double = (bits >> 31) << 63 | 0x7FF << 52 | (bits & 0x7FFFFF) << 29
        value = _F64.unpack(_U64.pack(double))[0]
    return value


def float32_bits(value: float) -> bytes:
    """The float32 bytes of the NaN ``value``, as :func:`float32_at` read them; a
    NaN made any other way is quieted and truncated as a C cast does."""
    double = _U64.unpack(_F64.pack(value))[0]
    payload = (double >> 29) & 0x7FFFFF or 0x400000
    return _U32.pack((double >> 63) << 31 | 0x7F800000 | payload)


def _decode_fixed(
    spec: MessageSpec, f: FieldSpec, copy: bool, fast: bool, env: dict[str, Any]
) -> Blocks:
    native, packed = _tags(f)
    code = KINDS[f.kind].typecode or ""
    size = array(code).itemsize
    short = f"if end - pos < {size}:\n    raise fixed_error({f.kind!r}, buf, end, pos)\n"
    if not f.repeated:
        env[f"unpack_{f.name}"] = (
            float32_at if code == "f" else struct.Struct("<" + code).unpack_from
        )
        read = f"unpack_{f.name}(buf, pos)" + ("" if code == "f" else "[0]")
        return [(f"tag == {native}", f"{short}msg.{f.slot} = {read}\npos += {size}")]
    one = (
        f"{short}read_packed_fixed(buf, pos, {size}, scalars(msg, {f.slot!r}, {code!r}), {size})\n"
        f"pos += {size}"
    )
    if copy:
        whole = f"read_packed_fixed(buf, pos, n, scalars(msg, {f.slot!r}, {code!r}), {size})"
    else:
        whole = f"view_fixed(buf, pos, n, msg, {f.slot!r}, {code!r}, {size})"
    return [
        (f"tag == {packed}", f"n, pos = read_length(buf, pos, end)\n{whole}\npos += n"),
        (f"tag == {native}", one),
    ]


def _decode_string(
    spec: MessageSpec, f: FieldSpec, copy: bool, fast: bool, env: dict[str, Any]
) -> Blocks:
    """A string field's branch; ``fast`` reads the length inline, and a repeated
    field with a one-byte tag (a list of value names) as a run, predicting the next tag."""
    native, _ = _tags(f)
    read = READ_LENGTH if fast else _CALL_LENGTH
    if not f.repeated:
        return [(f"tag == {native}", f"{read}\nmsg.{f.slot} = {_TEXT}\npos += n")]
    held = _held(spec, f, env)
    if not fast or native >= 0x80:
        return [(f"tag == {native}", f"{read}\n{held}.append({_TEXT})\npos += n")]
    element = f"{read}\nvalues.append({_TEXT})\npos += n"
    return [(f"tag == {native}", f"values = {held}\n{_run(element, native)}")]


def _decode_bytes(
    spec: MessageSpec, f: FieldSpec, copy: bool, fast: bool, env: dict[str, Any]
) -> Blocks:
    """A bytes field's branch; ``fast`` reads a singular field's length inline,
    and a repeated field with a one-byte tag as a run (``reading.strings``)."""
    native, _ = _tags(f)
    copy = copy or not f.view  # only a field declared view=True stays a view (schema.field)
    own = "piece if type(piece) is bytes else bytes(piece)" if copy else "piece"
    if not f.repeated:
        read = READ_LENGTH if fast else _CALL_LENGTH
        body = f"{read}\npiece = buf[pos : pos + n]\nmsg.{f.slot} = {own}\npos += n"
        return [(f"tag == {native}", body)]
    held = _held(spec, f, env)
    if not copy:  # entries shorter than 128 bytes are copies in every mode (see short_copied)
        own = "piece if n >= 128 else bytes(piece)"
    if not fast or native >= 0x80:
        body = f"{_CALL_LENGTH}\npiece = buf[pos : pos + n]\n{held}.append({own})\npos += n"
        return [(f"tag == {native}", body)]
    if not copy:
        run = f"pos = strings(buf, pos, end, short_copied(values.append), values, {native})"
        return [(f"tag == {native}", f"values = {held}\n{run}")]
    # A slice of bytes is already its own copy; a slice of a view is copied.
    return [
        (
            f"tag == {native}",
            f"if type(buf) is bytes:\n"
            f"    values = {held}\n"
            f"    pos = strings(buf, pos, end, values.append, values, {native})\n"
            f"else:\n"
            f"    views = []\n"
            f"    pos = strings(buf, pos, end, views.append, views, {native})\n"
            f"    {held}.extend(map(bytes, views))",
        )
    ]


def _decode_message(
    spec: MessageSpec, f: FieldSpec, copy: bool, fast: bool, env: dict[str, Any]
) -> Blocks:
    """A message field's branch; ``fast`` reads the length inline, makes the
    element here (no call of ``new_<field>``), reads a repeated field's run in
    one go and a tail field's element on in this frame (``tails.py``)."""
    native, _ = _tags(f)
    call = f"decode_{f.name}(buf, pos, pos + n, sub, depth - 1, grown)\npos += n"
    if f.repeated and fast:
        return _fast_messages(spec, f, env)
    if f.repeated:  # the depth first, as the fast run checks it once for a run
        made = f"sub = new_{f.name}()\n{call}\n{_held(spec, f, env)}.append(sub)"
        return [(f"tag == {native}", f"{_DEPTH}{_CALL_LENGTH}\n{made}")]
    if not fast:
        made = f"sub = msg.{f.slot} = new_{f.name}()"
        read = f"{_CALL_LENGTH}\n{_DEPTH}sub = msg.{f.slot}\nif sub is None:\n    {made}\n{call}"
        return [(f"tag == {native}", read)]
    blank = _blank(f, env)
    made = indent(f"{blank}\nmsg.{f.slot} = sub")
    read = call
    if f is tail_field(spec):
        # Read on in this frame; down a chain of levels only from an element
        # made here: the chain makes each level anew, so in an element read
        # before (merged into) it would replace the fields it must merge.
        stay = f"{TAIL_TEST}\n    msg = sub\n    depth -= 1\n"
        fresh = f"{stay}{indent(chain(spec, f, blank))}\nelse:\n{indent(read)}"
        merged = f"{stay}else:\n{indent(read)}"
        read = f"if sub is None:\n{made}\n{indent(fresh)}\nelse:\n{indent(merged)}"
    else:
        read = f"if sub is None:\n{made}\n{read}"
    return [(f"tag == {native}", f"{READ_LENGTH}\n{_DEPTH}sub = msg.{f.slot}\n{read}")]


def _blank(f: FieldSpec, env: dict[str, Any]) -> str:
    """The statements that make an element in ``sub``: written here, not a call
    of ``new_<field>``, one call less per element."""
    return "\n".join(blank_source(spec_of(f.message), "sub", env, f"{f.name}_"))


def _fast_messages(spec: MessageSpec, f: FieldSpec, env: dict[str, Any]) -> Blocks:
    native, _ = _tags(f)
    one_byte = native < 0x80
    if head_fields(spec, f) and one_byte:
        held = _held(spec, f, env)
        call = f"run_{f.name}(buf, pos, end, {held}, depth - 1, grown, {native})"
        return [(f"tag == {native}", f"{_DEPTH}pos = {call}")]
    blank = _blank(f, env)
    call = f"decode_{f.name}(buf, pos, pos + n, sub, depth - 1, grown)"
    element = f"{READ_LENGTH}\n{blank}\n{call}\nvalues.append(sub)\npos += n"
    if f is tail_field(spec):
        # In a run, ``break``: the next byte is the element's first, not the run's next tag.
        down = indent(chain(spec, f, blank))
        switch = f"    values.append(sub)\n    msg = sub\n    depth -= 1\n{down}\n"
        element = f"{READ_LENGTH}\n{blank}\n{TAIL_TEST}\n{switch}" + (
            f"    break\n{call}\nvalues.append(sub)\npos += n"
            if one_byte
            else f"else:\n    {call}\n    values.append(sub)\n    pos += n"
        )
    # The container, made here if this is the field's first element: the class
    # is known by now, one call less than the property's.
    env[f"list_{f.name}"] = f.messages_class()
    values = (
        f"values = msg.{f.slot}\nif values is None:\n    values = msg.{f.slot} = list_{f.name}()\n"
    )
    if not one_byte:
        return [(f"tag == {native}", f"{_DEPTH}{values}{element}")]
    return [(f"tag == {native}", f"{_DEPTH}{values}{_run(element, native)}")]


def _run(element: str, native: int) -> str:
    """A run of one field read in one go, predicting the next tag (one byte)."""
    return (
        f"while True:\n{indent(element)}\n"
        f"    if pos < end and buf[pos] == {native}:\n        pos += 1\n"
        "    else:\n        break"
    )


# -- encoding ----------------------------------------------------------------------


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


def _encode_int(
    spec: MessageSpec, f: FieldSpec, plan: bool, fast: bool, env: dict[str, Any]
) -> str:
    """An integer field's block; ``fast`` with a one-byte tag writes a value
    below 0x80 from a table of tagged bytes, and remembers short lists."""
    name = f.name
    env[f"TAG_{name}"] = f.tag
    assert f.bounds is not None
    lo, hi = f.bounds
    fast = fast and len(f.tag) == 1
    if f.repeated and f.typecode is not None:  # packed into an array
        args = f"TAG_{name}, values, {lo}, {hi}, {f.typecode!r}"
        call = f"out.packed({args})" if plan else f"packed({args}, out)"
        return _repeated(f, "array", f"size += {call}")
    if f.repeated:
        write = f"b = encode_unpacked(TAG_{name}, values, {lo}, {hi})\n{_APPEND}"
        if fast:  # a shape: short lists of small values are remembered by their bytes
            env[f"seen_{name}"] = seen_table()
            write = (
                "try:\n    key = bytes(values)\n"
                "except (TypeError, ValueError):\n"
                '    key = b""  # values are not empty here: b"" says bytes() refused them\n'
                f"b = seen_{name}.get(key)\n"
                "if b is None or 0 in key or 1 in key:\n"
                f"    b = small_unpacked(values, key, seen_{name}, {f.tag[0]}) "
                f"or encode_unpacked(TAG_{name}, values, {lo}, {hi})\n{_APPEND}"
            )
        return _repeated(f, "list", write)
    write = f"b = TAG_{name} + varint(check_int(v, {lo}, {hi}))\n{_APPEND}"
    if fast:
        env[f"TAGGED_{name}"] = tagged(f.tag)
        write = (
            f"if type(v) in INTS and 0 <= v < 0x80:\n"
            f"    out.append(TAGGED_{name}[v])\n    size += 2\n"
            f"else:\n{indent(write)}"
        )
    return _singular(f, write)


def _encode_enum(
    spec: MessageSpec, f: FieldSpec, plan: bool, fast: bool, env: dict[str, Any]
) -> str:
    env[f"TAG_{f.name}"] = f.tag
    env[f"KNOWN_{f.name}"] = f.enum_values
    write = (
        f"v = check_int(v, {INT32_MIN}, {INT32_MAX})\n"
        f"if v not in KNOWN_{f.name}:  # proto2 enums are closed\n    raise enum_error(v)\n"
        f"b = TAG_{f.name} + varint(v)\n{_APPEND}"
    )
    return _singular(f, write)


def _encode_fixed(
    spec: MessageSpec, f: FieldSpec, plan: bool, fast: bool, env: dict[str, Any]
) -> str:
    env[f"TAG_{f.name}"] = f.tag
    code = "f" if f.kind == FLOAT else "d"
    if f.repeated and not f.packed:
        write = f"size += unpacked_floats(TAG_{f.name}, values, {code!r}, out)"
        return _repeated(f, "floats", write)
    if f.repeated:
        write = f"size += length_delimited(TAG_{f.name}, floats(values, {code!r}), out)"
        return _repeated(f, "floats", write)
    return _singular(f, f"b = TAG_{f.name} + to_float(v, {code!r})\n{_APPEND}")


def _encode_string(
    spec: MessageSpec, f: FieldSpec, plan: bool, fast: bool, env: dict[str, Any]
) -> str:
    env[f"TAG_{f.name}"] = f.tag
    if f.repeated:
        return _repeated(f, "list", f"size += each(TAG_{f.name}, values, to_str, out)")
    return _singular(f, f"size += length_delimited(TAG_{f.name}, to_str(v), out)")


def _encode_bytes(
    spec: MessageSpec, f: FieldSpec, plan: bool, fast: bool, env: dict[str, Any]
) -> str:
    """A bytes field's block; ``fast`` writes a repeated one a chunk of entries
    at a time (``bytes_lists.py``), a short singular one after a tabled head."""
    name = f.name
    env[f"TAG_{name}"] = f.tag
    if f.repeated:
        if fast:
            return _repeated(f, "list", f"size += bytes_list(TAG_{name}, values, out)")
        return _repeated(f, "list", f"size += each(TAG_{name}, values, to_bytes, out)")
    write = f"size += length_delimited(TAG_{name}, to_bytes(v), out)"
    if fast and len(f.tag) == 1:
        env[f"TAGGED_{name}"] = tagged(f.tag)
        write = (
            "if type(v) is bytes and len(v) < 0x80:\n"
            f"    out.append(TAGGED_{name}[len(v)])\n    out.append(v)\n"
            f"    size += 2 + len(v)\nelse:\n{indent(write)}"
        )
    return _singular(f, write)


def _encode_message(
    spec: MessageSpec, f: FieldSpec, plan: bool, fast: bool, env: dict[str, Any]
) -> str:
    """A message field's block; ``fast`` writes a repeated one's loop out here
    (one call less per element: nested messages pay it per level)."""
    name = f.name
    env[f"TAG_{name}"] = f.tag
    env[f"CLS_{name}"] = f.message
    if not f.repeated:
        if plan:
            return _singular(f, f"size += out.sub(TAG_{name}, v, CLS_{name}, depth)")
        write = f"size += sub(TAG_{name}, v, CLS_{name}, encode_{name}, out, depth)"
        return _singular(f, write)
    if plan:
        return _repeated(f, "list", f"size += out.subs(TAG_{name}, values, CLS_{name}, depth)")
    if not fast:
        call = f"each_sub(TAG_{name}, values, CLS_{name}, encode_{name}, out, depth)"
        return _repeated(f, "list", f"size += {call}")
    env[f"HEADS_{name}"] = tagged(f.tag)
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


class FieldCode(NamedTuple):
    """A field kind's two writers."""

    decode: Writer
    encode: Writer


_INT = FieldCode(_decode_varint, _encode_int)
_FIXED = FieldCode(_decode_fixed, _encode_fixed)

FIELDS: dict[str, FieldCode] = {
    INT32: _INT,
    INT64: _INT,
    UINT64: _INT,
    ENUM: FieldCode(_decode_varint, _encode_enum),
    FLOAT: _FIXED,
    DOUBLE: _FIXED,
    STRING: FieldCode(_decode_string, _encode_string),
    BYTES: FieldCode(_decode_bytes, _encode_bytes),
    MESSAGE: FieldCode(_decode_message, _encode_message),
}
"""Field kind -> its writers: the one table of the decoder's and the encoder's generators."""
