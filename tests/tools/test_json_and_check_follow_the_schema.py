"""JSON and check() know the messages only through the schema.

A copy of the declarations in ``_messages/declarations.py`` with one more field in
TensorProto and SequenceProto is built as a separate module; JSON writes and
reads the new fields, and check() applies the same ONNX rules to the copy's
messages (found by message name) and checks the new fields' values by kind,
with no edit to either module.  Also: JSON's documented errors on nesting.
"""

from __future__ import annotations

import inspect
import json
import sys
import types
from typing import Any

import pytest

import onnxdata
from onnxdata import OptionalProto, check
from onnxdata.json_format import MessageToDict, MessageToJson, Parse, ParseError

UNKNOWN_LINE = '    unknown_fields: bytes = unknown(default=b"")\n'


def add_field(source: str, cls: str, line: str) -> str:
    """``source`` with ``line`` declared last in class ``cls`` (at class level)."""
    start = source.index(f"class {cls}(Message):")
    at = source.index("\n" + UNKNOWN_LINE, start) + 1
    return source[:at] + line + source[at:]


@pytest.fixture(scope="module")
def copy() -> Any:
    source = inspect.getsource(onnxdata._messages.declarations)
    source = add_field(
        source, "TensorProto", '    comment: str | None = field(17, "string", default=None)\n'
    )
    source = add_field(
        source,
        "SequenceProto",
        "    shapes: MutableSequence[TensorProto.Segment] = field(\n"
        '        9, "message", message="TensorProto.Segment", default_factory=REPEATED\n'
        "    )\n",
    )
    name = "onnxdata._messages.copy_for_tests"
    module = types.ModuleType(name)
    module.__package__ = "onnxdata._messages"
    sys.modules[name] = module
    try:
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)
        yield module
    finally:
        del sys.modules[name]


def test_json_writes_and_reads_the_new_fields(copy: Any) -> None:
    t = copy.TensorProto(dims=[2], data_type=1, float_data=[1.0, 2.5], comment="new")
    s = copy.SequenceProto(
        elem_type=1, tensor_values=[t], shapes=[copy.TensorProto.Segment(begin=0, end=2)]
    )
    obj = MessageToDict(s)
    assert obj == {
        "elemType": 1,
        "tensorValues": [{"dims": ["2"], "dataType": 1, "floatData": [1.0, 2.5], "comment": "new"}],
        "shapes": [{"begin": "0", "end": "2"}],
    }
    back = Parse(MessageToJson(s), copy.SequenceProto())
    assert type(back) is copy.SequenceProto
    assert back == s
    assert Parse('{"comment": "x"}', copy.TensorProto()).comment == "x"
    with pytest.raises(ParseError, match="not iterable"):
        Parse('{"shapes": [3]}', copy.SequenceProto())
    # The original classes know nothing of the new fields.
    with pytest.raises(ParseError, match='no field named "comment"'):
        Parse('{"comment": "x"}', onnxdata.TensorProto())


def test_check_applies_the_same_rules_by_message_name(copy: Any) -> None:
    ok = copy.TensorProto(dims=[1], data_type=1, float_data=[1.0], comment="fine")
    assert check(ok) == []
    short = copy.TensorProto(dims=[2], data_type=1, float_data=[1.0])
    assert [str(v) for v in check(short)] == [
        "TensorProto.float_data: 1 values, but dims [2] of FLOAT need 2"
    ]
    mixed = copy.SequenceProto(
        elem_type=1,
        tensor_values=[ok, copy.TensorProto(dims=[1], data_type=7, int64_data=[1])],
    )
    assert [v.path for v in check(mixed)] == ["SequenceProto.tensor_values[1].data_type"]
    wrong_element = copy.SequenceProto(elem_type=2, tensor_values=[ok])
    assert [v.path for v in check(wrong_element)] == ["SequenceProto.tensor_values"]


def test_check_checks_the_new_fields_by_kind(copy: Any) -> None:
    t = copy.TensorProto(comment=5)
    assert [str(v) for v in check(t)] == ["TensorProto.comment: expected a str, found int"]
    s = copy.SequenceProto(shapes=[copy.TensorProto.Segment(begin=0), copy.TensorProto()])
    assert [str(v) for v in check(s)] == [
        "SequenceProto.shapes[1]: expected a TensorProto.Segment, found TensorProto"
    ]
    # An original class in a copy's field is the wrong class.
    s = copy.SequenceProto(elem_type=1, tensor_values=[onnxdata.TensorProto()])
    assert [v.path for v in check(s)] == ["SequenceProto.tensor_values[0]"]


def chain(depth: int) -> OptionalProto:
    o = OptionalProto()
    for _ in range(depth):
        o = OptionalProto(elem_type=OptionalProto.OPTIONAL, optional_value=o)
    return o


def test_to_json_refuses_nesting_the_encoder_refuses() -> None:
    assert MessageToDict(chain(100))  # 100 levels below the top: allowed
    for depth in (101, 5000):
        with pytest.raises(ValueError, match="nested more than 100 deep"):
            MessageToJson(chain(depth))
    o = OptionalProto(elem_type=OptionalProto.OPTIONAL)
    o.optional_value = o
    with pytest.raises(ValueError, match="contains itself"):
        MessageToJson(o)


def test_from_json_refuses_what_json_format_refuses_on_depth() -> None:
    def nested(depth: int) -> str:
        text = "{}"
        for _ in range(depth):
            text = '{"optionalValue": ' + text + "}"
        return text

    levels = 0
    o: Any = Parse(nested(99), OptionalProto())  # json_format.Parse takes 99
    while o.HasField("optional_value"):
        o, levels = o.optional_value, levels + 1
    assert levels == 99
    with pytest.raises(ParseError, match="Message too deep"):
        Parse(nested(100), OptionalProto())  # and refuses 100
    with pytest.raises(ParseError):
        Parse("[" * 100_000 + "]" * 100_000, OptionalProto())  # deeper than json can read


def test_from_json_odd_numbers_and_text() -> None:
    with pytest.raises(ParseError, match="too large"):
        Parse('{"floatData": [' + "9" * 400 + "]}", onnxdata.TensorProto())
    with pytest.raises(ParseError, match="can't encode"):
        Parse(json.dumps({"rawData": "\ud800"}), onnxdata.TensorProto())
    with pytest.raises(ParseError, match="infinity"):
        Parse('{"dataLocation": Infinity}', onnxdata.TensorProto())
