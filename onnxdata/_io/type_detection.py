"""The one type detector: which message type bytes fit best, scored from the schema.

The wire format carries no type name.  :func:`detect` scores each candidate
type by its misfit (:func:`misfit`) and whether the bytes re-encode exactly,
after a quick look that decodes nothing; it is used by ``load`` without a
type and by ``onnxdata show``, which passes its own reader and scores its
previews with :func:`type_misfit` and names values with :func:`type_enum`.
Both walk the wire with the one cursor, ``_core/wire.py``.
"""

from __future__ import annotations

from .._codec.decode import decode_part
from .._codec.stream import encode_to
from .._core.errors import DecodeError
from .._core.schema import INT32, KINDS, LEN, MESSAGE, VARINT, MessageSpec, spec_of
from .._core.wire import MAX_DEPTH, field_run, known_enum_value, next_field, read_field
from .._messages.datatypes import DATA_TYPES
from .._messages.declarations import (
    MapProto,
    Message,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
)
from .models import is_model

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from .._core.schema import FieldSpec

__all__ = [
    "CANDIDATES",
    "Detected",
    "detect",
    "misfit",
    "type_enum",
    "type_misfit",
]

# -- how well bytes fit a type, from the schema ------------------------------------

CANDIDATES: tuple[type[Message], ...] = (
    TensorProto,
    SparseTensorProto,
    SequenceProto,
    MapProto,
    OptionalProto,
)
"""The types a file may hold, most specific first: a tie goes to the earlier one."""

_STRING_KEY = TensorProto.DataType.STRING  # keys a map through string keys


class _TypeField:
    """An int32 ``*_type`` field: which values it may take, and, for an element
    type, which message field each value names."""

    __slots__ = ("allowed", "elements", "enum", "field")

    def __init__(self, spec: MessageSpec, f: FieldSpec) -> None:
        self.field = f
        own = getattr(spec.cls, "DataType", None)
        self.elements: dict[int, FieldSpec] = {}
        if own is not None:
            # Each element type names the message field of that kind:
            # TENSOR -> tensor_values, SPARSE_TENSOR -> sparse_tensor_value, ...
            self.enum: Any = own
            for name, number in own.items():
                prefix = name.lower() + "_"
                for child in spec.children():
                    if child.name.startswith(prefix):
                        self.elements[number] = child
        else:
            self.enum = TensorProto.DataType
        values = set(self.enum.values())
        if f.name.startswith("key"):  # a map's keys: the types DATA_TYPES says may key one
            values = {v for v, d in DATA_TYPES.items() if d.key is not None} | {_STRING_KEY}
        self.allowed = frozenset(values)


_TYPE_FIELDS: dict[type, tuple[_TypeField, ...]] = {}


def _type_fields(spec: MessageSpec) -> tuple[_TypeField, ...]:
    """The ``*_type`` fields of a message: the int32 fields that hold a data type."""
    found = _TYPE_FIELDS.get(spec.cls)
    if found is None:
        found = _TYPE_FIELDS[spec.cls] = tuple(
            _TypeField(spec, f)
            for f in spec.fields
            if f.kind == INT32 and not f.repeated and f.name.endswith("_type")
        )
    return found


def type_enum(spec: MessageSpec, f: FieldSpec) -> Any:
    """The enum whose names the values of field ``f`` of ``spec`` are shown with:
    its own for an enum field; a data-type enum for an int32 ``*_type`` field
    (the message's own ``DataType`` for an element type); else None."""
    if f.enum is not None:
        return f.enum
    for t in _type_fields(spec):
        if t.field is f:
            return t.enum
    return None


def type_misfit(spec: MessageSpec, value: Callable[[FieldSpec], Any]) -> int:
    """What a message's ``*_type`` fields cost: a value outside the enum (or not
    a map key type), several element fields set, or one that disagrees with
    the element type.  ``value(f)`` is the value of field ``f`` (for a message
    field, anything true when it is set)."""
    score = 0
    for t in _type_fields(spec):
        declared = value(t.field)
        if declared is not None and declared not in t.allowed:
            score += 1
        if t.elements:
            populated = [k for k, child in sorted(t.elements.items()) if value(child)]
            if len(populated) > 1:
                score += len(populated) - 1
            if populated and declared is not None and populated[0] != declared:
                score += 1
    return score


def misfit(msg: Message) -> int:
    """How badly a decoded message fits its schema; 0 is a perfect fit.

    Unknown fields cost their size; a ``*_type`` field that is out of range
    or disagrees with the populated element field costs 1 (see
    :func:`type_misfit`); sub-messages add theirs.
    """
    spec = spec_of(type(msg))
    score = len(msg.unknown_fields)  # type: ignore[attr-defined]
    # The slots, None while unset: reading an unset sub-message by name gives
    # an empty stand-in (OptionalProto.optional_value would give one forever),
    # and an unset ``*_type`` field its default.
    for f in spec.children():
        value = f.held(msg)
        if f.repeated:
            for sub in value or ():
                score += misfit(sub)
        elif value is not None:
            score += misfit(value)
    return score + type_misfit(spec, lambda f: _present(f.held(msg), f.repeated))


def _present(value: Any, repeated: bool) -> Any:
    """A slot's value as :func:`type_misfit` reads it: None while unset, and an
    unused repeated field (no container yet) as empty."""
    if repeated and value is None:
        return ()
    return value


# -- the quick look: each field's number and wire type, from the schema -------------

# (number, wire type) -> (sub-message class or None, shape, packed varints).  The
# shape is _ONCE for a field the encoder writes once, _RUN for one it writes as a
# run of entries, _ODD for a form it never writes (packed where it writes
# unpacked, or the reverse).  Anything else is an unknown field.
_ONCE, _RUN, _ODD = 0, 1, 2
# (number, wire type) -> (its message class, its shape, packed varints, the values a
# closed enum names: None for any other field)
_Layout = dict[tuple[int, int], tuple["type[Message] | None", int, bool, "frozenset[int] | None"]]
_LAYOUTS: dict[type, _Layout] = {}


def _layout(cls: type[Message]) -> _Layout:
    found = _LAYOUTS.get(cls)
    if found is None:
        found = _LAYOUTS[cls] = {}
        for f in spec_of(cls).fields:
            for wire in f.accepted_wire_types():
                if wire != f.wire_type:
                    shape = _ODD
                else:
                    shape = _RUN if f.repeated and not f.packed else _ONCE
                sub = f.message if f.kind == MESSAGE else None
                varints = wire == LEN and KINDS[f.kind].wire_type == VARINT
                enum = f.enum_values if f.enum is not None and wire == VARINT else None
                found[(f.number, wire)] = (sub, shape, varints, enum)
    return found


_SCAN_FIELDS = 64  # fields looked at per message
_SCAN_SUBS = 8  # sub-messages looked into per message


def _scan(view: Any, pos: int, end: int, cls: type[Message], levels: int) -> tuple[int, bool, int]:
    """A quick look at ``view[pos:end]`` read as ``cls``, decoding nothing.

    Returns the bytes of unknown fields seen (misfit counts each byte);
    whether the re-encoding is sure to differ from the input: a field out of
    field-number order or after an unknown field, one the encoder writes once
    seen twice, or a form it never writes (a value a closed enum does not
    name makes an unknown field, as decoding does); and the bytes of packed varints
    seen, the costliest thing to decode.  Only the first fields, and the
    first sub-messages down ``levels`` more levels, are looked at, so these
    are lower bounds, found in microseconds.
    """
    layout = _layout(cls)
    unknown = 0
    differs = False
    last = 0
    seen: set[int] = set()
    subs = 0
    varints = 0
    try:
        for _ in range(_SCAN_FIELDS):
            if pos >= end:
                break
            field = read_field(view, pos, end)
            start, after, pos, number = field.start, field.tag_end, field.end, field.number
            known = layout.get((number, field.wire_type))
            if known and known[3] is not None and not known_enum_value(view, after, pos, known[3]):
                known = None  # a value a closed enum does not name: an unknown field
            if known is None:
                unknown += pos - start
                last = 1 << 32  # unknown fields are written last
                continue
            sub, shape, packed, _ = known
            if number < last or shape == _ODD or (shape == _ONCE and number in seen):
                differs = True
            last = number
            seen.add(number)
            if packed:
                varints += pos - start
            if sub is not None and levels > 0 and subs < _SCAN_SUBS:
                subs += 1
                more, sub_differs, more_varints = _scan(view, field.body_at, pos, sub, levels - 1)
                unknown += more
                differs = differs or sub_differs
                varints += more_varints
    except DecodeError:
        pass  # malformed: decoding will say so
    return unknown, differs, varints


def _top_level(view: Any) -> dict[tuple[int, int], int]:
    """The bytes of the top-level fields by ``(number, wire type)``, in one pass.

    Which of them a type does not know is a lower bound of its misfit that
    is exact at the top level but for closed enums' values, whatever the
    length of the file.
    """
    out: dict[tuple[int, int], int] = {}
    pos, end = 0, len(view)
    try:
        while pos < end:
            run = field_run(view[pos])  # None but for a one-byte varint or fixed tag
            matched = run.match(view, pos, end) if run is not None else None
            number, wire_type, _, after = next_field(view, pos, end)
            if matched is not None:
                after = matched.end()
            key = (number, wire_type)
            out[key] = out.get(key, 0) + after - pos
            pos = after
    except DecodeError:
        pass  # malformed: decoding will say so
    return out


# -- the detector ------------------------------------------------------------------


class Detected:
    """What :func:`detect` found: the type, what ``read`` made of the bytes as
    that type, and the other types that fit exactly as well (with ``ties``)."""

    __slots__ = ("result", "ties", "type")

    def __init__(self, type: type[Message], result: Any, ties: tuple[type[Message], ...]) -> None:
        self.type = type
        self.result = result
        self.ties = ties


class _Fit:
    """A type the bytes decode as: its misfit, and whether it re-encodes to them."""

    __slots__ = ("canonical", "check", "cls", "misfit", "result")

    def __init__(
        self, cls: type[Message], result: Any, misfit: int, check: Callable[[], bool], differs: bool
    ) -> None:
        self.cls = cls
        self.result = result
        self.misfit = misfit
        self.check = check
        self.canonical: bool | None = False if differs else None  # None: not checked yet

    def most(self) -> int:
        """The score at most: misfit, plus 1 unless known to re-encode exactly."""
        return self.misfit + (self.canonical is not True)

    def score(self) -> int:
        if self.canonical is None:
            self.canonical = self.check()
        return self.misfit + (not self.canonical)


def detect(
    view: Any,
    copy: bool = False,
    *,
    read: Callable[[type[Message]], tuple[Any, int, Callable[[], bool]]] | None = None,
    ties: bool = False,
) -> Detected:
    """The type that the bytes in ``view`` fit best, and what they hold as that type.

    The wire format carries no type name, so each candidate type is scored:
    its misfit (:func:`misfit`: unknown fields cost their size, a data or
    element type that is out of range or disagrees with the populated field
    costs 1), plus 1 if the bytes are not exactly what protobuf would write
    for the message.  The lowest score wins; a tie goes to the first of
    :data:`CANDIDATES`.

    Decoding every type and re-encoding each would cost several copies of a
    large file.  Instead a quick look (:func:`_scan`, and for a file of many
    top-level fields an exact count of the unknown ones) gives each type a
    lower bound of its score; types are read from the lowest bound, and a
    type is skipped as soon as a score already reached beats its bound.

    ``read(cls)`` reads the bytes as ``cls`` and returns what it made, its
    misfit, and a function that tells whether they are canonical; by
    default :func:`decode_part` (with ``copy``).  ``onnxdata show`` passes a
    reader that previews instead of decoding.  With ``ties``, every type
    that scores as well as the winner is read too and listed.

    Bytes with the shape of an ONNX model (see ``models.py``) are read as a
    ``ModelProto`` first: no data type fits them exactly, and the best fit
    would be a message made of unknown fields.

    Raises:
        DecodeError: the bytes are a valid encoding of none of the types; the
            error is the one for the first of them (for a model, ModelProto's).
    """
    if read is None:
        read = _decoder(view, copy)
    if is_model(view):
        from .._messages.graphs import ModelProto

        return Detected(ModelProto, read(ModelProto)[0], ())
    search = _Search(view, read)
    fits, errors = search.read_candidates()
    if not fits:
        raise next(errors[cls] for cls in CANDIDATES if cls in errors)
    best = search.best(fits)
    if not ties:
        return Detected(best.cls, best.result, ())
    return Detected(best.cls, best.result, search.ties(best, fits, errors))


class _Search:
    """One :func:`detect`: each type's lower bound, and the types read so far."""

    def __init__(
        self, view: Any, read: Callable[[type[Message]], tuple[Any, int, Callable[[], bool]]]
    ) -> None:
        self.view = view
        self.read = read
        self.bound: dict[type[Message], int] = {}
        self.differs: dict[type[Message], bool] = {}
        self.risk: dict[type[Message], int] = {}
        for cls in CANDIDATES:
            unknown, self.differs[cls], varints = _scan(view, 0, len(view), cls, 1)
            self.bound[cls] = unknown + self.differs[cls]
            self.risk[cls] = unknown + varints  # bytes to copy or to turn into ints
        self.rank = {cls: i for i, cls in enumerate(CANDIDATES)}  # a tie goes to the first
        self.exact_top = False

    def beaten(self, cls: type[Message], fits: list[_Fit]) -> bool:
        """Whether a fit already read scores at most ``cls``'s bound, listed earlier
        on a tie: then ``cls`` cannot win, whatever its score."""
        mine = (self.bound[cls], self.rank[cls])
        return any((f.most(), self.rank[f.cls]) < mine for f in fits)

    def worth_reading(self, cls: type[Message], fits: list[_Fit]) -> bool:
        """Whether ``cls`` may still win: not beaten by a bound, nor by an exact
        score computed now where that can rule it out without reading it."""
        if fits and not self.exact_top and not self.beaten(cls, fits):
            # Before reading a second type, make the bounds exact at the top level.
            self.exact_top = True
            _raise_bounds(self.view, self.bound, self.differs)
        if self.beaten(cls, fits):
            return False
        mine = (self.bound[cls], self.rank[cls])
        for fit in fits:
            if fit.canonical is None and (fit.misfit, self.rank[fit.cls]) < mine:
                fit.score()
                if self.beaten(cls, fits):
                    return False
        return True

    def read_candidates(self) -> tuple[list[_Fit], dict[type[Message], DecodeError]]:
        """Read the types from the lowest bound up, skipping those that cannot win."""
        fits: list[_Fit] = []
        errors: dict[type[Message], DecodeError] = {}
        order = sorted(CANDIDATES, key=lambda c: (self.bound[c], self.risk[c], self.rank[c]))
        for cls in order:
            if not self.worth_reading(cls, fits):
                continue
            try:
                result, score, check = self.read(cls)
            except DecodeError as err:
                errors[cls] = err
                continue
            fits.append(_Fit(cls, result, score, check, self.differs[cls]))
        return fits, errors

    def best(self, fits: list[_Fit]) -> _Fit:
        """The fit with the lowest score (exact scores computed only where needed)."""
        rank = self.rank
        top = min((f.most(), rank[f.cls]) for f in fits)
        left = [f for f in fits if (f.misfit, rank[f.cls]) <= top]
        if len(left) == 1:
            return left[0]
        return min(left, key=lambda f: (f.score(), rank[f.cls]))

    def ties(
        self, best: _Fit, fits: list[_Fit], errors: dict[type[Message], DecodeError]
    ) -> tuple[type[Message], ...]:
        """The other types that score exactly as well as ``best`` (read if need be)."""
        score = best.score()
        same = []
        for cls in CANDIDATES:
            if cls is best.cls or cls in errors or self.bound[cls] > score:
                continue
            other = next((f for f in fits if f.cls is cls), None)
            if other is None:
                try:
                    other = _Fit(cls, *self.read(cls), self.differs[cls])
                except DecodeError:
                    continue
            if other.score() == score:
                same.append(cls)
        return tuple(same)


def _raise_bounds(
    view: Any, bound: dict[type[Message], int], differs: dict[type[Message], bool]
) -> None:
    """Raise each bound to the size of the top-level fields of numbers and wire types
    the type does not know (a lower bound still: a value a closed enum does not
    name makes an unknown field too)."""
    sizes = _top_level(view)
    for cls in CANDIDATES:
        layout = _layout(cls)
        unknown = sum(n for key, n in sizes.items() if key not in layout)
        bound[cls] = max(bound[cls], unknown + differs[cls])


def _decoder(
    view: Any, copy: bool
) -> Callable[[type[Message]], tuple[Any, int, Callable[[], bool]]]:
    """The default reader of :func:`detect`: decode, with the path in errors."""

    def read(cls: type[Message]) -> tuple[Any, int, Callable[[], bool]]:
        try:
            msg = decode_part(cls, view, 0, len(view), MAX_DEPTH, copy)
        except DecodeError as err:
            err.within(cls.__qualname__)
            raise
        return msg, misfit(msg), lambda: _encodes_to(msg, view)

    return read


class _DiffersError(Exception):
    pass


class _Compare:
    """A file object that checks what is written against ``view``."""

    def __init__(self, view: Any) -> None:
        self.view = view
        self.pos = 0

    def write(self, data: Any) -> int:
        n = len(data)
        if self.view[self.pos : self.pos + n] != data:
            raise _DiffersError
        self.pos += n
        return n


def _encodes_to(msg: Message, view: Any) -> bool:
    """``msg.encode() == view``, without making the encoding.

    The encoder writes unknown fields last, byte for byte: the top level's are
    compared with the end of ``view`` directly, and only the known fields are
    encoded (encoding would otherwise check every unknown field again, twice
    the cost of decoding a file made of them).
    """
    whole = memoryview(view)
    unknown = msg.unknown_fields  # type: ignore[attr-defined]
    known = len(whole) - len(unknown)
    if known < 0 or whole[known:] != unknown:
        return False
    compare = _Compare(whole[:known])
    msg.unknown_fields = b""  # type: ignore[attr-defined]
    try:
        encode_to(msg, compare)
    except _DiffersError:
        return False
    finally:
        msg.unknown_fields = unknown  # type: ignore[attr-defined]
    return compare.pos == known
