"""``helper.make_attribute``, ``make_attribute_ref``, ``get_attribute_value``,
``get_node_attr_value`` against onnx 1.23.2's: the same bytes, the same values,
the same exception classes (and messages where onnx writes them itself)."""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from tests.support.message_strategies import scaled
from tests.support.outcomes import outcome

A = onnx.AttributeProto


def _serialized(result: Any) -> Any:
    """A message by its bytes, anything else as it is."""
    if hasattr(result, "SerializeToString"):
        return result.SerializeToString()
    return result


def _same(build: Callable[[ModuleType, ModuleType], Any], *, message: bool = False) -> Any:
    """Run ``build(onnx, helper)`` with each package; the outcomes must be equal (the
    exception's text too with ``message``: where onnx writes it, not protobuf)."""
    theirs = outcome(lambda: build(onnx, onnx.helper), value=_serialized)
    ours = outcome(lambda: build(onnxdata, onnxdata.helper), value=_serialized)
    if not message and theirs[0] == ours[0] == "raised":
        assert ours[1][0] == theirs[1][0], (ours, theirs)
    else:
        assert ours == theirs
    return ours


def _t(m: ModuleType, h: ModuleType) -> Any:
    return h.make_tensor("t", m.TensorProto.FLOAT, [2], [1.0, 2.5])


def _g(m: ModuleType, h: ModuleType) -> Any:
    node = h.make_node("Relu", ["x"], ["y"])
    return h.make_graph([node], "body", [], [])


def _tp(m: ModuleType, h: ModuleType) -> Any:
    return h.make_tensor_type_proto(m.TensorProto.INT64, ["N", 2])


def _sp(m: ModuleType, h: ModuleType) -> Any:
    values = h.make_tensor("v", m.TensorProto.FLOAT, [1], [3.0])
    indices = h.make_tensor("i", m.TensorProto.INT64, [1], [0])
    return h.make_sparse_tensor(values, indices, [4])


VALUES: list[Callable[[ModuleType, ModuleType], Any]] = [
    lambda m, h: 3,
    lambda m, h: True,
    lambda m, h: -(2**63),
    lambda m, h: 2**63,
    lambda m, h: np.int64(7),
    lambda m, h: np.uint8(200),
    lambda m, h: 0.1,
    lambda m, h: 1e300,
    lambda m, h: np.float32(0.3),
    lambda m, h: math.nan,
    lambda m, h: "text",
    lambda m, h: "ünï",
    lambda m, h: b"\xff\x00",
    lambda m, h: 1 + 2j,
    lambda m, h: None,
    lambda m, h: np.bool_(True),
    lambda m, h: [1, 2, 3],
    lambda m, h: (1, 2.5),
    lambda m, h: [True, 2],
    lambda m, h: np.array([1.5, 2.5], dtype=np.float32),
    lambda m, h: np.array([1, 2]),
    lambda m, h: ["a", b"b"],
    lambda m, h: ["a", 1],
    lambda m, h: [],
    lambda m, h: {"k": 1},
    lambda m, h: range(3),
    _t,
    _g,
    _tp,
    _sp,
    lambda m, h: [_t(m, h), _t(m, h)],
    lambda m, h: [_g(m, h)],
    lambda m, h: [_tp(m, h), _tp(m, h)],
    lambda m, h: [_sp(m, h)],
    lambda m, h: [_t(m, h), _g(m, h)],
    lambda m, h: h.make_node("Relu", ["x"], ["y"]),
]


@pytest.mark.parametrize("value", VALUES)
def test_make_attribute_infers_the_kind(value: Callable[..., Any]) -> None:
    _same(lambda m, h: h.make_attribute("a", value(m, h), doc_string="d"), message=True)


KINDS = [None, *A.AttributeType.values(), 99]


@pytest.mark.parametrize("attr_type", KINDS)
@pytest.mark.parametrize("value", [VALUES[0], VALUES[6], VALUES[10], VALUES[16], VALUES[23],
                                   VALUES[19], VALUES[21], _t, VALUES[30]])  # fmt: skip
def test_make_attribute_with_a_kind(attr_type: int | None, value: Callable[..., Any]) -> None:
    _same(lambda m, h: h.make_attribute("a", value(m, h), attr_type=attr_type))


def test_make_attribute_keeps_a_float_as_float32() -> None:
    ours = onnxdata.helper.make_attribute("a", 0.1)
    assert ours.f == onnx.helper.make_attribute("a", 0.1).f == np.float32(0.1)


def test_make_attribute_copies_messages() -> None:
    t = onnxdata.helper.make_tensor("t", onnxdata.TensorProto.FLOAT, [1], [1.0])
    attr = onnxdata.helper.make_attribute("a", t)
    t.name = "changed"
    assert attr.t.name == "t"


def test_make_attribute_takes_onnx_messages() -> None:
    theirs = onnx.helper.make_attribute("a", [_t(onnx, onnx.helper)])
    ours = onnxdata.helper.make_attribute("a", [_t(onnx, onnx.helper)])
    assert ours.SerializeToString() == theirs.SerializeToString()


@pytest.mark.parametrize(
    "args",
    [("x", A.FLOAT), ("x", A.FLOAT, "doc"), ("x", A.GRAPH, None, "outer"), ("x", 99),
     ("", A.INT), ("x", A.INT, None, ""), (1, A.INT), ("x", 1.0), ("x", True)],
)  # fmt: skip
def test_make_attribute_ref(args: tuple[Any, ...]) -> None:
    name, kind, *rest = args
    doc = rest[0] if rest else None
    ref = {"ref_attr_name": rest[1]} if len(rest) > 1 else {}
    _same(lambda m, h: h.make_attribute_ref(name, kind, doc, **ref))


def _attribute_values(m: ModuleType, h: ModuleType) -> list[Any]:
    found = []
    for value in VALUES:
        try:
            attr = h.make_attribute("a", value(m, h))
        except (TypeError, ValueError):
            continue
        got = h.get_attribute_value(attr)
        items = got if isinstance(got, list) else [got]
        found.append([i.SerializeToString() if hasattr(i, "SerializeToString") else i
                      for i in items])  # fmt: skip
    return found


def test_get_attribute_value_of_every_kind() -> None:
    theirs = _attribute_values(onnx, onnx.helper)
    ours = _attribute_values(onnxdata, onnxdata.helper)
    assert len(ours) > 20 and repr(ours) == repr(theirs)  # nan compares by its repr


@pytest.mark.parametrize(
    "build",
    [
        lambda m, h: h.get_attribute_value(h.make_attribute_ref("a", m.AttributeProto.INT)),
        lambda m, h: h.get_attribute_value(m.AttributeProto(name="u")),
        lambda m, h: h.get_attribute_value(m.AttributeProto(name="i", i=3)),  # UNDEFINED: None
        lambda m, h: h.get_node_attr_value(h.make_node("A", [], [], k=[1, 2]), "k"),
        lambda m, h: h.get_node_attr_value(h.make_node("A", [], [], k=1), "z"),
        lambda m, h: h.get_node_attr_value(
            m.NodeProto(attribute=[h.make_attribute("k", 1), h.make_attribute("k", 2)]), "k"
        ),
    ],
)
def test_get_attribute_value_errors(build: Callable[..., Any]) -> None:
    _same(build, message=True)


def test_get_attribute_value_of_an_unknown_type() -> None:
    def build(m: ModuleType, h: ModuleType) -> Any:
        attr = m.AttributeProto.FromString(b"\xa0\x01\x63")  # type = 99, as an unknown field
        attr.name = "x"
        return h.get_attribute_value(attr)

    _same(build, message=True)


@given(
    st.one_of(
        st.integers(min_value=-(2**64), max_value=2**64),
        st.floats(allow_nan=False),
        st.text(max_size=5),
        st.binary(max_size=5),
        st.lists(st.integers(min_value=-(2**63), max_value=2**63), max_size=4),
        st.lists(st.floats(allow_nan=False, width=32), max_size=4),
        st.lists(st.one_of(st.text(max_size=3), st.binary(max_size=3)), max_size=4),
        st.lists(st.one_of(st.integers(-5, 5), st.floats(-5, 5), st.text(max_size=2)),
                 max_size=3),
    ),
    st.sampled_from(KINDS),
)  # fmt: skip
@settings(max_examples=scaled(0.2))
def test_make_attribute_on_generated_values(value: Any, attr_type: int | None) -> None:
    _same(lambda m, h: h.make_attribute("a", value, attr_type=attr_type))
