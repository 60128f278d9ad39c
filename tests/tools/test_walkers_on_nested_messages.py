"""Every walker reads presence from the slots, so nested and recursive messages end.

Reading an unset sub-message by name gives an empty stand-in, and a stand-in's
own ``optional_value`` another, forever: a walker that recursed through the
names would never end on an ``OptionalProto``.  The walkers of the validator,
``onnx.checker``'s rules, type detection, external data and ``show`` visit the
sub-messages that are set, and only those: deep chains are walked to their
end, and reading a message does not set any of its fields.
"""

from __future__ import annotations

from typing import Any

import pytest

from onnxdata import (
    MapProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    TensorProto,
    check,
    checker,
    external_data_helper,
)
from onnxdata._io.formats import registry
from onnxdata._io.type_detection import misfit
from onnxdata._tools.show import outline

TENSOR = TensorProto(name="t", dims=[1], data_type=TensorProto.FLOAT, float_data=[1.0])


def optional_chain(depth: int, leaf: OptionalProto | None = None) -> OptionalProto:
    """``depth`` optionals, each holding the next, the last holding ``leaf`` or nothing."""
    o = leaf if leaf is not None else OptionalProto(elem_type=OptionalProto.OPTIONAL)
    for _ in range(depth):
        o = OptionalProto(elem_type=OptionalProto.OPTIONAL, optional_value=o)
    return o


def sequence_chain(depth: int) -> SequenceProto:
    """Sequences of maps of sequences ..., a tensor at the bottom."""
    s = SequenceProto(elem_type=SequenceProto.TENSOR, tensor_values=[TENSOR])
    for _ in range(depth):
        m = MapProto(key_type=TensorProto.INT64, keys=[1], values=s)
        s = SequenceProto(elem_type=SequenceProto.MAP, map_values=[m])
    return s


def unchanged(message: Any) -> bytes:
    return bytes(message.encode())


EMPTY = [
    OptionalProto(),
    OptionalProto(elem_type=OptionalProto.OPTIONAL),
    SequenceProto(),
    MapProto(),
    SparseTensorProto(),
    TensorProto(),
]


@pytest.mark.parametrize("message", EMPTY, ids=lambda m: type(m).__name__)
def test_walkers_end_on_empty_messages_and_set_nothing(message: Any) -> None:
    before = unchanged(message)
    assert list(external_data_helper.get_all_tensors(message)) == (
        [message] if isinstance(message, TensorProto) else []
    )
    check(message)
    assert misfit(message) == 0
    outline(message)
    assert unchanged(message) == before
    for f in type(message)._SPEC.fields:
        if f.kind == "message" and not f.repeated:
            assert not message.HasField(f.name)


def test_checker_rules_read_presence_not_defaults() -> None:
    # onnx's checker: a missing field is "required but missing", one set to
    # its default value is not missing.
    with pytest.raises(checker.ValidationError, match="'values' of 'map' is required"):
        checker.check_map(MapProto(key_type=TensorProto.INT64))
    checker.check_map(MapProto(key_type=TensorProto.INT64, values=SequenceProto(elem_type=1)))
    with pytest.raises(checker.ValidationError, match="'elem_type' of 'optional' is required"):
        checker.check_optional(OptionalProto())
    checker.check_optional(OptionalProto(elem_type=0))


@pytest.mark.parametrize("depth", [1, 50, 99])
def test_a_deep_chain_of_optionals_is_walked_to_its_end(depth: int) -> None:
    leaf = OptionalProto(elem_type=OptionalProto.TENSOR, tensor_value=TENSOR)
    o = optional_chain(depth, leaf)
    before = unchanged(o)
    assert [t.name for t in external_data_helper.get_all_tensors(o)] == ["t"]
    assert check(o) == []
    with pytest.raises(checker.ValidationError) as err:
        checker.check_optional(o)
    # onnx's checker refuses an optional of an optional: once per level, none below
    assert len(err.value.violations) == depth
    assert misfit(o) == 0
    lines = outline(o)
    assert sum("optional_value" in line for line in lines) == depth
    decoded = OptionalProto.decode(before)
    assert decoded == o and misfit(decoded) == 0
    assert unchanged(o) == before


def test_too_deep_a_chain_is_reported_not_walked_forever() -> None:
    o = optional_chain(150)
    found = check(o)
    assert [v.message for v in found if "nested more than" in v.message]
    with pytest.raises(checker.ValidationError, match="nested more than 100 deep"):
        checker.check_optional(o)
    assert list(external_data_helper.get_all_tensors(o)) == []


def test_a_message_that_contains_itself_is_reported() -> None:
    o = OptionalProto(elem_type=OptionalProto.OPTIONAL)
    o.optional_value = o
    assert any("cycle" in v.message for v in check(o))
    with pytest.raises(checker.ValidationError, match="cycle"):
        checker.check_optional(o)


def test_nested_sequences_and_maps_are_walked_through() -> None:
    s = sequence_chain(30)
    before = unchanged(s)
    assert [t.name for t in external_data_helper.get_all_tensors(s)] == ["t"]
    assert check(s) == []
    checker.check_sequence(s)
    assert misfit(s) == 0
    assert unchanged(s) == before


def test_external_data_of_tensors_deep_inside_goes_out_and_back(tmp_path: Any) -> None:
    leaf = OptionalProto(
        elem_type=OptionalProto.TENSOR,
        tensor_value=TensorProto(name="w", dims=[4], data_type=TensorProto.UINT8,
                                 raw_data=b"\x01\x02\x03\x04"),
    )  # fmt: skip
    o = optional_chain(60, leaf)
    external_data_helper.convert_tensors_to_external_data(o, location="d.bin", size_threshold=0)
    external_data_helper.write_external_data_tensors(o, str(tmp_path))
    (t,) = external_data_helper.get_all_tensors(o)
    assert not t.HasField("raw_data") and t.data_location == TensorProto.EXTERNAL
    assert (tmp_path / "d.bin").read_bytes() == b"\x01\x02\x03\x04"
    external_data_helper.load_external_data_for_tensors(o, str(tmp_path))
    (t,) = external_data_helper.get_all_tensors(o)
    assert t.raw_data == b"\x01\x02\x03\x04" and t.data_location == TensorProto.DEFAULT


def test_sparse_tensor_parts_are_found_only_when_set() -> None:
    s = SparseTensorProto(values=TENSOR, dims=[3])
    assert [t.name for t in external_data_helper.get_all_tensors(s)] == ["t"]
    assert not s.HasField("indices")


@pytest.mark.parametrize("fmt", ["protobuf"])
def test_deserializing_into_a_message_keeps_unset_fields_unset(fmt: str) -> None:
    source = OptionalProto(elem_type=OptionalProto.TENSOR, tensor_value=TensorProto(name="x"))
    target = registry.get(fmt).deserialize_proto(source.encode(), OptionalProto())
    assert target == source
    assert target.tensor_value.HasField("name")
    assert not target.tensor_value.HasField("data_type")
    assert not target.HasField("optional_value")
