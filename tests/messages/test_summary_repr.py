"""``repr`` of ``ModelProto``, ``GraphProto`` and ``FunctionProto`` is onnx's summary.

``import onnx`` replaces these three classes' ``__repr__`` with a summary
(``ModelProto(ir_version=10, opset_import={'': 19}, graph=GraphProto('g',
node=<1 nodes>))``); onnxdata's declarations name the same summary
(``_messages/summaries.py``).  Compared with onnx's repr of the message read
from the same bytes: drawn messages of the three classes, summaries drawn for
their odd cases (names with quotes, newlines, non-ASCII, not UTF-8; an
operator set imported twice), onnx's own two repr tests, empty messages and
large counts.  Every other message keeps the dataclass repr; a message that
holds itself still prints; a field holding a value protobuf could not hold
falls back to the dataclass repr instead of failing; and reading for the repr
sets nothing.
"""

from __future__ import annotations

import onnx
import onnx.parser
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
import onnxdata.parser
from onnxdata import (
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    TrainingInfoProto,
    ValueInfoProto,
)
from tests.support.message_strategies import examples, messages_of
from tests.support.oracle import ORACLE

SUMMARIZED = (ModelProto, GraphProto, FunctionProto)
_ids = {"ids": lambda c: c.__qualname__}

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def assert_onnxs_repr(message: onnxdata.Message) -> str:
    """``repr(message)`` equals onnx's repr of the message read from its bytes; and
    so does onnxdata's repr of the message read back."""
    data = message.encode()
    theirs = repr(ORACLE[type(message)].FromString(data))
    assert repr(message) == theirs
    assert repr(type(message).decode(data)) == theirs
    return theirs


@pytest.mark.parametrize("cls", SUMMARIZED, **_ids)
@settings(max_examples=examples(0.5, heavy=True))
@given(data=st.data())
def test_repr_of_drawn_messages_is_onnxs(cls: type, data: st.DataObject) -> None:
    assert_onnxs_repr(data.draw(messages_of(cls, 3, False), label="message"))


# Text that onnx's summary prints as it is: quotes, braces, line breaks, non-ASCII,
# and raw bytes that are not UTF-8 (read by protobuf as bytes, printed as b'...').
_ODD = st.one_of(
    st.sampled_from(["", "'", '"', "a'b", "{x}", "\n", "é", "名前", "\\", "\x00", "'\n'"]),
    st.text(max_size=6),
    st.binary(min_size=1, max_size=4).map(lambda b: b.decode("utf-8", "surrogateescape")),
)
# Few domains, so that an operator set is often imported twice.
_OPSETS = st.lists(
    st.builds(
        OperatorSetIdProto,
        domain=st.sampled_from(["", "ai.onnx.ml", "'", "é"]) | _ODD,
        version=st.integers(INT64_MIN, INT64_MAX),
    ),
    max_size=4,
)
_VALUES = st.lists(st.builds(ValueInfoProto), max_size=3)
_NODES = st.lists(st.builds(NodeProto), max_size=3)


def _maybe(strategy: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.none() | strategy  # None: the field left unset


_GRAPHS = st.builds(
    GraphProto,
    name=_maybe(_ODD),
    node=_NODES,
    initializer=st.lists(st.builds(onnxdata.TensorProto), max_size=2),
    input=_VALUES,
    output=_VALUES,
    value_info=_VALUES,
    doc_string=_maybe(_ODD),
)
_FUNCTIONS = st.builds(
    FunctionProto,
    name=_maybe(_ODD),
    input=st.lists(_ODD, max_size=3),
    output=st.lists(_ODD, max_size=3),
    attribute=st.lists(_ODD, max_size=3),
    node=_NODES,
    opset_import=_OPSETS,
    domain=_maybe(_ODD),
    overload=_maybe(_ODD),
)
_MODELS = st.builds(
    ModelProto,
    ir_version=_maybe(st.integers(INT64_MIN, INT64_MAX)),
    opset_import=_OPSETS,
    producer_name=_maybe(_ODD),
    producer_version=_maybe(_ODD),
    domain=_maybe(_ODD),
    graph=_maybe(_GRAPHS),
    functions=st.lists(_FUNCTIONS, max_size=2),
)


@settings(max_examples=examples(0.3))
@given(message=st.one_of(_MODELS, _GRAPHS, _FUNCTIONS))
def test_repr_of_every_summarized_field_is_onnxs(message: onnxdata.Message) -> None:
    assert_onnxs_repr(message)


# onnx 1.23.2's tests/python/basic_test.py: test_model_and_graph_repr, test_function_repr.
_CAST_MODEL = """
   <
     ir_version: 10,
     opset_import: [ "" : 19]
   >
   agraph (float[N] X) => (float[N] C)
   <
     float[1] weight = {1}
   >
   {
      C = Cast<to=1>(X)
   }
"""
_SELU_MODEL = """
    <
    ir_version: 9,
    opset_import: [ "" : 15, "custom_domain" : 1],
    producer_name: "FunctionProtoTest",
    producer_version: "1.0",
    model_version: 1,
    doc_string: "A test model for model local functions."
  >
 agraph (float[N] x) => (float[N] out)
 {
    out = custom_domain.Selu<alpha=2.0, gamma=3.0>(x)
 }
 <
 domain: "custom_domain",
 opset_import: [ "" : 15],
 doc_string: "Test function proto"
 >
   Selu
   <alpha: float=1.67326319217681884765625, gamma: float=1.05070102214813232421875>
   (X) => (C)
   {
       constant_alpha = Constant<value_float: float=@alpha>()
       constant_gamma = Constant<value_float: float=@gamma>()
       alpha_x = CastLike(constant_alpha, X)
       gamma_x = CastLike(constant_gamma, X)
       exp_x = Exp(X)
       alpha_x_exp_x = Mul(alpha_x, exp_x)
       alpha_x_exp_x_ = Sub(alpha_x_exp_x, alpha_x)
       neg = Mul(gamma_x, alpha_x_exp_x_)
       pos = Mul(gamma_x, X)
       _zero = Constant<value_float=0.0>()
       zero = CastLike(_zero, X)
       less_eq = LessOrEqual(X, zero)
       C = Where(less_eq, neg, pos)
   }
"""


def test_onnxs_model_and_graph_repr() -> None:
    model = ModelProto(ir_version=onnxdata.IR_VERSION, producer_name="onnx-test")
    model.graph.name = "test"
    expected = "ModelProto(ir_version=14, producer_name='onnx-test', graph=GraphProto('test'))"
    assert repr(model) == expected == assert_onnxs_repr(model)

    model = onnxdata.parser.parse_model(_CAST_MODEL)
    graph = (
        "GraphProto('agraph', input=<1 inputs>, output=<1 outputs>, "
        "initializer=<1 initializers>, node=<1 nodes>)"
    )
    assert repr(model) == f"ModelProto(ir_version=10, opset_import={{'': 19}}, graph={graph})"
    assert repr(model.graph) == graph
    assert repr(model) == repr(onnx.parser.parse_model(_CAST_MODEL))
    assert_onnxs_repr(model)


def test_onnxs_function_repr() -> None:
    model = onnxdata.parser.parse_model(_SELU_MODEL)
    assert repr(model) == (
        "ModelProto(ir_version=9, opset_import={'': 15, 'custom_domain': 1}, "
        "producer_name='FunctionProtoTest', producer_version='1.0', graph=GraphProto('agraph', "
        "input=<1 inputs>, output=<1 outputs>, node=<1 nodes>), functions=<1 functions>)"
    )
    assert repr(model.functions[0]) == (
        "FunctionProto('Selu', domain='custom_domain', opset_import={'': 15}, "
        "input=<1 inputs>, output=<1 outputs>, node=<13 nodes>)"
    )
    theirs = onnx.parser.parse_model(_SELU_MODEL)
    assert repr(model.functions[0]) == repr(theirs.functions[0])
    # ``attribute`` (the attributes' names) prints as onnx formats protobuf's container
    model.functions[0].attribute.extend(["alpha", "gam'ma", "é\n"])
    assert "attribute=['alpha', \"gam'ma\", 'é\\n'], node=<13 nodes>" in repr(model.functions[0])
    assert_onnxs_repr(model.functions[0])


@pytest.mark.parametrize("cls", SUMMARIZED, **_ids)
def test_empty_messages(cls: type) -> None:
    message = cls()
    text = assert_onnxs_repr(message)
    assert (
        text
        == {
            ModelProto: "ModelProto(ir_version=0, graph=GraphProto(''))",
            GraphProto: "GraphProto('')",
            FunctionProto: "FunctionProto('')",
        }[cls]
    )
    # Reading every field for the repr sets none (the unset graph included).
    assert message.ListFields() == [] and message.encode() == b""


def test_fields_set_to_their_defaults_are_left_out_as_onnx_leaves_them() -> None:
    model = ModelProto(ir_version=0, domain="", producer_name="", producer_version="")
    model.graph.SetInParent()
    assert model.ListFields() != []
    assert assert_onnxs_repr(model) == "ModelProto(ir_version=0, graph=GraphProto(''))"
    function = FunctionProto(name="", domain="", overload="", attribute=[])
    assert assert_onnxs_repr(function) == "FunctionProto('')"


def test_names_are_printed_as_they_are() -> None:
    graph = GraphProto(name='it\'s\n{a}\t"名"')
    assert assert_onnxs_repr(graph) == "GraphProto('it's\n{a}\t\"名\"')"
    raw = b"a\xff".decode("utf-8", "surrogateescape")  # read from bytes that are not UTF-8
    function = FunctionProto(name=raw, domain=raw, attribute=[raw, "b"])
    assert assert_onnxs_repr(function) == (
        "FunctionProto('b'a\\xff'', domain='b'a\\xff'', attribute=[b'a\\xff', 'b'])"
    )


def test_an_operator_set_imported_twice_shows_its_last_version() -> None:
    opsets = [("", 1), ("ai.onnx.ml", 2), ("", INT64_MIN), ("'", INT64_MAX)]
    model = ModelProto(
        ir_version=INT64_MAX,
        opset_import=[OperatorSetIdProto(domain=d, version=v) for d, v in opsets],
    )
    assert assert_onnxs_repr(model) == (
        f"ModelProto(ir_version={INT64_MAX}, opset_import={{'': {INT64_MIN}, "
        f"'ai.onnx.ml': 2, \"'\": {INT64_MAX}}}, graph=GraphProto(''))"
    )
    model.opset_import.add(domain="x")  # an unset version reads 0
    assert "'x': 0}" in assert_onnxs_repr(model)


def test_large_counts() -> None:
    count = 100_000
    graph = GraphProto(name="g", node=[NodeProto() for _ in range(count)])
    graph.input.extend(ValueInfoProto() for _ in range(count + 1))
    assert assert_onnxs_repr(graph) == "GraphProto('g', input=<100001 inputs>, node=<100000 nodes>)"
    function = FunctionProto(input=["x"] * count)
    assert assert_onnxs_repr(function) == "FunctionProto('', input=<100000 inputs>)"


def test_every_other_message_keeps_the_dataclass_repr() -> None:
    assert repr(NodeProto(name="n")) == "NodeProto(name='n')"
    assert (
        repr(OperatorSetIdProto(domain="", version=1)) == "OperatorSetIdProto(domain='', version=1)"
    )
    # a summarized message inside one prints its summary
    training = TrainingInfoProto(algorithm=GraphProto(name="g", node=[NodeProto()]))
    assert repr(training) == "TrainingInfoProto(algorithm=GraphProto('g', node=<1 nodes>))"
    # the hook is no attribute of the class: not a method, not listed
    assert not hasattr(ModelProto, "_REPR") and "_REPR" not in dir(GraphProto)


def test_str_stays_the_text_format() -> None:
    model = onnxdata.parser.parse_model(_CAST_MODEL)
    assert str(model) == str(onnx.parser.parse_model(_CAST_MODEL)) != repr(model)


def test_a_graph_that_holds_itself() -> None:
    graph = GraphProto(name="g")
    attribute = graph.node.add(op_type="If").attribute.add(name="then_branch")
    attribute.g = graph
    assert attribute.g is graph
    assert repr(graph) == "GraphProto('g', node=<1 nodes>)"
    assert repr(graph.node[0]) == (
        "NodeProto(op_type='If', attribute=[AttributeProto(name='then_branch', "
        "g=GraphProto('g', node=<1 nodes>))])"
    )
    model = ModelProto(ir_version=10)
    model.graph = graph
    assert repr(model) == "ModelProto(ir_version=10, graph=GraphProto('g', node=<1 nodes>))"


def test_a_model_that_holds_itself_ends() -> None:
    # No type protobuf would take in ``graph``: kept as given, for encode() to refuse.
    model = ModelProto(ir_version=3)
    model.graph = model  # type: ignore[assignment]
    assert repr(model) == "ModelProto(ir_version=3, graph=...)"


@pytest.mark.parametrize(
    "build, expected",
    [
        (lambda: GraphProto(name="g", node="ab"), "GraphProto(node='ab', name='g')"),
        (lambda: FunctionProto(attribute="ab"), "FunctionProto(attribute='ab')"),
        (lambda: ModelProto(functions=5), "ModelProto(functions=5)"),
        (
            lambda: ModelProto(opset_import=[OperatorSetIdProto(domain=[])]),  # unhashable
            "ModelProto(opset_import=[OperatorSetIdProto(domain=[])])",
        ),
    ],
    ids=["nodes-a-string", "attribute-a-string", "functions-an-int", "domain-a-list"],
)
def test_a_value_protobuf_could_not_hold_falls_back_to_the_dataclass_repr(
    build: object, expected: str
) -> None:
    message = build()  # type: ignore[operator]
    assert repr(message) == expected
    with pytest.raises((TypeError, ValueError)):
        message.encode()
