"""The code that reads one field, as ``(condition, body)`` branches of a decode loop.

Two tables keyed by field kind write them.  :data:`GENERAL` writes the
plain reading of each value: a call of the wire reader, a store, one value
per tag.  :data:`FAST` writes what a benchmark asked for: lengths and
varints read inline, runs of one field read in one go predicting the next
tag, and the specialisations a field's declaration asks for (``runs``, see
``runs.py`` and ``tails.py``).  Both store the same values and raise the
same errors: with ``ONNXDATA_GENERAL_PATHS`` set only the general table is
used, and the tests compare the two on every input they make.
"""

from __future__ import annotations

import struct
from array import array

from .._core.blanks import blank_source
from .._core.codegen import indent
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
from .._core.wire import LEN
from .runs import head_fields
from .small import small_element
from .tails import TAIL_TEST, chain, int_tag, tail_field

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from .._core.schema import FieldSpec, MessageSpec

    Blocks = list[tuple[str, str]]
    Writer = Callable[[MessageSpec, FieldSpec, bool, dict[str, Any]], Blocks]

__all__ = ["FAST", "GENERAL"]

_CONVERT = {INT32: "to_int32(v)", INT64: "to_int64(v)", UINT64: "v", ENUM: "to_int32(v)"}

_READ_VARINT = """\
v = buf[pos] if pos < end else 0x80
if v < 0x80:
    pos += 1
else:
    v, pos = read_varint(buf, pos, end)
    v = {convert}"""

# A length of one or two bytes is read inline (a nested message of 128 bytes to
# 16 KiB has two); anything else, and every error, is read_length's.
_READ_LENGTH = """\
n = buf[pos] if pos < end else 0x80
if n < 0x80 and n < end - pos:
    pos += 1
else:
    # (a one-byte length too long for what follows is longer still as a two-byte one)
    m = buf[pos + 1] if pos + 1 < end else 0x80
    if m < 0x80 and (k := n & 0x7F | m << 7) <= end - pos - 2:
        n = k
        pos += 2
    else:
        n, pos = read_length(buf, pos, end)"""

_DEPTH = "if depth <= 0:\n    raise depth_error(start)\n"


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


# -- the general table -------------------------------------------------------------


def _varint(spec: MessageSpec, f: FieldSpec, env: dict[str, Any], read: str, fast: bool) -> Blocks:
    """A varint field's branches, its value read by ``read``; ``fast`` reads a
    declared run of unpacked entries (``runs="varints"``) as a whole."""
    native, packed = _tags(f)
    if f.kind == ENUM:
        env[f"known_{f.name}"] = f.enum_values
        test = f"tag == {native} and closed_enum(buf, pos, end, known_{f.name})"
        return [(test, f"{read}\nmsg.{f.slot} = v")]
    if not f.repeated:
        return [(f"tag == {native}", f"{read}\nmsg.{f.slot} = v")]
    if f.typecode is not None:  # an array
        return _packed_array(f, native, packed)
    held = _held(spec, f, env)
    if fast and f.runs == "varints" and native < 0x80 and f.kind != INT32:
        unpacked = f"pos = varint_run(buf, start, pos, end, {held}, {native})"
    else:
        unpacked = f"{read}\n{held}.append(v)"
    return [(f"tag == {native}", unpacked), _packed_list(f, held, packed)]


def _general_varint(spec: MessageSpec, f: FieldSpec, copy: bool, env: dict[str, Any]) -> Blocks:
    read = f"v, pos = read_varint(buf, pos, end)\nv = {_CONVERT[f.kind]}"
    return _varint(spec, f, env, read, fast=False)


def _general_bytes(spec: MessageSpec, f: FieldSpec, copy: bool, env: dict[str, Any]) -> Blocks:
    native, _ = _tags(f)
    copy = copy or not f.view  # only a field declared view=True stays a view (schema.field)
    own = "piece if type(piece) is bytes else bytes(piece)" if copy else "piece"
    if f.repeated:
        if not copy:  # entries shorter than 128 bytes are copies in every mode (see short_copied)
            own = "piece if n >= 128 else bytes(piece)"
        store = f"{_held(spec, f, env)}.append({own})"
    else:
        store = f"msg.{f.slot} = {own}"
    read = "n, pos = read_length(buf, pos, end)\npiece = buf[pos : pos + n]\n"
    return [(f"tag == {native}", f"{read}{store}\npos += n")]


def _general_message(spec: MessageSpec, f: FieldSpec, copy: bool, env: dict[str, Any]) -> Blocks:
    native, _ = _tags(f)
    read = f"n, pos = read_length(buf, pos, end)\n{_DEPTH}"
    call = f"decode_{f.name}(buf, pos, pos + n, sub, depth - 1, grown)\npos += n"
    if f.repeated:  # the depth first, as the fast run checks it once for a run
        read = f"{_DEPTH}n, pos = read_length(buf, pos, end)\n"
        made = f"sub = new_{f.name}()\n{call}\n{_held(spec, f, env)}.append(sub)"
    else:
        made = (
            f"sub = msg.{f.slot}\nif sub is None:\n    sub = msg.{f.slot} = new_{f.name}()\n{call}"
        )
    return [(f"tag == {native}", read + made)]


# -- shared by both ----------------------------------------------------------------


def _packed_array(f: FieldSpec, native: int, packed: int) -> Blocks:
    code = f.typecode
    return [
        (
            f"tag == {packed}",
            "n, pos = read_length(buf, pos, end)\n"
            f"decode_into_array(buf, pos, pos + n, scalars(msg, {f.slot!r}, {code!r}))\n"
            "pos += n",
        ),
        (
            f"tag == {native}",
            "v, pos = read_varint(buf, pos, end)\n"
            f"scalars(msg, {f.slot!r}, {code!r}).append({_CONVERT[f.kind]})",
        ),
    ]


def _packed_list(f: FieldSpec, held: str, packed: int) -> tuple[str, str]:
    if f.kind == INT32:
        body = (
            "n, pos = read_length(buf, pos, end)\nvalues = []\n"
            "decode_into_list(buf, pos, pos + n, values, True)\n"
            f"{held}.extend(map(to_int32, values))\npos += n"
        )
    else:
        body = (
            "n, pos = read_length(buf, pos, end)\n"
            f"decode_into_list(buf, pos, pos + n, {held}, {f.kind != 'uint64'})\npos += n"
        )
    return f"tag == {packed}", body


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


def _fixed(spec: MessageSpec, f: FieldSpec, copy: bool, env: dict[str, Any]) -> Blocks:
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


def _string(spec: MessageSpec, f: FieldSpec, copy: bool, env: dict[str, Any]) -> Blocks:
    native, _ = _tags(f)
    made = "string(buf, pos, n)"
    store = f"{_held(spec, f, env)}.append({made})" if f.repeated else f"msg.{f.slot} = {made}"
    body = f"n, pos = read_length(buf, pos, end)\n{store}\npos += n"
    return [(f"tag == {native}", body)]


# -- the fast table ----------------------------------------------------------------


def _fast_varint(spec: MessageSpec, f: FieldSpec, copy: bool, env: dict[str, Any]) -> Blocks:
    read = _READ_VARINT.format(convert=_CONVERT[f.kind])
    if f.kind == ENUM and not f.repeated:
        return _fast_enum(f, env, read)
    return _varint(spec, f, env, read, fast=True)


def _fast_enum(f: FieldSpec, env: dict[str, Any], read: str) -> Blocks:
    """A closed enum's branch: a one-byte value the enum names is known without a call.

    A byte below 0x80 is a whole varint, so its being in the set of the known
    values below 0x80 is the general test's answer; any other value (longer,
    negative, unnamed) is left to that test.
    """
    native, _ = _tags(f)
    env[f"known_{f.name}"] = f.enum_values
    env[f"short_{f.name}"] = frozenset(v for v in f.enum_values if 0 <= v < 0x80)
    test = (
        f"tag == {native} and (pos < end and buf[pos] in short_{f.name}"
        f" or closed_enum(buf, pos, end, known_{f.name}))"
    )
    return [(test, f"{read}\nmsg.{f.slot} = v")]


# The text of a string field, made inline: what ``reading._string`` makes (proto2
# strings are not checked for UTF-8 by upb; bad bytes become surrogates).
_TEXT = 'str(buf[pos : pos + n], "utf-8", "surrogateescape")'


def _fast_string(spec: MessageSpec, f: FieldSpec, copy: bool, env: dict[str, Any]) -> Blocks:
    """A string field read inline (length and text, no call); a repeated one with a
    one-byte tag (a list of value names) read as a run, predicting the next tag."""
    native, _ = _tags(f)
    if not f.repeated:
        return [(f"tag == {native}", f"{_READ_LENGTH}\nmsg.{f.slot} = {_TEXT}\npos += n")]
    held = _held(spec, f, env)
    if native >= 0x80:
        return [(f"tag == {native}", f"{_READ_LENGTH}\n{held}.append({_TEXT})\npos += n")]
    element = f"{_READ_LENGTH}\nvalues.append({_TEXT})\npos += n"
    return [(f"tag == {native}", f"values = {held}\n{_run(element, native)}")]


def _fast_bytes(spec: MessageSpec, f: FieldSpec, copy: bool, env: dict[str, Any]) -> Blocks:
    native, _ = _tags(f)
    copy = copy or not f.view  # only a field declared view=True stays a view (schema.field)
    own = "piece" if not copy else "piece if type(piece) is bytes else bytes(piece)"
    if not f.repeated:
        body = f"{_READ_LENGTH}\npiece = buf[pos : pos + n]\nmsg.{f.slot} = {own}\npos += n"
        return [(f"tag == {native}", body)]
    held = _held(spec, f, env)
    if not copy:  # entries shorter than 128 bytes are copies (see short_copied)
        own = "piece if n >= 128 else bytes(piece)"
    if native >= 0x80:
        body = "n, pos = read_length(buf, pos, end)\npiece = buf[pos : pos + n]\n"
        return [(f"tag == {native}", f"{body}{held}.append({own})\npos += n")]
    if not copy:
        return [
            (
                f"tag == {native}",
                f"values = {held}\n"
                f"pos = strings(buf, pos, end, short_copied(values.append), values, {native})",
            )
        ]
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


def _blank(f: FieldSpec, env: dict[str, Any]) -> str:
    """The statements that make an element in ``sub``: written here, not a call
    of ``new_<field>``, one call less per element."""
    return "\n".join(blank_source(spec_of(f.message), "sub", env, f"{f.name}_"))


def _fast_message(spec: MessageSpec, f: FieldSpec, copy: bool, env: dict[str, Any]) -> Blocks:
    if f.repeated:
        return _fast_messages(spec, f, env)
    native, _ = _tags(f)
    blank = _blank(f, env)
    made = indent(f"{blank}\nmsg.{f.slot} = sub")
    read = f"decode_{f.name}(buf, pos, pos + n, sub, depth - 1, grown)\npos += n"
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
    return [(f"tag == {native}", f"{_READ_LENGTH}\n{_DEPTH}sub = msg.{f.slot}\n{read}")]


def _fast_messages(spec: MessageSpec, f: FieldSpec, env: dict[str, Any]) -> Blocks:
    native, _ = _tags(f)
    one_byte = native < 0x80
    if head_fields(spec, f) and one_byte:
        held = _held(spec, f, env)
        call = f"run_{f.name}(buf, pos, end, {held}, depth - 1, grown, {native})"
        return [(f"tag == {native}", f"{_DEPTH}pos = {call}")]
    blank = _blank(f, env)
    call = f"decode_{f.name}(buf, pos, pos + n, sub, depth - 1, grown)"
    made = small_element(f, call) or call
    element = f"{_READ_LENGTH}\n{blank}\n{made}\nvalues.append(sub)\npos += n"
    if f is tail_field(spec):
        # In a run, ``break``: the next byte is the element's first, not the run's next tag.
        down = indent(chain(spec, f, blank))
        switch = f"    values.append(sub)\n    msg = sub\n    depth -= 1\n{down}\n"
        element = f"{_READ_LENGTH}\n{blank}\n{TAIL_TEST}\n{switch}" + (
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


GENERAL: dict[str, Writer] = {
    **dict.fromkeys(_CONVERT, _general_varint),
    FLOAT: _fixed,
    DOUBLE: _fixed,
    STRING: _string,
    BYTES: _general_bytes,
    MESSAGE: _general_message,
}
"""Field kind -> the writer of its general branches."""


FAST: dict[str, Writer] = {
    **dict.fromkeys(_CONVERT, _fast_varint),
    FLOAT: _fixed,
    DOUBLE: _fixed,
    STRING: _fast_string,
    BYTES: _fast_bytes,
    MESSAGE: _fast_message,
}
"""Field kind -> the writer of its fast branches."""
