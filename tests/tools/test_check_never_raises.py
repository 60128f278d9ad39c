"""check() reports every bad value as a Violation and never raises for one.

Whatever a field holds (the wrong type, a value out of range, a string that
is not UTF-8, a list of lists, a message of the wrong class, a numpy array of
the wrong shape), check() returns violations; and whenever the encoder
refuses a message, check() has reported something, at the field to blame.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from onnxdata import TensorProto, Violation, check
from onnxdata._core.schema import MESSAGE, spec_of
from onnxdata._messages.declarations import MESSAGE_TYPES

FIELDS = [(cls, f.name) for cls in MESSAGE_TYPES for f in spec_of(cls).fields]
FIELDS.append((TensorProto, "unknown_fields"))


class Odd:
    """An object no field takes, with a repr that works."""


def wrong_values() -> list[Any]:
    """Values that are wrong for most fields; each is right for some."""
    return [
        Odd(),
        "text",
        "\ud800",  # a lone surrogate: not UTF-8
        b"bytes",
        bytearray(b"xy"),
        1.5,
        math.nan,
        True,
        -1,
        2**31,
        2**64,
        -(2**70),
        [None],
        [[1, 2]],
        [1.5],
        ["a"],
        [b"a", 1],
        [2**64],
        [True],
        [Odd()],
        {"a": 1},
        np.zeros((2, 2), dtype=np.int64),
        np.array([1.5, 2.5]),
        np.array(["a"]),
        np.float32(1.0),
        np.int64(3),
        TensorProto(),
        TensorProto.Segment(),
        [TensorProto()],
        [TensorProto.Segment()],
        b"\xff",  # as unknown_fields: not well-formed
        b"\x10\x01",  # as unknown_fields of a TensorProto: its data_type
    ]


def blamed(found: list[Violation], cls: type, name: str) -> bool:
    where = f"{spec_of(cls).name}.{name}"
    return any(v.path == where or v.path.startswith((where + ".", where + "[")) for v in found)


@pytest.mark.parametrize(("cls", "name"), FIELDS, ids=[f"{c.__qualname__}.{n}" for c, n in FIELDS])
def test_every_wrong_value_in_every_field(cls: type, name: str) -> None:
    for value in wrong_values():
        message = cls()
        setattr(message, name, value)
        found = check(message)
        assert isinstance(found, list)
        assert all(isinstance(v, Violation) for v in found)
        try:
            message.encode()
        except (TypeError, ValueError, OverflowError) as exc:
            assert blamed(found, cls, name), (name, value, exc, [str(v) for v in found])


def test_the_reported_examples() -> None:
    assert [str(v) for v in check(TensorProto(dims=[None]))] == [  # type: ignore[list-item]
        "TensorProto.dims[0]: expected an integer, found NoneType"
    ]
    assert [str(v) for v in check(TensorProto(raw_data=5))] == [  # type: ignore[arg-type]
        "TensorProto.raw_data: expected bytes, found int"
    ]
    from onnxdata import MapProto

    assert [str(v) for v in check(MapProto(keys=["a"]))] == [  # type: ignore[list-item]
        "MapProto.keys[0]: expected an integer, found str"
    ]
    two_d = TensorProto(dims=np.zeros((2, 2), dtype=np.int64))  # type: ignore[arg-type]
    assert [v.path for v in check(two_d)] == ["TensorProto.dims[0]"]


def test_numpy_integers_and_buffers_are_right_values() -> None:
    t = TensorProto(
        dims=np.array([2, 3]),  # type: ignore[arg-type]
        data_type=np.int32(1),  # type: ignore[arg-type]
        float_data=np.arange(6, dtype=np.float32),  # type: ignore[arg-type]
    )
    assert check(t) == []
    assert check(TensorProto.decode(t.encode(), copy=False)) == []


def test_a_deleted_slot_is_a_violation() -> None:
    # A field's value lives in its slot; ``del t.dims`` unsets the field, but
    # deleting the slot itself leaves nothing to read: reported, not raised.
    t = TensorProto(dims=[1], data_type=1, float_data=[1.0])
    del t._dims
    assert [str(v) for v in check(t)] == [
        "TensorProto.dims: has no value (its attribute was deleted)"
    ]
    t = TensorProto(dims=[1], data_type=1, float_data=[1.0])
    del t.dims  # unsets the field: a scalar of one value is valid
    assert not t.dims
    assert check(t) == []


# -- anything at all, nested ----------------------------------------------------

ANY_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(max_size=3),
    st.binary(max_size=3),
    st.builds(Odd),
)
ANY_LIST = st.lists(ANY_SCALAR, max_size=3)


@st.composite
def anything_messages(draw: Any, depth: int = 2) -> Any:
    """A message of any class whose fields hold anything: right values, wrong
    values, lists of either, and messages of any class, nested."""
    cls = draw(st.sampled_from(MESSAGE_TYPES))
    message = cls()
    for f in spec_of(cls).fields:
        choice = draw(st.integers(0, 5))
        if choice == 0:
            continue  # the default
        if choice in (1, 2) and depth > 0:
            sub = draw(anything_messages(depth=depth - 1))
            value: Any = [sub] if f.repeated and choice == 1 else sub
        elif choice == 3:
            value = draw(ANY_LIST)
        else:
            value = draw(ANY_SCALAR)
        if value is None and not f.repeated and f.kind != MESSAGE:
            message.ClearField(f.name)  # protobuf's rule: None is no value for a scalar
        else:
            setattr(message, f.name, value)
    return message


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(anything_messages())
def test_check_never_raises_and_covers_what_encode_refuses(message: Any) -> None:
    found = check(message)
    assert all(isinstance(v, Violation) for v in found)
    try:
        message.encode()
    except (TypeError, ValueError, OverflowError) as exc:
        assert found, f"encode refused ({exc}) but check() found nothing"
