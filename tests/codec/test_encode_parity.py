"""Contract 3: a message built from valid values encodes exactly as the oracle
serializes the same values, and decodes back to an equal message."""

from __future__ import annotations

from array import array
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onnxdata import TensorProto
from tests.support.message_strategies import (
    HEAVY,
    MESSAGE_TYPES,
    any_message,
    any_of_all,
    examples,
    messages_of,
    scaled,
)
from tests.support.numpy_support import SNAN32
from tests.support.oracle import (
    MODEL_MESSAGE_TYPES,
    VARINT_PATHS,
    assert_same,
    to_oracle,
    varint_path,
)


def _check(m: Any, path: str = "default") -> None:
    with varint_path(path):
        _check_one(m)


def _check_one(m: Any) -> None:
    o = to_oracle(m)
    expected = o.SerializeToString()
    data = m.encode()
    assert type(data) is bytes
    assert data == expected
    assert m.SerializeToString() == data
    back = type(m).decode(data)
    assert back == m
    assert back.encode() == data
    # The decoded message holds what the oracle holds, field by field.
    assert_same(back, o)


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__qualname__)
@settings(max_examples=scaled(0.6))
@given(data=st.data())
def test_encode_matches_oracle(cls: type, data: st.DataObject) -> None:
    _draw_and_check(cls, data)


def _draw_and_check(cls: type, data: st.DataObject) -> None:
    m = data.draw(messages_of(cls), label="message")
    # packed varints: pure Python, or numpy (vectorised), or whatever is loaded
    _check(m, data.draw(st.sampled_from(VARINT_PATHS), label="varint path"))


_LIGHT = [c for c in MODEL_MESSAGE_TYPES if c not in HEAVY]


@pytest.mark.parametrize("cls", _LIGHT, ids=lambda c: c.__qualname__)
@settings(max_examples=examples(0.3))
@given(data=st.data())
def test_model_messages_encode_as_oracle(cls: type, data: st.DataObject) -> None:
    _draw_and_check(cls, data)


@pytest.mark.parametrize("cls", sorted(HEAVY, key=lambda c: c.__name__), ids=lambda c: c.__name__)
@settings(max_examples=examples(0.6, heavy=True))
@given(data=st.data())
def test_graphs_nodes_and_attributes_encode_as_oracle(cls: type, data: st.DataObject) -> None:
    _draw_and_check(cls, data)


@settings(max_examples=examples(0.4, heavy=True))
@given(m=any_of_all())
def test_any_message_of_onnx_ml_encodes_as_oracle(m: Any) -> None:
    _check(m)


@settings(max_examples=scaled(0.6))
@given(m=any_message(max_leaves=16))
def test_encode_matches_oracle_deeply_nested(m: Any) -> None:
    _check(m)


@settings(max_examples=scaled(0.4))
@given(m=any_message())
def test_from_string_and_serialize_aliases(m: Any) -> None:
    data = m.SerializeToString()
    assert type(m).FromString(data) == m
    assert type(m).FromString(data).encode() == data


def test_float_fields_encode_from_buffers_bit_for_bit() -> None:
    # A memoryview of a native float32/float64 numpy array (or a copy=False
    # view) is written as it is: no float round trip, a signalling NaN kept.
    f32 = np.frombuffer(SNAN32 + np.float32(2).tobytes(), dtype=np.float32)
    f64 = np.array([1.5, -0.0])
    t = TensorProto(float_data=memoryview(f32), double_data=memoryview(f64))  # type: ignore[arg-type]
    expected = TensorProto(float_data=array("f", f32.tobytes()), double_data=array("d", f64))
    assert t.encode() == expected.encode()
    assert t == expected
    # another type is converted value by value, as before
    wider = memoryview(np.array([1.5], dtype=np.float64))
    assert TensorProto(float_data=wider).encode() == TensorProto(float_data=[1.5]).encode()  # type: ignore[arg-type]
