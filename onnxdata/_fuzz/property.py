"""The differential property :func:`check_parser`: a parser reads what protobuf reads.

The reference is onnxdata's decoder, which accepts and reads exactly what
protobuf's parser does.  What the parser under test returns (an onnxdata or
protobuf message, a dict as ``MessageToDict`` makes, or any object with field
attributes) is made comparable field by field: floats by their bits, strings
by their UTF-8 bytes, a value of the wrong type as a :class:`WrongType`.
"""

from __future__ import annotations

import base64
import enum
import math
import numbers
import operator
import re
import reprlib
import struct
import sys
from collections.abc import Callable, Iterable, Mapping, Set
from typing import Any

from .._core.errors import DecodeError
from .._core.foreign import foreign_class_name, foreign_name
from .._core.schema import MESSAGE, FieldSpec, MessageSpec, spec_of
from .._core.unset import STAND_INS
from .._messages.declarations import Message, TensorProto

__all__ = ["Bits", "Disagreement", "WrongType", "check_parser", "message_class"]


def message_class(message: Any) -> type[Message]:
    """``message`` if it is one of onnxdata's message classes.

    Raises:
        TypeError: it is not.
    """
    if not (isinstance(message, type) and issubclass(message, Message) and message is not Message):
        raise TypeError(f"message must be an onnxdata message class, not {message!r}")
    return message


class Disagreement(AssertionError):  # noqa: N818 - an assertion, read as a verdict
    """A parser and the reference reading disagree on one input.

    Attributes:
        data: the input.
        path: where the first difference is (``"TensorProto.dims[2]"``), or
            ``""`` when one side accepted and the other rejected.
        reference, parsed: the two readings there, normalised (see
            :func:`check_parser`); ``None`` means unset.  ``parsed`` is a
            :class:`WrongType` when the parser holds a value the field
            cannot hold.
    """

    def __init__(self, explanation: str, data: bytes, path: str = "",
                 reference: Any = None, parsed: Any = None) -> None:  # fmt: skip
        super().__init__(explanation)
        self.data = data
        self.path = path
        self.reference = reference
        self.parsed = parsed


class _NaN:
    """A float read from a dict: a NaN whose payload the dict cannot carry."""

    def __repr__(self) -> str:
        return "NaN (payload unknown)"


_ANY_NAN = _NaN()
_FLOAT_KINDS = {"float": ("<f", "<I"), "double": ("<d", "<Q")}


class Bits:
    """A float value by its bits, shown as the float and its bit pattern."""

    __slots__ = ("bits", "kind")

    def __init__(self, kind: str, bits: int) -> None:
        self.kind = kind
        self.bits = bits

    def is_nan(self) -> bool:
        if self.kind == "float":
            return self.bits & 0x7F800000 == 0x7F800000 and bool(self.bits & 0x7FFFFF)
        return self.bits & (0x7FF << 52) == 0x7FF << 52 and bool(self.bits & ((1 << 52) - 1))

    def __eq__(self, other: object) -> bool:
        if other is _ANY_NAN:
            return self.is_nan()
        return isinstance(other, Bits) and (other.kind, other.bits) == (self.kind, self.bits)

    def __hash__(self) -> int:
        return hash((self.kind, self.bits))

    def __repr__(self) -> str:
        fmt, ifmt = _FLOAT_KINDS[self.kind]
        value = struct.unpack(fmt, struct.pack(ifmt, self.bits))[0]
        width = 8 if self.kind == "float" else 16
        return f"{value!r} (bits 0x{self.bits:0{width}x})"


_BRIEF = reprlib.Repr()
_BRIEF.maxstring = _BRIEF.maxother = _BRIEF.maxlong = 60


def _brief(value: Any) -> str:
    try:
        return _BRIEF.repr(value)
    except ValueError:  # an int too long to convert to text
        return f"<an int of {value.bit_length()} bits>"


class WrongType:
    """What a parser holds where a field's value cannot be read from it.

    A value of another type (an int where bytes belong, a list in a singular
    field, a number where a message belongs, ``None`` in a repeated field, a
    ``bool`` or a ``str`` where a number belongs), or one the field cannot
    hold (a double out of a float field's range; in a dict, a string that is
    not an int64, base64 or a name of the enum).  ``value`` is the object the
    parser holds, ``wanted`` what the field takes.  It equals nothing, so a
    parser result holding one always gives a :class:`Disagreement`, whose
    ``parsed`` it is.
    """

    __slots__ = ("value", "wanted")

    def __init__(self, value: Any, wanted: str) -> None:
        self.value = value
        self.wanted = wanted

    def __eq__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        if self.value is None:
            return "None"
        return f"{type(self.value).__name__} {_brief(self.value)}"


def _wanted(f: FieldSpec) -> str:
    if f.kind == MESSAGE:
        return f"a {spec_of(f.message).name} message"
    return f"{'an' if f.kind[0] in 'aeiou' else 'a'} {f.kind} value"


_BYTE_FORMATS = {"B", "b", "c", "@B", "@b", "@c", "=B", "=b", "=c", "<B", "<b", "<c"}
_JSON_INT = re.compile(r"-?[0-9]{1,40}")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_JSON_FLOATS: dict[str, Any] = {"NaN": _ANY_NAN, "Infinity": math.inf, "-Infinity": -math.inf}
_NOT_MESSAGES = (type(None), numbers.Number, str, bytes, bytearray, memoryview, Mapping,
                 list, tuple, range, Set, enum.Enum, type)  # fmt: skip
_NOT_CONTAINERS = (str, bytes, bytearray, Mapping, numbers.Number, enum.Enum)


def _bytes_like(value: Any) -> bytes | None:
    """bytes, bytearray or a memoryview of bytes, as bytes; None for anything else."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, memoryview) and value.format in _BYTE_FORMATS:
        return value.tobytes()
    return None


def _base64(text: str) -> bytes | None:
    """Standard or URL-safe base64, padded or not, as protobuf's JSON parser takes it."""
    text = text.replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except ValueError:  # binascii.Error, or text that is not ASCII
        return None


def _read_scalar(f: FieldSpec, value: Any, from_dict: bool) -> Any:
    """One value of ``f`` made comparable (ints, float bits, strings as bytes), or a WrongType."""
    if f.kind in _FLOAT_KINDS:
        return _read_float(f, value, from_dict)
    if f.kind in ("string", "bytes"):
        if isinstance(value, str):
            if f.kind == "string":
                try:
                    return value.encode("utf-8", "surrogateescape")
                except UnicodeEncodeError:  # a surrogate outside the escape range
                    return value.encode("utf-8", "surrogatepass")
            if from_dict:
                raw = _base64(value)
                return WrongType(value, "a bytes value (base64)") if raw is None else raw
        raw = _bytes_like(value)
        return WrongType(value, _wanted(f)) if raw is None else raw
    if isinstance(value, bool):
        return WrongType(value, _wanted(f))
    if from_dict and isinstance(value, str):
        if _JSON_INT.fullmatch(value):
            return int(value)
        if f.enum is not None and value in f.enum.__members__:
            return f.enum.Value(value)
        return WrongType(value, _wanted(f))
    if f.enum is not None and isinstance(value, enum.Enum) and isinstance(value.value, int):
        value = value.value  # an enum member that is not an int itself
    try:
        return operator.index(value)
    except TypeError:
        return WrongType(value, _wanted(f))


def _read_float(f: FieldSpec, value: Any, from_dict: bool) -> Any:
    if from_dict:
        if isinstance(value, str):
            if value in _JSON_FLOATS:
                value = _JSON_FLOATS[value]
            elif _JSON_NUMBER.fullmatch(value):
                value = float(value)
            else:
                return WrongType(value, _wanted(f))
        if value is _ANY_NAN or (isinstance(value, float) and math.isnan(value)):
            return _ANY_NAN
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return WrongType(value, _wanted(f))
    fmt, ifmt = _FLOAT_KINDS[f.kind]
    try:
        return Bits(f.kind, struct.unpack(ifmt, struct.pack(fmt, float(value)))[0])
    except (OverflowError, ValueError, TypeError):
        return WrongType(value, f"{_wanted(f)} (out of its range)")


def _float_buffer(f: FieldSpec, value: Any) -> list[Bits] | None:
    """The bits of a buffer of native floats (an array, a numpy array), read without a
    round trip through Python floats; None when ``value`` is not one."""
    try:
        view = memoryview(value)
    except TypeError:
        return None
    code, size, ifmt = ("f", 4, "I") if f.kind == "float" else ("d", 8, "Q")
    formats = {p + code for p in ("", "@", "=", "<")} if sys.byteorder == "little" else {"<" + code}
    if view.ndim != 1 or view.itemsize != size or view.format not in formats:
        return None
    try:
        raw = view.cast("B")
    except TypeError:  # not contiguous
        return None
    return [Bits(f.kind, bits) for bits in struct.unpack(f"<{len(raw) // size}{ifmt}", raw)]


def _read_repeated(f: FieldSpec, value: Any, from_dict: bool) -> Any:
    """The elements of a repeated field made comparable (each may be a WrongType), or a
    WrongType when ``value`` is not a sequence."""
    wanted = f"a sequence of {spec_of(f.message).name if f.kind == MESSAGE else f.kind} values"
    if from_dict:
        if not isinstance(value, (list, tuple)):
            return WrongType(value, wanted)
    elif isinstance(value, _NOT_CONTAINERS) or (
        isinstance(value, memoryview) and value.format in _BYTE_FORMATS
    ):
        return WrongType(value, wanted)
    elif f.kind in _FLOAT_KINDS:
        bits = _float_buffer(f, value)
        if bits is not None:
            return bits
    try:
        items = list(value)
    except (TypeError, NotImplementedError):  # not iterable; a memoryview of several dimensions
        return WrongType(value, wanted)
    if f.kind == MESSAGE:
        return [_read_message(v, spec_of(f.message), from_dict) for v in items]
    return [_read_scalar(f, v, from_dict) for v in items]


def _is_message(value: Any, spec: MessageSpec) -> bool:
    if isinstance(value, _NOT_MESSAGES):
        return False
    if isinstance(value, Message):
        # A stand-in (what reading an unset sub-message gives) is an empty message of its class.
        return type(value) is spec.cls or (type(value) in STAND_INS and isinstance(value, spec.cls))
    full_name = foreign_class_name(type(value))
    return full_name is None or _names(full_name, spec)


def _names(full_name: str, spec: MessageSpec) -> bool:
    return full_name == spec.name or full_name.endswith("." + spec.name)


def _read_message(value: Any, spec: MessageSpec, from_dict: bool) -> Any:
    """The set fields of a message value made comparable, or a WrongType when ``value``
    is not one: a dict (``from_dict``), or an object with field attributes."""
    if not (isinstance(value, dict) if from_dict else _is_message(value, spec)):
        return WrongType(value, f"a {spec.name} message")
    out: dict[str, Any] = {}
    pairs: Iterable[tuple[FieldSpec, Any]]
    if from_dict:
        pairs = [(f, value.get(f.json_name, value.get(f.name))) for f in spec.fields]
    elif isinstance(value, Message):
        # As held, not by the name: an unset field reads as its default (a
        # sub-message as an empty stand-in, endlessly for a message that nests
        # its own type), and only None tells it unset.  (Number order: the
        # readings are compared field by field, in number order.)
        pairs = zip(spec.numbered, spec.held_numbered(value))  # noqa: B905 - see held_numbered
    else:
        pairs = [(f, getattr(value, f.name, None)) for f in spec.fields]
    for f, field_value in pairs:
        if field_value is None:
            continue
        if f.repeated:
            items = _read_repeated(f, field_value, from_dict)
            if items:  # an empty repeated field is unset (a WrongType is true)
                out[f.name] = items
        elif f.kind == MESSAGE:
            out[f.name] = _read_message(field_value, spec_of(f.message), from_dict)
        else:
            out[f.name] = _read_scalar(f, field_value, from_dict)
    return out


class _NotText:
    """A string that is not valid UTF-8, which a dict (JSON) cannot carry."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "bytes that are not UTF-8 (not compared)"


_NOT_TEXT = _NotText()


def _as_text(value: Any) -> Any:
    if isinstance(value, bytes):
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            return _NOT_TEXT
    return value


def _default(f: FieldSpec) -> Any:
    if f.repeated:
        return []
    if f.kind == MESSAGE:
        return {}
    if f.kind in _FLOAT_KINDS:
        return Bits(f.kind, 0)
    if f.kind in ("string", "bytes"):
        return b""
    return 0


def _difference(ref: dict[str, Any], got: dict[str, Any], spec: MessageSpec, path: str,
                presence: bool, utf8_only: bool) -> tuple[str, Any, Any] | None:  # fmt: skip
    """The first field (in number order) where the two readings differ."""
    for f in spec.numbered:
        found = _field_difference(f, ref.get(f.name), got.get(f.name), f"{path}.{f.name}",
                                  presence, utf8_only)  # fmt: skip
        if found:
            return found
    return None


def _field_difference(f: FieldSpec, a: Any, b: Any, here: str, presence: bool,
                      utf8_only: bool) -> tuple[str, Any, Any] | None:  # fmt: skip
    """Where two readings of one field differ (``None`` is unset), or None."""
    if isinstance(b, WrongType):
        return here, a, b
    if a is None and b is None:
        return None
    if not presence:
        a = _default(f) if a is None else a
        b = _default(f) if b is None else b
    if a is None or b is None:
        return (here, a, b) if a is not b else None
    if utf8_only and f.kind == "string":
        a = [_as_text(x) for x in a] if f.repeated else _as_text(a)
        b = [_as_text(x) for x in b] if f.repeated else _as_text(b)
    if f.repeated:
        return _elements_difference(f, a, b, here, presence, utf8_only)
    if f.kind == MESSAGE:
        return _difference(a, b, spec_of(f.message), here, presence, utf8_only)
    return (here, a, b) if a != b else None


def _elements_difference(
    f: FieldSpec, a: list[Any], b: list[Any], here: str, presence: bool, utf8_only: bool
) -> tuple[str, Any, Any] | None:
    """The first element where two readings of a repeated field differ; a value of the
    wrong type past the reference's count before the count itself."""
    for k, y in enumerate(b):
        at = f"{here}[{k}]"
        x = a[k] if k < len(a) else None
        if isinstance(y, WrongType):
            return at, x, y
        if x is None:
            continue
        if f.kind == MESSAGE:
            found = _difference(x, y, spec_of(f.message), at, presence, utf8_only)
            if found:
                return found
        elif x != y:
            return at, x, y
    if len(a) != len(b):
        return f"{here} (count)", len(a), len(b)
    return None


def _serialized(result: Any) -> bytes:
    """A protobuf message's bytes without its unknown fields (they are not compared: a
    known field a parser keeps as unknown must show as lost)."""
    copy_from = getattr(result, "CopyFrom", None)
    discard = getattr(result, "DiscardUnknownFields", None)
    if callable(copy_from) and callable(discard):
        copy = type(result)()
        copy.CopyFrom(result)
        copy.DiscardUnknownFields()
        return bytes(copy.SerializeToString())
    return bytes(result.SerializeToString())


def _normalise(result: Any, message: type[Message]) -> tuple[Any, bool, str]:
    """(set fields or a WrongType, whether presence is comparable, what the result was
    taken as)."""
    spec = spec_of(message)
    if isinstance(result, Message):
        if type(result) is not message:
            raise TypeError(f"the parser returned a {type(result).__name__}, not a {spec.name}")
        return _read_message(result, spec, False), True, "an onnxdata message"
    full_name = foreign_name(result)
    if full_name is not None:
        if not _names(full_name, spec):
            raise TypeError(f"the parser returned a {full_name}, not a {spec.name}")
        taken = "a protobuf message"
        try:
            again = message.decode(_serialized(result))
        except DecodeError as exc:
            wanted = f"a {spec.name} whose serialization protobuf reads ({exc})"
            return WrongType(result, wanted), True, taken
        return _read_message(again, spec, False), True, taken
    if isinstance(result, dict):
        return _read_message(result, spec, True), True, "a dict"
    return _read_message(result, spec, False), False, "an object with field attributes"


def _show(value: Any) -> str:
    if value is None:
        return "unset"
    try:
        text = repr(value)
    except ValueError:  # an int too long to convert to text
        text = _brief(value)
    return text if len(text) <= 200 else text[:200] + "..."


def _input(data: bytes) -> str:
    head = data[:64].hex()
    return f"input: {len(data)} bytes: {head}{'...' if len(data) > 64 else ''}"


def check_parser(
    parse: Callable[[bytes], Any],
    data: bytes,
    *,
    message: type[Message] = TensorProto,
    presence: bool | None = None,
) -> None:
    """Check that ``parse(data)`` reads what protobuf reads, or rejects what it rejects.

    ``parse`` rejects by raising any ``Exception``.  The reference is
    ``message.decode(data)`` (onnxdata's decoder, which accepts exactly what
    protobuf accepts and reads the same values).  What ``parse`` returns is
    compared field by field in number order, after it is made comparable:

    * an onnxdata message: read directly, each field's presence as
      ``HasField`` tells it (an unset field is unset, not its default).
    * a protobuf message (``onnx.TensorProto`` or any class with
      ``SerializeToString`` and ``DESCRIPTOR``): a copy without its unknown
      fields is serialized and read back, so presence and float bits are
      exactly what it holds, and a known field the parser kept as an unknown
      one is missing.
    * a dict as ``json_format.MessageToDict`` makes (JSON or proto field
      names): a key present is a field set; int64 strings, base64 bytes, enum
      names and "NaN"/"Infinity" are read as protobuf's JSON mapping says.
      A NaN matches any NaN (JSON carries no payload); -0.0 is compared; a
      string that is not valid UTF-8 is not compared (JSON cannot hold it).
    * any other object (betterproto-style classes): the attribute named like
      each field; ``None`` is unset, and, since such classes show no
      presence, a default value (0, empty, an empty message) matches both
      unset and set-to-default.  ``presence=True`` compares it as set instead.

    A field's value is taken only from the Python types that hold it: an
    ``int`` (not a ``bool``; anything with ``__index__``, an enum member) for
    integer and enum fields, an ``int`` or ``float`` (any real number) for
    float fields, a ``str`` or bytes-like value (``bytes``, ``bytearray``, a
    ``memoryview`` of bytes) for string fields, a bytes-like value for bytes
    fields, an object that is not a number, string, bytes, sequence or
    mapping for message fields (a dict in a dict), an iterable that is not a
    string, bytes or mapping for repeated fields (a list or tuple in a dict);
    in a dict also the strings of protobuf's JSON mapping above.  Anything
    else (an int where bytes belong, a list in a singular field, a number
    where a message belongs, ``None`` in a repeated field, a float out of a
    float field's range) is a :class:`WrongType`: a Disagreement whatever
    ``presence`` is, which names the field and the type the parser holds.

    Floats are compared by their bits (NaN payloads, signalling NaNs, -0.0),
    strings by their UTF-8 bytes, repeated fields element by element.  Unknown
    fields are not compared: a parser may drop them.

    Raises:
        Disagreement: (an ``AssertionError``) the parser accepts what the
            reference rejects or the reverse, or reads a different value, or
            holds a value of the wrong type, or loses or adds presence; the
            message names the first differing field by its path and shows both
            readings and the input.
        TypeError: ``data`` is not bytes-like, ``message`` is not a message
            class, or the parser returns an onnxdata or protobuf message of
            another type than ``message``.
    """
    cls = message_class(message)
    buf = bytes(memoryview(data).cast("B"))
    name = spec_of(cls).name
    try:
        reference: Message | None = cls.decode(buf)
        refused: DecodeError | None = None
    except DecodeError as exc:
        reference, refused = None, exc
    try:
        result = parse(buf)
        error: Exception | None = None
    except Exception as exc:  # any exception is the parser's way of rejecting
        result, error = None, exc
    if reference is None:
        if error is None:
            raise Disagreement(
                f"the parser accepted bytes protobuf rejects as {name}: {refused}\n{_input(buf)}",
                buf,
            )
        return
    if error is not None:
        raise Disagreement(
            f"the parser rejected bytes protobuf accepts as {name}: "
            f"{type(error).__name__}: {error}\n{_input(buf)}",
            buf,
        ) from error
    got, comparable, taken = _normalise(result, cls)
    if presence is not None:
        comparable = presence
    ref = _read_message(reference, spec_of(cls), False)
    if isinstance(got, WrongType):
        found: tuple[str, Any, Any] | None = (name, ref, got)
    else:
        found = _difference(ref, got, spec_of(cls), name, comparable, taken == "a dict")
    if found is None:
        return
    path, a, b = found
    if isinstance(b, WrongType):
        said = f"the parser holds {b!r}, not {b.wanted}"
    else:
        said = f"the parser reads {_show(b)}"
    reads = "nothing there" if a is None and path.endswith("]") else _show(a)
    raise Disagreement(
        f"{path}: protobuf reads {reads}, {said} (its result taken as {taken})\n{_input(buf)}",
        buf,
        path,
        a,
        b,
    )
