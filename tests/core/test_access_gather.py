"""``_core.access.gather`` (several fields as held, in one call) and ``FieldSpec.held``/``put``."""

from __future__ import annotations

import pytest

from onnxdata import NodeProto, OptionalProto, TensorProto
from onnxdata._core.access import CROWDED, gather
from onnxdata._core.schema import field, spec_of

_T = spec_of(TensorProto).named
_O = spec_of(OptionalProto).named


def test_gather_gives_each_field_as_held_without_making_anything() -> None:
    read = gather((_T.raw_data, _T.dims, _T.data_type, _T.segment))
    t = TensorProto.decode(TensorProto(raw_data=b"\x01", data_type=2).encode())
    assert read(t) == (b"\x01", None, 2, None)  # dims never made, segment unset
    assert t.HasField("raw_data") and not t.HasField("segment")
    t.dims.append(1)
    assert read(t)[1] == [1]
    (one,) = gather((_T.name,))(t)
    assert one is None  # unset: not its default ""


def test_gather_gives_crowded_when_a_field_that_must_be_empty_is_not() -> None:
    read = gather((_T.raw_data,), (_T.float_data, _T.segment))
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
    pick = gather((_O.elem_type, _O.tensor_value), (_O.sequence_value,))
    assert pick(o) == (OptionalProto.TENSOR, o.tensor_value)
    o.sequence_value.name = "s"
    assert pick(o) is CROWDED


def test_gather_refuses_a_field_both_read_and_tested_or_of_two_messages() -> None:
    with pytest.raises(ValueError, match="both read and tested empty"):
        gather((_T.float_data,), (_T.float_data,))
    with pytest.raises(ValueError, match="fields of one message"):
        gather((_T.name, spec_of(NodeProto).named.name))
    with pytest.raises(ValueError, match="fields of one message"):
        gather((_T.name,), (_O.sequence_value,))
    with pytest.raises(ValueError, match="fields of one message"):
        gather(())


def test_a_field_renamed_fails_where_it_is_named() -> None:
    """The point of naming fields as ``spec.named.<field>``: a stale name fails at once."""
    with pytest.raises(AttributeError, match="TensorProto has no field 'raw'"):
        _T.raw  # noqa: B018


def test_held_gives_the_slot_and_put_stores_it_as_held() -> None:
    t = TensorProto.decode(TensorProto(name="x").encode())
    assert _T.name.held(t) == "x"
    assert _T.dims.held(t) is None  # never made
    assert _T.segment.held(t) is None  # unset: no stand-in made
    copy = TensorProto()
    for f in spec_of(TensorProto).fields:
        f.put(copy, f.held(t))
    assert copy == t and _T.dims.held(copy) is None
    _T.name.put(copy, None)
    assert not copy.HasField("name")


def test_held_of_a_field_in_no_class_raises() -> None:
    loose = field(1, "int32", default=None)
    with pytest.raises(LookupError, match="in no message class"):
        loose.held(TensorProto())
