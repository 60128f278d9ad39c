"""The protobuf message API of the model messages, against onnx's classes.

``dir()`` of every class as onnx's after ``import onnx``; the
``AttributeProto.AttributeType`` enum and its class constants; oneofs through
``WhichOneof``, ``HasField`` and ``ClearField`` (errors included); and, on
generated messages of every class, ``ListFields`` order, ``ByteSize``,
``MergeFrom``/``CopyFrom`` across onnx and onnxdata objects, pickling,
``repr`` (onnx's summary for a model, graph or function) and ``==``.
"""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys

import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import AttributeProto, GraphProto, NodeProto, TensorShapeProto, TypeProto
from tests.support.message_strategies import examples, messages_of
from tests.support.oracle import ALL_MESSAGE_TYPES, ORACLE, assert_same, to_oracle

Dim = TensorShapeProto.Dimension
# The classes whose repr is onnx's summary, not the dataclass repr.
SUMMARIZED = (onnxdata.ModelProto, onnxdata.GraphProto, onnxdata.FunctionProto)
_ids = {"ids": lambda c: c.__qualname__}

# What protobuf's classes have and onnxdata's leave out (docs/compat.md), and
# what onnxdata's add: the fields (protobuf's classes list none) and the codec.
PROTOBUF_ONLY = {"ClearExtension", "Extensions", "HasExtension", "UnknownFields"}
OURS_ONLY = {"decode", "encode", "encode_to", "unknown_fields"}

_DIR_SCRIPT = """
import json, onnx, onnxdata
from tests.support.oracle import ALL_MESSAGE_TYPES, ORACLE
print(json.dumps({c.__qualname__: [[n for n in dir(c) if not n.startswith("_")],
                                   [n for n in dir(ORACLE[c]) if not n.startswith("_")]]
                  for c in ALL_MESSAGE_TYPES}))
"""


def test_dir_of_every_class_lists_what_onnxs_lists_after_import_onnx() -> None:
    # A fresh interpreter: protobuf lists a class attribute once it has been read,
    # and this test process reads many.
    out = subprocess.run(
        [sys.executable, "-c", _DIR_SCRIPT], capture_output=True, text=True, check=True
    ).stdout
    for cls in ALL_MESSAGE_TYPES:
        ours, theirs = json.loads(out)[cls.__qualname__]
        fields = {f.name for f in cls._SPEC.fields}  # type: ignore[attr-defined]
        assert set(ours) - fields - OURS_ONLY == set(theirs) - PROTOBUF_ONLY, cls.__qualname__


def test_attribute_type_is_onnxs_enum() -> None:
    ours, theirs = AttributeProto.AttributeType, onnx.AttributeProto.AttributeType
    assert list(ours.keys()) == list(theirs.keys())  # declaration order, not value order
    assert list(ours.values()) == list(theirs.values())
    assert list(ours.items()) == list(theirs.items())
    for name, value in theirs.items():
        assert ours.Value(name) == value and ours.Name(value) == name
        assert getattr(AttributeProto, name) == getattr(onnx.AttributeProto, name) == value
        assert type(getattr(AttributeProto, name)) is int
    for bad_name, bad_value in (("NOPE", 99), ("float", -1)):
        with pytest.raises(ValueError):
            theirs.Value(bad_name)
        with pytest.raises(ValueError):
            ours.Value(bad_name)
        with pytest.raises(ValueError):
            theirs.Name(bad_value)
        with pytest.raises(ValueError):
            ours.Name(bad_value)


_ONEOF_CASES = [
    (TypeProto, "value", ["tensor_type", "sequence_type", "map_type", "optional_type",
                          "sparse_tensor_type", "opaque_type"]),
    (Dim, "value", ["dim_value", "dim_param"]),
    (onnxdata.SimpleShardedDimProto, "dim", ["dim_value", "dim_param"]),
]  # fmt: skip


@pytest.mark.parametrize(
    "cls, name, members", _ONEOF_CASES, ids=lambda c: getattr(c, "__qualname__", "")
)
def test_which_one_of_has_field_and_clear_field_on_a_oneof(
    cls: type, name: str, members: list[str]
) -> None:
    ours, theirs = cls(), ORACLE[cls]()
    assert ours.WhichOneof(name) is theirs.WhichOneof(name) is None
    assert ours.HasField(name) is theirs.HasField(name) is False
    for member in members:
        for m in (ours, theirs):
            value = getattr(m, member)
            if hasattr(value, "SetInParent"):
                value.SetInParent()
            else:
                setattr(m, member, type(value)())  # the default: present all the same
        assert ours.WhichOneof(name) == theirs.WhichOneof(name) == member
        assert ours.HasField(name) and theirs.HasField(name)
        assert [ours.HasField(x) for x in members] == [theirs.HasField(x) for x in members]
        assert ours.encode() == theirs.SerializeToString()
    ours.ClearField(name)
    theirs.ClearField(name)
    assert ours.WhichOneof(name) is theirs.WhichOneof(name) is None
    assert ours.encode() == theirs.SerializeToString() == b""


@pytest.mark.parametrize("method", ["WhichOneof", "HasField", "ClearField"])
@pytest.mark.parametrize("name", ["nope", "denotation_", ""])
def test_oneof_methods_refuse_unknown_names_like_protobuf(method: str, name: str) -> None:
    with pytest.raises(ValueError) as theirs:
        getattr(onnx.TypeProto(), method)(name)
    with pytest.raises(ValueError) as ours:
        getattr(TypeProto(), method)(name)
    assert str(ours.value) == str(theirs.value)


def test_which_one_of_refuses_a_field_that_is_not_a_oneof() -> None:
    for name in ("denotation", "tensor_type"):
        with pytest.raises(ValueError) as theirs:
            onnx.TypeProto().WhichOneof(name)
        with pytest.raises(ValueError) as ours:
            TypeProto().WhichOneof(name)
        assert str(ours.value) == str(theirs.value)


def test_equality_sees_which_member_is_set() -> None:
    assert Dim(dim_value=0) != Dim(dim_param="")
    assert Dim(dim_value=0) != Dim()
    assert Dim(dim_value=0, dim_param="x") == Dim(dim_param="x")  # the last keyword wins
    theirs = onnx.TensorShapeProto.Dimension(dim_value=0, dim_param="x")
    assert theirs.WhichOneof("value") == "dim_param"
    t = TypeProto(tensor_type=TypeProto.Tensor())
    t.sequence_type.SetInParent()
    assert t == TypeProto(sequence_type=TypeProto.Sequence())
    assert t != TypeProto(tensor_type=TypeProto.Tensor())


def test_a_member_written_through_a_stand_in_replaces_the_one_set() -> None:
    ours = TypeProto(tensor_type=TypeProto.Tensor(elem_type=1))
    theirs = onnx.TypeProto(tensor_type=onnx.TypeProto.Tensor(elem_type=1))
    mine, other = ours.map_type, theirs.map_type  # not the member set: a default
    assert ours.WhichOneof("value") == theirs.WhichOneof("value") == "tensor_type"
    mine.key_type = other.key_type = 8
    assert ours.WhichOneof("value") == theirs.WhichOneof("value") == "map_type"
    assert not ours.HasField("tensor_type") and not theirs.HasField("tensor_type")
    assert ours.encode() == theirs.SerializeToString()


@pytest.mark.parametrize("cls", ALL_MESSAGE_TYPES, **_ids)
@settings(max_examples=examples(0.1, heavy=True))
@given(data=st.data())
def test_the_message_api_answers_as_protobuf(cls: type, data: st.DataObject) -> None:
    m = data.draw(messages_of(cls, 3, False), label="message")
    o = to_oracle(m)
    assert [f.name for f, _ in m.ListFields()] == [fd.name for fd, _ in o.ListFields()]
    assert m.ByteSize() == o.ByteSize()
    for name in cls._SPEC.oneofs:  # type: ignore[attr-defined]
        assert m.WhichOneof(name) == o.WhichOneof(name)
    # across implementations, both ways
    ours = cls()
    ours.CopyFrom(o)
    assert ours == m
    ours.MergeFrom(o)
    merged = ORACLE[cls]()
    merged.CopyFrom(o)
    merged.MergeFrom(o)
    assert_same(cls.decode(ours.encode()), merged)
    theirs = ORACLE[cls]()
    theirs.MergeFrom(ORACLE[cls].FromString(m.encode()))
    assert theirs.SerializeToString() == m.encode()
    # copies, pickles, repr
    assert pickle.loads(pickle.dumps(m)) == m
    assert copy.deepcopy(m) == m and copy.copy(m) == m
    # repr: onnx's summary for the classes whose repr onnx replaces
    # (test_summary_repr.py); for the others, the set fields, as the constructor
    # takes them (unknown fields left out)
    if cls in SUMMARIZED:
        assert repr(m) == repr(ORACLE[cls].FromString(m.encode()))
        assert repr(cls()) == repr(ORACLE[cls]())
    else:
        text = repr(m)
        assert text.startswith(f"{cls.__qualname__}(") and text.endswith(")")
        shown = [f.name for f, _ in m.ListFields() if f"{f.name}=" not in text]
        assert shown == [], text
        assert repr(cls()) == f"{cls.__qualname__}()"


def test_node_and_graph_keep_their_order_and_subgraphs() -> None:
    body = GraphProto(name="body", node=[NodeProto(op_type="Add", input=["a", "b"])])
    then = AttributeProto(name="then_branch", g=body, type=AttributeProto.GRAPH)
    node = NodeProto(op_type="If", attribute=[then])
    graph = GraphProto(node=[node, NodeProto(op_type="Identity")])
    theirs = to_oracle(graph)
    assert graph.encode() == theirs.SerializeToString()
    assert graph.node[0].attribute[0].g.node[0].input == ["a", "b"]
    assert pickle.loads(pickle.dumps(graph)) == graph


@pytest.mark.parametrize(
    "before, change, member",
    [
        ({"dim_value": 5}, {"dim_param": "x"}, "dim_param"),
        ({"dim_param": ""}, {"dim_param": ""}, "dim_param"),
        ({"dim_value": 5}, {"num_shards": 3}, "dim_value"),
        ({"dim_param": "y"}, {"dim_value": 7}, "dim_value"),
    ],
)
def test_replace_sets_the_member_it_is_given(
    before: dict[str, object], change: dict[str, object], member: str
) -> None:
    # dataclasses.replace passes the change first and the fields it read after:
    # the member changed is the one set, as setting it on a copy would.
    import dataclasses

    ours = dataclasses.replace(onnxdata.SimpleShardedDimProto(**before), **change)  # type: ignore[arg-type]
    theirs = onnx.SimpleShardedDimProto(**before)
    for name, value in change.items():
        setattr(theirs, name, value)
    assert ours.WhichOneof("dim") == theirs.WhichOneof("dim") == member
    assert ours.encode() == theirs.SerializeToString()
