"""The bridge reads presence as onnx does (``HasField``), whatever was read before.

Fields read as protobuf's: an unset sub-message gives an empty stand-in, an
unset scalar its default.  Reading (``t.segment.begin``, ``o.tensor_value``)
sets nothing, so neither the bytes nor what the bridge returns may change;
writing into a stand-in sets the field, and then the bridge sees it.  Each
case is run on onnx's message too, where onnx has the behaviour.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper as oh
from onnx import numpy_helper as onh

import onnxdata
from onnxdata import MapProto, OptionalProto, SequenceProto, SparseTensorProto, TensorProto, helper
from onnxdata import numpy_helper as nh


def _tensor() -> TensorProto:
    return nh.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "x")


def test_reading_an_unset_segment_leaves_to_array_alone() -> None:
    for t in (_tensor(), helper.make_tensor("y", TensorProto.FLOAT, [2], [1.0, 2.0])):
        ours = TensorProto.decode(t.encode())
        theirs = onnx.TensorProto.FromString(t.encode())
        before = ours.encode()
        assert ours.segment.begin == theirs.segment.begin == 0  # reads, sets nothing
        assert not ours.HasField("segment") and not theirs.HasField("segment")
        assert np.array_equal(nh.to_array(ours), onh.to_array(theirs))
        assert ours.encode() == before == theirs.SerializeToString()


def test_writing_into_the_segment_stand_in_sets_it_and_to_array_refuses() -> None:
    ours, theirs = _tensor(), onh.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "x")
    ours.segment.begin = 0  # a default written: the field is set (protobuf's rule)
    theirs.segment.begin = 0
    assert ours.HasField("segment") and theirs.HasField("segment")
    assert ours.encode() == theirs.SerializeToString()
    for module, tensor in ((nh, ours), (onh, theirs)):
        with pytest.raises(ValueError, match="Currently not supporting loading segments"):
            module.to_array(tensor)  # type: ignore[attr-defined]


def test_a_blank_tensor_is_undefined_as_in_onnx() -> None:
    ours, theirs = TensorProto(), onnx.TensorProto()
    assert ours.data_type == theirs.data_type == TensorProto.UNDEFINED == 0
    for module, tensor in ((nh, ours), (onh, theirs)):
        with pytest.raises(TypeError, match="UNDEFINED"):
            module.to_array(tensor)  # type: ignore[attr-defined]


@pytest.mark.parametrize("raw", [None, b""])
def test_raw_data_set_and_empty_is_used_unset_is_not(raw: bytes | None) -> None:
    """onnx reads ``HasField("raw_data")``: an empty raw_data is used (and
    refused beside float_data here), an unset one leaves float_data to be read."""
    fields: dict[str, Any] = {"dims": [0], "data_type": TensorProto.FLOAT}
    if raw is not None:
        fields["raw_data"] = raw
    ours, theirs = TensorProto(**fields), onnx.TensorProto(**fields)
    assert ours.HasField("raw_data") == theirs.HasField("raw_data") == (raw is not None)
    assert ours.encode() == theirs.SerializeToString()
    got, expected = nh.to_array(ours), onh.to_array(theirs)
    assert got.dtype == expected.dtype and got.shape == expected.shape == (0,)
    ours.float_data.append(1.0)  # a second storage field: refused only when raw_data is set
    ours.dims[:] = [1]
    if raw is None:
        assert nh.to_array(ours).tolist() == [1.0]
    else:
        with pytest.raises(ValueError, match="but float_data holds 1 values too"):
            nh.to_array(ours)


def test_sparse_tensor_stand_ins_are_not_values_or_indices() -> None:
    sparse = SparseTensorProto(dims=[3])
    assert sparse.values.name == "" and len(sparse.indices.dims) == 0  # reads
    assert not sparse.HasField("values") and not sparse.HasField("indices")
    with pytest.raises(ValueError, match="has no values tensor"):
        nh.to_array(sparse)
    sparse.values.CopyFrom(nh.from_array(np.zeros(0, dtype=np.float32), "v"))  # sets values
    assert sparse.HasField("values") and not sparse.HasField("indices")
    assert nh.to_array(sparse).tolist() == [0.0, 0.0, 0.0]  # NNZ 0: indices may be absent
    sparse.values.CopyFrom(nh.from_array(np.ones(1, dtype=np.float32), "v"))
    with pytest.raises(ValueError, match="1 values but no indices"):
        nh.to_array(sparse)


def test_to_optional_ignores_stand_ins_that_were_read() -> None:
    o = nh.from_optional([np.arange(2)])  # a SEQUENCE optional
    theirs = onnx.OptionalProto.FromString(o.encode())
    assert o.tensor_value.name == theirs.tensor_value.name == ""  # reads, sets nothing
    assert o.map_value.key_type == theirs.map_value.key_type == 0
    assert not o.HasField("tensor_value") and not o.HasField("map_value")
    got, expected = nh.to_optional(o), onh.to_optional(theirs)
    assert [a.tolist() for a in got] == [a.tolist() for a in expected] == [[0, 1]]
    o.tensor_value.name = "t"  # a write: now a second value field is set
    with pytest.raises(ValueError, match="has elem_type 3 but tensor_value is set"):
        nh.to_optional(o)


def test_to_optional_of_a_recursive_unset_value_ends() -> None:
    """``optional_value`` nests its own type: reading it by name never ends in
    None, so the bridge must stop at presence."""
    o = OptionalProto(elem_type=OptionalProto.OPTIONAL)
    assert o.optional_value.optional_value.optional_value.elem_type == 0  # stand-ins all down
    assert nh.to_optional(o) is None  # elem_type set, value unset (docs/numpy.md)
    assert not o.HasField("optional_value")
    assert o.encode() == onnx.OptionalProto(elem_type=5).SerializeToString()


def test_to_dict_of_a_map_whose_values_were_only_read() -> None:
    m = MapProto(key_type=TensorProto.INT64)
    assert m.values.elem_type == 0 and not m.HasField("values")
    assert nh.to_dict(m) == {}
    m.keys.append(1)
    with pytest.raises(ValueError, match="1 keys but no values"):
        nh.to_dict(m)


def test_to_list_reads_elem_type_as_onnx_does() -> None:
    """An unset elem_type reads 0 (UNDEFINED): onnx and onnxdata refuse it alike."""
    ours, theirs = SequenceProto(), onnx.SequenceProto()
    assert ours.elem_type == theirs.elem_type == 0 and not ours.HasField("elem_type")
    for module, sequence in ((nh, ours), (onh, theirs)):
        with pytest.raises(TypeError, match="not supported"):
            module.to_list(sequence)  # type: ignore[attr-defined]


def test_helpers_set_what_onnx_sets() -> None:
    """Presence of every field the helpers write is onnx's (the bytes follow)."""
    values = helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])
    indices = helper.make_tensor("i", TensorProto.INT64, [1], [0])
    pairs = [
        (helper.make_tensor("", TensorProto.FLOAT, [1], [1.0]),
         oh.make_tensor("", onnx.TensorProto.FLOAT, [1], [1.0])),
        (helper.make_sparse_tensor(values, indices, [2]),
         oh.make_sparse_tensor(onnx.TensorProto.FromString(values.encode()),
                               onnx.TensorProto.FromString(indices.encode()), [2])),
        (helper.make_optional("", OptionalProto.UNDEFINED, None),
         oh.make_optional("", onnx.OptionalProto.UNDEFINED, None)),
        (helper.make_sequence("", SequenceProto.TENSOR, []),
         oh.make_sequence("", onnx.SequenceProto.TENSOR, [])),
        (nh.from_optional(None), onh.from_optional(None)),
        (nh.from_list([]), onh.from_list([])),
    ]  # fmt: skip
    for ours, theirs in pairs:
        assert ours.encode() == theirs.SerializeToString()
        for fd in theirs.DESCRIPTOR.fields:
            if not fd.is_repeated:
                assert ours.HasField(fd.name) == theirs.HasField(fd.name), (ours, fd.name)


def test_from_array_fast_path_gives_a_plain_message() -> None:
    """The fast path writes slots directly: the message must still read, compare,
    convert on assignment and encode as one built through the properties."""
    a = np.arange(4, dtype=np.float32)
    nh.from_array(a)  # the dtype is remembered
    fast = nh.from_array(a, "n")
    slow = TensorProto(dims=[4], data_type=TensorProto.FLOAT, raw_data=a.tobytes(), name="n")
    assert fast == slow and repr(fast) == repr(slow) and fast.encode() == slow.encode()
    assert type(fast.dims) is type(slow.dims)
    fast.dims.append(2)  # its own container: the shape tuple's list, not shared
    assert fast.dims == [4, 2] and a.shape == (4,) and nh.from_array(a).dims == [4]
    assert onnxdata.TensorProto.decode(fast.encode()) == fast
