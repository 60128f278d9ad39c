"""A human-readable outline of a message: types, names, shapes, a few values.

The outline is read from the wire, guided by the schema, without decoding the
message: every field of the message's spec is shown by its name, a packed
field or a long list by its first values and its count, a sub-message nested
below.  So a new field shows with no edit here, and showing a multi-GiB tensor
costs the first few values: ``raw_data`` is previewed through ``struct``,
packed varints are counted in chunks, and only the first elements of a long
list are kept.

The same walk scores how well the bytes fit the type (:attr:`Peek.misfit`, as
:func:`_io.type_detection.misfit` scores a decoded message), so ``onnxdata show``
detects the type with the one detector, :func:`_io.type_detection.detect`,
without decoding anything large.
"""

from __future__ import annotations

import struct

from .._core.errors import DecodeError
from .._core.schema import (
    BYTES,
    FLOAT,
    I32,
    I64,
    INT32,
    INT64,
    KINDS,
    LEN,
    MESSAGE,
    STRING,
    VARINT,
    spec_of,
)
from .._core.wire import (
    MASK64,
    MAX_DEPTH,
    check_varints_end,
    count_varints,
    encode_varint,
    field_run,
    read_field,
    read_varint,
    short_entries,
    to_int32,
    to_int64,
)
from .._io.type_detection import detect, type_enum, type_misfit
from .._messages.catalog import NAME_FIELD
from .._messages.datatypes import DATA_TYPES
from .._messages.declarations import Message, TensorProto

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from .._core.schema import FieldSpec, MessageSpec
    from .._core.wire import RawField
    from .._io.type_detection import Detected

__all__ = ["PREVIEW", "Peek", "detect_view", "outline", "peek", "render", "show"]

PREVIEW = 6  # values, entries or elements shown per field
_TEXT = 64  # characters of a string shown
_CHECKED = 1 << 16  # packed varints up to this many bytes are read and checked whole
_CHUNK = 1 << 20
_FIXED = {I32: 4, I64: 8}
# The field that says how a tensor's raw_data reads, named through the schema.
_DATA_TYPE = spec_of(TensorProto).named.data_type.name


class Shown:
    """One field as far as the outline needs it: how many values (entries,
    elements) it has, and the first ones."""

    __slots__ = ("count", "head", "size")

    def __init__(self) -> None:
        self.count = 0
        self.head: list[Any] = []
        self.size = 0  # bytes of a bytes or string field's entries


class Peek:
    """What the outline knows of one message, read from the wire."""

    __slots__ = ("canonical", "elements", "fields", "misfit", "raw", "spec", "unknown")

    def __init__(self, spec: MessageSpec) -> None:
        self.spec = spec
        self.fields: dict[str, Shown] = {}
        self.unknown = 0  # bytes of unknown fields
        self.misfit = 0  # as _io/type_detection.misfit scores the decoded message
        self.elements = 0  # the misfit of the elements of repeated message fields
        self.canonical = True  # re-encoding would give the same bytes, as far as read
        self.raw: dict[str, tuple[Any, int, int]] = {}  # singular bytes: (buf, pos, size)

    def value(self, f: FieldSpec) -> Any:
        """A singular field's value, or a repeated field's count (None: absent)."""
        shown = self.fields.get(f.name)
        if shown is None:
            return None
        if f.repeated:
            return shown.count
        return shown.head[-1] if shown.head else None


def peek(
    cls: type[Message],
    buf: Any,
    pos: int,
    end: int,
    depth: int = MAX_DEPTH,
    release: Callable[[int, int], None] | None = None,
) -> Peek:
    """Read ``buf[pos:end]`` as a ``cls`` far enough to outline it and score it.

    Big payloads are not decoded: a packed field is counted and its first
    values read; varints in a packed payload over 64 KiB are counted, and
    only the last byte is checked, and ``release(start, end)`` (if given) is
    called on each counted part, to give the pages of a mapping back.  Where
    ``decode`` would re-encode differently only through non-minimal varints,
    :attr:`Peek.canonical` does not see it.

    Raises:
        DecodeError: the bytes are malformed as protobuf's parser sees them.
    """
    spec = spec_of(cls)
    known = _known(spec)
    p = Peek(spec)
    last = 0
    while pos < end:
        field = read_field(buf, pos, end, depth)
        number, wire, start, after, _, pos, _ = field
        accepted = known.get(number)
        f = accepted[0] if accepted is not None and wire in accepted[1] else None
        if f is None:
            # the rest of a run of the same unknown field at once
            run = field_run(buf[start]) if after == start + 1 else None
            matched = run.match(buf, start, end) if run is not None else None
            if matched is not None:
                pos = max(pos, matched.end())
            p.unknown += pos - start
            last = 1 << 32  # the encoder writes unknown fields last
            continue
        if not _read(p, f, field, buf, depth, release):
            p.unknown += pos - start
            last = 1 << 32  # the encoder writes unknown fields last
            continue
        if f.repeated and f.kind in (STRING, BYTES) and after == start + 1:
            pos = _entries(p.fields[f.name], buf[start], buf, pos, end, release)
        once = not f.repeated or f.packed
        if f.number < last or wire != f.wire_type or (once and f.number == last):
            p.canonical = False
        elif after - start != len(f.tag):
            p.canonical = False  # a tag written in more bytes than it needs
        last = f.number
    p.misfit = _score(p)
    return p


_KNOWN: dict[Any, dict[int, tuple[FieldSpec, frozenset[int]]]] = {}


def _known(spec: MessageSpec) -> dict[int, tuple[FieldSpec, frozenset[int]]]:
    """Number -> the field, and every wire type a parser accepts for it."""
    found = _KNOWN.get(spec)
    if found is None:
        found = _KNOWN[spec] = {
            f.number: (f, frozenset(f.accepted_wire_types())) for f in spec.fields
        }
    return found


def _entries(
    shown: Shown,
    tag: int,
    buf: Any,
    pos: int,
    end: int,
    release: Callable[[int, int], None] | None,
) -> int:
    """Count the rest of a run of short entries of one string or bytes field
    (``string_data`` of millions of strings) once the outline has its first
    ones; return where the run ends.  Anything unusual is left to the caller."""
    if len(shown.head) < PREVIEW:
        return pos
    count = size = 0
    done = pos
    while True:
        pos, more, more_size = short_entries(buf, pos, end, tag, done + _CHUNK)
        count += more
        size += more_size
        if release is not None and pos > done:
            release(done, pos)
        if pos == done or pos < done + _CHUNK:
            break
        done = pos
    shown.count += count
    shown.size += size
    return pos


def _score(p: Peek) -> int:
    singular: int = sum(
        sub.misfit
        for f in p.spec.children()
        if not f.repeated and f.name in p.fields
        for sub in p.fields[f.name].head
    )
    return p.unknown + p.elements + singular + type_misfit(p.spec, p.value)


def _merge(into: Peek, more: Peek) -> None:
    """Merge a second occurrence of a singular message field into the first, as
    protobuf's parser does: repeated fields extend, singular ones are replaced,
    messages merge."""
    into.unknown += more.unknown
    into.elements += more.elements
    into.canonical = False
    for name, shown in more.fields.items():
        f = into.spec.by_name[name]
        mine = into.fields.get(name)
        if mine is None:
            into.fields[name] = shown
        elif f.repeated:
            mine.count += shown.count
            mine.size += shown.size
            mine.head.extend(shown.head[: PREVIEW - len(mine.head)])
        elif f.kind == MESSAGE:
            _merge(mine.head[0], shown.head[0])
        else:
            into.fields[name] = shown
    into.raw.update(more.raw)
    into.misfit = _score(into)


def _read(
    p: Peek,
    f: FieldSpec,
    field: RawField,
    buf: Any,
    depth: int,
    release: Callable[[int, int], None] | None,
) -> bool:
    """Record ``field`` (as the cursor read it, value and offsets); False for an enum
    value the enum does not know (kept as an unknown field, as proto2 does)."""
    shown = p.fields.get(f.name)
    if shown is None:
        shown = p.fields[f.name] = Shown()
    elif not f.repeated and f.kind != MESSAGE:
        shown.head.clear()  # the last value wins
        shown.count = 0
    wire = field.wire_type
    if wire == LEN:
        _read_len(p, f, shown, buf, field, depth, release)
        return True
    if wire == VARINT:
        v = field.value
        if f.enum is not None:
            v = to_int32(v)
            if v not in f.enum_values:
                return False  # an unknown field, as decoding makes it
        else:
            v = _signed(f.kind, v)
        if encode_varint(v & MASK64) != buf[field.body_at : field.end]:
            p.canonical = False  # the encoder writes the value back differently
        _add(shown, v)
    else:
        _add(shown, struct.unpack_from("<f" if wire == I32 else "<d", buf, field.body_at)[0])
    return True


def _read_len(
    p: Peek,
    f: FieldSpec,
    shown: Shown,
    buf: Any,
    field: RawField,
    depth: int,
    release: Callable[[int, int], None] | None,
) -> None:
    """Record a length-delimited field: a sub-message, a string or bytes, or a packed run."""
    pos, n = field.body_at, field.value
    if pos - field.tag_end != len(encode_varint(n)):
        p.canonical = False  # a length written in more bytes than it needs
    if f.kind == MESSAGE:
        _read_message(p, f, shown, buf, pos, n, depth, release)
    elif f.kind in (STRING, BYTES):
        if not f.repeated:
            p.raw[f.name] = (buf, pos, n)
        _add(shown, (bytes(buf[pos : pos + min(n, _TEXT)]), n), n)
    elif not _packed(shown, f, buf, pos, n, release):
        p.canonical = False


def _read_message(
    p: Peek,
    f: FieldSpec,
    shown: Shown,
    buf: Any,
    pos: int,
    n: int,
    depth: int,
    release: Callable[[int, int], None] | None,
) -> None:
    """Peek into a sub-message; a second occurrence of a singular one merges."""
    if depth <= 0:
        raise DecodeError(f"nesting deeper than {MAX_DEPTH} messages at offset {pos}", pos)
    try:
        sub = peek(f.message, buf, pos, pos + n, depth - 1, release)
    except DecodeError as err:
        err.within(f"{f.name}[{shown.count}]" if f.repeated else f.name)
        raise
    p.canonical = p.canonical and sub.canonical
    if f.repeated:
        p.elements += sub.misfit
        _add(shown, sub)
    elif shown.head:
        _merge(shown.head[0], sub)
    else:
        _add(shown, sub)


def _signed(kind: str, v: int) -> int:
    """A varint's value as a field of ``kind`` holds it."""
    if kind == INT32:
        return to_int32(v)
    if kind == INT64:
        return to_int64(v)
    return v


def _add(shown: Shown, value: Any, size: int = 0) -> None:
    shown.count += 1
    shown.size += size
    if len(shown.head) < PREVIEW:
        shown.head.append(value)


def _packed(
    shown: Shown,
    f: FieldSpec,
    buf: Any,
    pos: int,
    n: int,
    release: Callable[[int, int], None] | None,
) -> bool:
    """A packed payload: count its values, keep the first ones.  Return whether
    the encoder would write the payload back the same (as far as it was read):
    never an empty one, which it leaves out."""
    if not n:
        return False
    info = KINDS[f.kind]
    if info.wire_type in _FIXED:
        width = _FIXED[info.wire_type]
        if n % width:
            raise DecodeError(
                f"packed {f.kind} field of {n} bytes at offset {pos} is not a whole "
                f"number of {width}-byte values",
                pos,
            )
        count = n // width
        k = min(count, PREVIEW - len(shown.head))
        shown.head.extend(struct.unpack_from(f"<{k}{'f' if width == 4 else 'd'}", buf, pos))
        shown.count += count
        return True
    end = pos + n
    check_varints_end(buf, pos, end)
    if n <= _CHECKED:
        same = True
        while pos < end:
            start = pos
            v, pos = read_varint(buf, pos, end)
            v = _signed(f.kind, v)
            same = same and encode_varint(v & MASK64) == buf[start:pos]
            _add(shown, v)
        return same
    at = pos
    while at < end and len(shown.head) < PREVIEW:
        v, at = read_varint(buf, at, end)
        shown.head.append(_signed(f.kind, v))
    for i in range(pos, end, _CHUNK):
        stop = min(i + _CHUNK, end)
        shown.count += count_varints(buf, i, stop)
        if release is not None:
            release(i, stop)
    return True


# -- detection and the outline -------------------------------------------------------


def detect_view(view: Any, release: Callable[[int, int], None] | None = None) -> Detected:
    """The one detector (:func:`_io.type_detection.detect`) with this module's reader: the
    type, its :class:`Peek`, and the types that fit as well.

    Raises:
        DecodeError: as :func:`_io.type_detection.detect`.
    """

    def read(cls: type[Message]) -> tuple[Peek, int, Callable[[], bool]]:
        p = _peek_top(cls, view, release)
        return p, p.misfit, lambda: p.canonical

    return detect(view, read=read, ties=True)


def _peek_top(cls: type[Message], view: Any, release: Callable[[int, int], None] | None) -> Peek:
    try:
        return peek(cls, view, 0, len(view), MAX_DEPTH, release)
    except DecodeError as err:
        err.within(cls.__qualname__)
        raise


def show(
    view: Any,
    cls: type[Message] | None = None,
    release: Callable[[int, int], None] | None = None,
) -> list[str]:
    """The outline of the message in ``view``: a head line naming the type (and,
    when detected, the others it decodes as equally well), then the outline.

    Raises:
        DecodeError: the bytes are not a valid encoding of ``cls`` (of any type).
    """
    if cls is not None:
        return [cls.__qualname__, *render(_peek_top(cls, view, release), "  ")]
    found = detect_view(view, release)
    head = found.type.__qualname__
    if found.ties:
        others = ", ".join(t.__qualname__ for t in found.ties)
        head += f" (ambiguous: also decodes as {others}; use --type)"
    return [head, *render(found.result, "  ")]


def outline(msg: Message, indent: str = "") -> list[str]:
    """The lines that describe ``msg``, nested parts indented by two spaces.

    Raises:
        TypeError, ValueError: ``msg`` cannot be encoded.
    """
    data = msg.encode()
    return render(peek(type(msg), data, 0, len(data)), indent)


def render(p: Peek, indent: str = "", label: str = "") -> list[str]:
    """The outline of a :class:`Peek`: one line of scalar fields, then each
    sub-message indented, at most :data:`PREVIEW` of a list."""
    spec = p.spec
    words = [f"{indent}{label}{spec.name}"]
    subs: list[str] = []
    inner = indent + "  "
    name = spec.by_name.get(NAME_FIELD)
    if name is not None and p.fields.get(NAME_FIELD):
        words.append(_text(*p.fields[NAME_FIELD].head[-1]))
    for f in spec.fields:
        shown = p.fields.get(f.name)
        if shown is None or f is name:
            continue
        if f.kind == MESSAGE:
            for i, sub in enumerate(shown.head):
                tag = f"{f.name}[{i}]: " if f.repeated else f"{f.name}: "
                subs.extend(render(sub, inner, tag))
            if shown.count > len(shown.head):
                subs.append(f"{inner}... {shown.count - len(shown.head)} more {f.name}")
            continue
        words.append(f"{f.name}={_values(p, f, shown)}")
    lines = [" ".join(words), *subs]
    if p.unknown:
        lines.append(f"{inner}({p.unknown} bytes of unknown fields)")
    return lines


def _values(p: Peek, f: FieldSpec, shown: Shown) -> str:
    enum = type_enum(p.spec, f)
    if f.kind in (STRING, BYTES):
        if not f.repeated:
            return _singular_bytes(p, f, shown)
        texts = [_text(*entry) for entry in shown.head]
        return _preview(texts, shown.count)
    if enum is not None:
        names = [_enum_name(enum, v) for v in shown.head]
        return names[0] if not f.repeated and names else _preview(names, shown.count)
    code = "f" if f.kind == FLOAT else ""
    if not f.repeated:
        return _preview([shown.head[-1]], 1, code)[1:-1]
    return _preview([_number(v, code) for v in shown.head], shown.count)


def _singular_bytes(p: Peek, f: FieldSpec, shown: Shown) -> str:
    """A singular bytes field: as elements of the message's data type when it has
    one the standard library can read (``raw_data``), else its first bytes."""
    buf, pos, size = p.raw[f.name]
    data_type = p.spec.by_name.get(_DATA_TYPE)
    info = DATA_TYPES.get(p.value(data_type)) if data_type is not None else None
    if f.kind == BYTES and info is not None and info.struct:
        width = struct.calcsize(info.struct)
        count = size // width
        head = struct.unpack_from(f"<{min(count, PREVIEW)}{info.struct}", buf, pos)
        return _preview([_number(v, info.struct) for v in head], count)
    if f.kind == BYTES:
        return f"<{size} bytes>" if size > _TEXT else repr(bytes(buf[pos : pos + size]))
    return _text(*shown.head[-1])


def _text(head: bytes, size: int) -> str:
    """A string or bytes entry from its first bytes, and its size when cut."""
    text = repr(str(head, "utf-8", "replace"))
    return text if size <= len(head) else f"{text}... ({size} bytes)"


def _number(v: Any, code: str) -> str:
    if code in ("f", "e") and isinstance(v, float):  # float32/float16, not their double expansions
        text = f"{v:.7g}"
        return text if any(c in text for c in ".enia") else text + ".0"  # 3.0, not 3
    return repr(v)


def _enum_name(enum: Any, value: int) -> str:
    try:
        return str(enum.Name(value))
    except ValueError:
        return f"unknown({value})"


def _preview(head: list[Any], total: int, code: str = "") -> str:
    """The first values, and how many there are in all when that is more."""
    shown = ", ".join(_number(v, code) if code else str(v) for v in head)
    more = f", ... ({total} in all)" if total > len(head) else ""
    return f"[{shown}{more}]"
