"""onnxdata.strategies: valid messages pass check() and set every field; bad arguments raise
InvalidArgument; wire pairs decode as stated, and protobuf reads them as onnxdata does."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

import onnxdata
from onnxdata import DecodeError, MapProto, OptionalProto, SequenceProto, TensorProto, check
from onnxdata import strategies as ods
from onnxdata._core.schema import spec_of
from tests.support.oracle import MESSAGE_TYPES, ORACLE, oracle_parse

FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
ALL_FIELDS = {(spec_of(cls).name, f.name) for cls in MESSAGE_TYPES for f in spec_of(cls).fields}


def fields_set(msg: onnxdata.Message, into: set[tuple[str, str]]) -> None:
    """Every (message name, field name) set in ``msg`` and its sub-messages, from the schema.

    Presence is read from the slots: a name gives an unset field's default, and an
    unset sub-message's stand-in, which would nest without end in an OptionalProto."""
    spec = spec_of(type(msg))
    for f in spec.fields:
        value = getattr(msg, f.slot)
        if (value is not None and len(value) > 0) if f.repeated else value is not None:
            into.add((spec.name, f.name))
            if f.kind == "message":
                for sub in value if f.repeated else [value]:
                    fields_set(sub, into)


def assert_valid(msg: onnxdata.Message) -> None:
    assert check(msg) == [], [str(v) for v in check(msg)]
    data = msg.encode()
    assert ORACLE[type(msg)].FromString(data).SerializeToString() == data


@pytest.mark.parametrize(
    "strategy",
    [
        ods.tensors(),
        ods.tensors(storage="raw"),
        ods.tensors(storage="typed"),
        ods.tensors(storage="external"),
        ods.tensors(segment=True),
        ods.sparse_tensors(),
        ods.sequences(),
        ods.sequences(elem_type=SequenceProto.UNDEFINED),
        ods.maps(),
        ods.optionals(),
        ods.optionals(elem_type=OptionalProto.UNDEFINED),
        ods.entries(),
        ods.segments(),
        ods.messages(),
        ods.messages(types=MESSAGE_TYPES),
    ],
    ids=[
        "tensors",
        "raw",
        "typed",
        "external",
        "segment",
        "sparse",
        "sequences",
        "undefined-sequences",
        "maps",
        "optionals",
        "undefined-optionals",
        "entries",
        "segments",
        "messages",
        "all-types",
    ],
)
def test_valid_strategies_pass_check(strategy: st.SearchStrategy[onnxdata.Message]) -> None:
    FAST(given(strategy)(assert_valid))()


def _drawn_from_every_type(record: Callable[[onnxdata.Message], None]) -> None:
    """Call ``record`` on 150 messages of each type, the same ones every run."""
    for cls in MESSAGE_TYPES:

        @settings(
            max_examples=150,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(ods.messages(types=[cls]))
        def collect(msg: onnxdata.Message) -> None:
            record(msg)

        collect()


def test_every_field_of_every_message_is_set() -> None:
    seen: set[tuple[str, str]] = set()
    _drawn_from_every_type(lambda msg: fields_set(msg, seen))
    assert sorted(ALL_FIELDS - seen) == []


# Singular fields that the strategies leave unset, set to their default, and set to another
# value (the others are always set, as ONNX's rules or the strategies' guarantees want them).
BOTH_PRESENCES = {
    ("MapProto", "name"),
    ("OptionalProto", "elem_type"),
    ("OptionalProto", "name"),
    ("SequenceProto", "elem_type"),
    ("SequenceProto", "name"),
    ("StringStringEntryProto", "key"),
    ("StringStringEntryProto", "value"),
    ("TensorProto", "data_location"),
    ("TensorProto", "doc_string"),
    ("TensorProto", "name"),
    ("TensorProto", "raw_data"),
    ("TensorProto", "segment"),
    ("TensorProto.Segment", "begin"),
    ("TensorProto.Segment", "end"),
}


def presences(msg: onnxdata.Message, into: set[tuple[str, str, str]]) -> None:
    """(message, field, "unset" | "default" | "other") of each singular field, anywhere."""
    spec = spec_of(type(msg))
    for f in spec.fields:
        value = getattr(msg, f.slot)
        if f.repeated:
            if f.kind == "message":
                for sub in value or []:
                    presences(sub, into)
            continue
        assert msg.HasField(f.name) == (value is not None)
        if value is None:
            state = "unset"
        elif f.kind == "message":
            state = "other" if value.ListFields() else "default"
            presences(value, into)
        else:
            state = "default" if value == f.zero and type(value) is type(f.zero) else "other"
        into.add((spec.name, f.name, state))


def test_unset_and_set_to_the_default_are_both_drawn() -> None:
    seen: set[tuple[str, str, str]] = set()
    _drawn_from_every_type(lambda msg: presences(msg, seen))
    wanted = {(m, f, s) for m, f in BOTH_PRESENCES for s in ("unset", "default", "other")}
    assert sorted(wanted - seen) == []


def test_external_tensors_name_a_location_and_hold_no_values() -> None:
    @FAST
    @given(ods.tensors(storage="external"))
    def external(t: TensorProto) -> None:
        assert t.data_location == TensorProto.EXTERNAL
        assert any(e.key == "location" and e.value for e in t.external_data)
        assert not t.HasField("raw_data")
        assert check(t) == []

    external()


def test_segments_lie_inside_the_element_count() -> None:
    @FAST
    @given(st.integers(0, 20).flatmap(lambda n: st.tuples(st.just(n), ods.segments(size=n))))
    def inside(pair: tuple[int, TensorProto.Segment]) -> None:
        n, seg = pair
        begin = seg.begin  # 0 while unset
        end = seg.end if seg.HasField("end") else n
        assert 0 <= begin <= end <= n

    inside()


@pytest.mark.parametrize("dtype", TensorProto.DataType.values()[1:])
def test_every_dtype_and_storage(dtype: int) -> None:
    storages = (
        ["typed", "external"] if dtype == TensorProto.STRING else ["raw", "typed", "external"]
    )

    @settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(storages).flatmap(lambda s: ods.tensors(dtype=dtype, storage=s)))
    def valid(t: TensorProto) -> None:
        assert t.data_type == dtype
        assert check(t) == []

    valid()


def test_value_or_strategy_arguments() -> None:
    @FAST
    @given(
        ods.tensors(
            dtype=st.sampled_from([TensorProto.INT8, TensorProto.UINT8]),
            shape=st.tuples(st.integers(1, 3), st.integers(1, 3)),
            elements=st.integers(0, 5),
            segment=False,
        ),
        ods.tensors(dtype=TensorProto.DOUBLE, shape=4, elements=st.just(1.5), segment=False),
        ods.sequences(elem_type=st.just(SequenceProto.TENSOR), min_size=2, max_size=2),
        ods.maps(key_type=st.just(TensorProto.STRING), min_size=1, max_size=2),
        ods.optionals(elem_type=st.just(OptionalProto.MAP), max_depth=1),
        ods.tensors(dtype=np.int32(TensorProto.INT16), shape=np.array([2, 3]), storage="raw"),
    )
    def shaped(
        t: TensorProto,
        d: TensorProto,
        s: SequenceProto,
        m: MapProto,
        o: OptionalProto,
        n: TensorProto,
    ) -> None:
        assert n.data_type == TensorProto.INT16 and list(n.dims) == [2, 3]
        assert t.data_type in (TensorProto.INT8, TensorProto.UINT8) and len(t.dims) == 2
        assert list(t.int32_data) and all(0 <= v <= 5 for v in t.int32_data)
        assert list(d.dims) == [4] and list(d.double_data) == [1.5] * 4
        assert s.elem_type == SequenceProto.TENSOR and len(s.tensor_values) == 2
        assert m.key_type == TensorProto.STRING and 1 <= len(m.string_keys) <= 2
        assert o.elem_type == OptionalProto.MAP
        for msg in (t, d, s, m, o, n):
            assert check(msg) == []

    shaped()


def test_fixed_int4_shape_packs_two_values_per_int32() -> None:
    @settings(max_examples=5, deadline=None)
    @given(ods.tensors(dtype=TensorProto.INT4, shape=(3, 1), storage="typed", segment=False))
    def shaped(t: TensorProto) -> None:
        assert list(t.dims) == [3, 1] and len(t.int32_data) == 2

    shaped()


def test_onnx_classes_and_messages_are_accepted() -> None:
    as_onnx = ods.tensors().map(lambda t: onnx.TensorProto.FromString(t.encode()))

    @FAST
    @given(
        ods.messages(types=[onnx.TensorProto, onnx.StringStringEntryProto]),
        ods.noncanonical_encodings(as_onnx),
        ods.malformed_encodings(as_onnx, defects=["length past the end"]),
    )
    def accepted(
        msg: onnxdata.Message,
        pair: tuple[onnxdata.Message, bytes],
        case: tuple[type[onnxdata.Message], bytes, str],
    ) -> None:
        assert type(msg) in (onnxdata.TensorProto, onnxdata.StringStringEntryProto)
        assert type(pair[0]) is onnxdata.TensorProto
        assert pair[0] == onnxdata.TensorProto.decode(pair[1])
        assert case[0] is onnxdata.TensorProto and oracle_parse(case[0], case[1]) is None

    accepted()


BAD_ARGUMENTS: dict[str, Callable[[], Any]] = {
    "unknown dtype": lambda: ods.tensors(dtype=999),
    "dtype UNDEFINED": lambda: ods.tensors(dtype=TensorProto.UNDEFINED),
    "dtype a str": lambda: ods.tensors(dtype="FLOAT"),
    "dtype strategy draws unknown": lambda: ods.tensors(dtype=st.just(-1)),
    "negative side": lambda: ods.tensors(shape=(2, -1)),
    "shape a str": lambda: ods.tensors(shape="2x3"),
    "shape strategy draws negative": lambda: ods.tensors(shape=st.just([-3])),
    "unknown storage": lambda: ods.tensors(storage="packed"),
    "raw STRING": lambda: ods.tensors(dtype=TensorProto.STRING, storage="raw"),
    "elements with raw": lambda: ods.tensors(storage="raw", elements=st.just(1)),
    "elements not a strategy": lambda: ods.tensors(elements=[1, 2]),
    "elements out of range": lambda: ods.tensors(
        dtype=TensorProto.INT8, shape=3, elements=st.just(1000)
    ),
    "elements of a wrong type": lambda: ods.tensors(
        dtype=TensorProto.FLOAT, shape=3, elements=st.just("x")
    ),
    "segment of an external tensor": lambda: ods.tensors(storage="external", segment=True),
    "name not a bool": lambda: ods.tensors(name="x"),
    "sparse shape with 0": lambda: ods.sparse_tensors(shape=(0, 2)),
    "sparse unknown dtype": lambda: ods.sparse_tensors(dtype=100),
    "unknown elem_type": lambda: ods.sequences(elem_type=9),
    "optional unknown elem_type": lambda: ods.optionals(elem_type=st.just(6)),
    "UNDEFINED with min_size": lambda: ods.sequences(elem_type=0, min_size=1),
    "negative min_size": lambda: ods.sequences(min_size=-1),
    "min_size above max_size": lambda: ods.maps(min_size=3, max_size=2),
    "max_size a float": lambda: ods.maps(max_size=2.5),
    "negative depth": lambda: ods.optionals(max_depth=-1),
    "float key_type": lambda: ods.maps(key_type=TensorProto.FLOAT),
    "unknown key_type": lambda: ods.maps(key_type=st.just(77)),
    "more keys than the type has": lambda: ods.maps(
        key_type=TensorProto.UINT8, min_size=300, max_size=300
    ),
    "entry key not a str": lambda: ods.entries(key=b"k"),
    "negative segment size": lambda: ods.segments(size=-1),
    "types not message classes": lambda: ods.messages(types=[int]),
    "types empty": lambda: ods.messages(types=[]),
    "messages not a strategy": lambda: ods.noncanonical_encodings(TensorProto()),
    "messages draws non-messages": lambda: ods.noncanonical_encodings(st.just(3)),
    "unknown defect": lambda: ods.malformed_encodings(defects=["bit flip"]),
    "defects empty": lambda: ods.malformed_encodings(defects=[]),
    "defects a str": lambda: ods.malformed_encodings(defects="truncated"),
    "unknown_fields not a bool": lambda: ods.malformed_encodings(unknown_fields="no"),
}


@pytest.mark.filterwarnings("ignore::hypothesis.errors.NonInteractiveExampleWarning")
@pytest.mark.parametrize("make", BAD_ARGUMENTS.values(), ids=BAD_ARGUMENTS.keys())
def test_bad_arguments_raise_invalid_argument(make: Callable[[], Any]) -> None:
    with pytest.raises(InvalidArgument):
        make().example()


@pytest.mark.filterwarnings("ignore::hypothesis.errors.NonInteractiveExampleWarning")
def test_a_bad_enum_argument_names_the_allowed_values() -> None:
    # The enums' values are plain ints: the names come from the enum, not the values.
    with pytest.raises(InvalidArgument, match=r"FLOAT \(1\), UINT8 \(2\), .*got 999"):
        ods.tensors(dtype=999)
    with pytest.raises(InvalidArgument, match=r"UNDEFINED \(0\), TENSOR \(1\), .*OPTIONAL \(5\)"):
        ods.sequences(elem_type=9)
    with pytest.raises(
        InvalidArgument, match=r"key_type must be one of UINT8 \(2\), .*STRING \(8\)"
    ):
        ods.maps(key_type=st.just(77)).example()


def test_undefined_element_type_gives_empty_messages() -> None:
    @FAST
    @given(ods.sequences(elem_type=0), ods.optionals(elem_type=st.just(0)))
    def empty(s: SequenceProto, o: OptionalProto) -> None:
        assert s.elem_type == 0 and not s.tensor_values and not s.sequence_values
        assert o.elem_type == 0
        assert [f for f, _ in o.ListFields() if f.kind == "message"] == []
        assert check(s) == [] and check(o) == []

    empty()


@pytest.mark.parametrize("unknown_fields", [True, False])
def test_noncanonical_pairs_are_never_canonical_and_decode_as_stated(unknown_fields: bool) -> None:
    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        ods.noncanonical_encodings(ods.messages(types=MESSAGE_TYPES), unknown_fields=unknown_fields)
    )
    def pairs(pair: tuple[onnxdata.Message, bytes]) -> None:
        msg, data = pair
        cls = type(msg)
        assert data != msg.encode()
        assert cls.decode(data) == msg
        assert ORACLE[cls].FromString(data).SerializeToString() == msg.encode()
        if not unknown_fields:
            assert not getattr(msg, "unknown_fields", b"")

    pairs()


def unknown_numbers(cls: type[onnxdata.Message], data: bytes) -> list[int]:
    """The valid field numbers ``cls`` does not know in the top-level tags of ``data``, read
    field by field until the bytes stop making sense."""
    known, found, pos = spec_of(cls).by_number, [], 0

    def varint() -> int | None:
        nonlocal pos
        value = shift = 0
        while pos < len(data) and shift < 70:
            b = data[pos]
            pos += 1
            value |= (b & 0x7F) << shift
            if b < 0x80:
                return value
            shift += 7
        return None

    while pos < len(data):
        tag = varint()
        if tag is None:
            break
        number, wt = tag >> 3, tag & 7
        if 0 < number < 2**29 and number not in known:
            found.append(number)
        if wt == 0:
            if varint() is None:
                break
        elif wt in (1, 5):
            pos += 8 if wt == 1 else 4
        elif wt == 2:
            size = varint()
            if size is None:
                break
            pos += size
        else:
            break
    return found


@pytest.mark.parametrize("defect", ods.DEFECTS)
@pytest.mark.parametrize("unknown_fields", [True, False])
def test_each_defect_is_rejected_by_both(defect: str, unknown_fields: bool) -> None:
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        ods.malformed_encodings(
            ods.messages(types=MESSAGE_TYPES), defects=[defect], unknown_fields=unknown_fields
        )
    )
    def rejected(case: tuple[type[onnxdata.Message], bytes, str]) -> None:
        cls, data, named = case
        assert named == defect
        if not unknown_fields:
            assert unknown_numbers(cls, data) == []
        with pytest.raises(DecodeError):
            cls.decode(data)
        assert oracle_parse(cls, data) is None

    rejected()


@FAST
@given(ods.malformed_encodings())
def test_malformed_cases_by_default_are_rejected_by_both(
    case: tuple[type[onnxdata.Message], bytes, str],
) -> None:
    cls, data, defect = case
    assert defect in ods.DEFECTS
    with pytest.raises(DecodeError):
        cls.decode(data)
    assert oracle_parse(cls, data) is None


def test_import_without_hypothesis_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['hypothesis'] = None\n"
        "try:\n    import onnxdata.strategies\n"
        "except ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "onnxdata[fuzz]" in out
