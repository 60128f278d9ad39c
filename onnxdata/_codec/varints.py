"""Packed varint payloads, both ways: the one entry point of three implementations.

A packed ``int32``/``int64``/``uint64`` field (and an unpacked run read as
one) is decoded and encoded here.  Which implementation runs is chosen here
and nowhere else, by size and by what is loaded:

- numpy's whole-array arithmetic (``npvarints.py``) when the program has
  already imported numpy (the core never imports it) and the payload is large;
- big-integer lanes (``lanes.py``), standard library only, for mid-sized and
  large payloads without numpy;
- a plain loop for short payloads, and to name the first bad varint: the
  other two hand any payload they cannot take whole back to it, so every
  error is this module's.

The three give identical results; the tests run the suite on each
(``tests/support/oracle.py``'s ``varint_path``).  With
``switches.GENERAL_PATHS`` set, only the loops run.
"""

from __future__ import annotations

from array import array

from .._core import switches
from .._core.codegen import Emitter
from .._core.errors import DecodeError, EncodeError, EncodeTypeError, EncodeValueError
from .._core.inline import read_varint_inline
from .._core.kinds import integer
from .._core.schema import INT32_TYPECODE, INT64_TYPECODE, KINDS, UINT64
from .._core.wire import Buf, ends_varint, one_byte_varints, read_varint, to_int32, to_int64
from . import lanes, npvarints
from .writing import varint

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

__all__ = [
    "check_int",
    "decode_into_array",
    "decode_into_list",
    "element_error",
    "encode_packed",
    "encode_unpacked",
    "read_each",
    "tagged",
]


def decode_into_list(buf: Buf, pos: int, end: int, out: list[int], code: str) -> None:
    """Append the varints of ``buf[pos:end]`` to the list ``out``, as the
    ``array`` typecode ``code`` (int32, int64 or uint64) holds them.

    Raises:
        DecodeError: as :func:`decode_into_array`.
    """
    values = array(code)
    decode_into_array(buf, pos, end, values)
    out.extend(values)


def _packed_error(err: DecodeError, pos: int, end: int) -> DecodeError:
    """The error of :func:`read_each` for the bad varint at ``pos``: one that runs
    past ``end`` is named as running past the packed field's end."""
    if end - pos >= 10:  # longer than 10 bytes: read_varint's words
        return err
    n = end - pos
    return DecodeError(
        f"packed varint at offset {pos} runs past the end of the packed field "
        f"({n} byte{'s' if n != 1 else ''} left)",
        pos,
    )


def _readers() -> dict[str, Callable[[Buf, int, int], list[int]]]:
    """One plain loop per typecode, written with the cursor's inline read
    (``_core/inline.py``): the conversion is then in the source, not a test
    of the typecode per varint."""
    env = {"read_varint": read_varint, "to_int32": to_int32, "to_int64": to_int64,
           "DecodeError": DecodeError, "packed_error": _packed_error}  # fmt: skip
    emit = Emitter(env)
    readers = {}
    for code, convert in ((INT32_TYPECODE, "to_int32(v)"), (INT64_TYPECODE, "to_int64(v)"),
                          (str(KINDS[UINT64].typecode), "v")):  # fmt: skip
        with emit.block(f"def read_each_{code}(buf, pos, end):"):
            emit("values = []\nappend = values.append")
            with emit.block("try:"), emit.block("while pos < end:"):
                emit(read_varint_inline(convert, inside=True))
                emit("append(v)")
            with emit.block("except DecodeError as err:"):
                emit("raise packed_error(err, pos, end) from None  # ``pos``: the bad varint's")
            emit("return values")
        readers[code] = f"read_each_{code}"
    built = emit.build("<onnxdata packed varints>")
    _READERS.update((code, built[name]) for code, name in readers.items())
    return _READERS


# Made on the first call: the package's import compiles nothing it may never run.
_READERS: dict[str, Callable[[Buf, int, int], list[int]]] = {}
_UNSIGNED = str(KINDS[UINT64].typecode)  # any other typecode: the values as read


def read_each(buf: Buf, pos: int, end: int, code: str) -> list[int]:
    """The varints of ``buf[pos:end]`` one at a time: the general path, and
    the one that names the first bad varint for the other two.

    Raises:
        DecodeError: a varint runs past ``end`` or is longer than 10 bytes.
    """
    readers = _READERS or _readers()
    return readers.get(code, readers[_UNSIGNED])(buf, pos, end)


def decode_into_array(buf: Buf, pos: int, end: int, out: Any) -> None:
    """Append the packed payload ``buf[pos:end]`` to ``out``, an int32/int64/uint64 ``array``.

    Raises:
        DecodeError: a varint runs past ``end`` or is longer than 10 bytes (the
            first bad one, named by :func:`read_each`).
    """
    code = out.typecode
    general = switches.GENERAL_PATHS
    if end - pos >= npvarints.MIN_BYTES and not general:
        np = npvarints.numpy()
        if np is not None and npvarints.decode(np, bytes(buf[pos:end]), out):
            return
    if end - pos >= lanes.MIN_BYTES and not general:
        chunk = bytes(buf[pos:end])
        if one_byte_varints(chunk):  # all one-byte values: no decoding, and no second copy below
            out.extend(chunk)
            return
        # Whole blocks at a time; on an unfinished or too long varint the
        # loop below names the error.
        if ends_varint(chunk, len(chunk)) and lanes.decode(chunk, out):
            return
    readers = _READERS or _readers()  # read_each's body: a call less for a short payload
    out.fromlist(readers.get(code, readers[_UNSIGNED])(buf, pos, end))


# -- encoding -------------------------------------------------------------------


def check_int(v: Any, lo: int, hi: int) -> int:
    """Check an integer as protobuf does: no bool, no float, numpy ints welcome.

    Raises:
        EncodeTypeError: not an integer (a bool is not one either).
        EncodeValueError: outside ``lo..hi``.
    """
    if type(v) is int:
        n: int = v
    else:
        try:
            n = integer(v)  # what an integer is: _core.kinds
        except TypeError as exc:
            raise EncodeTypeError(str(exc)) from None
    if n < lo or n > hi:
        raise EncodeValueError(f"value out of range: {n}")
    return n


def element_error(values: Any, v: Any, lo: int, hi: int) -> int:
    """Check one element off the fast path; a bad one is named by its index.

    Raises:
        EncodeError: the first bad element, with ``[index]`` in its path.
    """
    try:
        return check_int(v, lo, hi)
    except EncodeError as err:
        for i, x in enumerate(values):  # iterating again makes new objects: compare by check
            try:
                check_int(x, lo, hi)
            except EncodeError:
                err.within(f"[{i}]")
                break
        raise


def encode_packed(values: Any, lo: int, hi: int, code: str) -> bytes:
    """A packed integer payload; an ``array`` of the field's own type needs no checks.

    Raises:
        EncodeError: an element is not an integer in ``lo..hi``, named by its index.
    """
    if not switches.GENERAL_PATHS:
        whole = _packed_whole(values, code)
        if whole is not None:
            return whole
    if isinstance(values, array):
        values = values.tolist()  # other typecodes are checked like any list
    chunks: list[bytes] = []
    append = chunks.append
    for v in values:
        if type(v) is not int or v < lo or v > hi:
            v = element_error(values, v, lo, hi)
        append(varint(v))
    return b"".join(chunks)


def _packed_whole(values: Any, code: str) -> bytes | None:
    """The fast paths of :func:`encode_packed`: an ``array`` of the field's own
    type by numpy or the lanes; None where neither applies."""
    if isinstance(values, array) and values.typecode == code:
        if len(values) >= npvarints.MIN_VALUES:
            np = npvarints.numpy()
            if np is not None:
                return npvarints.encode(np, values, code)
        if len(values) >= lanes.MIN_VALUES:
            return lanes.encode(values)
    return None


def encode_unpacked(tag: bytes, values: Any, lo: int, hi: int) -> bytes:
    """A repeated integer field written unpacked: tag, value, tag, value, ...

    Raises:
        EncodeError: an element is not an integer in ``lo..hi``, named by its index.
    """
    if switches.GENERAL_PATHS:  # each value checked and written by itself
        return b"".join([tag + varint(element_error(values, v, lo, hi)) for v in values])
    if (
        len(tag) == 1
        and len(values) >= lanes.MIN_VALUES
        and lo == -(1 << 63)
        and type(values) is list
        and set(map(type, values)) == {int}
    ):
        # All in lanes at once, as encode_packed does.
        try:
            checked = array(INT64_TYPECODE, values)
        except OverflowError:
            pass  # out of range: the loop below names the value
        else:
            return lanes.encode(checked, tag[0])
    table = tagged(tag)
    chunks: list[bytes] = []
    append = chunks.append
    for v in values:
        if type(v) is int:
            if 0 <= v < 0x80:
                append(table[v])
                continue
            if lo <= v <= hi:
                append(tag + varint(v))
                continue
        append(tag + varint(element_error(values, v, lo, hi)))
    return b"".join(chunks)


_TAGGED: dict[bytes, list[bytes]] = {}


def tagged(tag: bytes) -> list[bytes]:
    """The 128 encodings of ``tag`` followed by a one-byte value or length (0..127)."""
    found = _TAGGED.get(tag)
    if found is None:
        found = _TAGGED[tag] = [tag + bytes((v,)) for v in range(0x80)]
    return found
