"""protobuf's message API on onnxdata's messages behaves as on onnx's classes.

Code written against ``onnx`` calls ``CopyFrom``, ``MergeFrom``, ``HasField``,
``ListFields``, the enum helpers, ``external_data.add(...)``, and compares
``t.int32_data == [1, 2]``.  Each property here does the same thing to an
onnxdata message and to the equivalent ``onnx`` message (the oracle, protobuf's
upb backend) and compares the results: bytes, values, or the error's type.
"""

from __future__ import annotations

import copy
import pickle
from array import array
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxdata import (
    DecodeError,
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
    numpy_helper,
)
from onnxdata._core.access import CROWDED, alone, counter
from onnxdata._core.repeated import RepeatedMessages, RepeatedScalars
from onnxdata._core.schema import spec_of
from tests.support.message_strategies import MESSAGE_TYPES, messages_of, scaled
from tests.support.oracle import ORACLE, to_oracle

Segment = TensorProto.Segment


def _pair(cls: type) -> st.SearchStrategy[tuple[Any, Any]]:
    one = messages_of(cls, max_leaves=4, big=False)
    return st.tuples(one, one)


# -- merging and copying: the same bytes as protobuf ---------------------------


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__qualname__)
@given(data=st.data())
@settings(max_examples=scaled(0.2))
def test_merge_from_gives_protobufs_bytes(cls: type, data: st.DataObject) -> None:
    a, b = data.draw(_pair(cls))
    oa, ob = to_oracle(a), to_oracle(b)
    a.MergeFrom(b)
    oa.MergeFrom(ob)
    assert a.encode() == oa.SerializeToString()


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__qualname__)
@given(data=st.data())
@settings(max_examples=scaled(0.2))
def test_merge_from_string_and_parse_from_string_give_protobufs_bytes(
    cls: type, data: st.DataObject
) -> None:
    a, b = data.draw(_pair(cls))
    oa = to_oracle(a)
    payload = b.encode()
    assert a.MergeFromString(payload) == oa.MergeFromString(payload) == len(payload)
    assert a.encode() == oa.SerializeToString()
    fresh = cls()
    fresh.ParseFromString(payload)
    assert fresh == b


def _optionals(leaf: OptionalProto, depth: int, elem_type: int | None) -> OptionalProto:
    for _ in range(depth):
        leaf = OptionalProto(elem_type=elem_type, optional_value=leaf)
    return leaf


@pytest.mark.parametrize("depth", [1, 3])
@pytest.mark.parametrize("method", ["MergeFrom", "MergeFromString"])
def test_merging_nested_optionals_keeps_what_each_level_held(depth: int, method: str) -> None:
    # The other's levels are written as a chain (elem_type, then optional_value):
    # each merges into the level held before, as protobuf merges, and the
    # tensor at the bottom stays.
    a = _optionals(OptionalProto(tensor_value=TensorProto(name="kept")), depth + 1, None)
    b = _optionals(OptionalProto(), depth + 1, 0)
    oa, ob = to_oracle(a), to_oracle(b)
    if method == "MergeFrom":
        a.MergeFrom(b)
        oa.MergeFrom(ob)
    else:
        a.MergeFromString(b.encode())
        oa.MergeFromString(ob.SerializeToString())
    assert a.encode() == oa.SerializeToString()
    bottom = a
    for _ in range(depth + 1):
        bottom = bottom.optional_value
    assert bottom.tensor_value == TensorProto(name="kept")


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__qualname__)
@given(data=st.data())
@settings(max_examples=scaled(0.2))
def test_copy_from_is_a_deep_copy(cls: type, data: st.DataObject) -> None:
    a, b = data.draw(_pair(cls))
    a.CopyFrom(b)
    assert a == b
    assert a.encode() == b.encode()
    for f, value in a.ListFields():
        if f.kind == "message" and not f.repeated:
            assert value is not getattr(b, f.name)


def test_copy_from_and_merge_from_take_onnxs_messages() -> None:
    o = onnx.helper.make_tensor("w", onnx.TensorProto.FLOAT, [2], [1.0, 2.0])
    t = TensorProto(name="old", dims=[9])
    t.CopyFrom(o)
    assert t.encode() == o.SerializeToString()
    t.MergeFrom(o)
    o.MergeFrom(o.__class__.FromString(o.SerializeToString()))
    assert t.encode() == o.SerializeToString()


@pytest.mark.parametrize("method", ["CopyFrom", "MergeFrom"])
@pytest.mark.parametrize("other", [3, SequenceProto(), onnx.ModelProto()], ids=repr)
def test_copy_and_merge_refuse_another_type_with_type_error(method: str, other: Any) -> None:
    t = TensorProto(dims=[1])
    with pytest.raises(TypeError, match="expected a TensorProto"):
        getattr(t, method)(other)
    with pytest.raises(TypeError):
        getattr(onnx.TensorProto(), method)(other)
    assert t == TensorProto(dims=[1])


def test_a_failed_parse_leaves_the_message_unchanged() -> None:
    t = TensorProto(dims=[1], name="x")
    with pytest.raises(DecodeError):
        t.ParseFromString(b"\x0a")
    with pytest.raises(DecodeError):
        t.MergeFromString(b"\xff")
    assert t == TensorProto(dims=[1], name="x")


def test_copy_from_itself_changes_nothing() -> None:
    t = TensorProto(dims=[1, 2], name="x")
    t.CopyFrom(t)
    assert t == TensorProto(dims=[1, 2], name="x")


# -- presence and listing: the same answers as protobuf ------------------------


def _fields(cls: type) -> list[str]:
    return [fd.name for fd in ORACLE[cls].DESCRIPTOR.fields]


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__qualname__)
@given(data=st.data())
@settings(max_examples=scaled(0.2))
def test_has_field_list_fields_and_byte_size_agree_with_protobuf(
    cls: type, data: st.DataObject
) -> None:
    m = data.draw(messages_of(cls, max_leaves=4, big=False))
    o = to_oracle(m)
    assert [(f.name, f.number) for f, _ in m.ListFields()] == [
        (fd.name, fd.number) for fd, _ in o.ListFields()
    ]
    assert m.ByteSize() == o.ByteSize()
    assert m.IsInitialized() and o.IsInitialized()
    for name in [*_fields(cls), "no_such_field"]:
        try:
            expected: Any = o.HasField(name)
        except ValueError:
            expected = ValueError
        try:
            got: Any = m.HasField(name)
        except ValueError:
            got = ValueError
        assert got == expected, name


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__qualname__)
@given(data=st.data())
@settings(max_examples=scaled(0.2))
def test_clear_field_and_clear_give_protobufs_bytes(cls: type, data: st.DataObject) -> None:
    m = data.draw(messages_of(cls, max_leaves=4, big=False))
    name = data.draw(st.sampled_from(_fields(cls)))
    o = to_oracle(m)
    m.ClearField(name)
    o.ClearField(name)
    assert m.encode() == o.SerializeToString()
    m.Clear()
    o.Clear()
    assert m.encode() == o.SerializeToString() == b""


def test_clear_field_and_which_oneof_refuse_unknown_names_like_protobuf() -> None:
    for call in (
        lambda m: m.ClearField("nope"),
        lambda m: m.WhichOneof("nope"),
        lambda m: m.HasField("dims"),
    ):
        with pytest.raises(ValueError):
            call(onnx.TensorProto())
        with pytest.raises(ValueError):
            call(TensorProto())


@given(m=messages_of(SequenceProto, max_leaves=6, big=False))
@settings(max_examples=scaled(0.2))
def test_discard_unknown_fields_reaches_every_nested_message(m: SequenceProto) -> None:
    o = to_oracle(m)
    m.DiscardUnknownFields()
    o.DiscardUnknownFields()
    assert m.encode() == o.SerializeToString()


# -- enums ----------------------------------------------------------------------

_ENUMS = [
    (TensorProto.DataType, onnx.TensorProto.DataType),
    (TensorProto.DataLocation, onnx.TensorProto.DataLocation),
    (SequenceProto.DataType, onnx.SequenceProto.DataType),
    (OptionalProto.DataType, onnx.OptionalProto.DataType),
]


@pytest.mark.parametrize("ours, theirs", _ENUMS, ids=lambda e: getattr(e, "__qualname__", ""))
def test_enum_helpers_answer_as_protobufs(ours: Any, theirs: Any) -> None:
    assert ours.keys() == list(theirs.keys())
    assert ours.values() == list(theirs.values())
    assert ours.items() == list(theirs.items())
    for name, number in theirs.items():
        assert ours.Name(number) == theirs.Name(number) == name
        assert ours.Value(name) == theirs.Value(name) == number
    for bad in (999, -1):
        with pytest.raises(ValueError) as mine:
            ours.Name(bad)
        with pytest.raises(ValueError) as reference:
            theirs.Name(bad)
        assert str(mine.value) == str(reference.value)
    with pytest.raises(ValueError) as mine:
        ours.Value("NOPE")
    with pytest.raises(ValueError) as reference:
        theirs.Value("NOPE")
    assert str(mine.value) == str(reference.value)


# -- repeated fields behave like protobuf's -------------------------------------

_PACKED = [
    ("float_data", [1.5, -2.0]),
    ("int32_data", [1, -2, 3]),
    ("int64_data", [1, -(1 << 63)]),
    ("double_data", [0.1, 2.0]),
    ("uint64_data", [1, (1 << 64) - 1]),
]


def _both(name: str, values: list[Any]) -> tuple[Any, Any]:
    t = TensorProto(**{name: values})
    o = onnx.TensorProto()
    getattr(o, name).extend(values)
    return getattr(t, name), getattr(o, name)


@pytest.mark.parametrize("name, values", _PACKED)
def test_a_packed_field_compares_like_protobufs(name: str, values: list[Any]) -> None:
    decoded = getattr(TensorProto.decode(TensorProto(**{name: values}).encode()), name)
    mine, theirs = _both(name, values)
    for ours in (mine, decoded):
        assert isinstance(ours, RepeatedScalars)
        for other in (values, values[:1], [], tuple(values), None, "x"):
            assert (ours == other) == (theirs == other), other
            assert (ours != other) == (theirs != other), other
        assert ours == theirs and list(ours) == list(theirs)
        assert repr(ours) == repr(list(theirs))


@pytest.mark.parametrize("name, values", _PACKED)
def test_a_packed_field_takes_slice_assignment_from_any_iterable(
    name: str, values: list[Any]
) -> None:
    mine, theirs = _both(name, values)
    for make in (
        lambda: values[::-1],
        lambda: tuple(values[:1]),
        lambda: iter(values),
        lambda: (v for v in values),
        lambda: np.array(values[:1]),
    ):
        mine[:] = make()
        theirs[:] = list(make())
        assert mine == list(theirs)
    del mine[:]
    del theirs[:]
    assert mine == theirs == []


@pytest.mark.parametrize("name", ["int32_data", "int64_data", "uint64_data"])
@pytest.mark.parametrize("bad", [True, np.bool_(False), "1", 1.5, 1 << 64])
def test_a_packed_int_field_refuses_what_protobuf_refuses(name: str, bad: Any) -> None:
    mine, theirs = _both(name, [1])
    for add in (
        lambda c: c.append(bad),
        lambda c: c.extend([bad]),
        lambda c: c.insert(0, bad),
        lambda c: c.__setitem__(0, bad),
    ):
        with pytest.raises((TypeError, ValueError)) as ours_error:
            add(mine)
        if not isinstance(bad, np.bool_):  # numpy < 2.3 bools are indexes to protobuf
            with pytest.raises((TypeError, ValueError)) as their_error:
                add(theirs)
            assert ours_error.type is their_error.type or {ours_error.type, their_error.type} <= {
                TypeError,
                ValueError,
            }
    assert mine == [1]


def test_bytes_of_a_packed_int_field_is_bytes_of_its_values() -> None:
    mine, theirs = _both("int32_data", [1, 2, 250])
    assert bytes(mine) == bytes(theirs) == b"\x01\x02\xfa"


def test_a_packed_field_keeps_every_float32_bit_and_numpy_reads_it_in_place() -> None:
    signalling = array("f", b"\x01\x00\x80\x7f")  # a NaN Python's float would quiet
    t = TensorProto.decode(TensorProto(float_data=signalling).encode())
    assert t.float_data.tobytes() == b"\x01\x00\x80\x7f"
    view = np.frombuffer(t.float_data, dtype=np.float32)
    assert view.tobytes() == b"\x01\x00\x80\x7f"


def test_a_packed_field_takes_a_numpy_array_in_one_copy() -> None:
    values = np.arange(5, dtype=np.float32)
    t = TensorProto(float_data=values)
    assert isinstance(t.float_data, RepeatedScalars)
    values[0] = 99  # a copy, as protobuf makes
    assert t.float_data == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_a_value_that_cannot_be_stored_is_kept_for_encode_to_refuse() -> None:
    t = TensorProto(int32_data=[1 << 40])
    assert t.int32_data == [1 << 40]
    with pytest.raises(ValueError, match=r"TensorProto\.int32_data"):
        t.encode()


def test_a_repeated_field_is_the_same_container_wherever_the_message_came_from() -> None:
    made = TensorProto(dims=[2], float_data=[1.0], external_data=[StringStringEntryProto()])
    decoded = TensorProto.decode(made.encode())
    blank = TensorProto()
    for t in (made, decoded, blank):
        assert type(t.float_data) is RepeatedScalars
        assert isinstance(t.external_data, RepeatedMessages)
        assert type(t.dims) is list
    assigned = TensorProto()
    assigned.float_data = [2.0]
    assert type(assigned.float_data) is RepeatedScalars


@pytest.mark.parametrize(
    "make, field, element",
    [
        (TensorProto, "external_data", StringStringEntryProto),
        (TensorProto, "metadata_props", StringStringEntryProto),
        (SequenceProto, "tensor_values", TensorProto),
        (SequenceProto, "map_values", MapProto),
        (SequenceProto, "sparse_tensor_values", SparseTensorProto),
    ],
)
def test_add_on_a_repeated_message_field_makes_appends_and_returns_an_element(
    make: Any, field: str, element: type
) -> None:
    m = make()
    o = ORACLE[make]()
    kwargs = {"key": "location", "value": "w.bin"} if element is StringStringEntryProto else {}
    added = getattr(m, field).add(**kwargs)
    getattr(o, field).add(**kwargs)
    assert type(added) is element and getattr(m, field)[0] is added
    assert m.encode() == o.SerializeToString()


def test_an_empty_repeated_field_costs_no_container_until_it_is_read() -> None:
    t = TensorProto.decode(TensorProto(name="x").encode())
    assert t.encode() == TensorProto(name="x").encode()
    assert t == TensorProto(name="x")
    t.dims.append(3)
    assert t.dims == [3]
    assert t != TensorProto(name="x")


def _made_containers(m: Any) -> list[str]:
    """The repeated fields of ``m`` (and of its sub-messages) whose container exists."""
    made = []
    for f in spec_of(type(m)).fields:
        value = getattr(m, f.slot)
        if f.repeated and value is not None:
            made.append(f"{type(m).__name__}.{f.name}")
        if f.message is not None:
            for sub in (value or ()) if f.repeated else [value] if value is not None else ():
                made += _made_containers(sub)
    return made


def test_counter_counts_elements_without_making_containers() -> None:
    t_ = spec_of(TensorProto).named
    count = counter(t_.float_data, t_.int64_data, t_.string_data, t_.external_data)
    t = TensorProto.decode(TensorProto(name="x", int64_data=[1, 2]).encode())
    assert count(t) == 2
    assert _made_containers(t) == ["TensorProto.int64_data"]
    t.float_data.append(1.0)
    t.external_data.add(key="location", value="w.bin")
    assert count(t) == 4
    t.string_data = 5  # kept as given, for encode() to refuse: len() refuses it here
    with pytest.raises(TypeError):
        count(t)


def test_counter_refuses_a_field_that_is_not_repeated() -> None:
    with pytest.raises(ValueError, match=r"TensorProto\.name is not a repeated field"):
        counter(spec_of(TensorProto).named.name)
    with pytest.raises(ValueError, match="fields of one message"):
        counter(spec_of(TensorProto).named.dims, spec_of(SequenceProto).named.tensor_values)


def test_alone_gives_the_field_held_when_the_others_are_empty() -> None:
    s_ = spec_of(SequenceProto).named
    others = (s_.tensor_values, s_.map_values, s_.optional_values)
    read = alone(s_.sequence_values, others)
    inner = SequenceProto(elem_type=1)
    s = SequenceProto.decode(SequenceProto(elem_type=3, sequence_values=[inner]).encode())
    assert read(s) == [inner] and read(s) is s.sequence_values
    assert _made_containers(s) == ["SequenceProto.sequence_values"]
    assert read(SequenceProto()) is None  # never made: None, as held() gives it
    s.map_values  # made, empty: still alone  # noqa: B018
    assert read(s) == [inner]
    s.optional_values.add()
    assert read(s) is CROWDED
    crowded = SequenceProto(elem_type=3, tensor_values=[TensorProto()])
    assert read(crowded) is CROWDED
    s = SequenceProto(elem_type=3)
    s.tensor_values = 5  # kept as given, for encode() to refuse: len() refuses it here
    with pytest.raises(TypeError):
        read(s)


def test_alone_refuses_fields_that_are_not_repeated_or_read_twice() -> None:
    with pytest.raises(ValueError, match=r"SequenceProto\.name is not a repeated field"):
        alone(spec_of(SequenceProto).named.tensor_values, (spec_of(SequenceProto).named.name,))
    s_ = spec_of(SequenceProto).named
    with pytest.raises(ValueError, match="both the field read and another one"):
        alone(s_.tensor_values, (s_.tensor_values,))
    with pytest.raises(ValueError, match="fields of one message"):
        alone(s_.tensor_values, (spec_of(TensorProto).named.float_data,))


def test_numpy_conversion_of_decoded_messages_makes_no_container_for_empty_fields() -> None:
    """The numpy bridge asks "is anything there?" of every tensor and level it
    converts; making a container for each empty field it looks at would cost
    more than the conversion."""
    leaf = np.arange(6, dtype=np.float32).reshape(2, 3)
    data = onnx.numpy_helper.from_optional([[leaf, leaf], [leaf]]).SerializeToString()
    o = OptionalProto.decode(data)
    before = _made_containers(o)
    value = numpy_helper.to_optional(o)
    assert np.array_equal(value[1][0], leaf)
    assert _made_containers(o) == before
    assert "TensorProto.float_data" not in before


@given(m=messages_of(SequenceProto, max_leaves=6, big=False))
@settings(max_examples=scaled(0.2))
def test_copy_deepcopy_and_pickle_keep_the_message(m: SequenceProto) -> None:
    for made in (copy.copy(m), copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert made == m
        assert made.encode() == m.encode()


def test_str_is_protobufs_text_format_and_repr_stays_a_dataclass_repr() -> None:
    t = TensorProto(dims=[2], data_type=1, float_data=[1.0, 2.5], name="w")
    o = to_oracle(t)
    assert str(t) == str(o)
    assert repr(t).startswith("TensorProto(dims=[2], data_type=1")


def test_segment_and_entry_messages_have_the_api_too() -> None:
    s = Segment(begin=1)
    assert s.HasField("begin") and not s.HasField("end")
    e = StringStringEntryProto()
    e.MergeFromString(StringStringEntryProto(key="k").encode())
    assert e.key == "k"


def test_onnxs_message_inside_an_onnxdata_one_is_named_with_the_way_to_convert_it() -> None:
    o = onnx.helper.make_tensor("x", onnx.TensorProto.FLOAT, [1], [1.0])
    with pytest.raises(TypeError, match=r"a protobuf onnx\.TensorProto: convert it with"):
        SequenceProto(tensor_values=[o]).encode()
    fixed = SequenceProto(tensor_values=[TensorProto.FromString(o.SerializeToString())])
    assert fixed.encode() == onnx.SequenceProto(tensor_values=[o]).SerializeToString()
