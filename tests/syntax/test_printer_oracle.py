"""``onnxdata.printer`` gives onnx 1.23.2's text, character for character.

Differential, with ``onnx.printer.to_text`` (onnx's C++ printer) as the oracle: every
node-test model onnx's test cases build, every ``.onnx`` model in the onnx package,
hypothesis-drawn models, graphs, nodes and functions (any field values, invalid ones
included), tensors of every data type in every field onnx reads (raw and typed, sizes
right and wrong), the numbers whose C++ ``to_chars`` form is the hard part (float32 and
double: subnormals, infinities, NaNs of both signs, ``-0.0``, powers of two, integers
past 2**24), and attributes and value infos printed alone against the same text inside
a node or a graph.  Failures are compared too: the same error with the same message.
"""

from __future__ import annotations

import math
import pathlib
import struct
from collections.abc import Callable
from typing import Any, Literal

import onnx
import onnx.printer
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import printer
from onnxdata import strategies as ods
from tests.support.message_strategies import scaled

ONNX_ROOT = pathlib.Path(onnx.__file__).parent
PACKAGE_MODELS = sorted(ONNX_ROOT.glob("backend/test/data/**/*.onnx"))
SUPPRESSED = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def outcome(to_text: Callable[[Any], str], proto: Any) -> tuple[str, str]:
    """What printing ``proto`` gives: ``("text", ...)`` or the failure, onnx's
    ``InferenceError`` and our ``PrinterError`` counted as one kind."""
    try:
        return "text", to_text(proto)
    except UnicodeDecodeError as err:
        return "utf-8", str(err)
    except printer.PrinterError as err:
        return "inference", str(err)
    except Exception as err:
        if type(err).__name__ == "InferenceError":
            return "inference", str(err)
        raise


def both(ours: onnxdata.Message) -> tuple[tuple[str, str], tuple[str, str]]:
    """Our printing of ``ours`` and onnx's printing of the same bytes."""
    theirs = getattr(onnx, type(ours).__name__).FromString(ours.encode())
    return outcome(printer.to_text, ours), outcome(onnx.printer.to_text, theirs)


def test_every_node_test_model_prints_as_onnx_prints_it(
    node_models: list[tuple[str, bytes]],
) -> None:
    assert len(node_models) > 1800
    differ = []
    for name, data in node_models:
        ours = outcome(printer.to_text, onnxdata.ModelProto.decode(data))
        theirs = outcome(onnx.printer.to_text, onnx.ModelProto.FromString(data))
        if ours != theirs:
            differ.append(name)
    assert differ == []


def test_every_package_model_prints_as_onnx_prints_it() -> None:
    assert len(PACKAGE_MODELS) > 100
    differ = []
    for path in PACKAGE_MODELS:
        data = path.read_bytes()
        ours = outcome(printer.to_text, onnxdata.ModelProto.decode(data))
        theirs = outcome(onnx.printer.to_text, onnx.ModelProto.FromString(data))
        if ours != theirs:
            differ.append(path.name)
    assert differ == []


@pytest.mark.parametrize(
    "cls", [onnxdata.ModelProto, onnxdata.GraphProto, onnxdata.NodeProto, onnxdata.FunctionProto]
)
@settings(max_examples=scaled(0.25), deadline=None, suppress_health_check=SUPPRESSED)
@given(data=st.data())
def test_any_message_prints_as_onnx_prints_it(cls: type[onnxdata.Message], data: Any) -> None:
    """Messages drawn from the schema: every field, any value (raw_data of the wrong size,
    strings that are not UTF-8, unknown enum values, empty names, absent types)."""
    ours, theirs = both(data.draw(ods.of(cls)))
    assert ours == theirs


@settings(max_examples=scaled(0.25), deadline=None, suppress_health_check=SUPPRESSED)
@given(ods.models(max_depth=3))
def test_exporter_like_models_print_as_onnx_prints_them(model: onnxdata.ModelProto) -> None:
    ours, theirs = both(model)
    assert ours == theirs


# -- tensors -------------------------------------------------------------------------

F32 = struct.Struct("<f")


def float32(value: float) -> float:
    try:
        rounded: float = F32.unpack(F32.pack(value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)
    return rounded


EDGE_FLOATS = [
    0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 1e-7, 0.1, 1e-4, 1e-3, 100.0,
    1e16, 1e20, 123456792.0, 16777216.0, 16777217.0, 67108864.0, 3.4028234663852886e38,
    1.401298464324817e-45, 1.1754943508222875e-38, 1.1754942106924411e-38, 2.0**-126,
    2.0**-127, 2.0**100, 5e-324, 1.7976931348623157e308, 2.2250738585072014e-308,
    123456789012345678.0, 1e23, 0.30000000000000004, 9007199254740993.0,
]  # fmt: skip


def floats(width: Literal[32, 64]) -> st.SearchStrategy[float]:
    """Floats of ``width`` bits, edge values often, NaNs of both signs included."""
    edges = st.sampled_from([float32(v) if width == 32 else v for v in EDGE_FLOATS])
    drawn = st.floats(width=width, allow_nan=True, allow_infinity=True, allow_subnormal=True)
    bits = st.integers(0, 2**width - 1).map(
        lambda b: struct.unpack("<f" if width == 32 else "<d", b.to_bytes(width // 8, "little"))[0]
    )
    return st.one_of(edges, drawn, bits)


@st.composite
def tensors(draw: st.DrawFn) -> onnxdata.TensorProto:
    """A tensor of any data type (and some that are none), its values in the field onnx
    reads, in raw_data (of the right size mostly), or external."""
    data_type = draw(st.one_of(st.integers(0, 28), st.sampled_from([29, 100, -1])))
    dims = draw(st.lists(st.integers(0, 3), max_size=3))
    count = math.prod(dims)
    tensor = onnxdata.TensorProto(data_type=data_type, dims=dims)
    if draw(st.booleans()):
        tensor.name = draw(st.sampled_from(["w", "", "a b", "_x1", "é", '"q"\\']))
    how = draw(st.sampled_from(["typed", "raw", "raw", "external"]))
    if how == "raw":
        width = {1: 4, 11: 8, 7: 8, 13: 8, 6: 4, 12: 4, 5: 2, 4: 2, 10: 2, 16: 2}.get(data_type, 1)
        size = count * width if draw(st.integers(0, 9)) else draw(st.integers(0, 20))
        tensor.raw_data = draw(st.binary(min_size=size, max_size=size))
    elif how == "external":
        tensor.data_location = onnxdata.TensorProto.EXTERNAL
        location = draw(st.sampled_from(["w.bin", 'a"b']))
        tensor.external_data.extend(
            [
                onnxdata.StringStringEntryProto(key="location", value=location),
                onnxdata.StringStringEntryProto(key="offset", value="0"),
            ]
        )
    else:
        n = st.integers(0, 6)
        tensor.float_data.extend(draw(st.lists(floats(32), max_size=6)))
        tensor.double_data.extend(draw(st.lists(floats(64), max_size=6)))
        tensor.int32_data.extend(draw(st.lists(st.integers(-(2**31), 2**31 - 1), max_size=6)))
        tensor.int64_data.extend(draw(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=6)))
        tensor.uint64_data.extend(draw(st.lists(st.integers(0, 2**64 - 1), max_size=6)))
        tensor.string_data.extend(draw(st.lists(st.binary(max_size=4), max_size=draw(n))))
    return tensor


@settings(max_examples=scaled(1.0), deadline=None, suppress_health_check=SUPPRESSED)
@given(tensors(), st.booleans())
def test_tensors_print_as_onnx_prints_them(tensor: onnxdata.TensorProto, init: bool) -> None:
    """As an attribute's value, and as a graph's initializer (``name = `` then the values)."""
    if init:
        message: onnxdata.Message = onnxdata.GraphProto(name="g", initializer=[tensor])
    else:
        attr = onnxdata.AttributeProto(name="value", type=onnxdata.AttributeProto.TENSOR, t=tensor)
        message = onnxdata.NodeProto(op_type="Constant", output=["y"], attribute=[attr])
    ours, theirs = both(message)
    assert ours == theirs


@settings(max_examples=scaled(1.0), deadline=None, suppress_health_check=SUPPRESSED)
@given(st.lists(floats(32), max_size=8), st.lists(floats(64), max_size=8))
def test_numbers_print_as_cxx_to_chars_writes_them(
    singles: list[float], doubles: list[float]
) -> None:
    """float32 in a ``floats`` attribute and ``f``; doubles in a tensor's ``double_data``."""
    make = onnxdata.helper
    node = make.make_node("N", [], ["y"], f=singles[0] if singles else 0.5)
    if singles:
        node.attribute.append(make.make_attribute("fs", singles))
    node.attribute.append(
        make.make_attribute(
            "d", make.make_tensor("", onnxdata.TensorProto.DOUBLE, [len(doubles)], doubles)
        )
    )
    ours, theirs = both(node)
    assert ours == theirs


def test_shortest_float32_digits_in_every_binade() -> None:
    """Every power of two (where the rounding interval is narrower below: the closest
    decimal of a length may miss while a farther one fits) and its neighbours."""
    values = []
    for exponent in range(0, 255):
        for mantissa in (0, 1, 2, 0x7FFFFF, 0x400000):
            values.append(F32.unpack(struct.pack("<I", (exponent << 23) | mantissa))[0])
    node = onnxdata.helper.make_node("N", [], [], fs=[v for v in values if not math.isinf(v)])
    ours, theirs = both(node)
    assert ours == theirs


# -- pieces printed alone ------------------------------------------------------------


@settings(max_examples=scaled(0.25), deadline=None, suppress_health_check=SUPPRESSED)
@given(ods.attributes(max_depth=2))
def test_an_attribute_alone_prints_as_in_its_node(attr: onnxdata.AttributeProto) -> None:
    """onnx's Python prints no attribute alone; its C++ prints one as in a node's list."""
    node = onnxdata.NodeProto(op_type="X", attribute=[attr])
    kind, text = outcome(onnx.printer.to_text, onnx.NodeProto.FromString(node.encode()))
    ours = outcome(printer.attribute_to_text, attr)
    if kind != "text":
        assert ours[0] == kind
        return
    nested = attr.HasField("g") or len(attr.graphs) > 0
    head, tail = ("    = X () <", ">\n") if nested else ("    = X <", "> ()\n")
    assert text.startswith(head) and text.endswith(tail)
    assert ours == ("text", text[len(head) : -len(tail)])


@settings(max_examples=scaled(0.25), deadline=None, suppress_health_check=SUPPRESSED)
@given(ods.of(onnxdata.ValueInfoProto))
def test_a_value_info_alone_prints_as_in_its_graph(value_info: onnxdata.ValueInfoProto) -> None:
    graph = onnxdata.GraphProto(name="g", input=[value_info])
    kind, text = outcome(onnx.printer.to_text, onnx.GraphProto.FromString(graph.encode()))
    ours = outcome(printer.value_info_to_text, value_info)
    if kind != "text":
        assert ours[0] == kind
        return
    assert text.startswith("g (") and text.endswith(") => () {\n}")
    assert ours == ("text", text[3 : -len(") => () {\n}")])


# -- the function's contract ---------------------------------------------------------


@pytest.mark.parametrize(
    "value", [onnxdata.AttributeProto(), onnxdata.ValueInfoProto(), onnxdata.TensorProto(), 3]
)
def test_to_text_refuses_what_onnx_refuses(value: Any) -> None:
    with pytest.raises(TypeError, match="Unsupported argument type"):
        printer.to_text(value)
    theirs = getattr(onnx, type(value).__name__, None)
    if theirs is not None:
        with pytest.raises(TypeError, match="Unsupported argument type"):
            onnx.printer.to_text(theirs())


def test_onnx_messages_are_printed_through_their_bytes() -> None:
    model = onnx.helper.make_model(
        onnx.helper.make_graph(
            [onnx.helper.make_node("Relu", ["x"], ["y"], name="r")], "g",
            [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", None, 3])],
            [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
        )
    )  # fmt: skip
    assert printer.to_text(model) == onnx.printer.to_text(model)
    assert printer.to_text(model.graph.node[0]) == onnx.printer.to_text(model.graph.node[0])
    assert printer.value_info_to_text(model.graph.input[0]) == "float[N,?,3] x"


def test_the_size_mismatch_message_is_onnxs() -> None:
    tensor = onnxdata.TensorProto(name="w", data_type=1, dims=[3], raw_data=b"\0" * 8)
    graph = onnxdata.GraphProto(name="g", initializer=[tensor])
    ours, theirs = both(graph)
    assert (
        ours
        == theirs
        == (
            "inference",
            "[ShapeInferenceError] Data size mismatch. Tensor: w has 8 bytes of raw_data for 3 "
            "elements of size 4",
        )
    )


def test_a_string_that_is_not_utf8_fails_where_onnxs_does() -> None:
    attr = onnxdata.AttributeProto(name="a", type=onnxdata.AttributeProto.STRING, s=b"x\xffy")
    ours, theirs = both(onnxdata.NodeProto(op_type="X", attribute=[attr]))
    assert ours == theirs
    assert ours[0] == "utf-8"


def test_a_message_holding_itself_is_refused_as_encode_refuses_it() -> None:
    make = onnxdata.helper
    graph = make.make_graph([], "g", [], [])
    graph.node.append(make.make_node("If", ["c"], ["y"], then_branch=graph))
    graph.node[0].attribute[0].g = graph
    with pytest.raises(onnxdata.EncodeError, match="cycle"):
        printer.to_text(graph)
