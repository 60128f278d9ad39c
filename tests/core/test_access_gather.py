"""``_core.access.gather``: several fields as held, in one call."""

from __future__ import annotations

import pytest

from onnxdata import OptionalProto, TensorProto
from onnxdata._core.access import CROWDED, gather


def test_gather_gives_each_field_as_held_without_making_anything() -> None:
    read = gather(TensorProto, ("raw_data", "dims", "data_type", "segment"))
    t = TensorProto.decode(TensorProto(raw_data=b"\x01", data_type=2).encode())
    assert read(t) == (b"\x01", None, 2, None)  # dims never made, segment unset
    assert t.HasField("raw_data") and not t.HasField("segment")
    t.dims.append(1)
    assert read(t)[1] == [1]
    (one,) = gather(TensorProto, ("name",))(t)
    assert one is None  # unset: not its default ""


def test_gather_gives_crowded_when_a_field_that_must_be_empty_is_not() -> None:
    read = gather(TensorProto, ("raw_data",), ("float_data", "segment"))
    t = TensorProto()
    assert read(t) == (None,)
    t.float_data  # made, empty: still empty  # noqa: B018
    assert read(t) == (None,)
    t.float_data.append(1.0)
    assert read(t) is CROWDED
    t.ClearField("float_data")
    t.segment.begin = 0  # a singular field: set is not empty
    assert read(t) is CROWDED
    o = OptionalProto(elem_type=OptionalProto.TENSOR, tensor_value=TensorProto(name="x"))
    pick = gather(OptionalProto, ("elem_type", "tensor_value"), ("sequence_value",))
    assert pick(o) == (OptionalProto.TENSOR, o.tensor_value)
    o.sequence_value.name = "s"
    assert pick(o) is CROWDED


def test_gather_refuses_a_field_both_read_and_tested_or_unknown() -> None:
    with pytest.raises(ValueError, match="both read and tested empty"):
        gather(TensorProto, ("float_data",), ("float_data",))
    with pytest.raises(KeyError):
        gather(TensorProto, ("no_such_field",))
    with pytest.raises(KeyError):
        gather(TensorProto, ("name",), ("no_such_field",))
