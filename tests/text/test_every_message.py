"""Every message of onnx-ml.proto prints and parses as google.protobuf does (upb).

Each property draws a message of one class (``schema_messages``: oneof
members, subgraphs, nested types, unpacked floats, closed enums with values
they lack, unknown fields), takes protobuf's message of the same bytes, and
compares ``str()``, ``MessageToString`` with drawn options, ``MessageToJson``
and ``MessageToDict`` with drawn options, and what each parser reads from the
other's text.  Texts and JSON objects assembled from the schema's names (two
members of a oneof, a field twice, nulls, values of the wrong kind) must be
accepted or refused alike, with the same error, line and column.
"""

from __future__ import annotations

import io
from typing import Any

import onnx
import pytest
from google.protobuf import json_format as pb_json
from google.protobuf import text_format as pb_text
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import json_format, text_format
from tests.support import message_strategies as ms
from tests.support.outcomes import outcome
from tests.text import schema_messages as sm

CLASSES, IDS, ORACLE = sm.CLASSES, sm.IDS, sm.ORACLE

TEXT_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        **{
            name: st.booleans()
            for name in (
                "as_utf8",
                "as_one_line",
                "use_short_repeated_primitives",
                "pointy_brackets",
                "use_index_order",
                "use_field_number",
                "print_unknown_fields",
                "force_colon",
            )
        },
        "indent": st.sampled_from([0, 3]),
    },
)
JSON_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        **{
            name: st.booleans()
            for name in (
                "preserving_proto_field_name",
                "use_integers_for_enums",
                "always_print_fields_with_no_presence",
                "unquote_int64_if_possible",
                "ensure_ascii",
                "sort_keys",
            )
        },
        "indent": st.sampled_from([None, 0, 2]),
    },
)
_DICT_ONLY = ("ensure_ascii", "sort_keys", "indent")


def _no_raw_strings(m: Any) -> bool:
    """No string holds non-UTF-8 bytes (protobuf's JSON writes the repr of bytes for it).

    Walks the fields set: the repr of a model, graph or function is onnx's
    summary, which shows none of its nodes' strings.
    """
    stack = [m]
    while stack:
        for f, value in stack.pop().ListFields():
            for v in value if f.repeated else (value,):
                if isinstance(v, str):
                    try:
                        v.encode()
                    except UnicodeEncodeError:
                        return False
                elif f.kind == "message":
                    stack.append(v)
    return True


def test_every_message_of_the_proto_is_covered() -> None:
    """Each class is onnxdata's own, and onnx's message of it prints through text_format."""
    assert len(CLASSES) == 31
    for cls, theirs in ORACLE.items():
        assert cls._SPEC.full_name == theirs.DESCRIPTOR.full_name  # type: ignore[attr-defined]
        assert text_format.MessageToString(theirs()) == ""
        assert json_format.MessageToDict(theirs()) == {}


# -- printing ------------------------------------------------------------------------


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
@settings(max_examples=ms.scaled(0.08))
@given(data=st.data())
def test_printers_give_protobufs_text_and_json(cls: type, data: Any) -> None:
    ours, theirs = data.draw(sm.decoded_pair(cls))
    assert str(ours) == str(theirs)
    options = data.draw(TEXT_OPTIONS)
    expected = pb_text.MessageToString(theirs, **options)
    assert text_format.MessageToString(ours, **options) == expected
    assert text_format.MessageToString(theirs, **options) == expected  # onnx's message too
    out = io.StringIO()
    text_format.PrintMessage(ours, out, **options)
    theirs_out = io.StringIO()
    pb_text.PrintMessage(theirs, theirs_out, **options)
    assert out.getvalue() == theirs_out.getvalue()
    if not _no_raw_strings(ours):
        return
    options = data.draw(JSON_OPTIONS)
    assert json_format.MessageToJson(ours, **options) == pb_json.MessageToJson(theirs, **options)
    options = {k: v for k, v in options.items() if k not in _DICT_ONLY}
    assert json_format.MessageToDict(ours, **options) == pb_json.MessageToDict(theirs, **options)


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
@settings(max_examples=ms.scaled(0.08))
@given(data=st.data())
def test_built_messages_print_as_protobufs_of_their_bytes(cls: type, data: Any) -> None:
    """Values as set, not decoded: doubles in float32 fields are rounded as upb stores them."""
    ours = data.draw(sm.messages(cls))
    theirs = sm.oracle_of(ours)
    assert str(ours) == str(theirs)
    assert text_format.MessageToString(ours) == pb_text.MessageToString(theirs)
    assert json_format.MessageToJson(ours) == pb_json.MessageToJson(theirs)


# -- parsing what the other printed --------------------------------------------------


def _text_outcome(parse: Any, text: Any, message: Any, **kwargs: Any) -> tuple[str, Any]:
    """The bytes a text parser parsed to, or its error's text, line and column."""
    return outcome(
        lambda: parse(text, message, **kwargs),
        (pb_text.ParseError, text_format.ParseError),
        value=lambda _: message.SerializeToString(),
        error=lambda err: (str(err), err.GetLine(), err.GetColumn()),
    )


def _json_outcome(parse: Any, js: Any, message: Any, **kwargs: Any) -> tuple[str, Any]:
    """The bytes a JSON parser parsed to, or its error's text."""
    return outcome(
        lambda: parse(js, message, **kwargs),
        (pb_json.ParseError, json_format.ParseError),
        value=lambda _: message.SerializeToString(),
        error=str,
    )


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
@settings(max_examples=ms.scaled(0.08))
@given(data=st.data())
def test_parsers_read_protobufs_output_as_protobuf_does(cls: type, data: Any) -> None:
    ours, theirs = data.draw(sm.decoded_pair(cls, unknown=False))
    options = data.draw(TEXT_OPTIONS)
    text = pb_text.MessageToString(theirs, **options)
    numbers = bool(options.get("use_field_number"))
    expected = _text_outcome(pb_text.Parse, text, ORACLE[cls](), allow_field_number=numbers)
    got = _text_outcome(text_format.Parse, text, cls(), allow_field_number=numbers)
    assert got == expected
    # onnxdata's own text reads back to the same message in protobuf's parser
    assert pb_text.Parse(
        text_format.MessageToString(ours, **options), ORACLE[cls](), allow_field_number=numbers
    ).SerializeToString() == (
        pb_text.Parse(text, ORACLE[cls](), allow_field_number=numbers).SerializeToString()
    )
    if not _no_raw_strings(ours):
        return
    js = pb_json.MessageToJson(theirs, **data.draw(JSON_OPTIONS))
    expected = _json_outcome(pb_json.Parse, js, ORACLE[cls]())
    if expected[0] == "raised":  # the largest float32, which protobuf refuses: docs/compat.md
        assert "Float value too" in expected[1]
        return
    assert _json_outcome(json_format.Parse, js, cls()) == expected
    assert _json_outcome(
        pb_json.Parse, json_format.MessageToJson(ours), ORACLE[cls]()
    ) == _json_outcome(pb_json.Parse, js, ORACLE[cls]())


# -- texts and JSON objects assembled from the schema's names ------------------------

_TEXT_VALUES: dict[str, list[str]] = {
    "int32": ["0", "-1", "0x7fffffff", "2147483648", "017", "1.5", "x"],
    "int64": ["0", "-9223372036854775808", "9223372036854775808", "0x10", "1e3"],
    "uint64": ["0", "18446744073709551615", "-1", "18446744073709551616"],
    "float": ["0", "1.5", "-0.0", "nan", "-inf", "1e39", "0.1f", "3", "infinity", "x"],
    "double": ["0", "1e308", "-inf", "NaN", "1e400", "0.3333333333333333", "1f"],
    "string": ['""', "'a'", '"\\xff"', '"a" "b"', '"\\u00e9"', "a", "1"],
    "bytes": ['""', '"\\000\\377"', "'x'", '"\\u00e9"', "1"],
}


@st.composite
def _text_value(draw: Any, f: Any) -> str:
    if f.kind == "enum":
        names = list(f.enum.keys())
        numbers = [str(v) for v in f.enum.values()]
        return str(draw(st.sampled_from([*names, *numbers, "99", "-1", "BOGUS", '"FLOAT"'])))
    return str(draw(st.sampled_from(_TEXT_VALUES[f.kind])))


@st.composite
def schema_texts(draw: Any, cls: type, depth: int = 2) -> str:
    """Text format built from ``cls``'s field names: valid mostly, wrong in places."""
    spec = cls._SPEC  # type: ignore[attr-defined]
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        f = draw(st.sampled_from(spec.fields))
        sep = draw(st.sampled_from([" ", "\n", ", ", "; ", "\n  "]))
        if f.kind == "message":
            if depth <= 0:
                continue
            inner = draw(schema_texts(f.message, depth - 1))
            opener, closer = draw(st.sampled_from([("{", "}"), ("<", ">"), (": {", "}")]))
            if f.repeated and draw(st.booleans()):
                parts.append(f"{f.name}: [{{{inner}}}, <{inner}>]")
            else:
                parts.append(f"{f.name} {opener} {inner} {closer}")
        elif f.repeated and draw(st.booleans()):
            values = draw(st.lists(_text_value(f), max_size=3))
            parts.append(f"{f.name}: [{', '.join(values)}]")
        else:
            parts.append(f"{f.name}: {draw(_text_value(f))}")
        parts.append(sep)
    return "".join(parts)


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
@settings(max_examples=ms.scaled(0.08))
@given(data=st.data())
def test_schema_texts_are_accepted_or_refused_as_protobuf_does(cls: type, data: Any) -> None:
    """Parse and Merge into an empty message and into one already filled (oneofs set)."""
    text = data.draw(schema_texts(cls))
    _, before = data.draw(sm.decoded_pair(cls, depth=2, unknown=False))
    for ours_parse, theirs_parse in (
        (text_format.Parse, pb_text.Parse),
        (text_format.Merge, pb_text.Merge),
    ):
        for start in (b"", before.SerializeToString()):
            expected = _text_outcome(theirs_parse, text, ORACLE[cls].FromString(start))
            got = _text_outcome(ours_parse, text, cls.decode(start))  # type: ignore[attr-defined]
            assert got == expected, text


_JSON_VALUES: dict[str, list[Any]] = {
    "int32": [0, -1, "7", "1e3", 1.0, 1.5, True, 2**31, "x", [1]],
    "int64": [0, "-9223372036854775808", "9223372036854775808", 5, "1.0", " 1"],
    "uint64": [0, "18446744073709551615", -1, "1e19"],
    "float": [0, 1.5, -0.0, "NaN", "-Infinity", "nan", 1e39, "1e39", "x", 3],
    "double": [0, 1e308, "Infinity", "1e400", 0.1, True],
    "string": ["", "a", "é", 1, ["a"]],
    "bytes": ["", "AAE=", "AAE", "-_8", "!!", 1],
}


@st.composite
def _json_value(draw: Any, f: Any) -> Any:
    if f.kind == "enum":
        names = list(f.enum.keys())
        return draw(st.sampled_from([*names, *f.enum.values(), 99, "BOGUS", 1.0, None]))
    return draw(st.sampled_from([*_JSON_VALUES[f.kind], None]))


@st.composite
def schema_dicts(draw: Any, cls: type, depth: int = 2) -> dict[str, Any]:
    """JSON objects built from ``cls``'s field names (either spelling), right or wrong."""
    spec = cls._SPEC  # type: ignore[attr-defined]
    out: dict[str, Any] = {}
    for _ in range(draw(st.integers(0, 4))):
        f = draw(st.sampled_from(spec.fields))
        name = draw(st.sampled_from([f.json_name, f.name]))
        value: Any
        if f.kind == "message":
            if depth <= 0:
                continue
            inner = schema_dicts(f.message, depth - 1)
            if f.repeated:
                value = draw(st.one_of(st.lists(inner, max_size=2), st.none(), st.just({})))
            else:
                value = draw(st.one_of(inner, st.none(), st.just([])))
        elif f.repeated:
            value = draw(st.one_of(st.lists(_json_value(f), max_size=3), st.just(1), st.none()))
        else:
            value = draw(_json_value(f))
        out[name] = value
    return out


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
@settings(max_examples=ms.scaled(0.08))
@given(data=st.data())
def test_schema_dicts_are_accepted_or_refused_as_protobuf_does(cls: type, data: Any) -> None:
    js = data.draw(schema_dicts(cls))
    _, before = data.draw(sm.decoded_pair(cls, depth=2, unknown=False))
    ignore = data.draw(st.booleans())
    for start in (b"", before.SerializeToString()):
        expected = _json_outcome(
            pb_json.ParseDict, js, ORACLE[cls].FromString(start), ignore_unknown_fields=ignore
        )
        got = _json_outcome(
            json_format.ParseDict,
            js,
            cls.decode(start),  # type: ignore[attr-defined]
            ignore_unknown_fields=ignore,
        )
        assert got == expected, js


# -- the cases the properties are about, spelled out ---------------------------------

_TYPE_TEXT = "tensor_type {\n  elem_type: 1\n}\nsequence_type {\n}\n"


@pytest.mark.parametrize("parse", [text_format.Parse, text_format.Merge])
def test_two_members_of_a_oneof_in_text_are_protobufs_error_or_merge(parse: Any) -> None:
    theirs = pb_text.Parse if parse is text_format.Parse else pb_text.Merge
    expected = _text_outcome(theirs, _TYPE_TEXT, onnx.TypeProto())
    assert _text_outcome(parse, _TYPE_TEXT, onnxdata.TypeProto()) == expected
    if parse is text_format.Parse:
        assert expected == (
            "raised",
            (
                '4:1 : Field "sequence_type" is specified along with field "tensor_type", '
                'another member of oneof "value" for message type "onnx.TypeProto".',
                4,
                1,
            ),
        )
    else:
        assert onnxdata.TypeProto.decode(expected[1]).WhichOneof("value") == "sequence_type"


@pytest.mark.parametrize("merge", [False, True])
@pytest.mark.parametrize(
    "text", ["dim_value: 3", "dim_param: 'n'", "dim_value: 1 dim_value: 2", "denotation: 'd'"]
)
def test_a_oneof_already_set_before_the_text(merge: bool, text: str) -> None:
    """Parse refuses another member even when it was set before; Merge switches."""
    ours = onnxdata.TensorShapeProto.Dimension(dim_param="n")
    theirs = onnx.TensorShapeProto.Dimension(dim_param="n")
    parse, their_parse = (
        (text_format.Merge, pb_text.Merge) if merge else (text_format.Parse, pb_text.Parse)
    )
    assert _text_outcome(parse, text, ours) == _text_outcome(their_parse, text, theirs)
    assert ours.WhichOneof("value") == theirs.WhichOneof("value")


def test_two_members_of_a_oneof_in_json_are_protobufs_error_with_the_path() -> None:
    js = '{"sequenceType": {"elemType": {"tensorType": {}, "map_type": {}}}}'
    expected = _json_outcome(pb_json.Parse, js, onnx.TypeProto())
    assert _json_outcome(json_format.Parse, js, onnxdata.TypeProto()) == expected
    # a oneof member's error goes up unwrapped (sequenceType); another field's is wrapped
    assert expected[1] == (
        "Failed to parse elemType field: "
        'Message type "onnx.TypeProto" should not have multiple "value" oneof fields at '
        '"TypeProto.sequenceType.elemType"..'
    )
    top = '{"tensorType": {}, "sequenceType": {}}'
    assert _json_outcome(json_format.Parse, top, onnxdata.TypeProto()) == (
        "raised",
        'Message type "onnx.TypeProto" should not have multiple "value" oneof fields at '
        '"TypeProto".',
    )


@pytest.mark.parametrize(
    "js",
    [
        '{"dimValue": "1", "dimParam": null}',
        '{"dimValue": null, "dimParam": "p"}',
        '{"dimParam": null}',
        '{"dimValue": "x"}',
        '{"dim_value": 1, "dimValue": 2}',
    ],
)
def test_json_null_for_a_oneof_member_clears_only_that_member(js: str) -> None:
    for start in ({}, {"dim_param": "n"}, {"dim_value": 4}):
        ours = onnxdata.TensorShapeProto.Dimension(**start)
        theirs = onnx.TensorShapeProto.Dimension(**start)
        assert _json_outcome(json_format.Parse, js, ours) == _json_outcome(
            pb_json.Parse, js, theirs
        )
        assert ours.WhichOneof("value") == theirs.WhichOneof("value")


@pytest.mark.parametrize(
    "text",
    ["type: FLOATS", "type: 6", "type: 99", "type: BOGUS", "type: -1", 'type: "FLOAT"'],
)
def test_enum_by_name_or_number_in_text(text: str) -> None:
    assert _text_outcome(text_format.Parse, text, onnxdata.AttributeProto()) == _text_outcome(
        pb_text.Parse, text, onnx.AttributeProto()
    )


@pytest.mark.parametrize("value", ['"FLOATS"', "6", "99", '"BOGUS"', '"6"', "6.0"])
@pytest.mark.parametrize("ignore", [False, True])
def test_enum_by_name_or_number_in_json(value: str, ignore: bool) -> None:
    js = f'{{"type": {value}}}'
    ours = _json_outcome(
        json_format.Parse, js, onnxdata.AttributeProto(), ignore_unknown_fields=ignore
    )
    theirs = _json_outcome(pb_json.Parse, js, onnx.AttributeProto(), ignore_unknown_fields=ignore)
    assert ours == theirs


def test_an_attribute_prints_its_values_as_protobuf_does() -> None:
    """float32 ``f``, unpacked ``floats`` (specials, rounding), escaped bytes, enum by name."""
    a = onnxdata.AttributeProto(
        name="alpha",
        type=onnxdata.AttributeProto.FLOATS,
        f=0.1,
        floats=[float("nan"), -0.0, float("inf"), -float("inf"), 1 / 3, 1e-46, 16777217.0],
        s=b"\x00\xff\"'\\\n",
        strings=[b"\xe9t\xc3\xa9", b""],
        ints=[-1, 2**63 - 1],
    )
    theirs = sm.oracle_of(a)
    assert str(a) == str(theirs)
    assert text_format.MessageToString(a) == pb_text.MessageToString(theirs)
    assert text_format.MessageToString(a, as_utf8=False, use_short_repeated_primitives=True) == (
        pb_text.MessageToString(theirs, as_utf8=False, use_short_repeated_primitives=True)
    )
    assert json_format.MessageToJson(a) == pb_json.MessageToJson(theirs)
    assert json_format.MessageToDict(a)["ints"] == ["-1", "9223372036854775807"]
    assert "type: FLOATS\n" in str(a)


def test_an_enum_value_its_enum_lacks_is_an_unknown_field() -> None:
    data = onnxdata.AttributeProto(name="a").encode() + b"\xa0\x01\x63"  # type = 99
    ours, theirs = onnxdata.AttributeProto.decode(data), onnx.AttributeProto.FromString(data)
    for options in ({}, {"print_unknown_fields": True}):
        assert text_format.MessageToString(ours, **options) == pb_text.MessageToString(
            theirs, **options
        )
    assert str(ours) == str(theirs)
    assert json_format.MessageToJson(ours) == pb_json.MessageToJson(theirs)


def _nested_types(levels: int, module: Any) -> Any:
    t = module.TypeProto()
    inner = t
    for _ in range(levels):
        inner = inner.sequence_type.elem_type
    inner.tensor_type.elem_type = 1
    return t


def test_subgraphs_and_nested_types_print_as_protobuf_does() -> None:
    def model(module: Any) -> Any:
        m = module.ModelProto(ir_version=10)
        m.opset_import.add(domain="", version=21)
        node = m.graph.node.add(op_type="If", input=["c"], output=["y"])
        branch = node.attribute.add(name="then_branch", type=module.AttributeProto.GRAPH)
        branch.g.name = "then"
        out = branch.g.output.add(name="y")
        out.type.CopyFrom(_nested_types(3, module))
        out.type.tensor_type.shape.dim.add(dim_param="N")
        out.type.tensor_type.shape.dim.add(dim_value=3)
        return m

    ours, theirs = model(onnxdata), model(onnx)
    assert ours.encode() == theirs.SerializeToString()
    assert str(ours) == str(theirs)
    assert text_format.MessageToString(ours, as_one_line=True) == pb_text.MessageToString(
        theirs, as_one_line=True
    )
    assert json_format.MessageToJson(ours) == pb_json.MessageToJson(theirs)
    text = pb_text.MessageToString(theirs)
    assert text_format.Parse(text, onnxdata.ModelProto()).encode() == theirs.SerializeToString()


@pytest.mark.parametrize("levels", [40, 49, 50, 51, 60])
def test_deep_types_print_as_protobuf_does_to_the_codecs_depth(levels: int) -> None:
    """A TypeProto two messages deeper per level: past 100 messages every printer refuses."""
    ours, theirs = _nested_types(levels, onnxdata), _nested_types(levels, onnx)
    if 2 * levels + 1 <= 100:
        assert str(ours) == str(theirs)
        assert text_format.MessageToString(ours) == pb_text.MessageToString(theirs)
        assert json_format.MessageToJson(ours) == pb_json.MessageToJson(theirs)
        return
    with pytest.raises(ValueError, match="nested more than 100"):
        text_format.MessageToString(ours)
    with pytest.raises(json_format.SerializeToJsonError, match="nested more than 100"):
        json_format.MessageToJson(ours)
    assert str(ours) == repr(ours)  # str() never fails


def _chain_text(messages: int) -> str:
    """A TypeProto holding ``messages`` messages inside one another, the root included."""
    names = ["sequence_type", "elem_type"] * messages
    return " ".join(f"{name} {{" for name in names[: messages - 1]) + " }" * (messages - 1)


def _chain_json(messages: int) -> str:
    names = ["sequenceType", "elemType"] * messages
    return "".join(f'{{"{name}": ' for name in names[: messages - 1]) + "{}" + "}" * messages


@pytest.mark.parametrize("messages", [100, 101, 102, 5000])
@pytest.mark.parametrize("limit", [None, 100, 101])
def test_deep_text_parses_as_protobuf_to_the_codecs_depth(messages: int, limit: Any) -> None:
    """Up to 101 messages (what upb decodes) as protobuf; deeper, a ParseError, never a
    RecursionError (protobuf takes a few hundred, then raises RecursionError)."""
    text = _chain_text(messages)
    got = _text_outcome(text_format.Parse, text, onnxdata.TypeProto(), max_recursion_depth=limit)
    if messages <= 101:
        expected = _text_outcome(pb_text.Parse, text, onnx.TypeProto(), max_recursion_depth=limit)
        assert got == expected
        return
    kind, (message, line, column) = got
    assert kind == "raised" and "too deep" in message
    if limit is None:
        assert line == 1
        assert message.endswith("more than 100 messages inside one another")
        braces = [i for i, c in enumerate(text) if c == "{"]
        assert column == braces[100] + 1  # the brace that opens the 102nd message


@pytest.mark.parametrize("messages", [100, 101, 102, 5000])
@pytest.mark.parametrize("limit", [100, 101, 10_000])
def test_deep_json_parses_as_protobuf_to_the_codecs_depth(messages: int, limit: int) -> None:
    js = _chain_json(messages)
    got = _json_outcome(json_format.Parse, js, onnxdata.TypeProto(), max_recursion_depth=limit)
    expected = _json_outcome(pb_json.Parse, js, onnx.TypeProto(), max_recursion_depth=limit)
    if messages <= 101 or expected[0] == "raised":
        assert got == expected
    else:
        assert got[0] == "raised" and "more than 100 messages inside one another" in got[1]
