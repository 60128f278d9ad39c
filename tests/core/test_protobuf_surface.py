"""What onnx code sees of the classes besides their fields, against onnx's own.

Enums as protobuf's wrappers with plain-int values; the class constants
``dir()`` lists; onnx's module names (``onnx_pb``, ``onnx_ml_pb2``,
``onnx_data_pb``, ``onnx_data_pb2``, ``version``); ``dataclasses`` on
messages (``fields``, ``asdict``, ``replace``, ``is_dataclass``); copies and
pickles of messages and of stand-ins; ``repr`` of the set fields.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import pickle
import struct
import subprocess
import sys
from typing import Any

import onnx
import onnx.onnx_data_pb2
import onnx.onnx_ml_pb2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.vendor import pretty

import onnxdata
from onnxdata import MapProto, OptionalProto, SequenceProto, TensorProto
from onnxdata._core.unset import STAND_INS
from tests.support.message_strategies import any_of_all, messages_of, scaled
from tests.support.oracle import (
    ALL_MESSAGE_TYPES,
    MESSAGE_TYPES,
    MODEL_MESSAGE_TYPES,
    ORACLE,
    to_oracle,
)

Segment = TensorProto.Segment

ENUMS = [
    (TensorProto.DataType, onnx.TensorProto.DataType),
    (TensorProto.DataLocation, onnx.TensorProto.DataLocation),
    (SequenceProto.DataType, onnx.SequenceProto.DataType),
    (OptionalProto.DataType, onnx.OptionalProto.DataType),
    (onnxdata.Version, onnx.onnx_ml_pb2.Version),
    (onnxdata.OperatorStatus, onnx.onnx_ml_pb2.OperatorStatus),
]


def _outcome(call: Any, enum: Any) -> tuple[str, str]:
    """What ``call(enum)`` gives: its value's repr, or its exception's type and message."""
    try:
        return ("value", repr(call(enum)))
    except Exception as exc:
        return (type(exc).__name__, str(exc))


# --------------------------------------------------------------------------
# enums


@pytest.mark.parametrize("ours, theirs", ENUMS, ids=lambda e: getattr(e, "_name", ""))
def test_enum_wrappers_answer_as_protobufs(ours: Any, theirs: Any) -> None:
    assert ours.keys() == theirs.keys()
    assert ours.values() == theirs.values()
    assert ours.items() == theirs.items()
    assert all(type(v) is int for v in ours.values())
    for name, number in theirs.items():
        assert ours.Value(name) == number and type(ours.Value(name)) is int
        assert ours.Name(number) == theirs.Name(number)
        assert getattr(ours, name) == number and type(getattr(ours, name)) is int
    assert ours.ValueType is int
    # Errors: the same type and message as protobuf's.
    calls = [
        lambda e: e.Name(10**6),
        lambda e: e.Name(-1),
        lambda e: e.Name("FLOAT"),
        lambda e: e.Name(None),
        lambda e: e.Value("NOT_A_NAME"),
        lambda e: e.Value(1),
        lambda e: e.NOT_A_NAME,
    ]
    for call in calls:
        assert _outcome(call, ours) == _outcome(call, theirs)
    # Not callable, not iterable, like protobuf's wrapper.
    for refused in (lambda e: e(1), lambda e: iter(e), lambda e: len(e)):
        assert _outcome(refused, ours)[0] == _outcome(refused, theirs)[0] == "TypeError"


def test_constants_are_plain_ints_and_print_as_ints() -> None:
    for name, number in onnx.TensorProto.DataType.items():
        ours = getattr(TensorProto, name)
        assert type(ours) is int and ours == number
        assert repr(ours) == str(ours) == f"{ours}" == str(number)
        assert {ours: "x"} == {number: "x"}
    assert type(TensorProto.FLOAT) is int and TensorProto.FLOAT == 1
    assert type(TensorProto.EXTERNAL) is int and TensorProto.EXTERNAL == 1
    for cls in (SequenceProto, OptionalProto, MapProto):
        for name, number in ORACLE[cls].__dict__.items():
            if type(number) is int and name.isupper():
                assert getattr(cls, name) == number and type(getattr(cls, name)) is int
    assert repr(TensorProto.DataType) == "<enum TensorProto.DataType>"


def test_str_and_repr_of_constants_on_a_fresh_interpreter() -> None:
    # What one Python version prints of an IntEnum member differs from
    # another's (str on 3.10 is "DataType.FLOAT"): plain ints print alike on all.
    code = (
        "from onnxdata import TensorProto as T; "
        "print(str(T.FLOAT), repr(T.FLOAT), f'{T.STRING}', '%s' % T.BFLOAT16, format(T.DEFAULT))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["1", "1", "8", "16", "0"]


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__qualname__)
def test_dir_lists_the_int_constants_onnx_lists(cls: type) -> None:
    # Every int-valued name, on every Python: from 3.13 a class statement's
    # ``__firstlineno__`` is one (its value is a line number, of each side's source).
    # onnx's side in a fresh interpreter: protobuf's dir() also lists every
    # constant read so far in this process, by any test.
    code = (
        "import onnx\n"
        f"c = onnx.{cls.__qualname__}\n"
        "print(' '.join(n for n in dir(c) if type(getattr(c, n)) is int))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    theirs = sorted(out.split())
    ours = sorted(n for n in dir(cls) if type(getattr(cls, n)) is int)
    assert ours == theirs
    if cls is TensorProto:  # the data types onnx's mapping tables read at import
        assert len([n for n in ours if not n.startswith("__")]) == 28


def test_dir_of_tensor_proto_builds_onnxs_name_table() -> None:
    # onnx code builds a number -> name table from dir(TensorProto); only the
    # line number a class statement leaves (``__firstlineno__``, 3.13) differs.
    def table(cls: Any) -> dict[int, str]:
        return {
            getattr(cls, n): n
            for n in dir(cls)
            if type(getattr(cls, n)) is int and n != "__firstlineno__"
        }

    # onnx's side in a fresh interpreter: protobuf's dir() grows with every
    # constant read in the process, so this process's answer depends on the tests before
    code = (
        "import onnx\n"
        "c = onnx.TensorProto\n"
        "print(' '.join(f'{getattr(c, n)}={n}' for n in dir(c)"
        " if type(getattr(c, n)) is int and n != '__firstlineno__'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    theirs = {int(k): v for k, v in (pair.split("=") for pair in out.split())}
    assert table(TensorProto) == theirs
    assert len(dir(TensorProto)) > 0 and ("__firstlineno__" in dir(TensorProto)) == (
        "__firstlineno__" in dir(onnx.TensorProto)
    )


# --------------------------------------------------------------------------
# onnx's module names


def test_onnx_module_names_hold_the_same_objects() -> None:
    from onnxdata import onnx_data_pb, onnx_data_pb2, onnx_ml_pb2, onnx_pb
    from onnxdata.onnx_pb import TensorProto as FromOnnxPb

    assert FromOnnxPb is TensorProto
    assert onnxdata.onnx_ml_pb2.TensorProto is onnxdata.TensorProto
    assert onnx_pb.SparseTensorProto is onnx_ml_pb2.SparseTensorProto is onnxdata.SparseTensorProto
    assert onnx_ml_pb2.StringStringEntryProto is onnxdata.StringStringEntryProto
    for name in ("SequenceProto", "MapProto", "OptionalProto"):
        assert (
            getattr(onnx_data_pb, name) is getattr(onnx_data_pb2, name) is getattr(onnxdata, name)
        )
        assert hasattr(onnx.onnx_data_pb2, name)
    assert set(onnx_pb.__all__) == set(onnx_ml_pb2.__all__)
    assert set(onnx_data_pb.__all__) == set(onnx_data_pb2.__all__)


def test_version_constants_equal_onnxs() -> None:
    theirs = onnx.onnx_ml_pb2
    names = [
        n
        for n, v in vars(theirs).items()
        if type(v) is int and (n.startswith("IR_VERSION") or n in ("STABLE", "EXPERIMENTAL"))
    ]
    assert len(names) == 16
    for name in [*names, "_START_VERSION"]:
        ours = getattr(onnxdata.onnx_ml_pb2, name)
        assert type(ours) is int and ours == getattr(theirs, name), name
    for name in names:
        assert getattr(onnxdata, name) == getattr(theirs, name), name
        assert name in onnxdata.__all__ and name in onnxdata.onnx_ml_pb2.__all__
    assert onnxdata.IR_VERSION == onnx.IR_VERSION
    assert onnxdata.Version.items() == theirs.Version.items()
    assert onnxdata.OperatorStatus.items() == theirs.OperatorStatus.items()
    assert onnxdata.onnx_ml_pb2.Version is onnxdata.Version


def _forget_version_module() -> None:
    sys.modules.pop("onnxdata.version", None)
    vars(onnxdata).pop("version", None)


def test_version_module_warns_as_onnxs_does() -> None:
    _forget_version_module()
    with pytest.warns(DeprecationWarning, match=r"onnxdata\.version is deprecated"):
        module = importlib.import_module("onnxdata.version")
    assert module.version == onnxdata.__version__
    assert module.git_version == ""
    _forget_version_module()
    with pytest.warns(DeprecationWarning):  # as an attribute too, as onnx.version is
        assert onnxdata.version.version == onnxdata.__version__
    _forget_version_module()


# --------------------------------------------------------------------------
# dataclasses


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__qualname__)
def test_dataclasses_see_the_fields(cls: type) -> None:
    m = cls()
    assert dataclasses.is_dataclass(cls) and dataclasses.is_dataclass(m)
    names = [f.name for f in dataclasses.fields(m)]
    assert names == [fd.name for fd in ORACLE[cls].DESCRIPTOR.fields] + ["unknown_fields"]
    assert "_unset" not in names


def test_replace_keeps_presence() -> None:
    t = TensorProto(name="", dims=[2])  # name set to its default: present
    r = dataclasses.replace(t, dims=[3])
    assert r.HasField("name") and not r.HasField("data_type") and not r.HasField("segment")
    assert r.encode() == TensorProto(name="", dims=[3]).encode()
    r = dataclasses.replace(TensorProto(data_type=1), name="x")
    assert r.encode() == to_oracle(TensorProto(data_type=1, name="x")).SerializeToString()
    assert not r.HasField("doc_string") and not r.HasField("data_location")
    # A sub-message: unset stays unset, an empty one given is set.
    assert not dataclasses.replace(TensorProto()).HasField("segment")
    assert dataclasses.replace(TensorProto(), segment=Segment()).HasField("segment")
    assert dataclasses.replace(TensorProto(segment=Segment())).HasField("segment")
    # The documented difference: an unset field given its default stays unset.
    assert not dataclasses.replace(TensorProto(), name="").HasField("name")


@given(m=messages_of(SequenceProto, 6, False))
@settings(max_examples=scaled(0.2))
def test_replace_with_nothing_changed_keeps_the_bytes(m: SequenceProto) -> None:
    r = dataclasses.replace(m)
    assert r == m and r.encode() == m.encode()


@pytest.mark.parametrize("cls", ALL_MESSAGE_TYPES, ids=lambda c: c.__qualname__)
def test_replace_of_an_empty_message_sets_nothing(cls: type) -> None:
    # Every field replace reads back is its default object, and leaves it unset:
    # a singular float (AttributeProto.f) too, which assignment rounds to float32.
    for r in (dataclasses.replace(cls()), dataclasses.replace(cls(), unknown_fields=b"")):
        assert r.encode() == b"" and r.ListFields() == []
        for f in cls._SPEC.fields:
            assert f.repeated or not r.HasField(f.name), f.name


def test_replace_keeps_a_float_fields_presence() -> None:
    a = onnxdata.AttributeProto(name="a")
    assert not dataclasses.replace(a, name="b").HasField("f")
    for value in (0.0, -0.0, 0.1, 1e300, 3):
        set_ = onnxdata.AttributeProto(f=value)
        theirs = onnx.AttributeProto(f=value)
        for r in (dataclasses.replace(set_), dataclasses.replace(a, f=value)):
            assert r.HasField("f") and struct.pack("<f", r.f) == struct.pack("<f", theirs.f)


@given(m=any_of_all(2, False))
@settings(max_examples=scaled(0.2))
def test_replace_with_nothing_changed_keeps_the_bytes_of_every_type(m: Any) -> None:
    r = dataclasses.replace(m)
    assert r == m and r.encode() == m.encode()


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__qualname__)
def test_asdict_terminates_on_every_message(cls: type) -> None:
    # Reading an unset sub-message gives a stand-in, and OptionalProto nests
    # its own type: asdict must still end.
    d = dataclasses.asdict(cls())
    assert set(d) == {f.name for f in dataclasses.fields(cls)}
    o = OptionalProto(optional_value=OptionalProto(elem_type=1))
    assert dataclasses.asdict(o)["optional_value"]["elem_type"] == 1
    assert dataclasses.asdict(o)["optional_value"]["optional_value"] is not None


# --------------------------------------------------------------------------
# copies, pickles, repr


def test_stand_ins_copy_and_pickle_as_empty_messages() -> None:
    t = TensorProto(name="x")
    s = t.segment
    assert type(s) in STAND_INS
    for made in (copy.copy(s), copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        assert type(made) is Segment and made == Segment()
        made.begin = 4  # a copy is linked to nothing
        assert not t.HasField("segment")
    s.begin = 2  # the original still sets its field
    assert t.HasField("segment") and t.segment.begin == 2
    nested = OptionalProto().optional_value.optional_value
    assert pickle.loads(pickle.dumps(nested)) == OptionalProto()


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__qualname__)
def test_copies_and_pickles_keep_presence(cls: type) -> None:
    fields = [f for f in cls._SPEC.fields if not f.repeated and f.kind != "message"]
    m = cls(**{f.name: f.zero for f in fields[:1]})  # one field set to its default
    for made in (copy.copy(m), copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert made == m and made.encode() == m.encode()
        for f in cls._SPEC.fields:
            if not f.repeated:
                assert made.HasField(f.name) == m.HasField(f.name)


@pytest.mark.parametrize("cls", ALL_MESSAGE_TYPES, ids=lambda c: c.__qualname__)
def test_pretty_printers_print_a_class_and_its_messages(cls: type) -> None:
    # hypothesis' printer (which prints every falsifying example) reads
    # ``_repr_pretty_`` on the object: on a class it must not be the method.
    assert pretty.pretty(cls).endswith(cls.__qualname__)
    # a message prints its repr (onnx's summary for a model, graph or function)
    assert pretty.pretty([cls(), cls]).startswith(f"[{cls()!r},")
    assert repr(cls()).startswith(f"{cls.__qualname__}(")


def test_a_falsifying_example_drawing_a_message_class_is_reported() -> None:
    @given(st.sampled_from(ALL_MESSAGE_TYPES))
    @settings(database=None, max_examples=5)
    def fails(cls: type) -> None:
        raise ValueError(cls.__qualname__)

    with pytest.raises(ValueError):  # not a TypeError from printing the class
        fails()


def test_repr_lists_the_set_fields() -> None:
    assert repr(TensorProto(dims=[2], data_type=1)) == "TensorProto(dims=[2], data_type=1)"
    assert repr(TensorProto()) == "TensorProto()"
    assert repr(TensorProto(name="")) == "TensorProto(name='')"
    assert repr(TensorProto().segment) == "TensorProto.Segment()"
    t = TensorProto()
    t.segment.begin = 0
    assert repr(t) == "TensorProto(segment=TensorProto.Segment(begin=0))"
    o = OptionalProto(elem_type=OptionalProto.TENSOR)
    assert repr(o) == "OptionalProto(elem_type=1)"


def _enum_pairs() -> list[tuple[Any, Any]]:
    """Every enum of onnx-ml.proto: ours and onnx's wrapper (top-level and nested)."""
    pairs = [(onnxdata.Version, onnx.onnx_ml_pb2.Version)]
    pairs.append((onnxdata.OperatorStatus, onnx.onnx_ml_pb2.OperatorStatus))
    for cls in {*ALL_MESSAGE_TYPES, *MODEL_MESSAGE_TYPES}:
        theirs = ORACLE[cls]
        for desc in theirs.DESCRIPTOR.enum_types:
            pairs.append((getattr(cls, desc.name), getattr(theirs, desc.name)))
    return pairs


def _described(d: Any) -> Any:
    values = [(v.name, v.index, v.number, v.type.full_name) for v in d.values]
    by_name = {k: (v.name, v.number) for k, v in d.values_by_name.items()}
    by_number = {k: (v.name, v.number) for k, v in d.values_by_number.items()}
    return d.name, d.full_name, values, by_name, by_number


@pytest.mark.parametrize("ours, theirs", _enum_pairs(), ids=lambda e: getattr(e, "_name", ""))
def test_enum_descriptors_hold_protobufs_names_and_numbers(ours: Any, theirs: Any) -> None:
    # skl2onnx's apply_cast: {v.number: k for k, v in DataType.DESCRIPTOR.values_by_name.items()}
    assert _described(ours.DESCRIPTOR) == _described(theirs.DESCRIPTOR)
    assert ours.DESCRIPTOR is ours.DESCRIPTOR  # made once
    assert pickle.loads(pickle.dumps(ours)).DESCRIPTOR.full_name == ours.DESCRIPTOR.full_name


def test_a_repeated_message_field_prints_as_protobufs() -> None:
    # onnxmltools: self.assertIn("dim_value: 2", str(onnx_model.graph.output))
    from onnx import helper as onnx_helper

    from onnxdata import helper

    def graph(h: Any) -> Any:
        values = [h.make_tensor_value_info(n, 1, [2, "N"]) for n in ("x", "y")]
        node = h.make_node("Relu", ["x"], ["y"], alpha=0.5)
        init = h.make_tensor("w", 1, [2], [1.0, 2.5])
        return h.make_graph([node], "g", values, values[:1], initializer=[init])

    ours, theirs = graph(helper), graph(onnx_helper)
    for name in ("input", "output", "node", "initializer", "value_info"):
        assert str(getattr(ours, name)) == str(getattr(theirs, name)), name
        assert repr(getattr(ours, name)) == repr(getattr(theirs, name)), name
    assert "dim_value: 2" in str(ours.input)
