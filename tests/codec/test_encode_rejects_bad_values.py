"""Encoder hardening: an invalid message fails clearly; nothing is encoded that protobuf can't read.

* A systematic table: for every field of every message type (found through the
  oracle's descriptors, so no field is forgotten), a list of wrong values of
  its kind (wrong types, out-of-range integers, lists of the wrong element
  type, a sub-message of the wrong class, malformed ``unknown_fields``).  Each
  must raise an :class:`onnxdata.EncodeError` that is also the builtin the
  oracle raises (``TypeError``/``ValueError``/``OverflowError``), whose
  ``path`` names the field (and the element), both at the top level and
  nested inside a container.  Where the oracle's API can hold the same value,
  the oracle must reject it too (or the deviation is a documented one).
* Cycles: a sequence, an optional, a map containing itself, directly or
  through other messages.
* A property: whatever ``encode()`` returns, the oracle parses and onnxdata
  decodes; everything else it raises is an ``EncodeError``.

The gaps this file found (R1..R8 in the project's bugs-core notes: unknown
fields checked on the wire only and at the wrong depth, numpy arrays and bytes
in repeated fields, one-shot iterators, non-sequences, strided memoryviews,
StopIteration from array elements) are fixed; ``test_rN_*`` are their
regressions.  A gap found open again goes into ``OPEN``: its ``test_rN_*``
becomes a strict xfail, and the property test skips the inputs that reach it.
"""

from __future__ import annotations

import copy
from array import array
from collections.abc import Callable, Iterator
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import onnx
import pytest
from google.protobuf.descriptor import FieldDescriptor
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import (
    EncodeError,
    EncodeOverflowError,
    EncodeTypeError,
    EncodeValueError,
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
)
from onnxdata._core.schema import spec_of
from tests.support import wirekit as wk
from tests.support.message_strategies import MESSAGE_TYPES, messages_of, scaled
from tests.support.numpy_support import numpy_bool_is_an_index
from tests.support.oracle import ORACLE, oracle_parse

Segment = TensorProto.Segment
Entry = StringStringEntryProto
_T = FieldDescriptor

# Gaps reported in bugs-core.md and not fixed yet (none now): each test_rN_* is then a
# strict xfail, and the property test skips the inputs that reach the gap.
OPEN: set[str] = set()

T, V, OVF = EncodeTypeError, EncodeValueError, EncodeOverflowError

# --------------------------------------------------------------------------
# wrong values, by field kind: (label, value, error, index) where index says
# whether the path names element [0] (True) or the field only (False)

_INT_COMMON: list[tuple[str, Any, type]] = [
    ("bool", True, T),
    ("numpy bool", np.bool_(False), T),
    ("float", 1.0, T),
    ("numpy float", np.float64(2), T),
    ("str", "1", T),
    ("bytes", b"1", T),
    ("Decimal", Decimal(1), T),
    ("Fraction", Fraction(1, 1), T),
    ("complex", 1j, T),
    ("object", object(), T),
    ("message", TensorProto(), T),
]
INT32_BAD = [*_INT_COMMON, ("2**31", 2**31, V), ("-2**31-1", -(2**31) - 1, V), ("2**64", 2**64, V)]
INT64_BAD = [*_INT_COMMON, ("2**63", 2**63, V), ("-2**63-1", -(2**63) - 1, V)]
UINT64_BAD = [*_INT_COMMON, ("-1", -1, V), ("2**64", 2**64, V)]
ENUM_BAD = [*_INT_COMMON, ("2", 2, V), ("-1", -1, V), ("2**31", 2**31, V), ("2**40", 2**40, V)]
STRING_BAD = [
    ("bytes", b"x", T),  # the oracle takes UTF-8 bytes: a documented deviation
    ("bytearray", bytearray(b"x"), T),
    ("int", 5, T),
    ("list", ["a"], T),
    ("lone surrogate", "\ud800", V),
    ("surrogate pair halves", "\udbff\udfff", V),
    ("message", Entry(), T),
]
BYTES_BAD = [
    ("str", "x", T),
    ("int", 5, T),
    ("list of ints", [1, 2], T),
    ("bool", True, T),
    ("array of ints", array("B", [1]), T),
    ("message", TensorProto(), T),
]
FLOAT_ELEMENT_BAD = [
    ("str", "x", T),
    ("None", None, T),
    ("complex", 1j, T),
    ("bytes", b"\x00", T),
    ("list", [1.0], T),
    ("huge int", 10**400, OVF),
]
BYTES_ELEMENT_BAD = [
    ("str", "x", T),
    ("int", 1, T),
    ("None", None, T),
    ("list", [b"x"], T),
    ("message", TensorProto(), T),
]
UNKNOWN_BAD = [
    ("str", "\x08\x01", T),
    ("int", 5, T),
    ("list", [8, 1], T),
    ("truncated tag", b"\x80", V),
    ("tag only", b"\x08", V),
    ("truncated varint", b"\x08\x80", V),
    ("11-byte varint", b"\x08" + b"\xff" * 10 + b"\x01", V),
    ("length past end", b"\x0a\x05ab", V),
    ("6-byte length", b"\x0a\x81\x80\x80\x80\x80\x00a", V),
    ("field 0", b"\x00\x00", V),
    ("wire type 6", b"\x0e\x00", V),
    ("wire type 7", b"\x0f\x00", V),
    ("end-group alone", b"\x0c", V),
    ("group not closed", b"\x0b", V),
    ("group closed by another field", b"\x0b\x14", V),
    ("fixed64 cut", b"\x09\x00\x00", V),
    ("101 nested groups", wk.tag(19999, 3) * 101 + wk.tag(19999, 4) * 101, V),
]


def _elements(bad: list[tuple[str, Any, type]]) -> list[tuple[str, Any, type, bool]]:
    """Wrong elements of a repeated field: ``[x]`` and ``[ok, x]`` name the element."""
    return [(f"[{label}]", [v], e, True) for label, v, e in bad]


def _wrong_message(cls: type) -> list[tuple[str, Any, type]]:
    other = SequenceProto() if cls is not SequenceProto else MapProto()
    return [
        ("other message", other, T),
        ("oracle message", ORACLE[cls](), T),
        ("dict", {}, T),
        ("int", 1, T),
        ("str", "x", T),
        ("class", cls, T),
    ]


def cases_for(fd: Any) -> list[tuple[str, Any, type, bool]]:
    """Wrong values for field ``fd`` (an oracle descriptor): (label, value, error, indexed)."""
    kind = fd.type
    if not fd.is_repeated:
        if kind == _T.TYPE_MESSAGE:
            bad = _wrong_message(_OURS[fd.message_type.full_name])
        elif kind == _T.TYPE_INT32:
            bad = INT32_BAD
        elif kind == _T.TYPE_INT64:
            bad = INT64_BAD
        elif kind == _T.TYPE_ENUM:
            bad = ENUM_BAD
        elif kind == _T.TYPE_STRING:
            bad = STRING_BAD
        elif kind == _T.TYPE_BYTES:
            bad = BYTES_BAD
        else:  # pragma: no cover - no other singular kinds in these messages
            raise AssertionError(fd.full_name)
        return [(label, v, e, False) for label, v, e in bad]
    if kind == _T.TYPE_MESSAGE:
        return _elements([*_wrong_message(_OURS[fd.message_type.full_name])[:5], ("None", None, T)])
    if kind in (_T.TYPE_FLOAT, _T.TYPE_DOUBLE):
        return [(f"[{label}]", [1.0, v], e, False) for label, v, e in FLOAT_ELEMENT_BAD]
    if kind == _T.TYPE_BYTES:
        return _elements(BYTES_ELEMENT_BAD)
    bad = {_T.TYPE_INT32: INT32_BAD, _T.TYPE_INT64: INT64_BAD, _T.TYPE_UINT64: UINT64_BAD}[kind]
    return _elements(bad) + [
        (f"[ok, {label}]", [7, v], e, True) for label, v, e in bad[:3]
    ]  # the index of the bad element is named


_OURS = {v.DESCRIPTOR.full_name: k for k, v in ORACLE.items()}

# Where each message type sits when nested: (wrap, path prefix of the nested message).
_WRAPPERS: dict[type, tuple[Callable[[Any], Any], str]] = {
    TensorProto: (
        lambda m: SequenceProto(tensor_values=[TensorProto(), m]),
        "SequenceProto.tensor_values[1]",
    ),
    Segment: (lambda m: TensorProto(segment=m), "TensorProto.segment"),
    Entry: (
        lambda m: TensorProto(metadata_props=[Entry(key="k"), m]),
        "TensorProto.metadata_props[1]",
    ),
    SparseTensorProto: (
        lambda m: OptionalProto(sparse_tensor_value=m),
        "OptionalProto.sparse_tensor_value",
    ),
    SequenceProto: (lambda m: MapProto(values=m), "MapProto.values"),
    MapProto: (
        lambda m: OptionalProto(sequence_value=SequenceProto(map_values=[m])),
        "OptionalProto.sequence_value.map_values[0]",
    ),
    OptionalProto: (
        lambda m: SequenceProto(optional_values=[OptionalProto(), OptionalProto(), m]),
        "SequenceProto.optional_values[2]",
    ),
}


def _field_cases() -> Iterator[Any]:
    for cls in MESSAGE_TYPES:
        for fd in ORACLE[cls].DESCRIPTOR.fields:
            yield pytest.param(cls, fd.name, cases_for(fd), id=f"{cls.__qualname__}.{fd.name}")
        unknown = [(label, v, e, False) for label, v, e in UNKNOWN_BAD]
        yield pytest.param(cls, "unknown_fields", unknown, id=f"{cls.__qualname__}.unknown_fields")


def _expect(make: Callable[[], Any], error: type, path: str) -> str | None:
    """None if ``make().encode()`` fails as it should, else what went wrong."""
    m = make()
    try:
        data = m.encode()
    except EncodeError as err:
        problems = []
        if not isinstance(err, error):
            problems.append(f"{type(err).__name__}, not {error.__name__}")
        if err.path != path:
            problems.append(f"path {err.path!r}, not {path!r}")
        if str(err) != f"{err.path}: {err.reason}":
            problems.append(f"str {str(err)!r}")
        return "; ".join(problems) or None
    except Exception as exc:  # a bare builtin: no field path
        return f"bare {type(exc).__name__}: {exc}"
    return f"encoded to {data[:30]!r}"


@pytest.mark.parametrize("cls, name, cases", list(_field_cases()))
def test_wrong_values_raise_encode_errors_naming_the_field(
    cls: type, name: str, cases: list[tuple[str, Any, type, bool]]
) -> None:
    wrap, prefix = _WRAPPERS[cls]
    failures = []
    for label, value, error, indexed in cases:
        bad_index = 1 if isinstance(value, list) and len(value) == 2 and value[0] == 7 else 0
        suffix = f"[{bad_index}]" if indexed else ""
        for make, path in (
            (lambda v=value: cls(**{name: v}), f"{cls.__qualname__}.{name}{suffix}"),
            (lambda v=value: wrap(cls(**{name: v})), f"{prefix}.{name}{suffix}"),
        ):
            problem = _expect(make, error, path)
            if problem:
                failures.append(f"{name} = {label}: {problem}")
    assert not failures, "\n".join(failures)


# The oracle's API, fed the same wrong values, rejects them too (its checks are
# what the encoder mirrors); documented deviations are listed.
_ORACLE_ACCEPTS = {
    ("string", "bytes"),  # protobuf takes UTF-8 bytes for a string field; onnxdata wants str
}


# numpy before 2.3 gives its bool an __index__, and protobuf then takes it for an
# integer; onnxdata refuses it on every numpy, as it refuses True (docs/robustness.md).
_ORACLE_TAKES_NUMPY_BOOLS = numpy_bool_is_an_index()

# protobuf reads a str in an enum field as an enumerator's name ("EXTERNAL"), so
# "1" is a ValueError there (no such name); onnxdata takes ints only: TypeError.
_OTHER_BUILTIN = {("enum", "str")}


def _oracle_set(o: Any, fd: Any, value: Any) -> None:
    if fd.is_repeated:
        getattr(o, fd.name).extend(value)
    else:
        setattr(o, fd.name, value)


def _scalar_field_cases() -> Iterator[Any]:
    for cls in MESSAGE_TYPES:
        for fd in ORACLE[cls].DESCRIPTOR.fields:
            if fd.type != _T.TYPE_MESSAGE:
                yield pytest.param(cls, fd, id=f"{cls.__qualname__}.{fd.name}")


@pytest.mark.parametrize("cls, fd", list(_scalar_field_cases()))
def test_the_oracle_rejects_the_same_values(cls: type, fd: Any) -> None:
    kind = {_T.TYPE_STRING: "string", _T.TYPE_ENUM: "enum"}.get(fd.type, "other")
    surprises = []
    for label, value, error, _ in cases_for(fd):
        o = ORACLE[cls]()
        builtin = next(b for b in (TypeError, ValueError, OverflowError) if issubclass(error, b))
        try:
            _oracle_set(o, fd, value)
        except builtin:
            continue
        except (TypeError, ValueError, OverflowError) as exc:
            if (kind, label) in _OTHER_BUILTIN:
                continue
            surprises.append(f"{label}: oracle raises {type(exc).__name__}, ours {error.__name__}")
            continue
        if (kind, label) in _ORACLE_ACCEPTS:
            continue
        if _ORACLE_TAKES_NUMPY_BOOLS and "numpy bool" in label:
            continue
        surprises.append(f"{label}: the oracle accepts it")
    assert not surprises, "\n".join(surprises)


# --------------------------------------------------------------------------
# cycles and depth


def _cycles() -> Iterator[Any]:
    s = SequenceProto()
    s.sequence_values.append(s)
    yield pytest.param(s, "sequence_values[0]", id="sequence in itself")
    s2 = SequenceProto(tensor_values=[TensorProto()])
    s2.sequence_values.extend([SequenceProto(), s2])
    yield pytest.param(s2, "sequence_values[1]", id="sequence in itself, second element")
    o = OptionalProto()
    o.optional_value = o
    yield pytest.param(o, "optional_value", id="optional in itself")
    m = MapProto(keys=[1])
    m.values = SequenceProto(map_values=[m])
    yield pytest.param(m, "values.map_values[0]", id="map -> sequence -> map")
    a = OptionalProto()
    b = SequenceProto(optional_values=[a])
    a.sequence_value = b
    yield pytest.param(a, "sequence_value.optional_values[0]", id="optional <-> sequence")
    c = OptionalProto()
    c.map_value = MapProto(values=SequenceProto(optional_values=[c]))
    yield pytest.param(c, "map_value.values.optional_values[0]", id="optional -> map -> optional")


@pytest.mark.parametrize("m, step", list(_cycles()))
def test_cycles_raise_value_error(m: Any, step: str) -> None:
    with pytest.raises(EncodeValueError) as info:
        m.encode()
    err = info.value
    assert isinstance(err, ValueError)
    assert "nesting deeper than 100" in err.reason
    # The path walks round the cycle: it is the message type then the cycle's steps.
    name = type(m).__qualname__
    assert err.path.startswith(f"{name}.{step}")
    assert err.path.count(step.split(".")[0]) >= 100 // (step.count(".") + 1) - 1


def _chain(levels: int, leaf: Any = None) -> SequenceProto:
    m = leaf if leaf is not None else SequenceProto()
    for _ in range(levels):
        m = SequenceProto(sequence_values=[m])
    return m


def test_nesting_at_the_limit_encodes_and_parses() -> None:
    data = _chain(100).encode()
    assert oracle_parse(SequenceProto, data) is not None
    assert SequenceProto.decode(data) == _chain(100)
    with pytest.raises(EncodeValueError):
        _chain(101).encode()
    leaf = TensorProto(dims=[1], segment=Segment(begin=1))  # the segment is level 101
    with pytest.raises(EncodeValueError) as info:
        _chain(99, SequenceProto(tensor_values=[leaf])).encode()
    assert info.value.path.endswith(".tensor_values[0].segment")


def test_a_failed_encode_leaves_the_message_unchanged() -> None:
    m = SequenceProto(tensor_values=[TensorProto(dims=[1, 2], name="a"), TensorProto(dims=[1.5])])
    before = copy.deepcopy(m)
    with pytest.raises(EncodeTypeError):
        m.encode()
    assert m == before
    m.tensor_values[1].dims = [3]
    assert SequenceProto.decode(m.encode()) == m


# --------------------------------------------------------------------------
# the gaps found here (bugs-core.md R1..R8), fixed: regressions


def _oracle_rejects(m: Any) -> bool:
    return oracle_parse(type(m), m.encode()) is None


def _r1_cases() -> list[Any]:
    return [
        TensorProto(unknown_fields=b"\x1a\x01\x0e"),  # segment payload: wire type 6
        TensorProto(unknown_fields=b"\x22\x03abc"),  # packed float: 3 bytes
        TensorProto(unknown_fields=b"\x3a\x01\x80"),  # packed int64: truncated varint
        TensorProto(unknown_fields=b"\x0a\x01\x80"),  # packed dims: truncated varint
        SequenceProto(unknown_fields=b"\x1a\x02\x0e\x00"),  # tensor_values payload: bad tag
        MapProto(unknown_fields=b"\x2a\x01\x80"),  # values payload: truncated tag
    ]


@pytest.mark.xfail("R1" in OPEN, strict=True, reason="bugs-core.md R1")
@pytest.mark.parametrize("m", _r1_cases(), ids=lambda m: bytes(m.unknown_fields).hex())
def test_r1_unknown_fields_with_a_known_number_are_checked_against_the_schema(m: Any) -> None:
    # Either refused with an EncodeValueError, or encoded to bytes the oracle reads.
    try:
        data = m.encode()
    except EncodeValueError as err:
        assert err.path.endswith("unknown_fields")
    else:
        assert oracle_parse(type(m), data) is not None


@pytest.mark.xfail("R2" in OPEN, strict=True, reason="bugs-core.md R2")
@pytest.mark.parametrize(
    "make",
    [
        lambda: _chain(100, SequenceProto(unknown_fields=wk.f_group(19999))),
        lambda: _chain(1, SequenceProto(unknown_fields=wk.groups(100))),
    ],
    ids=["group at level 100", "100 groups at level 1"],
)
def test_r2_groups_in_unknown_fields_count_against_the_depth_left(make: Any) -> None:
    try:
        data = make().encode()
    except EncodeValueError:
        return
    assert oracle_parse(SequenceProto, data) is not None


@pytest.mark.xfail("R3" in OPEN, strict=True, reason="bugs-core.md R3")
@pytest.mark.parametrize(
    "field, value",
    [
        ("dims", np.array([0])),
        ("dims", np.array([2, 3])),
        ("float_data", np.array([0.0], dtype=np.float32)),
        ("int64_data", np.arange(3)),
        ("uint64_data", np.array([0], dtype=np.uint64)),
        ("string_data", np.array([b"a", b"b"], dtype=object)),
    ],
    ids=lambda v: v if isinstance(v, str) else repr(v.tolist()),
)
def test_r3_numpy_arrays_in_repeated_fields_encode_like_the_oracle(field: str, value: Any) -> None:
    expected = onnx.TensorProto(**{field: value}).SerializeToString()
    assert TensorProto(**{field: value}).encode() == expected


@pytest.mark.xfail("R4" in OPEN, strict=True, reason="bugs-core.md R4")
@pytest.mark.parametrize("field", ["float_data", "double_data"])
@pytest.mark.parametrize("value", [b"\x00\x00\x80\x3f", bytearray(8)], ids=["bytes", "bytearray"])
def test_r4_bytes_in_a_float_field_are_not_reinterpreted(field: str, value: Any) -> None:
    # The oracle reads each byte as a number (or a strict encoder refuses bytes).
    try:
        data = TensorProto(**{field: value}).encode()
    except EncodeTypeError:
        return
    assert data == onnx.TensorProto(**{field: value}).SerializeToString()


@pytest.mark.xfail("R5" in OPEN, strict=True, reason="bugs-core.md R5")
@pytest.mark.parametrize(
    "make",
    [
        lambda: SequenceProto(tensor_values=(t for t in [TensorProto(name="a")])),
        lambda: TensorProto(external_data=iter([Entry(key="k")])),
    ],
    ids=["generator of tensors", "iterator of entries"],
)
def test_r5_one_shot_iterators_are_not_silently_dropped(make: Any) -> None:
    try:
        data = make().encode()
    except EncodeTypeError:
        return
    assert data != b""


@pytest.mark.xfail("R6" in OPEN, strict=True, reason="bugs-core.md R6")
@pytest.mark.parametrize(
    "field, value",
    [("dims", 5), ("int64_data", 5), ("string_data", 5), ("external_data", 5),
     ("dims", 0), ("float_data", 0), ("string_data", False), ("metadata_props", "")],
)  # fmt: skip
def test_r6_a_non_sequence_in_a_repeated_field_is_an_encode_type_error(
    field: str, value: Any
) -> None:
    with pytest.raises(EncodeTypeError) as info:
        TensorProto(**{field: value}).encode()
    assert info.value.path == f"TensorProto.{field}"


def _spread(data: bytes) -> bytes:
    """``data`` with a zero after each byte: ``memoryview(_spread(d))[::2]`` is ``d``, strided."""
    return bytes(b for c in data for b in (c, 0))


@pytest.mark.xfail("R7" in OPEN, strict=True, reason="bugs-core.md R7")
@pytest.mark.parametrize(
    "make, path",
    [
        (lambda: TensorProto(raw_data=memoryview(b"abcdef")[::2]), "TensorProto.raw_data"),
        (lambda: MapProto(string_keys=[memoryview(b"abcd")[::2]]), "MapProto.string_keys[0]"),
        (lambda: TensorProto(unknown_fields=memoryview(_spread(wk.f_varint(19999, 1)))[::2]),
         "TensorProto.unknown_fields"),
    ],
    ids=["raw_data", "string_keys", "unknown_fields"],
)  # fmt: skip
def test_r7_non_contiguous_memoryview_is_copied_or_refused(make: Any, path: str) -> None:
    # Either its bytes are written (a copy of the view), or an EncodeTypeError names the field.
    m = make()
    try:
        data = m.encode()
    except EncodeError as err:
        assert isinstance(err, TypeError)
        assert err.path == path
        return
    assert oracle_parse(type(m), data) is not None
    assert type(m).decode(data).encode() == data


@pytest.mark.xfail("R8" in OPEN, strict=True, reason="bugs-core.md R8")
@pytest.mark.parametrize(
    "field, value, path",
    [
        ("dims", array("Q", [2**64 - 1]), "TensorProto.dims[0]"),
        ("dims", array("d", [1.5]), "TensorProto.dims[0]"),
        ("dims", range(2**63, 2**63 + 1), "TensorProto.dims[0]"),
        ("int64_data", (x for x in [1, 2**63]), "TensorProto.int64_data[1]"),
        ("int64_data", "\ud800", "TensorProto.int64_data[0]"),
    ],
    ids=["dims array('Q')", "dims array('d')", "dims range", "int64_data generator",
         "int64_data str"],
)  # fmt: skip
def test_r8_a_bad_element_of_an_array_or_range_is_named_not_stop_iteration(
    field: str, value: Any, path: str
) -> None:
    with pytest.raises(EncodeError) as info:
        TensorProto(**{field: value}).encode()
    # The element's index, or the field itself for a value that is no sequence of ints (a str).
    assert info.value.path in (path, path.split("[")[0])


# --------------------------------------------------------------------------
# the property: whatever encode() returns, protobuf parses


def _slots(m: Any, depth: int = 0) -> Iterator[tuple[Any, str, int]]:
    """(message, field name, nesting level) for every field of every message in ``m``.

    Walks the slots: reading an unset sub-message through its property gives
    a new stand-in every time, and an ``OptionalProto`` would never end.
    """
    for name, slot in [(f.name, f.slot) for f in m._SPEC.fields] + [("unknown_fields",) * 2]:
        yield m, name, depth
        value = getattr(m, slot)
        if isinstance(value, onnxdata.Message):
            yield from _slots(value, depth + 1)
        elif type(value) is list:
            for item in value:
                if isinstance(item, onnxdata.Message):
                    yield from _slots(item, depth + 1)


_HOSTILE = [
    None, 0, 1, -1, 2**31, -(2**31) - 1, 2**63, 2**64, 1.5, float("nan"), True, 1j,
    "s", "\udc80", "\ud800", b"b", bytearray(b"x"), memoryview(b"abc"),
    [], [1], [-1], [2**63], [1.5], ["a"], [b"a"], [None], [True], [TensorProto()],
    [Entry()], [SequenceProto()], array("d", [1.0]), array("q", [2**40]), array("f"),
    array("Q", [2**64 - 1]), TensorProto(), SequenceProto(), Segment(), Entry(), MapProto(),
    OptionalProto(), SparseTensorProto(), {}, object(), (1, 2), range(3), range(2**63, 2**63 + 1),
    np.array([0]), np.array([1.5]), np.arange(3), np.array([0.0], dtype=np.float32),
    np.array([b"a"], dtype=object), memoryview(b"abcdef")[::2],
]  # fmt: skip


def _known_numbers(cls: type) -> dict[int, set[int]]:
    from tests.support.message_strategies import known_wire_types

    return known_wire_types(cls)


@st.composite
def _unknown_bytes(draw: Any, cls: type) -> bytes:
    """Raw bytes for ``unknown_fields``: well-formed or not, known numbers included."""
    known = sorted(_known_numbers(cls))
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["random", "known", "group", "unknown"]))
        if kind == "random":
            parts.append(draw(st.binary(max_size=8)))
        elif kind == "known":
            number = draw(st.sampled_from(known))
            wt = draw(st.sampled_from([0, 1, 2, 5]))
            payload = draw(st.binary(max_size=6))
            parts.append(
                wk.tag(number, wt)
                + {0: wk.varint(len(payload)), 1: bytes(8), 5: bytes(4)}.get(
                    wt, wk.varint(len(payload)) + payload
                )
            )
        elif kind == "group":
            parts.append(wk.groups(draw(st.integers(1, 101))))
        else:
            parts.append(wk.f_varint(19999, draw(st.integers(0, 2**64 - 1))))
    return b"".join(parts)


def _unknown_depth(data: bytes) -> int:
    """The deepest group nesting in well-formed raw fields (0: no groups)."""
    deepest = level = 0
    pos = 0
    while pos < len(data):
        key, pos = wk.read_varint(data, pos)
        wt = key & 7
        if wt == 0:
            pos = wk.read_varint(data, pos)[1]
        elif wt == 1:
            pos += 8
        elif wt == 5:
            pos += 4
        elif wt == 2:
            n, pos = wk.read_varint(data, pos)
            pos += n
        elif wt == 3:
            level += 1
            deepest = max(deepest, level)
        else:
            level -= 1
    return deepest


def _hits_open_gap(m: Any) -> bool:
    """Whether ``m`` reaches a gap listed in ``OPEN`` (then the property does not apply)."""
    for msg, name, depth in _slots(m):
        value = getattr(msg, name)
        if name == "unknown_fields" and isinstance(value, (bytes, bytearray)) and value:
            data = bytes(value)
            try:
                TensorProto(unknown_fields=data).encode()  # well-formed on the wire?
            except EncodeError:
                continue  # the encoder refuses it anyway
            if "R1" in OPEN and _has_known_number(type(msg), data):
                return True
            if "R2" in OPEN and _unknown_depth(data) > 100 - depth:
                return True
        if "R3" in OPEN and isinstance(value, np.ndarray):
            return True
    return False


_SEQUENCE_TYPES = (list, tuple, array)


def _repeated(cls: type) -> set[str]:
    return {fd.name for fd in ORACLE[cls].DESCRIPTOR.fields if fd.is_repeated}


def _raises_by_open_gap(m: Any) -> bool:
    """Whether a bare exception from ``m.encode()`` is one of the gaps in ``OPEN``."""
    for msg, name, _ in _slots(m):
        value = getattr(msg, name)
        if name not in _repeated(type(msg)):
            continue
        if "R6" in OPEN and not isinstance(value, (*_SEQUENCE_TYPES, bytes, bytearray, str)):
            return True  # a non-sequence in a repeated field: bare TypeError
        if "R4" in OPEN and isinstance(value, (bytes, bytearray)):
            return True  # reinterpreted as floats, or a bare ValueError
        if "R8" in OPEN and isinstance(value, (array, str)):
            return True  # a bad element found by identity: StopIteration
    return False


def _has_known_number(cls: type, data: bytes) -> bool:
    known = _known_numbers(cls)
    pos = 0
    while pos < len(data):
        key, pos = wk.read_varint(data, pos)
        number, wt = key >> 3, key & 7
        if wt in known.get(number, ()):
            return True
        if wt == 0:
            pos = wk.read_varint(data, pos)[1]
        elif wt == 1:
            pos += 8
        elif wt == 5:
            pos += 4
        elif wt == 2:
            n, pos = wk.read_varint(data, pos)
            pos += n
    return False


@st.composite
def _tampered(draw: Any, cls: type) -> Any:
    m = draw(messages_of(cls, 4, False))
    slots = list(_slots(m))
    for _ in range(draw(st.integers(1, 3))):
        msg, name, _ = draw(st.sampled_from(slots))
        if name == "unknown_fields" and draw(st.booleans()):
            value = draw(_unknown_bytes(type(msg)))
        else:
            value = draw(st.sampled_from(_HOSTILE))
            if isinstance(value, (list, onnxdata.Message, array, bytearray, np.ndarray)):
                value = copy.copy(value)
        if value is None and name in _singular_scalars(type(msg)):
            msg.ClearField(name)  # protobuf refuses None here; unsetting is its equivalent
        else:
            setattr(msg, name, value)
    return m


def _singular_scalars(cls: type) -> set[str]:
    return {f.name for f in spec_of(cls).fields if not f.repeated and f.message_name is None}


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__qualname__)
@settings(max_examples=scaled(0.4))
@given(data=st.data())
def test_whatever_encode_returns_the_oracle_parses(cls: type, data: st.DataObject) -> None:
    m = data.draw(_tampered(cls), label="message")
    try:
        out = m.encode()
    except EncodeError as err:
        assert isinstance(err, (TypeError, ValueError, OverflowError))
        assert err.path.startswith(cls.__qualname__ + "."), err.path
        return
    except (TypeError, ValueError, StopIteration):
        if _raises_by_open_gap(m):
            return
        raise
    if _hits_open_gap(m):
        return
    assert type(out) is bytes
    parsed = oracle_parse(cls, out)
    assert parsed is not None, f"the oracle cannot parse {out.hex()}"
    assert parsed.SerializeToString() == out
    assert cls.decode(out).encode() == out
