"""Fuzzing tools: a structure-aware mutator for coverage-guided fuzzers, and a
differential property that compares any parser with the reference reading.

Mutation (standard library only)::

    import atheris, sys
    from onnxdata.fuzz import mutate, crossover

    atheris.Setup(sys.argv, TestOneInput, custom_mutator=mutate, custom_crossover=crossover)

:func:`mutate` and :func:`crossover` read their input as a ``TensorProto``;
:func:`mutator_for` gives the same pair for another message.

The property::

    from onnxdata.fuzz import check_parser
    check_parser(my_parse, data, message=onnxdata.TensorProto)  # raises Disagreement

The reference is onnxdata's decoder, which accepts and reads exactly what
protobuf's parser does.

Seed corpora (``corpus``, ``corpus_files``, ``dictionary``; the command
``onnxdata corpus OUT``): files for fuzzers that start from files, one folder
per message, with a libFuzzer dictionary.
"""

from __future__ import annotations

import base64
import math
import struct
from collections.abc import Callable
from typing import Any

from . import _mutate
from ._corpus import DICTIONARY_NAME, corpus_files, dictionary, write_corpus
from ._errors import DecodeError
from ._messages import Message, TensorProto
from ._schema import MESSAGE, FieldSpec, MessageSpec, spec_of

corpus = write_corpus
"""Write seed corpora for C/C++/Rust fuzzers: ``corpus(OUT, seed=0, count=2)`` (see
:func:`write_corpus`; the command is ``onnxdata corpus OUT``)."""

__all__ = [
    "DICTIONARY_NAME",
    "Disagreement",
    "check_parser",
    "corpus",
    "corpus_files",
    "crossover",
    "dictionary",
    "mutate",
    "mutator_for",
    "write_corpus",
]


# -- mutation -------------------------------------------------------------------------


def _message_class(message: Any) -> type[Message]:
    if not (isinstance(message, type) and issubclass(message, Message) and message is not Message):
        raise TypeError(f"message must be an onnxdata message class, not {message!r}")
    return message


def mutate(data: bytes, max_size: int, seed: int, *, message: type[Message] = TensorProto) -> bytes:
    """One structure-aware mutation of ``data``, read as a ``message`` (default ``TensorProto``).

    The signature of atheris' and libFuzzer's custom mutators.  The input is
    read as wire fields, as far as it parses (the rest is kept as raw bytes),
    and the fields of ``message`` and of its sub-messages by their schema;
    one to three of these changes are made to the root or to a sub-message:
    add a field (known, of a wire type its parser accepts, or unknown),
    drop, duplicate or reorder fields, set a value to an edge (integer
    limits, ``2**31``, ``2**64 - 1``; NaNs with payloads, signalling NaN,
    infinities, -0.0, subnormals; empty, long and invalid UTF-8 strings),
    switch a repeated number field between packed and unpacked, lengthen a
    varint without changing its value, splice in a sub-message from
    elsewhere in the input, or give a tensor a data type and a matching
    storage field (a sequence or an optional an element type and an element).
    About one call in ten breaks the encoding instead: truncation, a wrong
    wire type, a length past the end, field number 0 or ``2**29`` and above,
    nesting deeper than 100.

    The result depends only on ``(data, max_size, seed)`` and is never longer
    than ``max_size`` (whole top-level fields are dropped first, then the
    bytes cut).  Any bytes are accepted.

    Raises:
        TypeError: ``data`` is not bytes-like, or ``max_size`` or ``seed`` is
            not an int, or ``message`` is not an onnxdata message class.
    """
    return _mutate.mutate(data, max_size, seed, _message_class(message))


def crossover(
    data1: bytes, data2: bytes, max_size: int, seed: int, *, message: type[Message] = TensorProto
) -> bytes:
    """A mix of two inputs, read as ``message``: libFuzzer's custom crossover.

    One of: the two concatenated (for protobuf, merging two messages), some
    top-level fields of ``data2`` inserted among those of ``data1``, or a
    sub-message of ``data2`` spliced into ``data1`` at any depth.
    Deterministic per arguments; never longer than ``max_size``.

    Raises:
        TypeError: as :func:`mutate`.
    """
    return _mutate.crossover(data1, data2, max_size, seed, _message_class(message))


def mutator_for(
    message: type[Message],
) -> tuple[Callable[[bytes, int, int], bytes], Callable[[bytes, bytes, int, int], bytes]]:
    """``(mutate, crossover)`` that read their inputs as ``message``, with the
    positional signatures fuzzers call::

        mutate_seq, crossover_seq = mutator_for(onnxdata.SequenceProto)
        atheris.Setup(sys.argv, test, custom_mutator=mutate_seq, custom_crossover=crossover_seq)

    Raises:
        TypeError: ``message`` is not an onnxdata message class.
    """
    cls = _message_class(message)

    def mutate_message(data: bytes, max_size: int, seed: int) -> bytes:
        return _mutate.mutate(data, max_size, seed, cls)

    def crossover_message(data1: bytes, data2: bytes, max_size: int, seed: int) -> bytes:
        return _mutate.crossover(data1, data2, max_size, seed, cls)

    mutate_message.__name__ = f"mutate_{spec_of(cls).name.replace('.', '_')}"
    crossover_message.__name__ = f"crossover_{spec_of(cls).name.replace('.', '_')}"
    return mutate_message, crossover_message


# -- the differential property ------------------------------------------------------------


class Disagreement(AssertionError):  # noqa: N818 - an assertion, read as a verdict
    """A parser and the reference reading disagree on one input.

    Attributes:
        data: the input.
        path: where the first difference is (``"TensorProto.dims[2]"``), or
            ``""`` when one side accepted and the other rejected.
        reference, parsed: the two readings there, normalised (see
            :func:`check_parser`); ``None`` means unset.
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


def _float_bits(kind: str, value: Any) -> Any:
    if value is _ANY_NAN:
        return value
    fmt, ifmt = _FLOAT_KINDS[kind]
    return Bits(kind, struct.unpack(ifmt, struct.pack(fmt, float(value)))[0])


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


def _scalar(f: FieldSpec, value: Any) -> Any:
    """One value of ``f`` made comparable: ints, float bits, strings as bytes."""
    if f.kind in _FLOAT_KINDS:
        return _float_bits(f.kind, value)
    if f.kind in ("string", "bytes"):
        if isinstance(value, str):
            return value.encode("utf-8", "surrogateescape")
        return bytes(value)
    if isinstance(value, bool):
        return int(value)
    return int(value)


def _repeated_floats(f: FieldSpec, values: Any) -> list[Any]:
    """Bits of each element, without a round trip through float when the buffer is there."""
    try:
        raw = memoryview(values).cast("B")
    except TypeError:
        return [_float_bits(f.kind, v) for v in values]
    size = 4 if f.kind == "float" else 8
    ifmt = "<I" if size == 4 else "<Q"
    return [Bits(f.kind, struct.unpack_from(ifmt, raw, k)[0]) for k in range(0, len(raw), size)]


def _from_attributes(obj: Any, spec: MessageSpec) -> dict[str, Any]:
    """The set fields of an object whose attributes are named like the fields."""
    out: dict[str, Any] = {}
    for f in spec.fields:
        value = getattr(obj, f.name, None)
        if value is None:
            continue
        if f.repeated:
            if f.kind == MESSAGE:
                items: list[Any] = [_from_attributes(v, spec_of(f.message)) for v in value]
            elif f.kind in _FLOAT_KINDS:
                items = _repeated_floats(f, value)
            else:
                items = [_scalar(f, v) for v in value]
            if items:
                out[f.name] = items
        elif f.kind == MESSAGE:
            out[f.name] = _from_attributes(value, spec_of(f.message))
        else:
            out[f.name] = _scalar(f, value)
    return out


def _dict_scalar(f: FieldSpec, value: Any) -> Any:
    if f.kind in _FLOAT_KINDS:
        if isinstance(value, str):
            named = {"NaN": _ANY_NAN, "Infinity": math.inf, "-Infinity": -math.inf}
            value = named.get(value, value)
        if value is not _ANY_NAN and isinstance(value, float) and math.isnan(value):
            value = _ANY_NAN
        return _float_bits(f.kind, value)
    if f.kind == "bytes":
        return base64.b64decode(value) if isinstance(value, str) else bytes(value)
    if f.kind == "enum" and isinstance(value, str) and f.enum is not None:
        return int(f.enum[value])
    return _scalar(f, value)


def _from_dict(d: Any, spec: MessageSpec) -> dict[str, Any]:
    """The set fields of a dict as ``MessageToDict`` makes (JSON or proto field names)."""
    if not isinstance(d, dict):
        raise TypeError(f"expected a dict for {spec.name}, got {type(d).__name__}")
    out: dict[str, Any] = {}
    for f in spec.fields:
        value = d.get(f.json_name, d.get(f.name))
        if value is None:
            continue
        if f.repeated:
            if f.kind == MESSAGE:
                items = [_from_dict(v, spec_of(f.message)) for v in value]
            else:
                items = [_dict_scalar(f, v) for v in value]
            if items:
                out[f.name] = items
        elif f.kind == MESSAGE:
            out[f.name] = _from_dict(value, spec_of(f.message))
        else:
            out[f.name] = _dict_scalar(f, value)
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
        a: Any = ref.get(f.name)
        b: Any = got.get(f.name)
        here = f"{path}.{f.name}"
        if a is None and b is None:
            continue
        if not presence:
            if a is None:
                a = _default(f)
            if b is None:
                b = _default(f)
        if a is None or b is None:
            if a is not b:
                return here, a, b
            continue
        if utf8_only and f.kind == "string":
            a = [_as_text(x) for x in a] if f.repeated else _as_text(a)
            b = [_as_text(x) for x in b] if f.repeated else _as_text(b)
        if f.kind == MESSAGE:
            if f.repeated:
                for k, (x, y) in enumerate(zip(a, b, strict=False)):
                    found = _difference(
                        x, y, spec_of(f.message), f"{here}[{k}]", presence, utf8_only
                    )
                    if found:
                        return found
                if len(a) != len(b):
                    return f"{here} (count)", len(a), len(b)
                continue
            found = _difference(a, b, spec_of(f.message), here, presence, utf8_only)
            if found:
                return found
            continue
        if f.repeated:
            for k, (x, y) in enumerate(zip(a, b, strict=False)):
                if x != y:
                    return f"{here}[{k}]", x, y
            if len(a) != len(b):
                return f"{here} (count)", len(a), len(b)
            continue
        if a != b:
            return here, a, b
    return None


def _normalise(result: Any, message: type[Message]) -> tuple[dict[str, Any], bool, str]:
    """(set fields, whether presence is comparable, what the result was taken as)."""
    spec = spec_of(message)
    if isinstance(result, Message):
        if type(result) is not message:
            raise TypeError(f"the parser returned a {type(result).__name__}, not a {spec.name}")
        return _from_attributes(result, spec), True, "an onnxdata message"
    serialize = getattr(result, "SerializeToString", None)
    if callable(serialize) and hasattr(result, "DESCRIPTOR"):
        full_name = str(getattr(result.DESCRIPTOR, "full_name", ""))
        if full_name != spec.name and not full_name.endswith("." + spec.name):
            raise TypeError(f"the parser returned a {full_name}, not a {spec.name}")
        again = message.decode(serialize())
        return _from_attributes(again, spec), True, "a protobuf message"
    if isinstance(result, dict):
        return _from_dict(result, spec), True, "a dict"
    return _from_attributes(result, spec), False, "an object with field attributes"


def _show(value: Any) -> str:
    if value is None:
        return "unset"
    text = repr(value)
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

    * an onnxdata message: read directly; ``None`` is unset.
    * a protobuf message (``onnx.TensorProto`` or any class with
      ``SerializeToString`` and ``DESCRIPTOR``): serialized and read back,
      so presence and float bits are exactly what it holds.
    * a dict as ``json_format.MessageToDict`` makes (JSON or proto field
      names): a key present is a field set; int64 strings, base64 bytes, enum
      names and "NaN"/"Infinity" are read as protobuf's JSON mapping says.
      A NaN matches any NaN (JSON carries no payload); -0.0 is compared; a
      string that is not valid UTF-8 is not compared (JSON cannot hold it).
    * any other object (betterproto-style classes): the attribute named like
      each field; ``None`` is unset, and, since such classes show no
      presence, a default value (0, empty, an empty message) matches both
      unset and set-to-default.  ``presence=True`` compares it as set instead.

    Floats are compared by their bits (NaN payloads, signalling NaNs, -0.0),
    strings by their UTF-8 bytes, repeated fields element by element.  Unknown
    fields are not compared: a parser may drop them.

    Raises:
        Disagreement: (an ``AssertionError``) the parser accepts what the
            reference rejects or the reverse, or reads a different value, or
            loses or adds presence; the message names the first differing
            field by its path and shows both readings and the input.
        TypeError: ``data`` is not bytes-like, ``message`` is not a message
            class, or the parser's result cannot be read as ``message``.
    """
    cls = _message_class(message)
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
    ref = _from_attributes(reference, spec_of(cls))
    found = _difference(ref, got, spec_of(cls), name, comparable, taken == "a dict")
    if found is None:
        return
    path, a, b = found
    raise Disagreement(
        f"{path}: protobuf reads {_show(a)}, the parser reads {_show(b)} "
        f"(its result taken as {taken})\n{_input(buf)}",
        buf,
        path,
        a,
        b,
    )
